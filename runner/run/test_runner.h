// The run loop: for each planned test pre.sh, warm-ups, the trials (each with its own LOG_FILE,
// parsed by the profile's results parser), interim.sh between trials, dynamic extra runs,
// post.sh; then the Result(s) go into the result file, which is saved atomically after every
// test together with its test logs. Finished tests survive Ctrl-C or a kill; running the same
// name and identifier again skips what is already there.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "results-xml/result_file.h"
#include "runner/exec/process.h"
#include "runner/exec/pts_environment.h"
#include "runner/run/observer.h"
#include "runner/run/run_count.h"
#include "runner/run/run_plan.h"

namespace ptsn::run {

struct RunConfig {
  std::string result_dir;      // <results dir>/<save name>: composite.xml and test-logs/ go here
  std::string title;           // Generated/Title (the name as given)
  std::string description;     // Generated/Description
  results::System system;      // identifier, hardware, software, json... (timestamp set at start)
  std::string install_root;    // <install root>/<identifier>/ is each test's install dir
  exec::Environment host_env;  // the environment layered under PTS's variables
  exec::HostFacts facts;
  RunCountOverrides overrides;
  DynamicRunLimits limits;
  int warmup_runs = 0;
  double settle_seconds = 0;      // sync + sleep between trials and between tests
  double trial_timeout = 0;       // seconds; 0 = estimated time per run x timeout_factor (min 60 s)
  double timeout_factor = 5;
  double default_timeout = 3600;  // when the profile has no estimate
  std::string exec_prepend;       // TEST_EXEC_PREPEND
  double minimal_test_time = 2;   // a sys.time trial shorter than this gives no value (PTS MinimalTestTime)
};

struct TestOutcome {
  std::string identifier, description;
  bool ok = false;
  bool skipped = false;      // already in the result file
  std::string failure;
};

struct RunSummary {
  std::vector<TestOutcome> tests;
  bool interrupted = false;
  std::string composite_path;
  int ok() const;
  int failed() const;
};

// Settles the system between trials (sync + sleep); a function so tests need not sleep.
using Settler = std::function<void(double seconds)>;
Settler SyncAndSleep();

class TestRunner {
 public:
  TestRunner(RunConfig config, exec::ProcessRunner& runner, RunObserver& observer, TestHook* hook = nullptr,
             Settler settle = SyncAndSleep());
  RunSummary Run(const std::vector<PlannedTest>& plan);

 private:
  struct Produced {
    std::vector<results::Result> results;
    std::string log;  // concatenated trial logs for test-logs/
    std::string failure;
  };
  Produced RunOne(const PlannedTest& t, const TestHeader& header);
  bool RunHook(const PlannedTest& t, const std::string& kind, const exec::Environment& env,
               const std::string& install_dir, std::string* failure);
  double TrialTimeout(const PlannedTest& t) const;
  bool AlreadyDone(const results::ResultFile& file, const PlannedTest& t) const;
  void Save(results::ResultFile& file, const Produced& produced);

  RunConfig config_;
  exec::ProcessRunner& runner_;
  RunObserver& observer_;
  TestHook* hook_;
  Settler settle_;
  bool system_logs_saved_ = false;  // the host environment does not change during a run
};

// Adds `result`'s entry for `system_identifier` to `file`: into the Result with the same
// comparison hash if there is one (replacing an older entry of that system), else appended.
void AddResult(results::ResultFile& file, const results::Result& result);

// PTS's auto description from the Hardware/Software strings: "<layer> testing on <OS>", else
// "<CPU> testing with a <board> and <GPU> on <OS>", else "<CPU> testing on <OS>"; closed with
// " via pts-native (Phoronix Test Suite compatible)." where PTS names itself.
std::string AutoDescription(const std::string& hardware, const std::string& software);

}  // namespace ptsn::run
