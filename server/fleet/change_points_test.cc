#include "server/fleet/change_points.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

namespace ptsn::server {
namespace {

// `n` values around `level`, within +-`spread` (a fraction), from a fixed LCG.
std::vector<double> Level(double level, size_t n, double spread, std::uint32_t& state) {
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    v.push_back(level * (1 + spread * (2.0 * (state >> 8) / double(1u << 24) - 1)));
  }
  return v;
}

std::vector<double> Concat(std::vector<double> a, const std::vector<double>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(ChangePoints, EnergyStatisticMatchesAHandComputation) {
  // between 3+5+2+4 = 14 -> 2/4 * 14 = 7; within x 1/1; within y 2/1; E = 4; Q = 2*2/4 * 4 = 4.
  EXPECT_DOUBLE_EQ(ScaledEnergyStatistic(std::vector<double>{1, 2}, std::vector<double>{4, 6}), 4.0);
  // One value on the left has no pairs: E = 2/2 * 4 - 0 - 2 = 2; Q = 2/3 * 2.
  EXPECT_DOUBLE_EQ(ScaledEnergyStatistic(std::vector<double>{0}, std::vector<double>{1, 3}), 4.0 / 3);
  EXPECT_NEAR(ScaledEnergyStatistic(std::vector<double>{5, 5, 5}, std::vector<double>{5, 5}), 0.0, 1e-12);
}

TEST(ChangePoints, AClearStepIsFoundAtItsFirstResultWithItsSize) {
  std::uint32_t state = 7;
  auto v = Concat(Level(100, 20, 0.01, state), Level(90, 20, 0.01, state));
  auto cps = FindChangePoints(v);
  ASSERT_EQ(cps.size(), 1u);
  EXPECT_EQ(cps[0].index, 20u);
  EXPECT_NEAR(cps[0].ratio, 0.9, 0.005);
  EXPECT_LT(cps[0].ratio_low, 0.9);
  EXPECT_GT(cps[0].ratio_high, 0.9);
  EXPECT_LT(cps[0].ratio_high, 1.0);
  EXPECT_LE(cps[0].p_value, 0.01);
  // The incremental search found the split a direct computation on the logarithms ranks best.
  std::vector<double> z;
  for (double x : v) z.push_back(std::log(x));
  double best = 0;
  for (size_t at = 3; at + 3 <= z.size(); ++at)
    best = std::max(best, ScaledEnergyStatistic(std::span(z).first(at), std::span(z).subspan(at)));
  EXPECT_NEAR(cps[0].q, best, 1e-9 * best);
}

TEST(ChangePoints, TwoStepsAreBothFoundInOrder) {
  std::uint32_t state = 11;
  auto v = Concat(Concat(Level(100, 15, 0.01, state), Level(110, 15, 0.01, state)), Level(100, 15, 0.01, state));
  auto cps = FindChangePoints(v);
  ASSERT_EQ(cps.size(), 2u);
  EXPECT_EQ(cps[0].index, 15u);
  EXPECT_EQ(cps[1].index, 30u);
  EXPECT_NEAR(cps[0].ratio, 1.1, 0.01);
  EXPECT_NEAR(cps[1].ratio, 1 / 1.1, 0.01);
}

TEST(ChangePoints, NoiseAloneHasNoChangePoint) {
  std::uint32_t state = 3;
  EXPECT_TRUE(FindChangePoints(Level(100, 60, 0.05, state)).empty());
}

TEST(ChangePoints, TheSameSeriesAlwaysGivesTheSameAnswer) {
  std::uint32_t state = 5;
  auto v = Concat(Level(100, 10, 0.03, state), Level(96, 6, 0.03, state));
  auto a = FindChangePoints(v), b = FindChangePoints(v);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].index, b[i].index);
    EXPECT_EQ(a[i].p_value, b[i].p_value);
  }
}

TEST(ChangePoints, TooShortOrNotPositiveHasNone) {
  EXPECT_TRUE(FindChangePoints(std::vector<double>{1, 1, 1, 2, 2}).empty()) << "fewer than 2 * min_segment";
  std::vector<double> v(20, 100.0);
  for (size_t i = 10; i < 20; ++i) v[i] = 50;
  EXPECT_EQ(FindChangePoints(v).size(), 1u);
  v[3] = 0;
  EXPECT_TRUE(FindChangePoints(v).empty());
}

}  // namespace
}  // namespace ptsn::server
