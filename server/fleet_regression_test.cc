#include "server/fleet_regression.h"

#include <gtest/gtest.h>

namespace ptsn::server {
namespace {

Measurement M(double mean, double half_width, size_t n = 3) { return {n, mean, mean - half_width, mean + half_width}; }

TEST(FleetRegression, SlowerBeyondTheRecentBandIsARegression) {
  std::vector<Measurement> recent{M(100, 1), M(101, 1), M(99.5, 1)};
  auto j = JudgeAgainstRecent(M(80, 1), recent, "HIB");
  ASSERT_TRUE(j.verdict);
  EXPECT_EQ(*j.verdict, -1);
  EXPECT_NEAR(j.baseline_mean, 100.1667, 1e-3);
  EXPECT_NEAR(j.change_pct, -20.13, 0.01);
  // Lower is better: the same move is an improvement.
  EXPECT_EQ(*JudgeAgainstRecent(M(80, 1), recent, "LIB").verdict, 1);
  // More time taken (LIB) is a regression.
  EXPECT_EQ(*JudgeAgainstRecent(M(120, 1), recent, "LIB").verdict, -1);
}

TEST(FleetRegression, InsideTheBandIsNoise) {
  std::vector<Measurement> recent{M(100, 1), M(103, 1)};
  EXPECT_EQ(*JudgeAgainstRecent(M(101.5, 0.2), recent, "HIB").verdict, 0);
  // Overlapping only the band's edge is still noise.
  EXPECT_EQ(*JudgeAgainstRecent(M(105, 1.1), recent, "HIB").verdict, 0);
}

TEST(FleetRegression, SmallClearMovesAreNoise) {
  std::vector<Measurement> recent{M(100, 0.01), M(100, 0.01)};
  EXPECT_EQ(*JudgeAgainstRecent(M(101, 0.01), recent, "HIB").verdict, 0);  // 1 % < 2 %
  EXPECT_EQ(*JudgeAgainstRecent(M(103, 0.01), recent, "HIB").verdict, 1);
}

TEST(FleetRegression, TooLittleHistoryOrNoDirectionIsNotJudged) {
  EXPECT_FALSE(JudgeAgainstRecent(M(80, 1), {}, "HIB").verdict);
  EXPECT_FALSE(JudgeAgainstRecent(M(80, 1), {M(100, 1)}, "HIB").verdict);
  EXPECT_FALSE(JudgeAgainstRecent(M(80, 1), {M(100, 1, 1), M(100, 1, 1)}, "HIB").verdict) << "single trials: no interval";
  EXPECT_FALSE(JudgeAgainstRecent(M(80, 0, 1), {M(100, 1), M(100, 1)}, "HIB").verdict);
  EXPECT_FALSE(JudgeAgainstRecent(M(80, 1), {M(100, 1), M(100, 1)}, "").verdict);
}

TEST(FleetRegression, OnlyTheWindowCounts) {
  // The old level (50) is beyond the window of two: the new 80 is judged against 100s only.
  std::vector<Measurement> recent{M(100, 1), M(100, 1), M(50, 1), M(50, 1)};
  RegressionPolicy p;
  p.window = 2;
  EXPECT_EQ(*JudgeAgainstRecent(M(80, 1), recent, "HIB", p).verdict, -1);
  p.window = 4;
  EXPECT_EQ(*JudgeAgainstRecent(M(80, 1), recent, "HIB", p).verdict, 0);
}

}  // namespace
}  // namespace ptsn::server
