// Whether a machine's results for a test changed beyond noise: change points in its history
// (server/change_points, E-divisive means with a permutation test). The verdict belongs to the
// first result after a change point: a regression or an improvement starts there, with the size
// of the step (after / before) and its 95 % interval. The history is judged again as each result
// arrives, so a change point found earlier may move by a result or two, or go, as more results
// show what happened; a change is announced once, when first found (NewChangePoints).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "results-xml/model/result_file.h"
#include "server/fleet/change_points.h"

namespace ptsn::server {

struct Measurement {
  size_t n = 0;  // trials
  double mean = 0, ci_low = 0, ci_high = 0;
};

struct RegressionPolicy {
  size_t window = 200;          // the newest results of a test that are judged together
  double min_change_pct = 1.5;  // smaller steps are not reported however significant
  size_t same_change_within = 2;  // a change point found again this many results away is the same change
  ChangePointOptions detector;
};

// One result's verdict as the latest judgement of its history sees it.
struct ResultJudgement {
  // -1 a regression starts here, +1 an improvement, 0 none starts here; nullopt: not judged
  // (too little history, the last min_segment - 1 results, or a proportion other than HIB/LIB).
  std::optional<int> verdict;
  double change_pct = 0;     // at a change point the step, (ratio - 1) * 100; else against baseline_mean
  double baseline_mean = 0;  // the mean of the results before the change, or of the result's own level
  double ratio_low = 0, ratio_high = 0;  // at a change point: the step's 95 % interval (after / before)
  double p_value = 0;                    // at a change point: the permutation test's
};

// `means`: a machine's results for one test, oldest first. One judgement per mean.
std::vector<ResultJudgement> JudgeHistory(std::span<const double> means, const std::string& proportion,
                                          const RegressionPolicy& policy = {});

// The indexes of `now`'s change points that are news against `before` (the verdicts stored
// before this judgement, same indexes, possibly one shorter): no result flagged the same way
// within `tolerance` of it. A change point that moved by a result or two is the same change.
std::vector<size_t> NewChangePoints(const std::vector<std::optional<int>>& before,
                                    const std::vector<ResultJudgement>& now, size_t tolerance);

// One test of one finished result, as the history keeps it.
struct TestMeasurement {
  std::string test_key;    // the comparison hash: the same test, options and scale across runs
  std::string label;       // "Native Cipher Throughput 1.0 - Cipher: AES-256-XTS ..."
  std::string scale, proportion;
  Measurement m;
  std::string trials;      // the trial values joined by ':'
};

// The numeric, non-series results of `system_identifier` in `file` (series such as a monitor's
// samples and failed entries are left out: they have no trials to judge).
std::vector<TestMeasurement> MeasurementsOf(const results::ResultFile& file, const std::string& system_identifier);

}  // namespace ptsn::server
