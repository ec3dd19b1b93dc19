// Whether a machine's new result for a test differs from its recent ones beyond noise, judged
// as compare-results judges two systems: by the 95 % confidence intervals of the trial means
// (results-xml/statistics). A result is a regression (or an improvement) when its interval lies
// wholly outside the band spanned by the intervals of the machine's recent results for that
// test AND its mean moved by at least `min_change_pct` from their average: the first keeps
// run-to-run drift the machine has already shown from being flagged, the second keeps tiny but
// statistically clear shifts (tests with very steady trials) quiet. A step change is flagged
// once: the next results count the changed ones among the recent.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "results-xml/result_file.h"

namespace ptsn::server {

struct Measurement {
  size_t n = 0;  // trials
  double mean = 0, ci_low = 0, ci_high = 0;
};

struct RegressionPolicy {
  size_t window = 5;          // recent results compared with
  size_t min_history = 2;     // fewer recent results with n >= 2: no verdict yet
  double min_change_pct = 2;  // smaller moves are noise whatever the intervals say
};

struct Judgement {
  std::optional<int> verdict;  // -1 regression, +1 improvement, 0 within noise; nullopt = not judged
  double change_pct = 0;       // against baseline_mean
  double baseline_mean = 0;    // average of the recent means compared with
};

// `recent`: the machine's earlier results for the test, newest first (only the first `window`
// with n >= 2 count). `proportion`: HIB or LIB; anything else is not judged.
Judgement JudgeAgainstRecent(const Measurement& now, const std::vector<Measurement>& recent,
                             const std::string& proportion, const RegressionPolicy& policy = {});

}  // namespace ptsn::server

namespace ptsn::server {

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
