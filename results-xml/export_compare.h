// Side-by-side comparison of result files (compare-results A B ...): every system of every file
// becomes a column, results line up by comparison hash, and each value is shown with its change
// against the first column and whether that change is within noise (95 % confidence intervals
// of the trials overlap). PTS has no such command (only compare-results-to-baseline for two
// single-system files); this is ours.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "results-xml/result_file.h"
#include "results-xml/statistics.h"

namespace ptsn::results {

struct ComparedValue {
  std::optional<double> value;        // nullopt: no (numeric) result for this column
  std::optional<double> ci_low, ci_high;  // 95 % CI of the trials (N >= 2 only)
  size_t n = 0;                       // trials
  std::optional<double> change_pct;   // (value - first) / first * 100; columns after the first
  // Relative to the first column: +1 better, -1 worse, 0 within noise (CIs overlap, or with
  // `paired` the ratio's interval spans 1), nullopt when it cannot be told (a missing value or a
  // side with fewer than 2 trials).
  std::optional<int> verdict;
  std::vector<double> trials;         // the numeric trials, in run order
  std::optional<PairedRatio> paired;  // CompareMode::kPaired: this column's trials / the first's, round by round
  std::string other_unit;  // a stand-in's own unit when it is not the row's: shown, never compared
};

// kUnpaired: each column's trials on their own (independent runs). kPaired: the columns' trials
// were run in rounds (interleaved targets), so trial i of each column is paired with trial i of
// the first, and the change is judged by the interval of the paired ratio.
enum class CompareMode { kUnpaired, kPaired };

struct ComparedResult {
  std::string label;       // "Sample Disk 1.0 - Block Size: 4KB"
  std::string scale;       // "MB/s"
  std::string proportion;  // HIB | LIB | ""
  std::vector<ComparedValue> values;  // one per column
};

struct Comparison {
  std::vector<std::string> columns;  // system identifiers, "file: system" when they repeat
  std::vector<ComparedResult> results;
  CompareMode mode = CompareMode::kUnpaired;  // how the verdicts were made: the text says what they are worth
};

// `names` label the files in column headers when identifiers repeat across files.
Comparison CompareResultFiles(const std::vector<ResultFile>& files, const std::vector<std::string>& names,
                              CompareMode mode = CompareMode::kUnpaired);

// The table, the tallies against the first column, and what the verdicts are worth (their
// measured rate of false "better"/"worse": VerdictErrorRates).
std::string ComparisonToText(const Comparison& comparison);
std::string VerdictErrorRates(CompareMode mode);

}  // namespace ptsn::results
