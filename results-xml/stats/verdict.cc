#include "results-xml/stats/verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <map>

#include <nlohmann/json.hpp>

#include "results-xml/stats/statistics.h"

namespace ptsn::results {

double Verdict::resolution_percent() const {
  return has_interval ? (ci_high - ci_low) / 2 / ratio * 100 : 0;
}

std::vector<double> LogRatios(std::span<const double> reference, std::span<const double> other) {
  std::vector<double> logs;
  for (size_t i = 0; i < reference.size() && i < other.size(); ++i)
    if (reference[i] > 0 && other[i] > 0) logs.push_back(std::log(other[i] / reference[i]));  // NaN fails both
  return logs;
}

double TrimmedMean(std::vector<double> v, double fraction) {
  if (v.empty()) return 0;
  size_t g = v.size() < 3 ? 0 : static_cast<size_t>(std::floor(fraction * static_cast<double>(v.size())));
  std::sort(v.begin(), v.end());
  return Mean(std::vector<double>(v.begin() + static_cast<long>(g), v.end() - static_cast<long>(g)));
}

double InstanceSummary(std::span<const double> log_ratios) {
  return TrimmedMean({log_ratios.begin(), log_ratios.end()}, 0.2);
}

Verdict DecideVerdict(const InstanceRounds& rounds, const VerdictSettings& settings) {
  Verdict v;
  std::vector<double> summaries;
  for (const auto& r : rounds) {
    if (r.empty()) continue;
    summaries.push_back(InstanceSummary(r));
    v.rounds += r.size();
  }
  v.instances = summaries.size();
  if (summaries.empty()) return v;
  const double mean = Mean(summaries);
  v.ratio = std::exp(mean);
  if (summaries.size() < 2) return v;
  const double sd = SampleStandardDeviation(summaries);
  const double t = StudentTQuantile(settings.confidence, static_cast<int>(summaries.size()) - 1);
  const double half = t * sd / std::sqrt(static_cast<double>(summaries.size()));
  v.has_interval = true;
  v.ci_low = std::exp(mean - half);
  v.ci_high = std::exp(mean + half);
  const double same_bound = std::log1p(settings.same_within_percent / 100);
  if (std::fabs(mean) > half) {
    v.kind = VerdictKind::kDifferent;
  } else if (std::fabs(mean) + half <= same_bound) {
    v.kind = VerdictKind::kSame;
  } else {
    // The nearer of the two decisions at this spread: the half-width has to shrink below |mean|
    // (different) or below same_bound - |mean| (same); it shrinks as 1/sqrt(pairs).
    double goal = std::max(std::fabs(mean), same_bound - std::fabs(mean));
    if (goal > 0 && sd > 0) {
      double needed = std::ceil(std::pow(t * sd / goal, 2));
      v.instances_needed = static_cast<size_t>(std::max(needed, static_cast<double>(summaries.size() + 1)));
    }
  }
  return v;
}

InstanceName ParseInstanceName(const std::string& identifier) {
  auto hash = identifier.rfind(" #");
  if (hash == std::string::npos || hash + 2 >= identifier.size()) return {identifier, 1};
  int n = 0;
  for (size_t i = hash + 2; i < identifier.size(); ++i) {
    if (identifier[i] < '0' || identifier[i] > '9' || n > 100000) return {identifier, 1};
    n = n * 10 + (identifier[i] - '0');
  }
  if (n < 2) return {identifier, 1};  // "#1" and "#0" are not what InstanceIdentifier writes
  return {identifier.substr(0, hash), n};
}

std::string InstanceIdentifier(const std::string& kind, int instance) {
  return instance <= 1 ? kind : kind + " #" + std::to_string(instance);
}

std::vector<KindVerdict> VerdictsAgainstFirst(const std::vector<SystemTrials>& systems, const VerdictSettings& settings) {
  std::vector<KindVerdict> out;
  if (systems.empty()) return out;
  const std::string reference = ParseInstanceName(systems.front().identifier).kind;
  std::map<int, const std::vector<double>*> reference_instances;
  std::vector<std::string> kinds;  // in order of appearance
  for (const auto& s : systems) {
    InstanceName name = ParseInstanceName(s.identifier);
    if (name.kind == reference) reference_instances.emplace(name.instance, &s.trials);
    else if (std::find(kinds.begin(), kinds.end(), name.kind) == kinds.end()) kinds.push_back(name.kind);
  }
  for (const auto& kind : kinds) {
    InstanceRounds pairs;
    for (const auto& s : systems) {
      InstanceName name = ParseInstanceName(s.identifier);
      auto ref = reference_instances.find(name.instance);
      if (name.kind != kind || ref == reference_instances.end()) continue;
      pairs.push_back(LogRatios(*ref->second, s.trials));
    }
    out.push_back({kind, DecideVerdict(pairs, settings)});
  }
  return out;
}

double PocockConfidence(double overall, int looks) {
  // Pocock's constants C_P(K) for an overall two-sided 0.05 (Jennison & Turnbull 2000, table 2.1),
  // K = 1..12, 15, 20 looks; the per-look level is 2 (1 - Phi(C_P)). Between tabled K the next
  // larger K is used (stricter); beyond 20, 20's.
  struct Row {
    int looks;
    double c;
  };
  static constexpr Row kConstants[] = {{1, 1.960},  {2, 2.178},  {3, 2.289},  {4, 2.361},  {5, 2.413},
                                       {6, 2.453},  {7, 2.485},  {8, 2.512},  {9, 2.535},  {10, 2.555},
                                       {11, 2.572}, {12, 2.588}, {15, 2.626}, {20, 2.672}};
  double c = kConstants[std::size(kConstants) - 1].c;
  for (const Row& row : kConstants)
    if (row.looks >= looks) {
      c = row.c;
      break;
    }
  const double nominal = std::erfc(c / std::sqrt(2.0));  // 2 (1 - Phi(c))
  return 1 - (1 - overall) * nominal / 0.05;
}

std::string VerdictText(const Verdict& v, const VerdictSettings& settings) {
  char what[64];
  switch (v.kind) {
    case VerdictKind::kDifferent: std::snprintf(what, sizeof what, "different"); break;
    case VerdictKind::kSame: std::snprintf(what, sizeof what, "same within +-%g %%", settings.same_within_percent); break;
    case VerdictKind::kUnknown: std::snprintf(what, sizeof what, "unknown"); break;
  }
  char body[160];
  if (v.has_interval)
    std::snprintf(body, sizeof body, ": x%.3f [%.3f, %.3f] (%zu instance pairs, %zu rounds)", v.ratio, v.ci_low,
                  v.ci_high, v.instances, v.rounds);
  else
    std::snprintf(body, sizeof body, ": x%.3f (%zu instance pair%s, %zu rounds)", v.ratio, v.instances,
                  v.instances == 1 ? "" : "s", v.rounds);
  std::string text = std::string(what) + body;
  if (v.kind != VerdictKind::kUnknown) return text;
  if (v.has_interval) {  // what this machine can resolve with these instances (issue 30, item 4)
    char resolves[96];
    std::snprintf(resolves, sizeof resolves, "; differences under +-%.1f %% cannot be resolved here",
                  v.resolution_percent());
    text += resolves;
  }
  if (v.instances_needed > v.instances)
    text += "; about " + std::to_string(v.instances_needed - v.instances) + " more instance pairs would decide it";
  else if (!v.has_interval)
    text += "; one instance pair cannot tell the set-up from its instance (run.target_instances)";
  return text;
}

// The looks a run's verdicts were judged over ("verdict-looks" in its entries' JSON); 1 if none.
int RecordedLooks(const Result& r) {
  int looks = 1;
  for (const auto& e : r.entries) {
    if (!e.json) continue;
    auto j = nlohmann::json::parse(*e.json, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.contains("verdict-looks") && j["verdict-looks"].is_number_integer())
      looks = std::max(looks, std::min(j["verdict-looks"].get<int>(), 1000));
  }
  return looks;
}

VerdictSettings LevelOfRun(const Result& r, const VerdictSettings& settings) {
  VerdictSettings level = settings;
  const int looks = RecordedLooks(r);
  if (looks > 1) level.confidence = std::max(settings.confidence, PocockConfidence(settings.confidence, looks));
  return level;
}

bool TrialsInterleaved(const ResultFile& file) {
  for (const auto& r : file.results)
    for (const auto& e : r.entries)
      if (e.json && e.json->find("\"interleaved\":true") != std::string::npos) return true;
  return false;
}

std::vector<SystemTrials> ResultSystemTrials(const ResultFile& file, const Result& r) {
  std::vector<SystemTrials> systems;
  for (const auto& s : file.systems)
    for (const auto& e : r.entries)
      if (e.identifier == s.identifier) {
        SystemTrials t{s.identifier, {}};
        for (const auto& trial : EntryTrials(e)) t.trials.push_back(PhpIsNumeric(trial) ? PhpToNumber(trial) : std::nan(""));
        systems.push_back(std::move(t));
        break;
      }
  return systems;
}

std::vector<SystemTrials> TrialsOfKinds(const std::vector<SystemTrials>& systems, const std::vector<std::string>& kinds) {
  std::vector<SystemTrials> out;
  for (const auto& kind : kinds)
    for (const auto& s : systems)
      if (ParseInstanceName(s.identifier).kind == kind) out.push_back(s);
  return out;
}

std::string VerdictView(const ResultFile& file, const VerdictSettings& settings) {
  if (file.systems.size() < 2) return "";
  char head[160];
  std::snprintf(head, sizeof head, "\nVerdicts by instance pairs against %s (%g %%; same within +-%g %%):\n",
                ParseInstanceName(file.systems.front().identifier).kind.c_str(), settings.confidence * 100,
                settings.same_within_percent);
  std::string out = head;
  for (const auto& r : file.results) {
    const std::vector<SystemTrials> systems = ResultSystemTrials(file, r);
    // A run that could look again (added rounds or instance pairs) judged every look at Pocock's
    // level for the looks it allowed; judging its last look at 95 % here would undo that.
    const VerdictSettings level = LevelOfRun(r, settings);
    const int looks = RecordedLooks(r);
    auto verdicts = VerdictsAgainstFirst(systems, level);
    if (verdicts.empty()) continue;
    out += "  " + r.title + " " + r.app_version + (r.description.empty() ? "" : " - " + r.description);
    if (looks > 1) {
      char at[96];
      std::snprintf(at, sizeof at, " (run with up to %d looks: each at %.2f %%)", looks, level.confidence * 100);
      out += at;
    }
    out += "\n";
    for (const auto& v : verdicts) out += "    " + v.kind + ": " + VerdictText(v.verdict, level) + "\n";
  }
  return out;
}

std::optional<Resolution> TrialResolution(std::span<const double> trials) {
  const size_t n = trials.size();
  if (n < 2) return std::nullopt;
  std::vector<double> logs;
  for (double v : trials) {
    if (!(v > 0)) return std::nullopt;
    logs.push_back(std::log(v));
  }
  std::vector<double> raw(trials.begin(), trials.end());
  Resolution r;
  r.trials = n;
  r.min = *std::min_element(raw.begin(), raw.end());
  r.max = *std::max_element(raw.begin(), raw.end());
  r.cv_percent = PercentStandardDeviation(raw);
  const double half = StudentTQuantile(0.95, static_cast<int>(2 * n - 2)) * SampleStandardDeviation(logs) *
                      std::sqrt(2.0 / static_cast<double>(n));
  r.resolvable_percent = 100 * std::expm1(half);
  return r;
}

namespace {
// Four significant digits without an exponent or trailing zeros: 8436, 3402000, 53.99, 0.01234.
std::string Plain(double v) {
  if (v == 0 || !std::isfinite(v)) return v == 0 ? "0" : std::to_string(v);
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  const double scale = std::pow(10.0, magnitude - 3);
  const double rounded = std::round(v / scale) * scale;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", std::max(0, 3 - magnitude), rounded);
  std::string out = buf;
  if (out.find('.') != std::string::npos) {
    out.erase(out.find_last_not_of('0') + 1);
    if (out.back() == '.') out.pop_back();
  }
  return out;
}
}  // namespace

std::string ResolutionNote(const Resolution& r, const std::string& scale) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "differences under \u00b1%.1f %% cannot be resolved from these %zu trials (sd %.0f %% of the mean, %s to "
                "%s%s%s)",
                r.resolvable_percent, r.trials, r.cv_percent, Plain(r.min).c_str(), Plain(r.max).c_str(),
                scale.empty() ? "" : " ", scale.c_str());
  return buf;
}

}  // namespace ptsn::results
