#include "results-xml/stats/verdict.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ptsn::results {
namespace {

TEST(Verdict, TrimmedMeanDropsTheTailsOnly) {
  EXPECT_DOUBLE_EQ(TrimmedMean({1, 2, 3, 4, 100}, 0.2), 3);  // one dropped from each end
  EXPECT_DOUBLE_EQ(TrimmedMean({100, 1, 2}, 0.2), 34.333333333333336);  // floor(0.6) = 0: nothing dropped
  EXPECT_DOUBLE_EQ(TrimmedMean({1, 2}, 0.2), 1.5);
  EXPECT_DOUBLE_EQ(TrimmedMean({}, 0.2), 0);
  EXPECT_DOUBLE_EQ(TrimmedMean({5, 1, 9, 3, 7, 2, 8, 4, 6, 100}, 0.2), 5.5);  // 2 each end: mean of 3..8
}

TEST(Verdict, LogRatiosSkipRoundsWithoutTwoPositiveValues) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto logs = LogRatios(std::vector<double>{1, 2, nan, 0, 4}, std::vector<double>{2, 2, 1, 1});
  ASSERT_EQ(logs.size(), 2u);
  EXPECT_DOUBLE_EQ(logs[0], std::log(2.0));
  EXPECT_DOUBLE_EQ(logs[1], 0);
}

TEST(Verdict, IntervalIsStudentTOverInstancePairSummaries) {
  // Summaries 0.10, 0.11, 0.12: mean 0.11, sd 0.01, t(0.975, 2) = 4.302653.
  InstanceRounds pairs = {{0.10}, {0.05, 0.11, 0.11, 0.11, 0.50}, {0.12, 0.12}};
  Verdict v = DecideVerdict(pairs, {});
  EXPECT_EQ(v.kind, VerdictKind::kDifferent);
  EXPECT_EQ(v.instances, 3u);
  EXPECT_EQ(v.rounds, 8u);
  ASSERT_TRUE(v.has_interval);
  const double half = 4.302652730 * 0.01 / std::sqrt(3.0);
  EXPECT_NEAR(v.ratio, std::exp(0.11), 1e-12);
  EXPECT_NEAR(v.ci_low, std::exp(0.11 - half), 1e-8);
  EXPECT_NEAR(v.ci_high, std::exp(0.11 + half), 1e-8);
  EXPECT_EQ(VerdictText(v, {}), "different: x1.116 [1.089, 1.144] (3 instance pairs, 8 rounds)");
}

TEST(Verdict, SameWhenTheWholeIntervalIsWithinTheBound) {
  InstanceRounds pairs = {{0.0}, {0.01}, {-0.01}};  // half-width 0.0248 < log(1.05) = 0.0488
  Verdict v = DecideVerdict(pairs, {5, 0.95});
  EXPECT_EQ(v.kind, VerdictKind::kSame);
  EXPECT_EQ(VerdictText(v, {5, 0.95}), "same within +-5 %: x1.000 [0.975, 1.025] (3 instance pairs, 3 rounds)");
  EXPECT_EQ(DecideVerdict(pairs, {2, 0.95}).kind, VerdictKind::kUnknown);  // log(1.02) = 0.0198 < 0.0248
}

TEST(Verdict, UnknownSaysHowManyPairsWouldDecide) {
  // Mean 0.2, sd 0.1: half-width 0.248 spans 0. "Different" needs it below 0.2:
  // (4.302653 * 0.1 / 0.2)^2 = 4.63 -> 5 pairs in all (at this t; more pairs also lower t).
  InstanceRounds pairs = {{0.1}, {0.2}, {0.3}};
  Verdict v = DecideVerdict(pairs, {});
  EXPECT_EQ(v.kind, VerdictKind::kUnknown);
  EXPECT_EQ(v.instances_needed, 5u);
  EXPECT_NEAR(v.resolution_percent(), (std::exp(0.448414) - std::exp(-0.048414)) / 2 / std::exp(0.2) * 100, 1e-3);
  EXPECT_EQ(VerdictText(v, {}),
            "unknown: x1.221 [0.953, 1.566] (3 instance pairs, 3 rounds); differences under +-25.1 % cannot be "
            "resolved here; about 2 more instance pairs would decide it");
}

TEST(Verdict, OnePairHasNoIntervalOfTheBetweenInstanceVariation) {
  Verdict v = DecideVerdict({{0.5, 0.5, 0.5, 0.5}}, {});
  EXPECT_EQ(v.kind, VerdictKind::kUnknown);
  EXPECT_FALSE(v.has_interval);
  EXPECT_EQ(v.instances_needed, 0u);
  EXPECT_EQ(VerdictText(v, {}),
            "unknown: x1.649 (1 instance pair, 4 rounds); one instance pair cannot tell the set-up from its instance "
            "(run.target_instances)");
  EXPECT_EQ(DecideVerdict({}, {}).instances, 0u);
}

TEST(Verdict, PocockLevelsPerLook) {
  EXPECT_NEAR(PocockConfidence(0.95, 1), 0.95, 1e-4);              // C_P 1.960
  EXPECT_NEAR(PocockConfidence(0.95, 5), 1 - 0.0158, 1e-4);        // C_P 2.413: Pocock's 0.0158
  EXPECT_NEAR(PocockConfidence(0.95, 10), 1 - 0.0106, 1e-4);       // C_P 2.555: 0.0106
  EXPECT_DOUBLE_EQ(PocockConfidence(0.95, 13), PocockConfidence(0.95, 15));  // the next tabled K
  EXPECT_NEAR(PocockConfidence(0.95, 20), 1 - 0.00754, 1e-4);      // C_P 2.672
  EXPECT_DOUBLE_EQ(PocockConfidence(0.95, 40), PocockConfidence(0.95, 20));
  EXPECT_NEAR(PocockConfidence(0.99, 2), 1 - 0.01 * 0.0294 / 0.05, 1e-4);
}

TEST(Verdict, InstanceNames) {
  EXPECT_EQ(ParseInstanceName("plain ext4 #3").kind, "plain ext4");
  EXPECT_EQ(ParseInstanceName("plain ext4 #3").instance, 3);
  EXPECT_EQ(ParseInstanceName("plain ext4").instance, 1);
  EXPECT_EQ(ParseInstanceName("run #1").kind, "run #1");  // never written for instance 1
  EXPECT_EQ(ParseInstanceName("a #b").kind, "a #b");
  EXPECT_EQ(ParseInstanceName("a #").kind, "a #");
  EXPECT_EQ(InstanceIdentifier("fscrypt", 1), "fscrypt");
  EXPECT_EQ(InstanceIdentifier("fscrypt", 2), "fscrypt #2");
}

TEST(Verdict, KindsAgainstTheFirstPairInstanceByInstance) {
  // B is exactly twice A in instance pairs 1 and 2 but 4x in pair 3; C equals A; "D #7" has no
  // reference instance 7, so D has no pairs.
  std::vector<SystemTrials> systems = {
      {"A", {10, 10}}, {"B", {20, 20}}, {"C", {10, 10}}, {"A #2", {5, 5}}, {"B #2", {10, 10}},
      {"C #2", {5, 5}}, {"A #3", {1, 1}}, {"B #3", {4, 4}}, {"D #7", {1, 1}}};
  auto v = VerdictsAgainstFirst(systems, {});
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].kind, "B");
  EXPECT_EQ(v[0].verdict.instances, 3u);
  EXPECT_NEAR(v[0].verdict.ratio, std::exp((2 * std::log(2.0) + std::log(4.0)) / 3), 1e-12);
  EXPECT_EQ(v[1].kind, "C");
  EXPECT_EQ(v[1].verdict.instances, 2u);
  EXPECT_EQ(v[1].verdict.kind, VerdictKind::kSame);  // both pairs exactly 1: a zero-width interval
  EXPECT_EQ(v[2].kind, "D");
  EXPECT_EQ(v[2].verdict.instances, 0u);
}

TEST(Verdict, ViewOfAFileWithInstances) {
  ResultFile file;
  for (const char* id : {"A", "B", "A #2", "B #2", "A #3", "B #3"}) file.systems.push_back({id});
  Result r;
  r.title = "Write";
  r.app_version = "1.0";
  r.description = "64m";
  // Per pair, B/A in both rounds: 0.5, 0.55, 0.45 (pair 3's second round failed: "x" is no number).
  auto entry = [](const char* id, const char* raw) {
    Entry e;
    e.identifier = id;
    e.value = "1";
    e.raw_string = raw;
    return e;
  };
  r.entries = {entry("A", "100:200"), entry("B", "50:100"),   entry("A #2", "100:100"),
               entry("B #2", "55:55"), entry("A #3", "100:x"), entry("B #3", "45:45")};
  file.results.push_back(r);
  const double mean = (std::log(0.5) + std::log(0.55) + std::log(0.45)) / 3;
  Verdict v = DecideVerdict({{std::log(0.5), std::log(0.5)}, {std::log(0.55), std::log(0.55)}, {std::log(0.45)}}, {});
  EXPECT_NEAR(v.ratio, std::exp(mean), 1e-12);
  EXPECT_EQ(VerdictView(file, {}), "\nVerdicts by instance pairs against A (95 %; same within +-5 %):\n"
                                   "  Write 1.0 - 64m\n    B: " + VerdictText(v, {}) + "\n");
  EXPECT_EQ(VerdictText(v, {}), "different: x0.498 [0.388, 0.639] (3 instance pairs, 5 rounds)");
  file.systems.resize(2);  // one instance of each: unknown, never "different", however far apart (x0.5 here)
  EXPECT_EQ(VerdictView(file, {}), "\nVerdicts by instance pairs against A (95 %; same within +-5 %):\n"
                                   "  Write 1.0 - 64m\n    B: unknown: x0.500 (1 instance pair, 2 rounds); one instance "
                                   "pair cannot tell the set-up from its instance (run.target_instances)\n");
  file.systems.resize(1);
  EXPECT_EQ(VerdictView(file, {}), "");
}

TEST(Verdict, ViewJudgesARunThatCouldLookAgainAtItsLooksLevel) {
  // Three pairs with log ratios 0.10, 0.15, 0.20: mean 0.15, se 0.0289. At 95 % (t = 4.303, 2 df)
  // the interval [0.026, 0.274] leaves out 0: "different". A run that allowed 20 looks judged each
  // at Pocock's 99.25 % (t = 11.3): [-0.18, 0.48], unknown; its file must be read the same way.
  ResultFile file;
  Result r;
  r.title = "Write";
  r.app_version = "1.0";
  for (int k = 1; k <= 3; ++k) {
    const std::string a = InstanceIdentifier("A", k), b = InstanceIdentifier("B", k);
    file.systems.push_back({a});
    file.systems.push_back({b});
    const std::string other = std::to_string(100 * std::exp(0.05 + 0.05 * k));
    r.entries.push_back({a, "100", std::string("100:100"), std::nullopt});
    r.entries.push_back({b, other, other + ":" + other, std::string(R"({"verdict-looks":20})")});
  }
  file.results.push_back(r);
  const std::string view = VerdictView(file, {});
  EXPECT_NE(view.find("  Write 1.0 (run with up to 20 looks: each at 99.25 %)\n    B: unknown: x1.162 ["), std::string::npos)
      << view;
  for (auto& e : file.results[0].entries) e.json.reset();  // a run without looks to come
  EXPECT_NE(VerdictView(file, {}).find("  Write 1.0\n    B: different: x1.162 [1.026, 1.315]"), std::string::npos)
      << VerdictView(file, {});
}

TEST(Resolution, TwoSampleHalfWidthOnTheLogScale) {
  // logs of 100, 110, 90, 105: sd 0.0862 (hand-computed), t(0.975, 6) = 2.446912;
  // half = 2.446912 * 0.0862... * sqrt(2/4) -> exp(half) - 1.
  std::vector<double> v{100, 110, 90, 105};
  auto r = TrialResolution(v);
  ASSERT_TRUE(r);
  double m = 0, ss = 0;
  for (double x : v) m += std::log(x) / 4;
  for (double x : v) ss += (std::log(x) - m) * (std::log(x) - m);
  const double expected = 100 * std::expm1(2.446911851 * std::sqrt(ss / 3) * std::sqrt(0.5));
  EXPECT_NEAR(r->resolvable_percent, expected, 1e-6);
  EXPECT_NEAR(r->resolvable_percent, 16.04, 0.01);
  EXPECT_EQ(r->trials, 4u);
  EXPECT_EQ(r->min, 90);
  EXPECT_EQ(r->max, 110);
  EXPECT_NEAR(r->cv_percent, 8.4337, 1e-4);
  EXPECT_EQ(ResolutionNote(*r, "MiB/s"),
            "differences under \u00b116.0 % cannot be resolved from these 4 trials (sd 8 % of the mean, 90 to 110 MiB/s)");
  // Large and small figures in plain digits, four significant ones.
  auto wide = TrialResolution(std::vector<double>{8436, 11532, 3.402e6});
  ASSERT_TRUE(wide);
  EXPECT_NE(ResolutionNote(*wide, "IOPS").find("8436 to 3402000 IOPS"), std::string::npos) << ResolutionNote(*wide, "IOPS");
  auto small = TrialResolution(std::vector<double>{0.01234, 53.99});
  ASSERT_TRUE(small);
  EXPECT_NE(ResolutionNote(*small, "").find("0.01234 to 53.99)"), std::string::npos) << ResolutionNote(*small, "");
  EXPECT_FALSE(TrialResolution(std::vector<double>{5}));
  EXPECT_FALSE(TrialResolution(std::vector<double>{5, 0}));
  EXPECT_EQ(TrialResolution(std::vector<double>{7, 7, 7})->resolvable_percent, 0);
}

}  // namespace
}  // namespace ptsn::results
