#include "server/fleet/fleet_regression.h"

#include <gtest/gtest.h>

namespace ptsn::server {
namespace {

// 3 results at each level below `at` and after, `n` in all, +-0.2 % of steady noise.
std::vector<double> Step(size_t n, size_t at, double before, double after) {
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) v.push_back((i < at ? before : after) * (i % 2 ? 1.002 : 0.998));
  return v;
}

TEST(FleetRegression, ASlowerStepIsARegressionAtItsFirstResult) {
  auto j = JudgeHistory(Step(20, 12, 100, 90), "HIB");
  ASSERT_EQ(j.size(), 20u);
  for (size_t i = 0; i < 18; ++i) ASSERT_TRUE(j[i].verdict) << i;
  EXPECT_EQ(*j[12].verdict, -1);
  EXPECT_NEAR(j[12].change_pct, -10, 0.1);
  EXPECT_NEAR(j[12].baseline_mean, 100, 0.01);
  EXPECT_LT(j[12].ratio_low, 0.9);
  EXPECT_GT(j[12].ratio_high, 0.9);
  EXPECT_LE(j[12].p_value, 0.01);
  for (size_t i = 0; i < 18; ++i) EXPECT_EQ(*j[i].verdict, i == 12 ? -1 : 0) << i;
  EXPECT_FALSE(j[18].verdict) << "the last two results cannot start a change of 3 results yet";
  EXPECT_FALSE(j[19].verdict);
}

TEST(FleetRegression, LowerIsBetterTurnsTheDirection) {
  EXPECT_EQ(*JudgeHistory(Step(20, 12, 100, 90), "LIB")[12].verdict, 1);
  EXPECT_EQ(*JudgeHistory(Step(20, 12, 100, 110), "LIB")[12].verdict, -1);
}

TEST(FleetRegression, StepsBelowTheMinimumAreNotReported) {
  RegressionPolicy p;
  p.min_change_pct = 2;
  auto j = JudgeHistory(Step(30, 15, 100, 101), "HIB", p);  // 1 %: clear, but too small to matter
  for (size_t i = 0; i < 28; ++i) EXPECT_EQ(*j[i].verdict, 0) << i;
  p.min_change_pct = 0.5;
  EXPECT_EQ(*JudgeHistory(Step(30, 15, 100, 101), "HIB", p)[15].verdict, 1);
}

TEST(FleetRegression, TooLittleHistoryOrNoDirectionIsNotJudged) {
  for (const auto& j : JudgeHistory(Step(5, 3, 100, 50), "HIB")) EXPECT_FALSE(j.verdict);
  for (const auto& j : JudgeHistory(Step(20, 12, 100, 50), "")) EXPECT_FALSE(j.verdict);
  auto v = Step(20, 12, 100, 50);
  v[4] = 0;
  for (const auto& j : JudgeHistory(v, "HIB")) EXPECT_FALSE(j.verdict) << "a mean of 0 has no ratio";
}

TEST(FleetRegression, AChangePointIsNewsOnceEvenWhenItMoves) {
  std::vector<ResultJudgement> now(10);
  for (auto& j : now) j.verdict = 0;
  now[6].verdict = -1;
  std::vector<std::optional<int>> before(9, 0);
  EXPECT_EQ(NewChangePoints(before, now, 2), std::vector<size_t>{6});
  before[5] = -1;  // found one result earlier last time
  EXPECT_TRUE(NewChangePoints(before, now, 2).empty());
  before[5] = 1;  // an improvement there is another change
  EXPECT_EQ(NewChangePoints(before, now, 2), std::vector<size_t>{6});
  before[5] = 0;
  before[3] = -1;  // three away: another change
  EXPECT_EQ(NewChangePoints(before, now, 2), std::vector<size_t>{6});
}

}  // namespace
}  // namespace ptsn::server
