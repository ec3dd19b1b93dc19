// A child process on a pseudo-terminal, for end-to-end tests of what a command asks a user:
// the test plays the user on the master side (WaitFor what it prints, Send a line, Finish).
#pragma once

#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>

namespace ptsn::test {

// A child process on the slave side of a pty; the test plays the user on the master side.
class PtySession {
 public:
  explicit PtySession(const std::string& shell_command) {
    struct winsize ws{};
    ws.ws_row = 40;
    ws.ws_col = 120;
    pid_ = forkpty(&master_, nullptr, nullptr, &ws);
    if (pid_ == 0) {
      execl("/bin/sh", "sh", "-c", shell_command.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  ~PtySession() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (master_ >= 0) close(master_);
  }
  bool started() const { return pid_ > 0 && master_ >= 0; }

  // Reads until `text` shows up after what earlier waits consumed; false on timeout or EOF.
  bool WaitFor(const std::string& text, double seconds = 30) {
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
    while (true) {
      size_t at = output_.find(text, consumed_);
      if (at != std::string::npos) {
        consumed_ = at + text.size();
        return true;
      }
      if (!ReadSome(deadline)) return false;
    }
  }
  void Send(const std::string& line) {
    std::string data = line + "\n";
    ASSERT_EQ(write(master_, data.data(), data.size()), static_cast<ssize_t>(data.size()));
  }
  // Drains the output until the child exits; its exit code (-1 on timeout).
  int Finish(double seconds = 60) {
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
    while (ReadSome(deadline)) {
    }
    int status = 0;
    for (;;) {
      pid_t r = waitpid(pid_, &status, WNOHANG);
      if (r == pid_) break;
      if (std::chrono::steady_clock::now() > deadline) return -1;
      usleep(10000);
    }
    reaped_ = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  const std::string& output() const { return output_; }

 private:
  bool ReadSome(std::chrono::steady_clock::time_point deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    struct pollfd p{master_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
    char buf[4096];
    ssize_t n = read(master_, buf, sizeof buf);  // EIO once the child side is closed
    if (n <= 0) return false;
    output_.append(buf, static_cast<size_t>(n));
    return true;
  }
  pid_t pid_ = -1;
  int master_ = -1;
  bool reaped_ = false;
  std::string output_;
  size_t consumed_ = 0;
};

}  // namespace ptsn::test
