// The steps of running one test, in the order the run loop (run_loop.h) takes them:
//
//   PrepareEnvironment   the installed test's directory and PTS's environment variables
//   StartSeries          the test's state before its first trial: parse session, monitors, counts
//   RunTrial             one run of the script, with the <SystemMonitor>s around it
//   ParseTrial           what that run is worth: its value(s), or why it gave none
//   CountTrial           the trial into the run-count state (duration, failure, first value)
//   DecideMoreTrials     at the last planned trial: PTS's dynamic run count, with our bounds
//   RecordResult         the test's Result(s) with their entries, from the whole series
//
// pre.sh, interim.sh and post.sh run through RunScript. The per-test state is plain data (a
// TrialSeries), so a caller can hold several and advance them round by round: the storage
// targets (issue 22) run the same test on several targets with trials interleaved, one series
// per target. Nothing here saves, reports to an observer or sleeps; that is the loop's part.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "results-xml/model/result_file.h"
#include "runner/exec/process.h"
#include "runner/exec/pts_environment.h"
#include "runner/profile/results_parser.h"
#include "runner/run/observer.h"
#include "runner/run/result_monitor.h"
#include "runner/run/run_count.h"
#include "runner/run/run_dirs.h"
#include "runner/run/run_place.h"
#include "runner/run/run_plan.h"

namespace ptsn::run {

struct RunConfig {
  std::string result_dir;      // <results dir>/<save name>: composite.xml and test-logs/ go here
  std::string title;           // Generated/Title (the name as given)
  std::string description;     // Generated/Description
  results::System system;      // identifier, hardware, software, json... (timestamp set at start)
  std::string install_root;    // <install root>/<identifier>/ is each test's install dir
  std::string test_dir;        // run.test_dir: each test's scratch directory is made in it
  exec::Environment host_env;  // the environment layered under PTS's variables
  exec::HostFacts facts;
  RunCountOverrides overrides;
  DynamicRunLimits limits;
  int warmup_runs = 0;
  double settle_seconds = 0;      // sync + sleep between trials and between tests
  bool drop_caches = false;       // run.drop_caches: before each disk test's trial, drop the kernel's caches (root)
  std::string drop_caches_file = "/proc/sys/vm/drop_caches";  // where "3" is written (tests point it elsewhere)
  double trial_timeout = 0;       // seconds; 0 = estimated time per run x timeout_factor (min 60 s)
  double timeout_factor = 5;
  double default_timeout = 3600;  // when the profile has no estimate
  std::string exec_prepend;       // TEST_EXEC_PREPEND
  double minimal_test_time = 2;   // a sys.time trial shorter than this gives no value (PTS MinimalTestTime)
  // Storage targets (run_targets.h), each with its System: disk tests run on every one, their
  // trials interleaved round by round (`places_sequential`: all of one target's trials, then the
  // next's, PTS's way); other tests run once, for the first. Empty: `system`, usual directories.
  std::vector<TestPlace> places;
  bool places_sequential = false;
  double paired_ci_goal = 2;      // run.paired_ci_goal: rounds are added until each ratio is known to +- this %
  double same_within = 5;         // run.same_within: with instances, rounds are added until every verdict is decided
  bool shuffle_rounds = false;    // a random order of the places in each round (run.target_instances > 1)
  // With instances: while a verdict is unknown after the scheduled rounds, a new instance of every
  // target (one more instance pair per comparison) instead of more rounds, up to max_instances
  // in all (run.max_target_instances). Returns the new places, in the order of the first ones.
  int max_instances = 1;
  std::function<std::vector<TestPlace>()> add_instance;
};

// Where a test's scripts run and what they see, private to this test of this run (TestDirs), so
// any number of runs of one installed test can run at once. A storage target (issue 22) gives
// the trials its own test directory by preparing `scratch` there.
struct TestEnvironment {
  std::string install_dir;   // <install root>/<identifier>: what install.sh left
  std::string home;          // $HOME and the scripts' working directory, its entries linking to install_dir's
  std::string scratch;       // PTS_NATIVE_TEST_DIR: where disk tests write, in run.test_dir
  exec::Environment env;     // PTS's variables over the host's
  std::string trial_output;  // where a trial's stdout and stderr go
  std::string log_base;      // trial N writes $LOG_FILE = <log_base>-N.log (warm-ups -warmup-N.log)
  std::string failure;       // why the test cannot run ("" = it can)
  std::shared_ptr<TestDirs> dirs;  // removes home and scratch when the test is done
  std::function<void()> enter_place;  // TestPlace::enter of the target it runs on
};

// One test's trials so far: what the results parser made of them, what the run-count decision
// reads, and the logs and failures that go into the result. Plain data (movable, not copyable):
// one per series of trials, advanced one trial at a time.
struct TrialSeries {
  std::string system;    // the System identifier its entries are recorded under
  results::Result base;  // the test's Result without entries (identifier, title, arguments...)
  std::optional<profile::ParseSession> session;
  std::unique_ptr<ResultMonitor> monitor;  // <SystemMonitor> results (sys.time...)
  std::set<int> ignored_runs;              // run numbers that run but give no value
  RunState state;                          // scheduled, runs done, values: what DecideExtraRuns reads
  int planned = 0;                         // trials planned: scheduled + runs added
  double started = 0;                      // when the first counted trial started (monotonic seconds)
  int runs_added = 0;
  std::vector<std::string> added_reasons;  // why runs were added, one per decision that added some
  std::string stopped_by;                  // the bound that stopped extra runs ("max_runs", "time_budget")
  int verdict_looks = 0;  // with instances and more than one look: the looks its verdicts were judged over
  std::vector<std::string> failures;       // "run 2: ..." and interim/post script failures
  std::string log;                         // monitor notes and the counted trials' logs, for test-logs/
  bool interrupted = false;
};

// What one run of the script left behind, before it is parsed.
struct TrialRun {
  std::string failure;  // from the process or its exit status ("" = it exited 0)
  bool interrupted = false;
  double seconds = 0;
  std::optional<std::string> log;           // its $LOG_FILE, if it wrote a non-empty one
  std::string log_entry;                    // what goes into test-logs/ for it ("" for a warm-up or no run)
  std::string error_line;                   // the line of its log (else output) that says why (exec::ErrorLine)
  std::string full_disk;                    // when it failed on a (nearly) full disk: FullDiskNote
  std::vector<std::string> monitor_values;  // the <SystemMonitor>s' values
  std::vector<std::string> monitor_notes;   // why a monitor gave no value
};

// What a trial is worth.
struct ParsedTrial {
  std::string value;    // the trial value(s) for display, "" when it gave none
  std::vector<TrialValue> values;  // the same, each with its unit and description
  std::string failure;  // why it gave none ("" = ok)
  std::optional<std::string> first_value;  // its value for the test's first result (what the run count reads)
};

// What a finished test adds to the result file.
struct TestRecord {
  std::vector<results::Result> results;
  std::string log;      // concatenated trial logs for test-logs/
  std::string failure;  // "" = a value was saved; "interrupted" = nothing is to be saved
  std::vector<std::string> notes;  // what the trials cannot resolve (also in the results' Annotation)
};

// Why a trial may have failed for want of room: "the disk is full: N bytes free in DIR" for the
// first of `dirs` ("" skipped) whose file system has less than 1 MiB left; "" when all have room
// or none can be told.
std::string FullDiskNote(const std::vector<std::string>& dirs);

// run.drop_caches: sync, then "3" into `file` (/proc/sys/vm/drop_caches: the page cache, dentries
// and inodes). Returns why it could not ("" = dropped); only root can.
std::string DropCaches(const std::string& file);

// What a trial is worth: the monitors' values if they gave any (PTS then ignores the log), else
// what the results parser finds in its log, added to the series' parse session. `parse` false:
// a warm-up or an ignored run, which runs but gives no value.
ParsedTrial ParseTrial(TrialSeries& series, const TrialRun& run, bool parse);

// Counts the next trial toward the run-count decision (its duration, failure and first value);
// `now` is the monotonic time after it.
void CountTrial(TrialSeries& series, const TrialRun& run, const ParsedTrial& parsed, double now);

// Whether another trial is due: fewer than planned (at most 256) and not interrupted.
bool NeedsMoreTrials(const TrialSeries& series);

// The Result a test's entries go into: identifier, title, version, arguments, scale... of the
// profile and the option.
results::Result TestResultBase(const PlannedTest& t);

// The steps that need the run's configuration or run processes. Holds references: `config` and
// `processes` outlive it.
class TestSteps {
 public:
  TestSteps(const RunConfig& config, exec::ProcessRunner& processes) : config_(config), processes_(processes) {}

  TestEnvironment PrepareEnvironment(const PlannedTest& t) const;
  // The environment of the test's trials on storage target `index` of the run: its directory is
  // the test directory (PTS_NATIVE_TEST_DIR); its logs have names of their own.
  TestEnvironment OnPlace(const TestEnvironment& env, const TestPlace& place, size_t index) const;
  TrialSeries StartSeries(const PlannedTest& t, const TestEnvironment& env) const;
  // pre.sh, interim.sh or post.sh (`kind` "pre"...): the profile's own, then each parent's.
  // Returns why one failed, "" when all passed.
  std::string RunScript(const PlannedTest& t, const std::string& kind, const TestEnvironment& env) const;
  // Runs the script once (trial `number`, or warm-up `number`), the monitors around it; its
  // $LOG_FILE is read and removed.
  TrialRun RunTrial(const PlannedTest& t, const TestEnvironment& env, ResultMonitor& monitor, int number,
                    bool warmup) const;
  // Called when the planned trials are done: adds the runs PTS's dynamic run count asks for
  // (bounded by run.max_runs and run.time_budget) to the series and returns the decision.
  ExtraRunDecision DecideMoreTrials(TrialSeries& series) const;
  // After post.sh (`post_failure` "" when it passed): the Result(s), each with this system's
  // entry (value and trials, or an empty value and the error), and the series' log.
  TestRecord RecordResult(const PlannedTest& t, const TestEnvironment& env, TrialSeries& series,
                          const std::string& post_failure) const;

 private:
  double TrialTimeout(const PlannedTest& t) const;

  const RunConfig& config_;
  exec::ProcessRunner& processes_;
};

}  // namespace ptsn::run
