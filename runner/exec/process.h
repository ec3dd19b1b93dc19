// Spawning one program the way PTS runs its scripts: its own process group (so a timeout or a
// Ctrl-C reaches every child it started), a fully specified environment and working directory,
// stdout+stderr into a log file. Behind the ProcessRunner interface so the run logic can be
// tested with a fake that never forks.
#pragma once

#include <atomic>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ptsn::exec {

using Environment = std::map<std::string, std::string>;

struct ProcessSpec {
  std::vector<std::string> argv;    // argv[0] is looked up in PATH when it has no '/'
  Environment env;                  // the complete environment of the child (nothing inherited)
  std::string working_directory;    // "" = the current one
  std::string output_path;          // stdout+stderr; "" = /dev/null
  bool append_output = false;       // append instead of truncating output_path
  double timeout_seconds = 0;       // 0 = none; on expiry the whole process group is killed
  // Set (from another thread) to stop the program: its group gets SIGTERM, then SIGKILL after
  // the grace; the outcome is kInterrupted with signal SIGTERM. Checked at least once a second.
  const std::atomic<bool>* cancel = nullptr;
  // The child gets SIGTERM when the thread that started it dies (a fleet agent killed with -9
  // must not leave its benchmark running).
  bool die_with_parent = false;
};

enum class ProcessStatus { kExited, kSignaled, kTimedOut, kSpawnFailed, kInterrupted };
const char* ProcessStatusName(ProcessStatus status);

struct ProcessOutcome {
  ProcessStatus status = ProcessStatus::kSpawnFailed;
  int exit_code = -1;        // kExited
  int signal = 0;            // kSignaled / kInterrupted: the signal
  double elapsed_seconds = 0;
  std::string error;         // kSpawnFailed: why
  bool ok() const { return status == ProcessStatus::kExited && exit_code == 0; }
  // "exited with status 3", "killed by signal 11 (Segmentation fault)", "timed out after 5 s", ...
  std::string Describe() const;
};

class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  virtual ProcessOutcome Run(const ProcessSpec& spec) = 0;
};

// fork/exec on POSIX. While a child runs, SIGINT/SIGTERM/SIGHUP sent to us are forwarded to its
// process group and remembered (InterruptRequested()), so the caller can save and stop.
class PosixProcessRunner : public ProcessRunner {
 public:
  // Grace between SIGTERM and SIGKILL when a timeout expires.
  explicit PosixProcessRunner(double kill_grace_seconds = 1.0) : kill_grace_seconds_(kill_grace_seconds) {}
  ProcessOutcome Run(const ProcessSpec& spec) override;

 private:
  double kill_grace_seconds_;
};

// Installs the forwarding handlers for SIGINT/SIGTERM/SIGHUP (idempotent). Run() calls it.
void InstallSignalForwarding();
// The first forwarded/received termination signal, 0 if none.
int InterruptRequested();
void ClearInterrupt();

// The current process environment as a map (the base that PTS passes to run scripts).
Environment CurrentEnvironment();

// PTS's exit-status files (test-exit-status, install-exit-status, pre-test-exit-status...):
// read the integer, delete the file. nullopt when the file is absent; a file that does not hold
// an integer counts as failure (1), because PTS compares its text with 0.
std::optional<int> TakeExitStatusFile(const std::string& path);

// The last `n` non-empty lines of a file (for failure reports); "" when unreadable.
std::string LastLines(const std::string& path, int n);

// The line of a failed program's output that says why, for a one-line failure reason: the first
// line of the file's tail that reads like an error (error, cannot, failed, insufficient, no space,
// invalid, not found, denied, too long, ...), followed by "; last line: " and the last non-empty
// line when that one reads like an error too; else the first that mentions usage, else the last
// non-empty line. Trimmed; "" when the file is unreadable or blank.
std::string ErrorLine(const std::string& path);
std::string ErrorLineOf(const std::string& output);

}  // namespace ptsn::exec
