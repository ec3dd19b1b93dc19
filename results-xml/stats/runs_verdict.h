// The verdict between separately run systems (issue 50): two result files, a merged file's
// systems, a run against published systems. PTS's way (each system run once, one after the other,
// "better" when the two trial intervals do not overlap) called identical set-ups different in
// 10.8 % of A/A runs here: a run carries a difference of its own (the machine's state, where its
// files lie) that its trials' interval leaves out, exactly as a made target does (verdict.h).
//
// So the unit of replication is the run. Each run is summarized by the mean of its log trials (the
// log of its geometric mean); the runs of a set-up are its Systems named "NAME", "NAME run 2" ...
// (merged, or in several files). With two runs of at least one set-up, the ratio's interval is the
// pooled two-sample Student-t over the run summaries (n_a + n_b - 2 degrees of freedom): it
// contains the run-to-run spread. With one run of each there is no measure of that spread: the
// verdict is unknown and says what would decide it.
//
// Pure functions of the values: no clock, no I/O.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "results-xml/stats/verdict.h"

namespace ptsn::results {

struct RunsVerdict {
  VerdictKind kind = VerdictKind::kUnknown;
  size_t reference_runs = 0, other_runs = 0;  // runs with at least one positive trial
  double ratio = 1, ci_low = 0, ci_high = 0;  // other / reference (geometric means of the runs)
  bool has_interval = false;
  // When unknown with an interval: about how many runs of each set-up in all would decide it at
  // the run-to-run spread seen (0: no estimate).
  size_t runs_needed = 0;
  double resolution_percent() const { return has_interval ? (ci_high - ci_low) / 2 / ratio * 100 : 0; }
};

// The set-up a system's identifier names: "NAME" for "NAME", "NAME #2" (as merges and targets
// write them) and "NAME run 2" (what a user can type: PTS's identifiers keep no '#').
std::string SetUpOf(const std::string& identifier);

// One run's summary: the mean of the logs of its positive trials; NaN when it has none.
double RunSummary(std::span<const double> trials);

// The verdict of `other`'s runs against `reference`'s runs (each run: its trials).
RunsVerdict DecideRunsVerdict(const std::vector<std::vector<double>>& reference,
                              const std::vector<std::vector<double>>& other, const VerdictSettings& settings);

// "different: x0.912 [0.871, 0.955] (3 runs against 3)", "same within +-5 %: ...", "unknown: x1.034
// (1 run against 1); one run of each cannot tell a set-up from its run: run each 2 more times (as
// \"NAME run 2\", \"NAME run 3\") or compare them as targets in one run (--targets)".
std::string RunsVerdictText(const RunsVerdict& v, const VerdictSettings& settings);

// The word of a verdict for one result: "better" / "worse" for "different" when the result says
// which way is better (HIB, LIB), else "different"; "same within +-5 %"; "unknown".
std::string VerdictWord(VerdictKind kind, double ratio, const std::string& proportion, const VerdictSettings& settings);

// What the verdicts of separately run systems mean and what would decide an unknown one: shown
// once below every view that uses them (compare-results, run <ID>).
std::string RunsVerdictNote(const VerdictSettings& settings);

}  // namespace ptsn::results
