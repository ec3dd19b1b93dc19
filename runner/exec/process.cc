#include "runner/exec/process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "runner/common/strings.h"

extern char** environ;

namespace ptsn::exec {

namespace {

std::atomic<pid_t> g_child_group{0};
std::atomic<int> g_interrupt{0};
std::atomic<int> g_unforwarded{0};  // a signal that came while no child group was known

void ForwardSignal(int sig) {
  int expected = 0;
  g_interrupt.compare_exchange_strong(expected, sig);
  pid_t group = g_child_group.load();
  if (group > 0) kill(-group, sig);
  else g_unforwarded.store(sig);
}

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Waits for `pid` up to `timeout` seconds (<0 = forever) or until `*cancel`. True when it was reaped.
bool WaitFor(pid_t pid, int pidfd, double timeout, int* status, const std::atomic<bool>* cancel = nullptr) {
  auto start = Clock::now();
  for (;;) {
    pid_t r = waitpid(pid, status, WNOHANG);
    if (r == pid) return true;
    if (r < 0 && errno != EINTR) return true;  // already gone: treat as reaped
    if (cancel && cancel->load()) return false;
    double left = timeout < 0 ? 1.0 : timeout - SecondsSince(start);
    if (timeout >= 0 && left <= 0) return false;
    int ms = static_cast<int>(std::min(left, 1.0) * 1000) + 1;
    if (pidfd >= 0) {
      pollfd p{pidfd, POLLIN, 0};
      poll(&p, 1, ms);  // wakes when the child exits; EINTR just loops
    } else {
      // No pidfd (old kernel): poll waitpid with a short sleep.
      std::this_thread::sleep_for(std::chrono::milliseconds(std::min(ms, 2)));
    }
  }
}

}  // namespace

const char* ProcessStatusName(ProcessStatus status) {
  switch (status) {
    case ProcessStatus::kExited: return "exited";
    case ProcessStatus::kSignaled: return "signaled";
    case ProcessStatus::kTimedOut: return "timed-out";
    case ProcessStatus::kSpawnFailed: return "spawn-failed";
    case ProcessStatus::kInterrupted: return "interrupted";
  }
  return "?";
}

std::string ProcessOutcome::Describe() const {
  std::ostringstream s;
  switch (status) {
    case ProcessStatus::kExited: s << "exited with status " << exit_code; break;
    case ProcessStatus::kSignaled: s << "killed by signal " << signal << " (" << strsignal(signal) << ")"; break;
    case ProcessStatus::kTimedOut: s << "timed out after " << elapsed_seconds << " s (process group killed)"; break;
    case ProcessStatus::kSpawnFailed: s << "could not be started: " << error; break;
    case ProcessStatus::kInterrupted: s << "interrupted by signal " << signal << " (" << strsignal(signal) << ")"; break;
  }
  return s.str();
}

void InstallSignalForwarding() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  struct sigaction sa{};
  sa.sa_handler = ForwardSignal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
}

int InterruptRequested() { return g_interrupt.load(); }
void ClearInterrupt() { g_interrupt.store(0); }

Environment CurrentEnvironment() {
  Environment env;
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return env;
}

ProcessOutcome PosixProcessRunner::Run(const ProcessSpec& spec) {
  ProcessOutcome out;
  if (spec.argv.empty()) {
    out.error = "empty command";
    return out;
  }
  InstallSignalForwarding();
  // Everything the child needs is prepared before fork: after fork only async-signal-safe calls.
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : spec.env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp, argv;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = spec.argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // PATH lookup with the child's PATH, not ours.
  std::string program = args[0];
  if (program.find('/') == std::string::npos) {
    auto it = spec.env.find("PATH");
    std::string path = it != spec.env.end() ? it->second : "/usr/local/bin:/usr/bin:/bin";
    for (const auto& dir : Split(path, ':')) {
      std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
      if (access(candidate.c_str(), X_OK) == 0) {
        program = candidate;
        break;
      }
    }
  }
  int out_fd = -1;
  if (spec.output_path.empty()) {
    out_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
  } else {
    int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (spec.append_output ? O_APPEND : O_TRUNC);
    out_fd = open(spec.output_path.c_str(), flags, 0644);
  }
  if (out_fd < 0) {
    out.error = spec.output_path + ": " + std::strerror(errno);
    return out;
  }
  int in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  // A pipe that reports exec failure: closed by O_CLOEXEC on success, carries errno otherwise.
  int err_pipe[2];
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    out.error = std::string("pipe: ") + std::strerror(errno);
    close(out_fd);
    if (in_fd >= 0) close(in_fd);
    return out;
  }
  auto start = Clock::now();
  const pid_t parent = getpid();
  g_unforwarded.store(0);
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    if (spec.die_with_parent) {
      prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (getppid() != parent) _exit(127);  // the parent died before prctl
    }
    struct sigaction dfl{};
    dfl.sa_handler = SIG_DFL;
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) sigaction(sig, &dfl, nullptr);
    if (in_fd >= 0) dup2(in_fd, 0);
    dup2(out_fd, 1);
    dup2(out_fd, 2);
    int err = 0;
    if (!spec.working_directory.empty() && chdir(spec.working_directory.c_str()) != 0) {
      err = errno;
    } else {
      execve(program.c_str(), argv.data(), envp.data());
      err = errno;
    }
    ssize_t ignored = write(err_pipe[1], &err, sizeof err);
    (void)ignored;
    _exit(127);
  }
  close(err_pipe[1]);
  close(out_fd);
  if (in_fd >= 0) close(in_fd);
  if (pid < 0) {
    out.error = std::string("fork: ") + std::strerror(errno);
    close(err_pipe[0]);
    return out;
  }
  setpgid(pid, pid);  // also from the parent: no race with a kill before the child ran setpgid
  g_child_group.store(pid);
  // A signal that came between fork and the store above found no group to forward to (an agent
  // killed then left its benchmark running for its whole length): forwarded now. Only one that
  // came during this start: an earlier Ctrl-C must not stop the clean-up steps run after it.
  if (int sig = g_unforwarded.exchange(0); sig != 0) kill(-pid, sig);
  int child_errno = 0;
  ssize_t n;
  do n = read(err_pipe[0], &child_errno, sizeof child_errno);
  while (n < 0 && errno == EINTR);
  close(err_pipe[0]);

  int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  int status = 0;
  bool timed_out = false, cancelled = false;
  double timeout = spec.timeout_seconds > 0 ? spec.timeout_seconds : -1;
  if (!WaitFor(pid, pidfd, timeout, &status, spec.cancel)) {
    cancelled = spec.cancel && spec.cancel->load();
    timed_out = !cancelled;
    kill(-pid, SIGTERM);
    if (!WaitFor(pid, pidfd, kill_grace_seconds_, &status)) {
      kill(-pid, SIGKILL);
      WaitFor(pid, pidfd, -1, &status);
    }
  }
  // Children the program left behind in its group die with it: a trial must not leak load
  // into the next one.
  kill(-pid, SIGKILL);
  g_child_group.store(0);
  if (pidfd >= 0) close(pidfd);
  out.elapsed_seconds = SecondsSince(start);

  if (n == static_cast<ssize_t>(sizeof child_errno) && child_errno != 0) {
    out.status = ProcessStatus::kSpawnFailed;
    out.error = spec.argv[0] + ": " + std::strerror(child_errno) +
                (spec.working_directory.empty() ? "" : " (in " + spec.working_directory + ")");
    return out;
  }
  if (cancelled) {
    out.status = ProcessStatus::kInterrupted;
    out.signal = SIGTERM;
  } else if (timed_out) {
    out.status = ProcessStatus::kTimedOut;
    out.elapsed_seconds = spec.timeout_seconds;
  } else if (WIFEXITED(status)) {
    out.status = ProcessStatus::kExited;
    out.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    out.signal = WTERMSIG(status);
    int interrupt = InterruptRequested();
    out.status = interrupt && interrupt == out.signal ? ProcessStatus::kInterrupted : ProcessStatus::kSignaled;
  }
  return out;
}

std::optional<int> TakeExitStatusFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  in.close();
  unlink(path.c_str());
  std::string text = Trim(ss.str());
  try {
    size_t used = 0;
    int v = std::stoi(text, &used);
    if (used == text.size()) return v;
  } catch (...) {
  }
  return 1;
}

namespace {

// The last 64 KiB of a file: only the tail matters, and logs can be large.
std::optional<std::string> Tail(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  in.seekg(size > 65536 ? size - 65536 : 0);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

bool ReadsLikeAnError(const std::string& line) {
  static const char* kError[] = {"error",       "cannot",        "can't",        "could not",      "couldn't",
                                 "unable",      "failed",        "failure",      "fatal",          "invalid",
                                 "not found",   "no such",       "denied",       "too long",       "illegal",
                                 "refus",       "unrecognized",  "unknown option", "not allowed",  "out of memory",
                                 "no space",    "insufficient",  "not enough",   "disk full",      "quota",
                                 "read-only file system",        "abort",        "segmentation fault", "must be",
                                 "bad option",  "bad argument",  "bad value"};
  std::string lower = ToLower(line);
  for (const char* word : kError)
    if (lower.find(word) != std::string::npos) return true;
  return false;
}

}  // namespace

std::string LastLines(const std::string& path, int n) {
  auto tail = Tail(path);
  if (!tail) return "";
  std::vector<std::string> lines;
  for (auto& line : Split(*tail, '\n')) {
    std::string t = Trim(line);
    if (!t.empty()) lines.push_back(line);
  }
  if (static_cast<int>(lines.size()) > n) lines.erase(lines.begin(), lines.end() - n);
  return Join(lines, "\n");
}

std::string ErrorLineOf(const std::string& output) {
  std::string first, usage, last;
  for (const auto& raw : Split(output, '\n')) {
    std::string line = Trim(raw);
    if (line.empty()) continue;
    if (first.empty() && ReadsLikeAnError(line)) first = line;
    if (usage.empty() && ToLower(line).find("usage") != std::string::npos) usage = line;
    last = line;
  }
  if (first.empty()) return usage.empty() ? last : usage;
  // A program that says why and then how it gave up (fs_mark: the free space, then the fopen).
  if (last != first && ReadsLikeAnError(last)) return first + "; last line: " + last;
  return first;
}

std::string ErrorLine(const std::string& path) {
  auto tail = Tail(path);
  return tail ? ErrorLineOf(*tail) : "";
}

}  // namespace ptsn::exec
