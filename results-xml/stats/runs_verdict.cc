#include "results-xml/stats/runs_verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "results-xml/stats/statistics.h"

namespace ptsn::results {

std::string SetUpOf(const std::string& identifier) {
  InstanceName name = ParseInstanceName(identifier);
  if (name.instance > 1) return name.kind;
  const auto at = identifier.rfind(" run ");
  if (at == std::string::npos || at == 0 || at + 5 >= identifier.size()) return identifier;
  for (size_t i = at + 5; i < identifier.size(); ++i)
    if (identifier[i] < '0' || identifier[i] > '9') return identifier;
  return identifier.substr(0, at);
}

double RunSummary(std::span<const double> trials) {
  std::vector<double> logs;
  for (double t : trials)
    if (t > 0) logs.push_back(std::log(t));  // NaN fails too
  return logs.empty() ? std::nan("") : Mean(logs);
}

namespace {
std::vector<double> Summaries(const std::vector<std::vector<double>>& runs) {
  std::vector<double> out;
  for (const auto& r : runs)
    if (double s = RunSummary(r); !std::isnan(s)) out.push_back(s);
  return out;
}

double SumOfSquares(const std::vector<double>& v) {
  const double m = Mean(v);
  double ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  return ss;
}
}  // namespace

RunsVerdict DecideRunsVerdict(const std::vector<std::vector<double>>& reference,
                              const std::vector<std::vector<double>>& other, const VerdictSettings& settings) {
  RunsVerdict v;
  const std::vector<double> a = Summaries(reference), b = Summaries(other);
  v.reference_runs = a.size();
  v.other_runs = b.size();
  if (a.empty() || b.empty()) return v;
  const double diff = Mean(b) - Mean(a);
  v.ratio = std::exp(diff);
  const int df = static_cast<int>(a.size() + b.size()) - 2;
  if (df < 1) return v;  // one run of each: no run-to-run spread
  const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  const double pooled_sd = std::sqrt((SumOfSquares(a) + SumOfSquares(b)) / df);
  const double t = StudentTQuantile(settings.confidence, df);
  const double half = t * pooled_sd * std::sqrt(1 / na + 1 / nb);
  v.has_interval = true;
  v.ci_low = std::exp(diff - half);
  v.ci_high = std::exp(diff + half);
  const double same_bound = std::log1p(settings.same_within_percent / 100);
  if (std::fabs(diff) > half) {
    v.kind = VerdictKind::kDifferent;
  } else if (std::fabs(diff) + half <= same_bound) {
    v.kind = VerdictKind::kSame;
  } else {
    // The nearer decision needs the half-width below `goal`; with n runs of each it is about
    // t * sd * sqrt(2 / n).
    const double goal = std::max(std::fabs(diff), same_bound - std::fabs(diff));
    if (goal > 0 && pooled_sd > 0) {
      const double needed = std::ceil(2 * std::pow(t * pooled_sd / goal, 2));
      v.runs_needed = static_cast<size_t>(std::max(needed, static_cast<double>(std::max(a.size(), b.size()) + 1)));
    }
  }
  return v;
}

std::string VerdictWord(VerdictKind kind, double ratio, const std::string& proportion, const VerdictSettings& settings) {
  char buf[48];
  switch (kind) {
    case VerdictKind::kDifferent:
      if (proportion == "HIB") return ratio > 1 ? "better" : "worse";
      if (proportion == "LIB") return ratio < 1 ? "better" : "worse";
      return "different";
    case VerdictKind::kSame: std::snprintf(buf, sizeof buf, "same within +-%g %%", settings.same_within_percent); return buf;
    case VerdictKind::kUnknown: break;
  }
  return "unknown";
}

std::string RunsVerdictText(const RunsVerdict& v, const VerdictSettings& settings) {
  std::string text = VerdictWord(v.kind, v.ratio, "", settings);
  char body[160];
  if (v.has_interval)
    std::snprintf(body, sizeof body, ": x%.3f [%.3f, %.3f] (%zu run%s against %zu)", v.ratio, v.ci_low, v.ci_high,
                  v.other_runs, v.other_runs == 1 ? "" : "s", v.reference_runs);
  else
    std::snprintf(body, sizeof body, ": x%.3f (%zu run%s against %zu)", v.ratio, v.other_runs,
                  v.other_runs == 1 ? "" : "s", v.reference_runs);
  text += body;
  if (v.kind != VerdictKind::kUnknown) return text;
  if (!v.has_interval)
    return text + "; one run of each cannot tell a set-up from its run: run each 2 more times (as \"NAME run 2\", "
                  "\"NAME run 3\") or compare them as targets in one run (--targets)";
  char resolves[96];
  std::snprintf(resolves, sizeof resolves, "; differences under +-%.1f %% cannot be resolved here", v.resolution_percent());
  text += resolves;
  const size_t have = std::min(v.reference_runs, v.other_runs);
  if (v.runs_needed > have) text += "; about " + std::to_string(v.runs_needed) + " runs of each would decide it";
  return text;
}

std::string RunsVerdictNote(const VerdictSettings& settings) {
  char head[256];
  std::snprintf(head, sizeof head,
                "Verdicts between separately run systems (%g %%; same within +-%g %%): each run is one observation of "
                "its set-up.\n",
                settings.confidence * 100, settings.same_within_percent);
  return std::string(head) +
         "Runs of one set-up are its systems named \"NAME\", \"NAME run 2\" ... (merged, or in several files); with two\n"
         "runs of a set-up the interval counts the spread from run to run. With one run of each the verdict is\n"
         "unknown: a run carries a difference of its own that its trials leave out (identical set-ups run one\n"
         "after the other were called different by their trials' intervals in 10.8 % [6.3, 18.0] of 111 A/A\n"
         "runs, docs/verdicts.md). To decide: run each system 2 more times (as \"NAME run 2\", \"NAME run 3\"), or\n"
         "compare them as targets in one run (--targets).\n";
}

}  // namespace ptsn::results
