// Change points in one series (a machine's history of one test), by E-divisive means
// (Matteson & James, JASA 2014) as Daly et al. (ICPE 2020) use it at MongoDB and Apache Otava
// (ex-Hunter) runs it: the series is split where the energy distance between the part before
// and the part after is largest; a split is kept when a permutation test says a split that
// large is unlikely in a series without change; the parts are split again until one is not
// significant. The analysis runs on the logarithms of the values, so a change is a ratio and
// a 5 % step weighs the same on a fast test as on a slow one.
//
// Permutations come from a fixed seed through our own shuffle (std::shuffle and the standard
// distributions differ between libraries), so the same series gives the same answer anywhere.
// See docs/fleet-regressions.md for the method, the test and the measured error rates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace ptsn::server {

struct ChangePointOptions {
  // A split is kept when its permutation p-value is at most this: 0.02 kept false alarms under 1
  // per 100 results on A/A histories and found 5 % steps in >= 90 % (bench_fleet_change_points.sh).
  double significance = 0.02;
  size_t permutations = 199;   // at most; the test stops early once the split is clearly not significant
  size_t min_segment = 3;      // results on each side of a change point
  std::uint64_t seed = 0x9e3779b97f4a7c15;
};

struct ChangePoint {
  size_t index = 0;      // the first value after the change
  double q = 0;          // the split's scaled E-statistic (on logarithms)
  double p_value = 1;    // from the permutation test when the split was accepted
  // After / before: the ratio of the geometric means of the two neighbouring segments, with a
  // 95 % pooled-variance t interval of the difference of their mean logarithms.
  double ratio = 1, ratio_low = 1, ratio_high = 1;
};

// Q(X, Y; alpha = 1) = m n / (m + n) * (2/(mn) sum|x - y| - sum_{i<k}|x_i - x_k| / C(m,2)
// - sum_{j<k}|y_j - y_k| / C(n,2)), a pair term counting 0 when a side has one value. Exposed
// for the tests that check it against a hand computation.
double ScaledEnergyStatistic(std::span<const double> x, std::span<const double> y);

// Change points of `values` (all > 0), oldest first, ordered by index. Fewer than
// 2 * min_segment values, or a value <= 0: none.
std::vector<ChangePoint> FindChangePoints(std::span<const double> values, const ChangePointOptions& options = {});

}  // namespace ptsn::server
