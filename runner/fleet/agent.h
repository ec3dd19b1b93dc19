// `pts-native agent`: one machine of a fleet. It says hello to the server (its name comes from
// its token, its description from system-info), then long-polls for a task, runs it (one at a
// time) through a TaskExecutor while renewing the task's lease, uploads the result through the
// upload queue (runner/client/upload_queue: written to disk first, removed only once the
// server acknowledged it, so a finished result survives the server being away or the agent
// being killed), and polls again. A server that does not answer is retried with backoff
// (1 s doubling to 30 s, with jitter); a lease the server says is lost stops the task.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "runner/client/client.h"
#include "runner/fleet/job_spec.h"

namespace ptsn::fleet {

struct AgentOptions {
  std::string server_url;
  std::string token;
  std::string name;            // must be the token's machine (the server says which it is)
  std::vector<std::string> tags;
  std::string state_dir;       // the upload queue lives here (upload-queue/)
  std::string hardware, software, version;
  int poll_seconds = 25;
  double max_backoff_seconds = 30;
};

struct Task {
  std::int64_t id = 0, job = 0;
  int attempt = 1;
  std::string machine;  // the System identifier its result carries
  JobSpec spec;
  std::string title;
  int lease_seconds = 30;
};

// Runs tasks; a fake in tests, ChildExecutor (agent_run.h) for real.
class TaskExecutor {
 public:
  virtual ~TaskExecutor() = default;
  // Why this agent will not run `spec` (unknown profile, options the profile lacks...); "" = fine.
  virtual std::string Check(const JobSpec& spec) = 0;
  struct Outcome {
    std::string result_xml;  // the composite.xml to upload; "" when nothing was saved
    std::string failure;     // why it failed (with result_xml empty), or what failed in part
    bool interrupted = false;
  };
  // `progress` may be called from the executing thread with a short status ("test 1/2: trial 2/3").
  virtual Outcome Execute(const Task& task, const std::function<void(const std::string&)>& progress,
                          const std::atomic<bool>& cancel) = 0;
};

class Agent {
 public:
  // `stop` is polled (e.g. exec::InterruptRequested() != 0 after SIGTERM).
  Agent(AgentOptions options, client::HttpTransport& http, TaskExecutor& executor, std::function<bool()> stop,
        std::ostream& log);
  // Runs until `stop`; returns the exit code (0 after a stop, 1 when the server refuses the token).
  int Run();

  // One round, for tests: sends pending uploads, polls (up to `wait` seconds), runs a task if
  // one came. Throws ptsn::Error when the server cannot be reached.
  bool RunOnce(int wait);
  void SayHello();
  // Pending uploads sent; throws ptsn::Error (transport) when the server is away.
  void FlushUploads();
  const std::string& session() const { return session_; }

 private:
  void RunTask(const Task& task);
  void Report(const std::string& path, const std::string& json_body);
  void Sleep(double seconds);
  std::string Url(const std::string& path) const;

  AgentOptions options_;
  client::HttpTransport& http_;
  TaskExecutor& executor_;
  std::function<bool()> stop_;
  std::ostream& log_;
  std::string session_;
  std::string queue_dir_;
};

// The JSON task of a poll answer; throws ptsn::Error when it is not a valid task.
Task ParseTask(const std::string& poll_answer);

}  // namespace ptsn::fleet
