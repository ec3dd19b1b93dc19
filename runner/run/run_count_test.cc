#include "runner/run/run_count.h"

#include <gtest/gtest.h>

#include <map>

#include "runner/common/error.h"

namespace ptsn::run {
namespace {

RunCountOverrides FromEnv(std::map<std::string, std::string> vars) {
  return ReadRunCountOverrides([vars](const std::string& k) -> std::optional<std::string> {
    auto it = vars.find(k);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  });
}

TEST(ScheduledRunsTest, FollowsPtsOrderOfOverrides) {
  EXPECT_EQ(ScheduledRuns(3, 10, "BAR_GRAPH", {}), 3);
  EXPECT_EQ(ScheduledRuns(0, 10, "BAR_GRAPH", {}), 3);  // TimesToRun absent
  EXPECT_EQ(ScheduledRuns(3, 10, "BAR_GRAPH", FromEnv({{"FORCE_TIMES_TO_RUN_MULTIPLE", "2"}})), 6);
  EXPECT_EQ(ScheduledRuns(3, 8000, "BAR_GRAPH", FromEnv({{"FORCE_TIMES_TO_RUN_MULTIPLE", "2"}})), 3);
  EXPECT_EQ(ScheduledRuns(3, 10, "BAR_GRAPH", FromEnv({{"FORCE_TIMES_TO_RUN", "1"}, {"FORCE_TIMES_TO_RUN_MULTIPLE", "2"}})), 1);
  EXPECT_EQ(ScheduledRuns(3, 10, "BAR_GRAPH", FromEnv({{"FORCE_MIN_TIMES_TO_RUN", "5"}})), 5);
  EXPECT_EQ(ScheduledRuns(3, 600, "BAR_GRAPH",
                          FromEnv({{"FORCE_MIN_TIMES_TO_RUN", "5"}, {"FORCE_MIN_TIMES_TO_RUN_CUTOFF", "10"}})), 3);
  EXPECT_EQ(ScheduledRuns(3, 540, "BAR_GRAPH",
                          FromEnv({{"FORCE_MIN_TIMES_TO_RUN", "5"}, {"FORCE_MIN_TIMES_TO_RUN_CUTOFF", "10"}})), 5);
  // pts_test_profile::get_times_to_run(): with a cutoff, an unknown estimate (0) is not "below" it.
  EXPECT_EQ(ScheduledRuns(3, 0, "BAR_GRAPH",
                          FromEnv({{"FORCE_MIN_TIMES_TO_RUN", "5"}, {"FORCE_MIN_TIMES_TO_RUN_CUTOFF", "10"}})), 3);
  EXPECT_EQ(ScheduledRuns(3, 0, "BAR_GRAPH", FromEnv({{"FORCE_MIN_TIMES_TO_RUN", "5"}})), 5);
  EXPECT_EQ(ScheduledRuns(3, 10, "BAR_GRAPH",
                          FromEnv({{"FORCE_TIMES_TO_RUN", "1"}, {"FORCE_ABSOLUTE_MIN_TIMES_TO_RUN", "2"}})), 2);
  EXPECT_EQ(ScheduledRuns(5, 10, "MULTI_BAR_GRAPH", {}), 1);
  EXPECT_EQ(ScheduledRuns(5, 10, "IMAGE_COMPARISON", {}), 1);
  EXPECT_EQ(ScheduledRuns(1000, 10, "BAR_GRAPH", {}), 256);
}

TEST(ReadOverrides, ParsesIgnoreRunsAndRejectsGarbage) {
  auto o = FromEnv({{"IGNORE_RUNS", "1, 3"}});
  EXPECT_EQ(o.ignore_runs, (std::set<int>{1, 3}));
  EXPECT_THROW(FromEnv({{"FORCE_TIMES_TO_RUN", "three"}}), Error);
  try {
    FromEnv({{"FORCE_TIMES_TO_RUN", "three"}});
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("FORCE_TIMES_TO_RUN=three"), std::string::npos);
  }
}

TEST(SdPercentTest, SampleStandardDeviationOverMean) {
  EXPECT_DOUBLE_EQ(SdPercent({}), 0);
  EXPECT_DOUBLE_EQ(SdPercent({5}), 0);
  EXPECT_NEAR(SdPercent({9, 10, 11}), 10.0, 1e-9);
}

// Drives DecideExtraRuns the way the run loop does, with values from `value_of(run)`.
struct Simulation {
  int runs = 0;
  std::vector<std::string> reasons;
  std::string stopped_by;
};
Simulation Simulate(int scheduled, const std::function<std::optional<double>(int)>& value_of,
                    DynamicRunLimits limits, RunCountOverrides o = {}, double run_seconds = 2) {
  RunState s;
  s.scheduled = scheduled;
  int target = scheduled;
  Simulation sim;
  while (s.runs_done < target) {
    auto v = value_of(s.runs_done);
    s.runs_done++;
    s.run_seconds.push_back(run_seconds);
    s.elapsed_seconds += run_seconds;
    if (s.runs_done > scheduled) s.extra_seconds += run_seconds;
    if (v) s.values.push_back(*v);
    if (s.runs_done == target) {
      auto d = DecideExtraRuns(s, limits, o);
      if (d.noisy) s.sd_history.push_back(d.sd_percent);
      if (!d.reason.empty() && d.add > 0) sim.reasons.push_back(d.reason);
      if (d.reason.find("failed") != std::string::npos) s.failures_retried = true;
      sim.stopped_by = d.stopped_by;
      target += d.add;
    }
  }
  sim.runs = s.runs_done;
  return sim;
}

// +-15 % alternating noise, as the golden dynamic-run-count run (TimesToRun 3 -> 15 runs).
std::optional<double> Noisy(int i) {
  static const double pattern[] = {100, 85, 115, 92, 108, 97, 112, 88, 103};
  return pattern[i % 9];
}

TEST(DecideExtraRunsTest, NoisyResultsReachPtsFifteenRunsWhenUnbounded) {
  auto sim = Simulate(3, Noisy, {true, 2.5, 1000, 1e9});
  EXPECT_EQ(sim.runs, 15);  // 3 x 4, then 3 more while the deviation keeps near its first value
  EXPECT_NE(sim.reasons.front().find("sd "), std::string::npos);
}

TEST(DecideExtraRunsTest, CapAndBudgetBoundTheExtraRuns) {
  auto capped = Simulate(3, Noisy, {true, 2.5, 8, 1e9});
  EXPECT_EQ(capped.runs, 8);
  EXPECT_EQ(capped.stopped_by, "max_runs");
  auto budget = Simulate(3, Noisy, {true, 2.5, 100, 5}, {}, 2.0);  // 5 s of extras at 2 s a run
  EXPECT_EQ(budget.runs, 5);
  EXPECT_EQ(budget.stopped_by, "time_budget");
}

TEST(DecideExtraRunsTest, QuietResultsAddNothing) {
  auto sim = Simulate(3, [](int i) -> std::optional<double> { return 100 + 0.1 * (i % 2); }, {true, 2.5, 100, 1e9});
  EXPECT_EQ(sim.runs, 3);
}

TEST(DecideExtraRunsTest, ForceTimesToRunOrSettingDisablesDynamicRuns) {
  EXPECT_EQ(Simulate(3, Noisy, {true, 2.5, 100, 1e9}, FromEnv({{"FORCE_TIMES_TO_RUN", "3"}})).runs, 3);
  EXPECT_EQ(Simulate(3, Noisy, {false, 2.5, 100, 1e9}).runs, 3);
}

// PTS runs the profile's count, silently, for FORCE_TIMES_TO_RUN of "0" (PHP's getenv() == false),
// a negative number or an empty value: a mistake in a script, refused here with one line; a count
// over 256 runs 256 times and says so.
TEST(ReadOverrides, ForceTimesToRunOutOfRangeIsRefusedOrSaid) {
  for (const auto& [value, message] : std::vector<std::pair<std::string, std::string>>{
           {"0", "FORCE_TIMES_TO_RUN=0: a test runs at least once (1-256); unset it for each profile's own count"},
           {"-1", "FORCE_TIMES_TO_RUN=-1: a test runs at least once (1-256); unset it for each profile's own count"},
           {"", "FORCE_TIMES_TO_RUN is set but empty: give the number of times each test runs (1-256), or unset it "
                "for each profile's own count"},
           {"  ", "FORCE_TIMES_TO_RUN is set but empty: give the number of times each test runs (1-256), or unset it "
                  "for each profile's own count"}}) {
    try {
      FromEnv({{"FORCE_TIMES_TO_RUN", value}});
      ADD_FAILURE() << "'" << value << "' accepted";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), message);
    }
  }
  EXPECT_TRUE(FromEnv({{"FORCE_TIMES_TO_RUN", "256"}}).notices.empty());
  auto many = FromEnv({{"FORCE_TIMES_TO_RUN", "1000000"}});
  EXPECT_EQ(ScheduledRuns(3, 10, "BAR_GRAPH", many), 256);
  EXPECT_EQ(many.notices, std::vector<std::string>{"FORCE_TIMES_TO_RUN=1000000: a test runs at most 256 times; each runs 256 times"});
  EXPECT_TRUE(FromEnv({}).notices.empty());
}

TEST(DecideExtraRunsTest, FailedRunsAreRetriedOnce) {
  // Run 2 fails; a retry is added; the values are quiet so nothing else.
  auto sim = Simulate(3, [](int i) -> std::optional<double> {
    if (i == 1) return std::nullopt;
    return 50.0;
  }, {true, 2.5, 100, 1e9});
  EXPECT_EQ(sim.runs, 4);
  ASSERT_FALSE(sim.reasons.empty());
  EXPECT_EQ(sim.reasons.front(), "1 failed run(s) retried");
}

// PTS's "most runs produced a result" test is weak: 1 of 3 passes it, so 2 retries are added once
// at the defined last run; after them 1 of 5 does not, and the loop stops.
TEST(DecideExtraRunsTest, FailedRunRetriesHappenOnlyOnce) {
  auto sim = Simulate(3, [](int i) -> std::optional<double> {
    if (i > 0) return std::nullopt;
    return 50.0;
  }, {true, 2.5, 100, 1e9});
  EXPECT_EQ(sim.runs, 5);
}

TEST(DecideExtraRunsTest, AnOutlierBeyondThreeSigmaTriggersARun) {
  RunState s;
  s.scheduled = 10;
  s.runs_done = 20;
  s.values.assign(19, 100);
  s.values.push_back(104);  // sd% 0.89 < 2.5, but 104 > mean + 3 sigma (102.82)
  s.run_seconds.assign(20, 1);
  auto d = DecideExtraRuns(s, {true, 2.5, 100, 1e9}, {});
  EXPECT_EQ(d.add, 1);
  EXPECT_EQ(d.reason, "a value outside three sigma");
  for (size_t i = 0; i < s.values.size(); ++i) s.values[i] = i % 2 ? 100.5 : 100;  // spread evenly
  EXPECT_EQ(DecideExtraRuns(s, {true, 2.5, 100, 1e9}, {}).add, 0);
}

}  // namespace
}  // namespace ptsn::run
