// The run loop. Run goes through the plan; for each test (RunAndSave) it skips what the result
// file already holds for this system, else runs it (RunOne) and saves (Save: the result file is
// rewritten atomically after every test, with the test's logs beside it, so finished tests
// survive Ctrl-C or a kill, and running the same name and identifier again skips them).
// RunOne takes the steps of test_steps.h in order: prepare the environment, start the series,
// pre.sh, warm-ups, the trials (NextTrial: run one, parse it, count it, at the last planned one
// decide whether to run more, interim.sh before the next), post.sh, record the result.
// The loop is what talks to the observer and the monitor's hook and settles the system between
// trials; the steps do none of that.
// With storage targets (RunConfig::places) RunAndSave hands a disk test to RunOnPlaces: one
// environment and series per target (OnPlace), pre.sh and warm-ups on each, then RunRounds: one
// trial on every target in turn per round, and at the last planned round the paired decision on
// more rounds (round_count.h); post.sh and the result per target. A test that is not a disk test
// runs once (RunOne), for the first target.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "results-xml/result_file.h"
#include "runner/exec/process.h"
#include "runner/run/observer.h"
#include "runner/run/run_plan.h"
#include "runner/run/test_steps.h"

namespace ptsn::run {

struct TestOutcome {
  std::string identifier, description;
  bool ok = false;
  bool skipped = false;      // already in the result file
  bool interrupted = false;  // cut short by Ctrl-C: not saved, and the run stops
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
  results::ResultFile OpenResultFile(const std::string& path) const;
  bool AlreadyDone(const results::ResultFile& file, const PlannedTest& t, const std::string& system) const;
  TestOutcome RunAndSave(results::ResultFile& file, const PlannedTest& t, const TestHeader& header);
  TestOutcome RunAndSaveOnPlaces(results::ResultFile& file, const PlannedTest& t, const TestHeader& header);
  // `place`: run the trials in that target's directory and record them under its System.
  TestRecord RunOne(const PlannedTest& t, const TestHeader& header, const TestPlace* place = nullptr,
                    const std::string& system = "");
  std::vector<TestRecord> RunOnPlaces(const PlannedTest& t, const TestHeader& header,
                                      const std::vector<const TestPlace*>& places);
  void RunRounds(const PlannedTest& t, const std::vector<TestEnvironment>& envs, std::vector<TrialSeries>& series,
                 const TestHeader& header);
  void RunWarmups(const PlannedTest& t, const TestEnvironment& env, TrialSeries& series, const TestHeader& header);
  void RunTrials(const PlannedTest& t, const TestEnvironment& env, TrialSeries& series, const TestHeader& header);
  void NextTrial(const PlannedTest& t, const TestEnvironment& env, TrialSeries& series, const TestHeader& header);
  void Save(results::ResultFile& file, const TestRecord& record, const std::string& system);
  const std::string& MainSystem() const;  // the run's System, or with targets the first target's
  std::string TargetOf(const TrialSeries& series) const;  // the target a series runs on ("" = no targets)

  RunConfig config_;
  TestSteps steps_;
  RunObserver& observer_;
  TestHook* hook_;
  Settler settle_;
  std::set<std::string> system_logs_saved_;  // systems whose logs are saved: the host environment does not change during a run
};

// Adds `result`'s entry for `system_identifier` to `file`: into the Result with the same
// comparison hash if there is one (replacing an older entry of that system), else appended.
void AddResult(results::ResultFile& file, const results::Result& result);

// PTS's auto description from the Hardware/Software strings: "<layer> testing on <OS>", else
// "<CPU> testing with a <board> and <GPU> on <OS>", else "<CPU> testing on <OS>"; closed with
// " via pts-native (Phoronix Test Suite compatible)." where PTS names itself.
std::string AutoDescription(const std::string& hardware, const std::string& software);

}  // namespace ptsn::run
