// The run loop. Run goes through the plan; for each test (RunAndSave) it skips what the result
// file already holds for this system, else runs it (RunOne) and saves (Save: under the result
// file's lock, this run's system and the test's results are added to the file as it is on disk
// and it is rewritten atomically, with the test's logs beside it; so finished tests survive
// Ctrl-C or a kill, running the same name and identifier again skips them, and runs saving into
// one name at once keep each other's results). A system is added only with a result: failed
// tests wait until a test gives a value, and a run where none does leaves the file untouched.
// RunOne takes the steps of trial_steps.h in order: prepare the environment, start the series,
// pre.sh, warm-ups, the trials (NextTrial: run one, parse it, count it, at the last planned one
// decide whether to run more, interim.sh before the next), post.sh, record the result.
// The loop is what talks to the observer and the monitor's hook and settles the system between
// trials; the steps do none of that.
// With storage targets (RunConfig::places) RunAndSave hands a disk test to RunOnPlaces: one
// environment and series per target (OnPlace), pre.sh and warm-ups on each, then RunRounds: one
// trial on every target in turn per round, and at the last planned round the paired decision on
// more rounds or, with instances, more instance pairs (round_count.h: a new instance of every
// target joins the places, gets its own series and runs the scheduled rounds); post.sh and the
// result per target. A test that is not a disk test runs once (RunOne), for the first target.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "results-xml/model/result_file.h"
#include "runner/exec/process.h"
#include "runner/run/observer.h"
#include "runner/run/run_plan.h"
#include "runner/run/trial_steps.h"

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
  bool saved = false;  // this run wrote composite_path (it produced at least one value)
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
  // A test's record and the system it is for.
  struct PendingRecord {
    TestRecord record;
    std::string system;
  };
  std::vector<results::System> Systems() const;  // each target's, or the run's
  bool AlreadyDone(const PlannedTest& t, const std::string& system) const;
  TestOutcome RunAndSave(const PlannedTest& t, const TestHeader& header);
  TestOutcome RunAndSaveOnPlaces(const PlannedTest& t, const TestHeader& header);
  // `place`: run the trials in that target's directory and record them under its System.
  TestRecord RunOne(const PlannedTest& t, const TestHeader& header, const TestPlace* place = nullptr,
                    const std::string& system = "");
  // One target's part in a test run on several: its environment, series, and why pre.sh failed
  // there ("" = it ran).
  struct PlaceSeries {
    TestEnvironment env;
    TrialSeries series;
    std::string pre_failure;
  };
  // The records of `places` (indices into config_.places), then of the places added while it ran
  // (appended to `places`); fewer records than places when interrupted.
  std::vector<TestRecord> RunOnPlaces(const PlannedTest& t, const TestHeader& header, std::vector<size_t>& places);
  PlaceSeries StartOnPlace(const PlannedTest& t, const TestEnvironment& prepared, size_t place);
  void PrepareOnPlace(const PlannedTest& t, PlaceSeries& p, const TestHeader& header);  // pre.sh, warm-ups
  void RunRounds(const PlannedTest& t, const TestEnvironment& prepared, std::vector<PlaceSeries>& on,
                 std::vector<size_t>& places, const TestHeader& header);
  // A new instance of every target (RunConfig::add_instance), started on this test; "" or why not.
  std::string AddInstance(const PlannedTest& t, const TestEnvironment& prepared, std::vector<PlaceSeries>& on,
                          std::vector<size_t>& places, const TestHeader& header);
  void RunWarmups(const PlannedTest& t, const TestEnvironment& env, TrialSeries& series, const TestHeader& header);
  void RunTrials(const PlannedTest& t, const TestEnvironment& env, TrialSeries& series, const TestHeader& header);
  void NextTrial(const PlannedTest& t, const TestEnvironment& env, TrialSeries& series, const TestHeader& header);
  bool Hold(PendingRecord pending);
  // Adds the records (failed ones held back, then one with a value) to the file on disk.
  void Save(const std::vector<PendingRecord>& records);
  const std::string& MainSystem() const;  // the run's System, or with targets the first target's
  std::string TargetOf(const TrialSeries& series) const;  // the target a series runs on ("" = no targets)

  RunConfig config_;
  TestSteps steps_;
  RunObserver& observer_;
  TestHook* hook_;
  Settler settle_;
  std::set<std::string> system_logs_saved_;  // systems whose logs are saved: the host environment does not change during a run
  results::ResultFile known_;            // the file as this run last read or wrote it (what is already done)
  std::vector<PendingRecord> unsaved_;   // failed tests, kept until a test gives a value
  bool saved_ = false;                   // this run has written the file
};

// PTS's auto description from the Hardware/Software strings: "<layer> testing on <OS>", else
// "<CPU> testing with a <board> and <GPU> on <OS>", else "<CPU> testing on <OS>"; closed with
// " via pts-native (Phoronix Test Suite compatible)." where PTS names itself.
std::string AutoDescription(const std::string& hardware, const std::string& software);

}  // namespace ptsn::run
