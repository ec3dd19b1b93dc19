// Each step of the run loop on its own: the ones that run scripts with real (tiny) shell scripts,
// the others on hand-made trials, so no step is tested only through TestRunner::Run.
#include "runner/run/trial_steps.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "runner/common/atomic_file.h"
#include "runner/common/strings.h"

namespace fs = std::filesystem;

namespace ptsn::run {
namespace {

class TestStepsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("ptsn-steps-" + std::to_string(getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    install_dir_ = (root_ / "installed" / "local" / "fake-1.0.0").string();
    fs::create_directories(install_dir_);
    profile_.identifier = "local/fake-1.0.0";
    profile_.result_scale = "Units";
    profile_.subtitle = "Fake Subtitle";
    profile_.executable = "fake";
    profile_.times_to_run = 3;
    profile_.results.path = "results-definition.xml";
    profile::ResultsParserBlock block;
    block.output_template = "Result: #_RESULT_#";
    profile_.results.parsers.push_back(block);
    config_.system.identifier = "Box A";
    config_.install_root = (root_ / "installed").string();
    config_.test_dir = (root_ / "scratch").string();
    fs::create_directories(config_.test_dir);
    config_.host_env = {{"PATH", "/usr/bin:/bin"}};
    config_.limits = {true, 2.5, 6, 600};
  }
  void TearDown() override { fs::remove_all(root_); }

  PlannedTest Test(const std::string& args = "") { return MakePlannedTest(profile_, {args, ""}); }
  void Script(const std::string& name, const std::string& body, const std::string& dir = "") {
    std::string path = (dir.empty() ? install_dir_ : dir) + "/" + name;
    WriteFileAtomically(path, "#!/bin/sh\n" + body);
    fs::permissions(path, fs::perms::owner_all);
  }
  // A series with no trials yet, as StartSeries leaves it.
  TrialSeries Series(const PlannedTest& t) { return steps_.StartSeries(t, steps_.PrepareEnvironment(t)); }
  // The test, its environment and its series, as RunOne has them before the first trial.
  struct Prepared {
    PlannedTest t;
    TestEnvironment env;
    TrialSeries series;
  };
  Prepared Prepare(const std::string& args = "") {
    PlannedTest t = Test(args);
    TestEnvironment env = steps_.PrepareEnvironment(t);
    TrialSeries series = steps_.StartSeries(t, env);
    return {std::move(t), std::move(env), std::move(series)};
  }
  // A trial that exited 0 and wrote `log` (its last line ended) to $LOG_FILE.
  static TrialRun Logged(const std::string& log, double seconds = 1) {
    TrialRun run;
    run.log = log.empty() || log.back() == '\n' ? log : log + "\n";
    run.log_entry = "entry[" + log + "]";
    run.seconds = seconds;
    return run;
  }
  // Parses and counts one trial, as the loop does.
  static void AddTrial(TrialSeries& s, const TrialRun& run) {
    CountTrial(s, run, ParseTrial(s, run, true), s.started + 10);
  }

  fs::path root_;
  std::string install_dir_;
  profile::TestProfile profile_;
  RunConfig config_;
  exec::PosixProcessRunner processes_;
  TestSteps steps_{config_, processes_};  // reads config_ as each test has set it
};

TEST_F(TestStepsTest, PrepareEnvironmentNamesTheInstallCommandWhenNotInstalled) {
  fs::remove_all(install_dir_);
  TestEnvironment env = steps_.PrepareEnvironment(Test());
  EXPECT_NE(env.failure.find("local/fake-1.0.0 is not installed"), std::string::npos) << env.failure;
  EXPECT_NE(env.failure.find("run pts-native install local/fake-1.0.0"), std::string::npos) << env.failure;
}

TEST_F(TestStepsTest, PrepareEnvironmentGivesPtsVariablesAndTheTrialPaths) {
  fs::create_directories(root_ / "installed" / "local" / "base-2.0.0");
  profile_.extends_chain = {"local/base-2.0.0"};
  TestEnvironment env = steps_.PrepareEnvironment(Test());
  EXPECT_EQ(env.failure, "");
  EXPECT_EQ(env.install_dir, install_dir_);
  // $HOME, the logs and the scratch directory are this test's own (TestDirs).
  EXPECT_EQ(env.home.rfind(install_dir_ + "/" + TestDirs::kHomePrefix, 0), 0u) << env.home;
  EXPECT_EQ(env.env.at("HOME"), env.home + "/");
  EXPECT_EQ(env.env.at("PTS_NATIVE_TEST_DIR"), env.scratch);
  EXPECT_EQ(fs::path(env.scratch).parent_path().string(), config_.test_dir);
  EXPECT_EQ(env.env.at("TEST_BASE"), (root_ / "installed" / "local" / "base-2.0.0").string() + "/");
  EXPECT_EQ(env.log_base, env.home + "/fake-1.0.0");
  EXPECT_EQ(fs::path(env.trial_output).parent_path().string(), env.home);
  // A second run of the same test at the same time gets other paths.
  TestEnvironment other = steps_.PrepareEnvironment(Test());
  EXPECT_NE(other.home, env.home);
  EXPECT_NE(other.scratch, env.scratch);
}

TEST_F(TestStepsTest, StartSeriesSchedulesRunsAndAppliesIgnoreRulesAsPts) {
  profile_.ignore_runs = {1};
  config_.overrides.ignore_runs = {5};
  TrialSeries s = Series(Test("-x"));
  EXPECT_EQ(s.state.scheduled, 3);
  EXPECT_EQ(s.planned, 3);
  EXPECT_EQ(s.state.runs_done, 0);
  EXPECT_EQ(s.ignored_runs, (std::set<int>{1, 5}));
  EXPECT_EQ(s.base.identifier, "local/fake-1.0.0");
  EXPECT_EQ(s.base.arguments, "-x");
  EXPECT_EQ(s.base.scale, "Units");
  EXPECT_TRUE(s.base.entries.empty());
  EXPECT_TRUE(NeedsMoreTrials(s));

  // One scheduled run: the profile's IgnoreRuns is dropped, IGNORE_RUNS is not.
  config_.overrides.force_times_to_run = 1;
  EXPECT_EQ(Series(Test()).ignored_runs, (std::set<int>{5}));
}

TEST_F(TestStepsTest, StartSeriesLogsWhyASystemMonitorDoesNotApply) {
  profile_.results.system_monitors = {{"bogus.sensor", "", ""}};
  TrialSeries s = Series(Test());
  EXPECT_FALSE(s.monitor->active());
  EXPECT_NE(s.log.find("pts-native: SystemMonitor sensor 'bogus.sensor' is not a sensor"), std::string::npos) << s.log;
}

TEST_F(TestStepsTest, RunScriptRunsOwnThenParentScriptsAndReportsAFailingOne) {
  std::string parent = (root_ / "profiles" / "base").string();
  fs::create_directories(parent);
  Script("pre.sh", "echo own \"$@\" >> order\n");
  Script("pre.sh", "echo parent >> order\n", parent);
  profile_.scripts["pre.sh"] = install_dir_ + "/pre.sh";
  profile_.extends_dirs = {parent};
  PlannedTest t = Test("-a 1");
  TestEnvironment env = steps_.PrepareEnvironment(t);
  EXPECT_EQ(steps_.RunScript(t, "pre", env), "");
  EXPECT_EQ(ReadFile(env.home + "/order"), "own -a 1\nparent\n");
  EXPECT_EQ(steps_.RunScript(t, "interim", env), "");  // none defined

  Script("pre.sh", "echo no space left\necho 3 > pre-test-exit-status\n");
  EXPECT_EQ(steps_.RunScript(t, "pre", env), "The pre run script quit with a non-zero exit status (3): no space left");
}

TEST_F(TestStepsTest, RunTrialGivesItsOwnLogFileAndReadsIt) {
  Script("fake", "echo \"Result: 42\" > \"$LOG_FILE\"\necho \"args $*\"\n");
  auto [t, env, s] = Prepare("-s 4");
  TrialRun run = steps_.RunTrial(t, env, *s.monitor, 2, false);
  EXPECT_EQ(run.failure, "");
  EXPECT_FALSE(run.interrupted);
  EXPECT_EQ(run.log.value_or("(none)"), "Result: 42\n");
  EXPECT_NE(run.log_entry.find("local/fake-1.0.0 - Run 2\n"), std::string::npos) << run.log_entry;
  EXPECT_NE(run.log_entry.find("Result: 42"), std::string::npos);
  EXPECT_EQ(ReadFile(env.trial_output), "args -s 4\n");
  EXPECT_FALSE(fs::exists(env.log_base + "-2.log"));  // read, then removed
  EXPECT_TRUE(s.session->Results().empty());         // running is not parsing

  // A warm-up: its own log name, nothing for test-logs/.
  Script("fake", "echo \"$LOG_FILE\"\n");
  run = steps_.RunTrial(t, env, *s.monitor, 1, true);
  EXPECT_EQ(ReadFile(env.trial_output), env.log_base + "-warmup-1.log\n");
  EXPECT_EQ(run.log_entry, "");
}

TEST_F(TestStepsTest, RunTrialSaysWhyItFailed) {
  auto [t, env, s] = Prepare();
  TrialRun run = steps_.RunTrial(t, env, *s.monitor, 1, false);
  EXPECT_EQ(run.failure, "the run script " + install_dir_ + "/fake does not exist (install.sh did not create it)");
  EXPECT_EQ(run.log_entry, "");

  Script("fake", "echo first\necho disk full\necho 7 > test-exit-status\n");
  run = steps_.RunTrial(t, env, *s.monitor, 1, false);
  EXPECT_EQ(run.failure, "The test quit with a non-zero exit status (7)");
  EXPECT_EQ(run.error_line, "disk full");  // no line reads like an error: the last one
  EXPECT_FALSE(run.log);

  Script("fake", "kill -SEGV $$\n");
  run = steps_.RunTrial(t, env, *s.monitor, 1, false);
  EXPECT_EQ(run.failure.rfind("crashed: killed by signal 11", 0), 0u) << run.failure;
}

// run.drop_caches: a disk test's every trial first writes "3" to the drop_caches file; a trial
// that cannot is a failed trial that says why (its value would be the cache's); other tests are
// left alone.
TEST_F(TestStepsTest, RunTrialDropsCachesBeforeEachDiskTrialOrFailsSayingWhy) {
  Script("fake", "echo \"Result: 42\" > \"$LOG_FILE\"\n");
  const std::string drop = (root_ / "drop_caches").string();
  config_.drop_caches = true;
  config_.drop_caches_file = drop;
  profile_.test_type = "Disk";
  {
    auto [t, env, s] = Prepare();
    WriteFileAtomically(drop, "");
    TrialRun run = steps_.RunTrial(t, env, *s.monitor, 1, false);
    EXPECT_EQ(run.failure, "");
    EXPECT_EQ(ReadFile(drop), "3");
    fs::remove(drop);
    run = steps_.RunTrial(t, env, *s.monitor, 2, false);
    EXPECT_EQ(run.failure.rfind("run.drop_caches: cannot open " + drop + ": ", 0), 0u) << run.failure;
    EXPECT_FALSE(run.log);  // the script did not run
  }
  profile_.test_type = "Processor";
  auto [t, env, s] = Prepare();
  EXPECT_EQ(steps_.RunTrial(t, env, *s.monitor, 1, false).failure, "");
  EXPECT_FALSE(fs::exists(drop));
}

TEST_F(TestStepsTest, RunTrialTakesTheMonitorsValues) {
  profile_.results.parsers.clear();
  profile_.results.system_monitors = {{"sys.time", "", ""}};
  config_.minimal_test_time = 0.05;
  Script("fake", "sleep 0.1\n");
  auto [t, env, s] = Prepare();
  TrialRun run = steps_.RunTrial(t, env, *s.monitor, 1, false);
  ASSERT_EQ(run.monitor_values.size(), 1u) << Join(run.monitor_notes, "; ");
  EXPECT_GE(std::stod(run.monitor_values[0]), 0.1);
  EXPECT_FALSE(run.log);
}

TEST_F(TestStepsTest, ParseTrialReadsTheLogIntoTheSession) {
  TrialSeries s = Series(Test());
  ParsedTrial parsed = ParseTrial(s, Logged("Result: 12.5\n"), true);
  EXPECT_EQ(parsed.failure, "");
  EXPECT_EQ(parsed.value, "12.5");
  EXPECT_EQ(parsed.first_value.value_or("(none)"), "12.5");
  ASSERT_EQ(s.session->Results().size(), 1u);
  EXPECT_EQ(s.session->Results()[0].trial_values, std::vector<std::string>{"12.5"});

  parsed = ParseTrial(s, Logged("Result: 99\n"), false);  // a warm-up or an ignored run
  EXPECT_EQ(parsed.value, "");
  EXPECT_FALSE(parsed.first_value);
  EXPECT_EQ(s.session->Results()[0].trial_values.size(), 1u);
}

TEST_F(TestStepsTest, ParseTrialSaysWhyThereIsNoValue) {
  TrialSeries s = Series(Test());
  TrialRun failed = Logged("Result: 5\n");
  failed.failure = "The test quit with a non-zero exit status (1)";
  failed.error_line = "error: no disk";
  ParsedTrial parsed = ParseTrial(s, failed, true);
  EXPECT_EQ(parsed.failure, "The test quit with a non-zero exit status (1): error: no disk");
  EXPECT_TRUE(s.session->Results().empty());  // a failed trial's log is not parsed
  failed.full_disk = "the disk is full: 0 bytes free in /t";
  EXPECT_EQ(ParseTrial(s, failed, true).failure,
            "The test quit with a non-zero exit status (1): the disk is full: 0 bytes free in /t; error: no disk");
  failed.error_line = "";
  EXPECT_EQ(ParseTrial(s, failed, true).failure, "The test quit with a non-zero exit status (1): the disk is full: 0 bytes free in /t");
  EXPECT_EQ(FullDiskNote({"", ::testing::TempDir()}), "");  // room: nothing to say
  EXPECT_EQ(FullDiskNote({"/nonexistent/dir"}), "");

  EXPECT_EQ(ParseTrial(s, TrialRun{}, true).failure, "The test run did not write $LOG_FILE");
  parsed = ParseTrial(s, Logged("nothing here\n"), true);
  EXPECT_EQ(parsed.failure.rfind("The test run did not produce a result (", 0), 0u) << parsed.failure;
  TrialRun short_run = Logged("nothing here\n");
  short_run.monitor_notes = {"sys.time: too short"};
  EXPECT_EQ(ParseTrial(s, short_run, true).failure, "The test run did not produce a result (sys.time: too short)");
}

TEST_F(TestStepsTest, ParseTrialPrefersTheMonitorsValueToTheLog) {
  TrialSeries s = Series(Test());
  TrialRun run = Logged("Result: 12\n");
  run.monitor_values = {"3.25"};
  ParsedTrial parsed = ParseTrial(s, run, true);
  EXPECT_EQ(parsed.value, "3.25");
  EXPECT_EQ(parsed.first_value.value_or("(none)"), "3.25");
  EXPECT_EQ(s.session->Results().at(0).trial_values, std::vector<std::string>{"3.25"});
}

TEST_F(TestStepsTest, CountTrialFeedsTheRunCountAndTheLog) {
  TrialSeries s = Series(Test());
  s.started = 100;
  for (int i = 0; i < 3; ++i) AddTrial(s, Logged("Result: 1" + std::to_string(i) + ".25\n", 2));
  TrialRun failed = Logged("");
  failed.failure = "timed out after 5 s";
  failed.interrupted = true;
  CountTrial(s, failed, ParseTrial(s, failed, true), 130);
  EXPECT_EQ(s.state.runs_done, 4);
  EXPECT_EQ(s.state.values, (std::vector<double>{10.25, 11.25, 12.25}));
  EXPECT_EQ(s.state.value_precision, 2);
  EXPECT_EQ(s.state.run_seconds, (std::vector<double>{2, 2, 2, 1}));
  EXPECT_EQ(s.state.extra_seconds, 1);  // the fourth is beyond the three scheduled
  EXPECT_EQ(s.state.elapsed_seconds, 30);
  EXPECT_EQ(s.failures, std::vector<std::string>{"run 4: timed out after 5 s"});
  EXPECT_TRUE(s.interrupted);
  EXPECT_FALSE(NeedsMoreTrials(s));
  EXPECT_EQ(s.log, "entry[Result: 10.25\n]entry[Result: 11.25\n]entry[Result: 12.25\n]entry[]");
}

TEST_F(TestStepsTest, DecideMoreTrialsAddsRunsToANoisySeriesWithinTheCap) {
  TrialSeries s = Series(Test());
  for (const char* v : {"80", "120", "80"}) AddTrial(s, Logged(std::string("Result: ") + v));
  EXPECT_FALSE(NeedsMoreTrials(s));
  ExtraRunDecision d = steps_.DecideMoreTrials(s);
  EXPECT_EQ(d.add, 1);
  EXPECT_EQ(s.planned, 4);
  EXPECT_EQ(s.runs_added, 1);
  EXPECT_EQ(s.added_reasons.size(), 1u);
  EXPECT_EQ(s.state.sd_history.size(), 1u);
  EXPECT_TRUE(NeedsMoreTrials(s));
  for (const char* v : {"120", "80", "120"}) {
    AddTrial(s, Logged(std::string("Result: ") + v));
    steps_.DecideMoreTrials(s);
  }
  EXPECT_EQ(s.state.runs_done, 6);  // run.max_runs
  EXPECT_EQ(s.planned, 6);
  EXPECT_EQ(s.stopped_by, "max_runs");
  EXPECT_FALSE(NeedsMoreTrials(s));
}

TEST_F(TestStepsTest, DecideMoreTrialsRetriesFailedRunsOnce) {
  TrialSeries s = Series(Test());
  TrialRun failed;
  failed.failure = "crashed";
  for (const TrialRun& run : {Logged("Result: 5"), failed, Logged("Result: 5")}) AddTrial(s, run);
  EXPECT_EQ(steps_.DecideMoreTrials(s).add, 1);
  EXPECT_TRUE(s.state.failures_retried);
  EXPECT_EQ(s.added_reasons, std::vector<std::string>{"1 failed run(s) retried"});
}

TEST_F(TestStepsTest, NeedsMoreTrialsStopsAtPtsCap) {
  TrialSeries s;
  s.planned = 300;
  s.state.runs_done = 255;
  EXPECT_TRUE(NeedsMoreTrials(s));
  s.state.runs_done = 256;
  EXPECT_FALSE(NeedsMoreTrials(s));
}

TEST_F(TestStepsTest, RecordResultMakesTheEntryFromTheSeries) {
  auto [t, env, s] = Prepare();
  for (const char* v : {"10", "11", "12"}) AddTrial(s, Logged(std::string("Result: ") + v, 0.5));
  WriteFileAtomically(env.home + "/pts-results-scale", "MB/s\n");
  TestRecord record = steps_.RecordResult(t, env, s, "");
  EXPECT_EQ(record.failure, "");
  ASSERT_EQ(record.results.size(), 1u);
  const auto& r = record.results[0];
  EXPECT_EQ(r.identifier, "local/fake-1.0.0");
  EXPECT_EQ(r.scale, "MB/s");  // the script's override file, taken
  EXPECT_FALSE(fs::exists(env.home + "/pts-results-scale"));
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_EQ(r.entries[0].identifier, "Box A");
  EXPECT_EQ(r.entries[0].value, "11");
  EXPECT_EQ(r.entries[0].raw_string.value_or(""), "10:11:12");
  EXPECT_EQ(nlohmann::json::parse(*r.entries[0].json)["test-run-times"], "0.50:0.50:0.50");  // two decimals, as PTS
  EXPECT_EQ(record.log, "entry[Result: 10]entry[Result: 11]entry[Result: 12]");
}

TEST_F(TestStepsTest, RecordResultKeepsFailuresAsAnEmptyValueWithTheError) {
  auto [t, env, s] = Prepare();
  AddTrial(s, Logged("Result: 10"));
  TestRecord record = steps_.RecordResult(t, env, s, "post.sh timed out after 60 s");
  EXPECT_EQ(record.failure, "post.sh timed out after 60 s");
  ASSERT_EQ(record.results.size(), 1u);
  EXPECT_EQ(record.results[0].entries.at(0).value, "");
  EXPECT_EQ(nlohmann::json::parse(*record.results[0].entries[0].json)["error"], "post.sh timed out after 60 s");

  // No trial gave a value: the test is still recorded, with the subtitle and every failure.
  s = steps_.StartSeries(t, env);
  TrialRun failed;
  failed.failure = "crashed";
  AddTrial(s, failed);
  s.failures.push_back("interim.sh timed out");
  record = steps_.RecordResult(t, env, s, "");
  ASSERT_EQ(record.results.size(), 1u);
  EXPECT_EQ(record.results[0].description, "Fake Subtitle");
  EXPECT_EQ(record.failure, "run 1: crashed; interim.sh timed out");
}

TEST_F(TestStepsTest, RecordResultOfAnInterruptedSeriesKeepsNothing) {
  auto [t, env, s] = Prepare();
  AddTrial(s, Logged("Result: 10"));
  s.interrupted = true;
  WriteFileAtomically(env.home + "/pts-test-version", "2.0\n");
  TestRecord record = steps_.RecordResult(t, env, s, "");
  EXPECT_EQ(record.failure, "interrupted");
  EXPECT_TRUE(record.results.empty());
  EXPECT_FALSE(fs::exists(env.home + "/pts-test-version"));  // not left for the next test
}

// Several series of one test advanced round by round (as storage targets will: round 1 on each
// target, then round 2...) keep their own values, decisions and logs.
TEST_F(TestStepsTest, SeriesAdvancedRoundByRoundStayApart) {
  PlannedTest t = Test();
  TestEnvironment env = steps_.PrepareEnvironment(t);
  std::vector<TrialSeries> series;
  series.push_back(steps_.StartSeries(t, env));
  series.push_back(steps_.StartSeries(t, env));
  const std::vector<std::vector<std::string>> values = {{"10", "10", "10"}, {"20", "30", "20", "30", "20", "30"}};
  for (int round = 0; round < 6; ++round)
    for (size_t k = 0; k < series.size(); ++k) {
      if (!NeedsMoreTrials(series[k])) continue;
      AddTrial(series[k], Logged("Result: " + values[k][round]));
      if (series[k].state.runs_done == series[k].planned) steps_.DecideMoreTrials(series[k]);
    }
  EXPECT_EQ(series[0].state.runs_done, 3);
  EXPECT_EQ(series[1].state.runs_done, 6);  // noisy: runs added up to run.max_runs
  EXPECT_EQ(steps_.RecordResult(t, env, series[0], "").results.at(0).entries.at(0).value, "10");
  EXPECT_EQ(steps_.RecordResult(t, env, series[1], "").results.at(0).entries.at(0).value, "25");
}

}  // namespace
}  // namespace ptsn::run
