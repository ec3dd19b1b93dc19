#include "server/fleet/change_points.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "results-xml/stats/statistics.h"

namespace ptsn::server {
namespace {

double QFromSums(double m, double n, double between, double within_x, double within_y) {
  const double e = 2 * between / (m * n) - (m > 1 ? within_x / (m * (m - 1) / 2) : 0) -
                   (n > 1 ? within_y / (n * (n - 1) / 2) : 0);
  return m * n / (m + n) * e;
}

struct Split {
  size_t at = 0;  // the first value of the right side, relative to the segment
  double q = -std::numeric_limits<double>::infinity();
  bool Found() const { return at > 0; }
};

// The split of `z` with the largest Q, each side at least `min_segment` long. The three sums
// are updated as each value moves from the right side to the left: O(n^2) time, O(1) memory
// (the univariate O(n log n) forms are not worth their code at a few hundred results).
Split BestSplit(std::span<const double> z, size_t min_segment) {
  const size_t n = z.size();
  Split best;
  if (n < 2 * min_segment) return best;
  double within_right = 0;
  for (size_t i = 0; i < n; ++i)
    for (size_t k = i + 1; k < n; ++k) within_right += std::fabs(z[i] - z[k]);
  double within_left = 0, between = 0;
  for (size_t at = 1; at <= n - min_segment; ++at) {
    const double moved = z[at - 1];
    double to_left = 0, to_right = 0;
    for (size_t i = 0; i + 1 < at; ++i) to_left += std::fabs(z[i] - moved);
    for (size_t j = at; j < n; ++j) to_right += std::fabs(z[j] - moved);
    within_left += to_left;
    within_right -= to_right;
    between += to_right - to_left;
    if (at < min_segment) continue;
    const double q = QFromSums(static_cast<double>(at), static_cast<double>(n - at), between, within_left, within_right);
    if (q > best.q) best = {at, q};
  }
  return best;
}

// The best split over all segments (bounds: sorted cut positions including 0 and n).
struct Candidate {
  size_t segment = 0;
  Split split;
};
Candidate BestOverSegments(std::span<const double> z, const std::vector<size_t>& bounds, size_t min_segment) {
  Candidate best;
  for (size_t s = 0; s + 1 < bounds.size(); ++s) {
    const Split split = BestSplit(z.subspan(bounds[s], bounds[s + 1] - bounds[s]), min_segment);
    if (split.Found() && split.q > best.split.q) best = {s, split};
  }
  return best;
}

// Fisher-Yates with a bounded draw of our own: std::shuffle's algorithm is left to the library.
void Shuffle(std::span<double> v, std::mt19937_64& rng) {
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng() % i]);
}

// The permutation p-value of a best split as large as `q` when each segment's values are
// exchangeable (no further change). Stops as soon as the verdict at `significance` is certain
// not to be "significant", which gives the same decision as running every permutation.
double PermutationPValue(std::span<const double> z, const std::vector<size_t>& bounds, double q,
                         const ChangePointOptions& options, std::mt19937_64& rng) {
  std::vector<double> shuffled(z.begin(), z.end());
  const double most_exceeding = options.significance * static_cast<double>(options.permutations + 1) - 1;
  size_t exceeding = 0, done = 0;
  while (done < options.permutations) {
    for (size_t s = 0; s + 1 < bounds.size(); ++s)
      Shuffle(std::span(shuffled).subspan(bounds[s], bounds[s + 1] - bounds[s]), rng);
    ++done;
    if (BestOverSegments(shuffled, bounds, options.min_segment).split.q >= q) ++exceeding;
    if (static_cast<double>(exceeding) > most_exceeding) break;
  }
  return static_cast<double>(exceeding + 1) / static_cast<double>(done + 1);
}

double MeanOf(std::span<const double> v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}
double SquaredDeviations(std::span<const double> v, double mean) {
  double s = 0;
  for (double x : v) s += (x - mean) * (x - mean);
  return s;
}

// exp of the difference of mean logarithms with its pooled-variance 95 % t interval: the same
// machine and test on both sides, so one variance; with 3 results after a change Welch's
// degrees of freedom would make the interval needlessly wide.
void SetRatio(ChangePoint& cp, std::span<const double> before, std::span<const double> after) {
  const double mb = MeanOf(before), ma = MeanOf(after);
  const double df = static_cast<double>(before.size() + after.size() - 2);
  const double pooled = (SquaredDeviations(before, mb) + SquaredDeviations(after, ma)) / df;
  const double se = std::sqrt(pooled * (1.0 / static_cast<double>(before.size()) + 1.0 / static_cast<double>(after.size())));
  const double t = results::StudentTQuantile(0.95, static_cast<int>(df));
  cp.ratio = std::exp(ma - mb);
  cp.ratio_low = std::exp(ma - mb - t * se);
  cp.ratio_high = std::exp(ma - mb + t * se);
}

}  // namespace

double ScaledEnergyStatistic(std::span<const double> x, std::span<const double> y) {
  double between = 0, within_x = 0, within_y = 0;
  for (double a : x)
    for (double b : y) between += std::fabs(a - b);
  for (size_t i = 0; i < x.size(); ++i)
    for (size_t k = i + 1; k < x.size(); ++k) within_x += std::fabs(x[i] - x[k]);
  for (size_t i = 0; i < y.size(); ++i)
    for (size_t k = i + 1; k < y.size(); ++k) within_y += std::fabs(y[i] - y[k]);
  return QFromSums(static_cast<double>(x.size()), static_cast<double>(y.size()), between, within_x, within_y);
}

std::vector<ChangePoint> FindChangePoints(std::span<const double> values, const ChangePointOptions& options) {
  ChangePointOptions o = options;
  o.min_segment = std::max<size_t>(o.min_segment, 2);  // the interval needs a variance
  std::vector<ChangePoint> found;
  if (values.size() < 2 * o.min_segment) return found;
  std::vector<double> z;
  for (double v : values) {
    if (!(v > 0) || !std::isfinite(v)) return found;
    z.push_back(std::log(v));
  }
  std::mt19937_64 rng(o.seed);
  std::vector<size_t> bounds{0, z.size()};
  for (;;) {
    const Candidate best = BestOverSegments(z, bounds, o.min_segment);
    if (!best.split.Found()) break;
    const double p = PermutationPValue(z, bounds, best.split.q, o, rng);
    if (p > o.significance) break;
    ChangePoint cp;
    cp.index = bounds[best.segment] + best.split.at;
    cp.q = best.split.q;
    cp.p_value = p;
    found.push_back(cp);
    bounds.insert(std::upper_bound(bounds.begin(), bounds.end(), cp.index), cp.index);
  }
  std::sort(found.begin(), found.end(), [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });
  const std::span<const double> all(z);
  for (size_t k = 0; k < found.size(); ++k) {
    const size_t from = k == 0 ? 0 : found[k - 1].index, to = k + 1 == found.size() ? z.size() : found[k + 1].index;
    // Where between its neighbours the change lies, with 2 results on a side allowed: with
    // min_segment on both sides a step with only 2 results after it yet is first found one
    // result early, the last result before the step taken in as the 3rd after it.
    found[k].index = from + BestSplit(all.subspan(from, to - from), 2).at;
    SetRatio(found[k], all.subspan(from, found[k].index - from), all.subspan(found[k].index, to - found[k].index));
  }
  return found;
}

}  // namespace ptsn::server
