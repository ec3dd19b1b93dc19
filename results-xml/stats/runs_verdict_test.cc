#include "results-xml/stats/runs_verdict.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ptsn::results {
namespace {

// Each run a single trial: its summary is the log of it.
std::vector<std::vector<double>> Runs(std::initializer_list<double> values) {
  std::vector<std::vector<double>> out;
  for (double v : values) out.push_back({v});
  return out;
}

TEST(RunsVerdict, OneRunOfEachIsUnknownHoweverFarApart) {
  // Twice as fast in one run each: one run's trials leave out the difference the run carries.
  RunsVerdict v = DecideRunsVerdict({{100, 101, 99}}, {{200, 201, 199}}, {});
  EXPECT_EQ(v.kind, VerdictKind::kUnknown);
  EXPECT_FALSE(v.has_interval);
  EXPECT_NEAR(v.ratio, 2, 1e-3);
  EXPECT_EQ(RunsVerdictText(v, {}),
            "unknown: x2.000 (1 run against 1); one run of each cannot tell a set-up from its run: run each 2 more "
            "times (as \"NAME run 2\", \"NAME run 3\") or compare them as targets in one run (--targets)");
  EXPECT_EQ(DecideRunsVerdict({}, {{1}}, {}).kind, VerdictKind::kUnknown);
}

TEST(RunsVerdict, RepeatedRunsGiveThePooledIntervalOfTheRunMeans) {
  // By hand: logs of 100, 102, 98 against 80, 81, 79; pooled sd over 4 df, t(0.975, 4) = 2.7764,
  // half-width t * sd * sqrt(2/3): x0.80007 [0.77038, 0.83090].
  RunsVerdict v = DecideRunsVerdict(Runs({100, 102, 98}), Runs({80, 81, 79}), {});
  EXPECT_EQ(v.kind, VerdictKind::kDifferent);
  EXPECT_NEAR(v.ratio, 0.800065, 1e-5);
  EXPECT_NEAR(v.ci_low, 0.770379, 1e-5);
  EXPECT_NEAR(v.ci_high, 0.830895, 1e-5);
  EXPECT_EQ(RunsVerdictText(v, {}), "different: x0.800 [0.770, 0.831] (3 runs against 3)");
  // A run's summary is the mean of its log trials (its geometric mean), not of its values.
  EXPECT_NEAR(RunSummary(std::vector<double>{10, 1000}), std::log(100), 1e-12);
  EXPECT_TRUE(std::isnan(RunSummary(std::vector<double>{0, -1})));
}

TEST(RunsVerdict, SameWhenTheWholeIntervalIsWithinTheBound) {
  RunsVerdict v = DecideRunsVerdict(Runs({100, 101, 99}), Runs({100.5, 99.5, 100}), {});
  EXPECT_EQ(v.kind, VerdictKind::kSame);  // [0.9823, 1.0181] within +-5 %
  EXPECT_NEAR(v.ci_low, 0.982262, 1e-5);
  EXPECT_EQ(RunsVerdictText(v, {}).rfind("same within +-5 %: x1.000 [0.982, 1.018] (3 runs against 3)", 0), 0u);
}

TEST(RunsVerdict, UnknownSaysHowManyRunsWouldDecide) {
  // By hand: x1.0655 [0.7731, 1.4684]; the nearer decision ("different") needs the half-width
  // below |log 1.0655| = 0.0634: 2 (t sd / 0.0634)^2 = 76.8 -> 77 runs of each.
  RunsVerdict v = DecideRunsVerdict(Runs({100, 120, 90}), Runs({110, 95, 125}), {});
  EXPECT_EQ(v.kind, VerdictKind::kUnknown);
  EXPECT_EQ(v.runs_needed, 77u);
  EXPECT_NEAR(v.resolution_percent(), 32.629, 1e-2);
  EXPECT_EQ(RunsVerdictText(v, {}),
            "unknown: x1.065 [0.773, 1.468] (3 runs against 3); differences under +-32.6 % cannot be resolved "
            "here; about 77 runs of each would decide it");
}

TEST(RunsVerdict, TwoRunsOfOneSetUpGiveTheSpreadForBoth) {
  // Runs of the reference only: their spread (1 df) stands for both set-ups.
  RunsVerdict v = DecideRunsVerdict(Runs({100, 101}), Runs({200}), {});
  ASSERT_TRUE(v.has_interval);
  EXPECT_EQ(v.kind, VerdictKind::kDifferent);
  EXPECT_EQ(v.reference_runs, 2u);
  EXPECT_EQ(v.other_runs, 1u);
}

TEST(RunsVerdict, TheRunsOfASetUpAreNamedAsAUserCanNameThem) {
  EXPECT_EQ(SetUpOf("Stock"), "Stock");
  EXPECT_EQ(SetUpOf("Stock #2"), "Stock");        // a merge's or a target's instance
  EXPECT_EQ(SetUpOf("Stock run 3"), "Stock");     // TEST_RESULTS_IDENTIFIER keeps no '#'
  EXPECT_EQ(SetUpOf("Stock run"), "Stock run");
  EXPECT_EQ(SetUpOf("Stock run 3b"), "Stock run 3b");
  EXPECT_EQ(SetUpOf("Linux 6.1"), "Linux 6.1");
}

TEST(RunsVerdict, TheWordSaysWhichWayIsBetter) {
  EXPECT_EQ(VerdictWord(VerdictKind::kDifferent, 1.2, "HIB", {}), "better");
  EXPECT_EQ(VerdictWord(VerdictKind::kDifferent, 1.2, "LIB", {}), "worse");
  EXPECT_EQ(VerdictWord(VerdictKind::kDifferent, 0.8, "LIB", {}), "better");
  EXPECT_EQ(VerdictWord(VerdictKind::kDifferent, 0.8, "", {}), "different");
  EXPECT_EQ(VerdictWord(VerdictKind::kSame, 1, "HIB", {3, 0.95}), "same within +-3 %");
  EXPECT_EQ(VerdictWord(VerdictKind::kUnknown, 1, "HIB", {}), "unknown");
}

}  // namespace
}  // namespace ptsn::results
