// How an agent runs a task: the normal runner, as `pts-native batch-run TESTS --json-events`
// started from this same binary with PRESET_OPTIONS / FORCE_TIMES_TO_RUN / TEST_RESULTS_* set
// from the task and nothing else taken from the server: the run installs, fetches profiles,
// validates and saves exactly as a run typed by hand, and its JSON events give the progress.
// A child process (not the loop in-process) so that a crashing benchmark or a cancelled lease
// never takes the agent down, and its whole process group can be stopped. It dies with the
// agent (PR_SET_PDEATHSIG), so `kill -9` of the agent leaves no benchmark running.
//
// Before anything runs, Check() refuses what the agent will not run: a test that is not a
// profile or suite this machine knows by name (never a path), presets naming a test not in the
// job or an option its profile lacks, a menu choice no entry answers to, or a free-text value
// with characters a shell would read (the value ends up on the test's command line).
#pragma once

#include <string>

#include "runner/fleet/agent.h"
#include "runner/profile/profile_repository.h"

namespace ptsn::fleet {

struct ChildOptions {
  std::string binary;       // this pts-native (/proc/self/exe)
  std::string results_dir;  // where batch-run saves (test-results/)
  std::string work_dir;     // the child's working directory and its event logs
};

// The checks of Check() on their own (tests call this with a repository of fixtures).
std::string CheckAgainstProfiles(const profile::ProfileRepository& repo, const JobSpec& spec);

class ChildExecutor : public TaskExecutor {
 public:
  ChildExecutor(ChildOptions options, const profile::ProfileRepository& repo);
  std::string Check(const JobSpec& spec) override;
  Outcome Execute(const Task& task, const std::function<void(const std::string&)>& progress,
                  const std::atomic<bool>& cancel) override;

 private:
  ChildOptions options_;
  const profile::ProfileRepository& repo_;
};

// The status line for one JSON event of a run ("test 2/3 native/cipher: trial 1/3"), "" for
// events that change nothing. `last` is the previous line, updated.
std::string ProgressOf(const std::string& event_line, std::string& last);

}  // namespace ptsn::fleet
