// Statistics of one entry's trials. Two layers:
//  * PTS-identical pieces (objects/pts_math.php, pts_test_execution::calculate_end_result_post_
//    processing, the bar-graph "SE +/- x, N = y" label): the entry Value with PTS's precision
//    rule and PHP number formatting, sample standard deviation, percent sd, standard error,
//    three-sigma limits — so the numbers we write and print are the numbers PTS would.
//  * What PTS lacks: median, min, max, a 95 % Student-t confidence interval for any N, and
//    outlier flags by modified Z-score. Outliers are flagged, never dropped.
// Everything is a pure function of the trial strings/values.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "results-xml/model/result_file.h"
#include "runner/common/php_number.h"

namespace ptsn::results {

// ---- PHP number semantics PTS relies on ----------------------------------------------------

// PHP round/number_format/float-to-string/is_numeric live in runner/common/php_number.h.
using ptsn::PhpFloatToString;
using ptsn::PhpIsNumeric;
using ptsn::AppendPhpNumberFormat;
using ptsn::PhpNumberFormat;
using ptsn::PhpRound;
// strtod of a string PhpIsNumeric accepted (0 for anything else).
double PhpToNumber(std::string_view s);
// pts_math::get_precision(): number of characters after the last '.', 0 if none.
int PtsPrecision(std::string_view s);

// ---- PTS's entry value ----------------------------------------------------------------------

// A trial as PTS stores it in RawString: numeric trials become PHP floats and back, so trailing
// zeros vanish ("125.10" -> "125.1", "122.00" -> "122"); other text is kept.
std::string TrialToRawString(std::string_view trial);
// Trials joined by ':' after TrialToRawString (pts_test_result_buffer_active::get_values_as_string).
std::string JoinTrials(const std::vector<std::string>& trials);

// The BAR_GRAPH/AVG rule: mean of the numeric trials, number_format()ed to the precision p =
// max digits after '.' over the trial strings (if not 0 < p < 10: 2; `precision_override` =
// the results-definition's ResultPrecision replaces p), then round()ed to an integer when no
// trial contains a '.'. `trials` are the strings as stored (after TrialToRawString).
// Example: {"125.1","121.99","125.29"} -> "124.13".
std::string MeanValue(const std::vector<std::string>& trials, std::optional<int> precision_override = {});

// An Entry for `identifier` from its trials, with PTS's "RawString empty when it equals Value".
Entry MakeEntry(const std::string& identifier, const std::string& value, const std::vector<std::string>& trials);

// The trials of an entry: RawString split at ':' (Value alone when RawString is empty).
std::vector<std::string> EntryTrials(const Entry& entry);
// The numeric trials of an entry as doubles (non-numeric dropped, like pts_math::clean_numeric_array).
std::vector<double> NumericTrials(const Entry& entry);

// ---- PTS statistics (pts_math) -----------------------------------------------------------------

double Mean(const std::vector<double>& v);                       // 0 for none
double SampleStandardDeviation(const std::vector<double>& v);    // n-1; 0 if n < 2
double PercentStandardDeviation(const std::vector<double>& v);   // sd / mean * 100; 0 if mean == 0
double StandardError(const std::vector<double>& v);              // sd / sqrt(n); 0 if n == 0
// pts_math::three_sigma_limits(): POPULATION variance, rounded to p with PhpRound.
std::pair<double, double> ThreeSigmaLimits(const std::vector<double>& v, int precision);

// The bar-graph label "SE +/- 1.07, N = 3" (SE formatted with max(2, precision of Value));
// "" when RawString is empty or N < 2, where PTS draws no label.
std::string StandardErrorLabel(const Entry& entry);
// The same label when the standard error of the entry's numeric trials (StandardError of
// NumericTrials) is already known.
std::string StandardErrorLabel(const Entry& entry, double se_of_numeric_trials);

// ---- What PTS lacks -----------------------------------------------------------------------------

// The true median (mean of the middle two for even n; PTS's own median() is off for even n).
double Median(std::vector<double> v);
// The first and third quartiles, interpolated between the sorted values (GSL's quantile, R's
// type 7, as most box plots draw them); {0, 0} for no values.
std::pair<double, double> Quartiles(std::vector<double> v);
// Two-sided Student t quantile: t such that P(|T_df| <= t) = confidence (df >= 1).
double StudentTQuantile(double confidence, int degrees_of_freedom);

// Modified Z-score outlier flags (Iglewicz & Hoaglin): |0.6745 (x - median) / MAD| > 3.5.
// When MAD is 0 (more than half the trials identical) the mean absolute deviation is used
// instead (score = (x - median) / (1.253314 * meanAD)); when that is 0 too, nothing is flagged.
std::vector<bool> OutlierFlags(const std::vector<double>& v);

struct TrialSummary {
  size_t n = 0;
  double mean = 0, median = 0, min = 0, max = 0;
  size_t min_at = 0, max_at = 0;       // where min and max are in the values (as std::minmax_element)
  double sd = 0, percent_sd = 0, se = 0;
  double ci95_low = 0, ci95_high = 0;  // mean -/+ t(0.975, n-1) * se; equal to mean when n < 2
  std::vector<bool> outliers;          // one flag per value, same order
};
TrialSummary Summarize(const std::vector<double>& v);

// Trials of two set-ups run in pairs (round i of `other` right after, or before, round i of
// `reference`, as interleaved target runs do): the ratio other/reference as the geometric mean
// of the per-round ratios, with a 95 % Student-t interval of the mean log ratio. Pairing takes
// out what the rounds share (a machine that drifts or is busy for a while), so the interval is
// that of the difference the set-up makes. nullopt when fewer than two rounds have both values
// or a value is not positive.
struct PairedRatio {
  size_t pairs = 0;
  double ratio = 0;
  double ci_low = 0, ci_high = 0;
  bool within_noise() const { return ci_low <= 1 && 1 <= ci_high; }
  // Half the interval's width relative to the ratio, in percent (the "± x %" of a cost).
  double half_width_percent() const { return (ci_high - ci_low) / 2 / ratio * 100; }
};
std::optional<PairedRatio> PairRatio(std::span<const double> reference, std::span<const double> other);

}  // namespace ptsn::results
