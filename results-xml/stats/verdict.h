// The verdict of a comparison of two set-ups (docs/verdicts.md): "different", "same within ±X %"
// or "unknown", from trials run in rounds on several instances of each set-up.
//
// Why instances: two freshly made "identical" targets differ for the whole run (backing file
// placement, loop device, cache), so rounds on one pair of targets only measure that pair. The
// unit of replication is the instance pair (a new reference instance and a new other instance);
// its rounds are averaged within it, and the interval comes from the spread between pairs with
// K-1 degrees of freedom (the two-stage "cluster means" analysis of a nested design, exact for
// balanced data under normality). Each pair's summary is a trimmed mean of its per-round log
// ratios, so one wild trial moves it little.
//
// Pure functions of the values: no clock, no I/O.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "results-xml/model/result_file.h"

namespace ptsn::results {

struct VerdictSettings {
  double same_within_percent = 5;  // "same" when the whole interval lies within ±this
  double confidence = 0.95;        // of the interval (lower it for repeated looks: see PocockConfidence)
};

enum class VerdictKind { kDifferent, kSame, kUnknown };

struct Verdict {
  VerdictKind kind = VerdictKind::kUnknown;
  size_t instances = 0;  // instance pairs with at least one round
  size_t rounds = 0;     // rounds (trial pairs) over all instance pairs
  double ratio = 1, ci_low = 0, ci_high = 0;  // other / reference; ci_* 0 when no interval
  bool has_interval = false;
  // When unknown: about how many instance pairs in all would decide it at the spread seen (0: no
  // estimate, fewer than two pairs).
  size_t instances_needed = 0;
  // Half the interval's width in percent: differences smaller than this cannot be told apart with
  // this many instance pairs at this spread.
  double resolution_percent() const;
};

// log(other / reference) of each round, grouped by instance pair. Rounds with a value <= 0 or NaN
// on either side are left out by the caller (LogRatios does it).
using InstanceRounds = std::vector<std::vector<double>>;

// Per-round log ratios of one instance pair; NaN or non-positive values are skipped.
std::vector<double> LogRatios(std::span<const double> reference, std::span<const double> other);

// The mean of the values left after dropping floor(fraction * n) from each end (fraction 0: the
// mean). 0.2 is the usual robust choice (Wilcox); for n < 3 nothing is dropped.
double TrimmedMean(std::vector<double> v, double fraction);

// One instance pair's summary: the 20 % trimmed mean of its per-round log ratios.
double InstanceSummary(std::span<const double> log_ratios);

// The verdict over instance pairs. With two or more pairs the interval is Student-t over their
// summaries (K-1 df). With one pair there is no measure of the between-instance variation:
// `has_interval` is false and the verdict is unknown, instances_needed 0 (callers that must show
// something for one pair use PairRatio and say what it leaves out).
Verdict DecideVerdict(const InstanceRounds& rounds, const VerdictSettings& settings);

// The confidence to use at each of `looks` planned looks so that the chance of a false
// "different" over all of them stays near 1 - `overall` (Pocock 1977, two-sided, equally spaced
// looks, known variance; Jennison & Turnbull's constants for up to 20 looks, 20's beyond; an
// `overall` other than 0.95 scales the 0.05 level in proportion).
double PocockConfidence(double overall, int looks);

// The looks a run allowed a result's verdicts ("verdict-looks" in its entries' JSON; 1 if none),
// and the level every view judges that result at: Pocock's for that many looks, so that judging
// the last look afterwards keeps the run's error rate.
int RecordedLooks(const Result& r);
VerdictSettings LevelOfRun(const Result& r, const VerdictSettings& settings);

// ---- Instances of a set-up in a result file ------------------------------------------------

// A run with run.target_instances K names the instances of a target "NAME", "NAME #2" ... "NAME #K";
// instance pair k is the reference's instance k with the other's instance k.
struct InstanceName {
  std::string kind;  // "NAME"
  int instance = 1;
};
InstanceName ParseInstanceName(const std::string& identifier);
std::string InstanceIdentifier(const std::string& kind, int instance);  // "NAME" for 1, "NAME #k" after

// One System's trials of one result, by round (NaN where a round gave no value).
struct SystemTrials {
  std::string identifier;
  std::vector<double> trials;
};
// Every other kind against the first System's kind, instance pair by instance pair (pairs missing
// an instance on either side are left out).
struct KindVerdict {
  std::string kind;
  Verdict verdict;
};
std::vector<KindVerdict> VerdictsAgainstFirst(const std::vector<SystemTrials>& systems, const VerdictSettings& settings);
// The trials of `r` of each System of `file` that has an entry in it, in the file's System order.
std::vector<SystemTrials> ResultSystemTrials(const ResultFile& file, const Result& r);
// The instances of `kinds` among `systems`, kind by kind in that order: VerdictsAgainstFirst on
// them judges each other kind against kinds[0], whichever System comes first in the file.
std::vector<SystemTrials> TrialsOfKinds(const std::vector<SystemTrials>& systems, const std::vector<std::string>& kinds);

// Each result's verdicts, every other kind against the first System's kind; with one instance of
// each ("NAME" without "NAME #2") every verdict is unknown and says what one instance pair cannot
// tell; "" for fewer than two Systems:
//   Verdicts by instance pairs against plain ext4 (95 %; same within +-5 %):
//     Native Sequential Write 1.0 - Record Size: 1MB ...
//       fscrypt AES-256-XTS ext4: different: x0.125 [0.120, 0.131] (4 instance pairs, 20 rounds)
std::string VerdictView(const ResultFile& file, const VerdictSettings& settings);

// Whether the file's trials were run in rounds across targets (entries marked "interleaved":
// true): such a file is judged by instance pairs (VerdictView) in every view, other files by runs.
bool TrialsInterleaved(const ResultFile& file);

// "different: x0.912 [0.871, 0.955] (8 instance pairs, 40 rounds)",
// "same within ±5 %: x1.004 [0.981, 1.028] (...)", "unknown: x1.03 [0.95, 1.12] (...); about 14
// instance pairs would decide it".
std::string VerdictText(const Verdict& v, const VerdictSettings& settings);

// ---- What one system's trials can resolve (issue 30, item 4) ---------------------------------
// The smallest difference a comparison of two systems with this spread could tell apart: the
// 95 % half-width of the difference of two means of n log-trials each, with this series' spread
// for both, t(0.975, 2n-2) * sd_log * sqrt(2/n), as a percentage (exp(.) - 1). Reported when it
// is wider than run.same_within: then even "same within ±X %" cannot be decided here.
struct Resolution {
  double resolvable_percent = 0;  // differences under ±this cannot be resolved from these trials
  double cv_percent = 0;          // the trials' standard deviation, percent of their mean
  size_t trials = 0;
  double min = 0, max = 0;
};
// nullopt for fewer than two trials or a trial <= 0 (no log scale).
std::optional<Resolution> TrialResolution(std::span<const double> trials);
// "differences under ±12.3 % cannot be resolved from these 12 trials (sd 56 % of the mean, 814
// to 5966 MiB/s)"
std::string ResolutionNote(const Resolution& r, const std::string& scale);

}  // namespace ptsn::results
