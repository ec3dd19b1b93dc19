// Runs pts-native-server as a child process on a free loopback port, for end-to-end tests that
// need a real process (kill -9, restarts, the CLI talking to it).
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace ptsn::test {

class ServerProcess {
 public:
  // `args` follow the binary, e.g. {"--data", dir}; "--listen 127.0.0.1:0" is added.
  // PTSN_SERVER_UNDER_TEST runs another build's binary instead (to show a test fails on it).
  explicit ServerProcess(std::vector<std::string> args) {
    const char* other = std::getenv("PTSN_SERVER_UNDER_TEST");
    args.insert(args.begin(), other && *other ? other : PTSN_SERVER_BINARY);
    args.push_back("--listen");
    args.push_back("127.0.0.1:0");
    int out[2];
    if (pipe(out) != 0) throw std::runtime_error("pipe");
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], 1);
      close(out[0]);
      close(out[1]);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(out[1]);
    // First line: "pts-native-server: listening on http://127.0.0.1:PORT (...)".
    FILE* f = fdopen(out[0], "r");
    char line[512] = {0};
    if (!fgets(line, sizeof line, f)) {
      fclose(f);
      Kill();
      throw std::runtime_error("pts-native-server did not start");
    }
    fclose(f);
    std::string s = line;
    auto p = s.find("127.0.0.1:");
    if (p == std::string::npos) throw std::runtime_error("unexpected first line: " + s);
    port_ = std::stoi(s.substr(p + 10));
  }
  ~ServerProcess() { Kill(); }
  ServerProcess(const ServerProcess&) = delete;

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  void Kill(int sig = SIGKILL) {
    if (pid_ > 0) {
      ::kill(pid_, sig);
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
  }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

// Runs a command through the shell; returns its exit code and stdout+stderr.
inline std::pair<int, std::string> Shell(const std::string& cmd) {
  std::string out;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return {-1, ""};
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out};
}

inline std::string LastLine(const std::string& s) {
  std::string t = s;
  while (!t.empty() && t.back() == '\n') t.pop_back();
  auto nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

}  // namespace ptsn::test
