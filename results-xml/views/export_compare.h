// Side-by-side comparison of result files (compare-results A B ...): every system of every file
// becomes a column, results line up by comparison hash, and each value is shown with its change
// against the first column and the verdict of its set-up against the first (runs_verdict.h:
// "unknown" with one run of each, for one run's interval leaves out what the run carries). PTS
// has no such command (only compare-results-to-baseline for two single-system files); this is ours.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "results-xml/model/result_file.h"
#include "results-xml/stats/runs_verdict.h"
#include "results-xml/stats/statistics.h"

namespace ptsn::results {

struct ComparedValue {
  std::optional<double> value;        // nullopt: no (numeric) result for this column
  std::optional<double> ci_low, ci_high;  // 95 % CI of the trials (N >= 2 only)
  size_t n = 0;                       // trials
  std::optional<double> change_pct;   // (value - first) / first * 100; columns after the first
  // kUnpaired: the verdict of this column's set-up against the first column's (runs_verdict.h:
  // the columns "NAME", "NAME #2" ... are runs of one set-up), the same for each of its runs;
  // nullopt for the first set-up's own columns and where nothing can be compared.
  std::optional<RunsVerdict> runs;
  // From `runs`, in the result's direction: +1 better, -1 worse, 0 the same within the bound,
  // nullopt unknown (or no verdict). kPaired never sets it: one pair of targets is no verdict.
  std::optional<int> verdict;
  std::vector<double> trials;         // the numeric trials, in run order
  std::optional<PairedRatio> paired;  // CompareMode::kPaired: this column's trials / the first's, round by round
  std::string other_unit;  // a stand-in's own unit when it is not the row's: shown, never compared
};

// kUnpaired: each column is a separate run; the verdicts are by runs (runs_verdict.h). kPaired:
// the columns' trials were run in rounds (interleaved targets), so trial i of each column is
// paired with trial i of the first; the ratio is shown, and the verdict is by instance pairs
// (verdict.h: VerdictView), not per column.
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
  VerdictSettings settings;
};

// `names` label the files in column headers when identifiers repeat across files.
Comparison CompareResultFiles(const std::vector<ResultFile>& files, const std::vector<std::string>& names,
                              CompareMode mode = CompareMode::kUnpaired, const VerdictSettings& settings = {});

// The table; unpaired, the tallies of each set-up against the first, each result's verdicts by
// runs and what they mean (RunsVerdictNote).
std::string ComparisonToText(const Comparison& comparison);

// A file's verdicts as every view of it shows them (compare-results, the HTML view, the server's
// page): by instance pairs when its trials were interleaved on targets (VerdictView), else each
// set-up against the first by runs; "" for fewer than two set-ups.
std::string FileVerdictsText(const ResultFile& file, const VerdictSettings& settings);

}  // namespace ptsn::results
