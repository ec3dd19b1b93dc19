// Processes for the fleet's end-to-end tests: a pts-native-server on a chosen (or free)
// loopback port that can be killed and started again on the same port, and pts-native agents,
// each with its own PTS_NATIVE_HOME and environment, their output in a log file.
#pragma once

#include <signal.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tests/server/server_process.h"

namespace ptsn::test {

inline std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A child with `env` added to ours, stdout+stderr to `log`.
inline pid_t Spawn(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
                   const std::string& log) {
  pid_t pid = fork();
  if (pid == 0) {
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    FILE* f = fopen(log.c_str(), "a");
    if (f) {
      dup2(fileno(f), 1);
      dup2(fileno(f), 2);
    }
    std::vector<char*> argv;
    for (auto& a : const_cast<std::vector<std::string>&>(args)) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

inline void Stop(pid_t& pid, int sig = SIGTERM) {
  if (pid <= 0) return;
  ::kill(pid, sig);
  waitpid(pid, nullptr, 0);
  pid = -1;
}

// A port nobody listens on now.
inline int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  int port = ntohs(a.sin_port);
  close(fd);
  return port;
}

class FleetServer {
 public:
  FleetServer(std::vector<std::string> args, std::string log, int port = 0)
      : args_(std::move(args)), log_(std::move(log)), port_(port ? port : FreePort()) {
    Start();
  }
  ~FleetServer() { Stop(pid_, SIGKILL); }
  void Start() {
    std::vector<std::string> argv{PTSN_SERVER_BINARY};
    argv.insert(argv.end(), args_.begin(), args_.end());
    argv.push_back("--listen");
    argv.push_back("127.0.0.1:" + std::to_string(port_));
    pid_ = Spawn(argv, {}, log_);
    for (int i = 0; i < 500; ++i) {
      if (ReadText(log_).find("listening on http://127.0.0.1:" + std::to_string(port_)) != std::string::npos) {
        started_ += 1;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    throw std::runtime_error("pts-native-server did not start: " + ReadText(log_));
  }
  void Kill(int sig = SIGKILL) { Stop(pid_, sig); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }
  pid_t pid() const { return pid_; }

 private:
  std::vector<std::string> args_;
  std::string log_;
  int port_;
  pid_t pid_ = -1;
  int started_ = 0;
};

// Runs a pts-native command (with `env` in front) through the shell; exit code and output.
inline std::pair<int, std::string> PtsNative(const std::string& args, const std::string& env = "") {
  return Shell(env + " '" + std::string(PTSN_BINARY) + "' " + args);
}

inline std::string AgentToken(const std::string& data_dir, const std::string& machine) {
  auto [rc, out] = Shell(std::string("'") + PTSN_SERVER_BINARY + "' token create --agent " + machine + " --data '" + data_dir + "'");
  if (rc != 0) throw std::runtime_error(out);
  return LastLine(out);
}

inline std::string UserToken(const std::string& data_dir, const std::string& user) {
  auto [rc, out] = Shell(std::string("'") + PTSN_SERVER_BINARY + "' token create " + user + " --data '" + data_dir + "'");
  if (rc != 0) throw std::runtime_error(out);
  return LastLine(out);
}

}  // namespace ptsn::test
