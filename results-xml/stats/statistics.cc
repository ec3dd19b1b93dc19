#include "results-xml/stats/statistics.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

namespace ptsn::results {

double PhpToNumber(std::string_view s) {
  if (!PhpIsNumeric(s)) return 0;
  return std::strtod(std::string(s).c_str(), nullptr);
}

int PtsPrecision(std::string_view s) {
  size_t dot = s.rfind('.');
  return dot == std::string_view::npos ? 0 : static_cast<int>(s.size() - dot - 1);
}

std::string TrialToRawString(std::string_view trial) {
  if (!PhpIsNumeric(trial)) return std::string(trial);
  return PhpFloatToString(PhpToNumber(trial));
}

std::string JoinTrials(const std::vector<std::string>& trials) {
  std::string out;
  for (size_t i = 0; i < trials.size(); ++i) {
    if (i) out += ':';
    out += TrialToRawString(trials[i]);
  }
  return out;
}

namespace {
std::string_view PhpTrimView(std::string_view s) {
  constexpr std::string_view kWs(" \t\n\r\0\x0B", 6);
  size_t b = s.find_first_not_of(kWs);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(kWs) - b + 1);
}
}  // namespace

std::string MeanValue(const std::vector<std::string>& trials, std::optional<int> precision_override) {
  double total = 0;
  size_t count = 0;
  bool is_float = false;
  for (const std::string& t : trials) {
    std::string_view v = PhpTrimView(t);
    if (!PhpIsNumeric(v)) continue;
    total += PhpToNumber(v);
    ++count;
    if (v.find('.') != std::string_view::npos) is_float = true;
  }
  int p = 2;
  if (precision_override) {
    p = *precision_override;
  } else {
    int max_p = 0;
    for (const std::string& t : trials) max_p = std::max(max_p, PtsPrecision(t));
    if (max_p > 0 && max_p < 10) p = max_p;
  }
  std::string value = PhpNumberFormat(total / static_cast<double>(count > 0 ? count : 1), p);
  if (!is_float) value = PhpFloatToString(PhpRound(PhpToNumber(value), 0));
  return value;
}

Entry MakeEntry(const std::string& identifier, const std::string& value, const std::vector<std::string>& trials) {
  Entry e;
  e.identifier = identifier;
  e.value = value;
  std::string raw = JoinTrials(trials);
  e.raw_string = raw == value ? "" : raw;
  return e;
}

std::vector<std::string> EntryTrials(const Entry& entry) {
  if (!entry.raw_string || entry.raw_string->empty()) return {entry.value};
  std::vector<std::string> out;
  std::string_view s = *entry.raw_string;
  size_t start = 0;
  while (true) {
    size_t colon = s.find(':', start);
    out.emplace_back(s.substr(start, colon == std::string_view::npos ? std::string_view::npos : colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  return out;
}

std::vector<double> NumericTrials(const Entry& entry) {
  std::vector<double> out;
  for (const std::string& t : EntryTrials(entry))
    if (PhpIsNumeric(t)) out.push_back(PhpToNumber(t));
  return out;
}

double Mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

double SampleStandardDeviation(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  double mean = Mean(v), sum = 0;
  for (double x : v) sum += (x - mean) * (x - mean);
  return std::sqrt(sum / static_cast<double>(v.size() - 1));
}

double PercentStandardDeviation(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double mean = Mean(v);
  return mean != 0 ? SampleStandardDeviation(v) / mean * 100 : 0;
}

double StandardError(const std::vector<double>& v) {
  return v.empty() ? 0 : SampleStandardDeviation(v) / std::sqrt(static_cast<double>(v.size()));
}

std::pair<double, double> ThreeSigmaLimits(const std::vector<double>& v, int precision) {
  if (v.empty()) return {0, 0};
  double mean = Mean(v), sum = 0;
  for (double x : v) sum += (x - mean) * (x - mean);
  double three_sd = 3 * std::sqrt(sum / static_cast<double>(v.size()));
  return {PhpRound(mean - three_sd, precision), PhpRound(mean + three_sd, precision)};
}

std::string StandardErrorLabel(const Entry& entry) {
  if (!entry.raw_string || entry.raw_string->empty()) return "";
  return StandardErrorLabel(entry, StandardError(NumericTrials(entry)));
}

std::string StandardErrorLabel(const Entry& entry, double se_of_numeric_trials) {
  if (!entry.raw_string || entry.raw_string->empty()) return "";
  const size_t trials = 1 + static_cast<size_t>(std::count(entry.raw_string->begin(), entry.raw_string->end(), ':'));
  if (trials < 2) return "";
  std::string label = "SE +/- ";
  AppendPhpNumberFormat(label, se_of_numeric_trials, std::max(2, PtsPrecision(entry.value)));
  return label + ", N = " + std::to_string(trials);
}

// The same nth_element steps for every caller, so the result is the same double bit for bit
// whichever caller asks (zeros of either sign included).
double Median(std::vector<double> v) {
  const size_t n = v.size();
  if (n == 0) return 0;
  const size_t mid = n / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double hi = v[mid];
  if (n % 2) return hi;
  const double lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lo + hi) / 2;
}

std::pair<double, double> Quartiles(std::vector<double> v) {
  if (v.empty()) return {0, 0};
  std::sort(v.begin(), v.end());
  return {gsl_stats_quantile_from_sorted_data(v.data(), 1, v.size(), 0.25),
          gsl_stats_quantile_from_sorted_data(v.data(), 1, v.size(), 0.75)};
}

// GSL's inverse of the t distribution (accurate to ~2e-15 here against 40-digit arithmetic,
// where the bisection over a hand-written incomplete beta it replaced reached 1.7e-11).
double StudentTQuantile(double confidence, int degrees_of_freedom) {
  if (!(confidence > 0)) return 0;
  if (confidence >= 1) return std::numeric_limits<double>::infinity();
  return gsl_cdf_tdist_Qinv((1 - confidence) / 2, std::max(1, degrees_of_freedom));
}

std::vector<bool> OutlierFlags(const std::vector<double>& v) {
  std::vector<bool> flags(v.size(), false);
  if (v.size() < 3) return flags;
  const double median = Median(v);
  std::vector<double> deviations;  // |v[i] - median| in trial order
  for (double x : v) deviations.push_back(std::fabs(x - median));
  const double mad = Median(deviations);
  const double scale = mad > 0 ? mad / 0.6745 : 1.253314 * Mean(deviations);  // 0: nothing is flagged
  if (scale > 0)
    for (size_t i = 0; i < v.size(); ++i) flags[i] = std::fabs(v[i] - median) / scale > 3.5;
  return flags;
}

namespace {
// StudentTQuantile(0.95, df) costs ~1 us; a JSON export asks for it once per entry, almost
// always with the same handful of df. Cached per thread.
double StudentT95(int df) {
  thread_local std::vector<double> cache;
  if (df < 0 || df > 4096) return StudentTQuantile(0.95, df);
  if (cache.size() <= static_cast<size_t>(df)) cache.resize(static_cast<size_t>(df) + 1, 0);
  double& t = cache[static_cast<size_t>(df)];
  if (t == 0) t = StudentTQuantile(0.95, df);
  return t;
}
}  // namespace

std::optional<PairedRatio> PairRatio(std::span<const double> reference, std::span<const double> other) {
  size_t n = std::min(reference.size(), other.size());
  if (n < 2) return std::nullopt;
  std::vector<double> logs;
  for (size_t i = 0; i < n; ++i) {
    if (!(reference[i] > 0) || !(other[i] > 0)) return std::nullopt;
    logs.push_back(std::log(other[i] / reference[i]));
  }
  double mean = Mean(logs), se = StandardError(logs);
  double t = StudentT95(static_cast<int>(n) - 1);
  PairedRatio r;
  r.pairs = n;
  r.ratio = std::exp(mean);
  r.ci_low = std::exp(mean - t * se);
  r.ci_high = std::exp(mean + t * se);
  return r;
}

TrialSummary Summarize(const std::vector<double>& v) {
  TrialSummary s;
  s.n = v.size();
  s.outliers = OutlierFlags(v);
  if (v.empty()) return s;
  s.mean = Mean(v);
  s.median = Median(v);
  auto [mn, mx] = std::minmax_element(v.begin(), v.end());
  s.min = *mn;
  s.max = *mx;
  s.min_at = static_cast<size_t>(mn - v.begin());
  s.max_at = static_cast<size_t>(mx - v.begin());
  s.sd = SampleStandardDeviation(v);
  s.percent_sd = PercentStandardDeviation(v);
  s.se = StandardError(v);
  s.ci95_low = s.ci95_high = s.mean;
  if (v.size() >= 2) {
    const double half = StudentT95(static_cast<int>(v.size()) - 1) * s.se;
    s.ci95_low = s.mean - half;
    s.ci95_high = s.mean + half;
  }
  return s;
}

}  // namespace ptsn::results
