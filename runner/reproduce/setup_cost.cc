#include "runner/reproduce/setup_cost.h"

#include <cmath>
#include <cstdio>
#include <optional>

#include "results-xml/stats/statistics.h"
#include "runner/common/strings.h"
#include "runner/reproduce/append.h"
#include "runner/reproduce/compare.h"

namespace ptsn::reproduce {

namespace {

// A System's trials of `r` in round order (NaN where a round gave no value); nullopt without an entry.
std::optional<std::vector<double>> Trials(const results::Result& r, const std::string& identifier) {
  const results::Entry* e = FindEntry(r, identifier);
  if (!e) return std::nullopt;
  std::vector<double> out;
  for (const auto& t : results::EntryTrials(*e)) out.push_back(results::PhpIsNumeric(t) ? results::PhpToNumber(t) : std::nan(""));
  return out;
}

// `other` against `reference` in `r`, instance pair by instance pair ("NAME", "NAME #2", ...).
results::InstanceRounds Pairs(const results::Result& r, const std::string& reference, const std::string& other) {
  results::InstanceRounds pairs;
  for (int k = 1;; ++k) {
    auto ref = Trials(r, results::InstanceIdentifier(reference, k));
    auto oth = Trials(r, results::InstanceIdentifier(other, k));
    if (!ref || !oth) break;
    auto logs = results::LogRatios(*ref, *oth);
    if (!logs.empty()) pairs.push_back(std::move(logs));
  }
  return pairs;
}

std::string Fixed(const char* format, double a, double b = 0, double c = 0) {
  char buf[96];
  std::snprintf(buf, sizeof buf, format, a, b, c);
  return buf;
}

// "0.770x here [0.720, 0.810] (3 instance pairs, 9 rounds)"
std::string Here(const results::Verdict& v) {
  std::string text = Fixed("%.3fx here", v.ratio);
  if (v.has_interval) text += Fixed(" [%.3f, %.3f]", v.ci_low, v.ci_high);
  return text + " (" + std::to_string(v.instances) + " instance pair" + (v.instances == 1 ? "" : "s") + ", " +
         std::to_string(v.rounds) + " rounds)";
}

// The published ratio of `other`'s systems to `reference`'s in `r` (the first of each with a
// value), with their names; nullopt when either has none.
struct Published {
  double ratio = 0;
  std::string names;
};
std::optional<Published> PublishedRatio(const results::Result& r, const TargetOrigin& reference, const TargetOrigin& other) {
  auto value = [&](const TargetOrigin& t) -> std::optional<std::pair<std::string, double>> {
    for (const auto& p : t.published)
      if (const results::Entry* e = FindEntry(r, p); e && results::PhpIsNumeric(e->value) && results::PhpToNumber(e->value) > 0)
        return std::make_pair(p, results::PhpToNumber(e->value));
    return std::nullopt;
  };
  auto ref = value(reference), oth = value(other);
  if (!ref || !oth) return std::nullopt;
  return Published{oth->second / ref->second, oth->first + " / " + ref->first};
}

// Here against the published ratio: the verdict rule over the per-round log ratios less the
// published log ratio.
std::string Judge(const results::InstanceRounds& pairs, double published, const results::VerdictSettings& settings) {
  results::InstanceRounds shifted = pairs;
  for (auto& rounds : shifted)
    for (double& x : rounds) x -= std::log(published);
  results::Verdict v = results::DecideVerdict(shifted, settings);
  if (!v.has_interval) return "one instance pair cannot tell (run.target_instances=3 or more for a verdict)";
  switch (v.kind) {
    case results::VerdictKind::kDifferent: return "different";
    case results::VerdictKind::kSame: return Fixed("the same within +-%g %%", settings.same_within_percent);
    case results::VerdictKind::kUnknown: break;
  }
  return "within noise";
}

std::string UnitWords(const results::Result& r) {
  std::string out = r.scale.empty() ? "no unit" : r.scale;
  if (r.proportion == "HIB") out += ", higher is better";
  else if (r.proportion == "LIB") out += ", lower is better";
  return out;
}

// The lines of one comparison: `other` against `reference` here, and beside the published ratio.
std::string Compare(const results::Result& r, const TargetOrigin& reference, const TargetOrigin& other, bool kept_apart,
                    bool against_reference, const results::VerdictSettings& overall) {
  auto pairs = Pairs(r, reference.identifier, other.identifier);
  if (pairs.empty()) return "";
  // At the level the run judged this result at (its looks), as every other view of it.
  const results::VerdictSettings settings = results::LevelOfRun(r, overall);
  results::Verdict here = results::DecideVerdict(pairs, settings);
  std::string line = "    " + other.identifier + (against_reference ? ": " : " vs " + reference.identifier + ": ") +
                     Here(here) + (against_reference ? " of " + reference.identifier : "") +
                     (settings.confidence != overall.confidence ? Fixed(" (at %.2f %%: the run looked up to %g times)", settings.confidence * 100, results::RecordedLooks(r)) : "") +
                     "\n      published: ";
  if (kept_apart) return line + "measured in another unit there (stand-in): no comparison\n";
  if (reference.published.empty())
    return line + "no " + std::string(against_reference ? "unencrypted system" : "system like " + reference.identifier) +
           " to compare with\n";
  if (other.published.empty()) return line + "no system like " + other.identifier + "\n";
  auto published = PublishedRatio(r, reference, other);
  if (!published) return line + "no values to compare\n";
  return line + Fixed("%.3fx", published->ratio) + " (" + published->names + "): " +
         Judge(pairs, published->ratio, settings) + "\n";
}

}  // namespace

std::string SetupCostText(const results::ResultFile& file, const std::vector<TargetOrigin>& targets,
                          const results::VerdictSettings& settings) {
  if (targets.size() < 2) return "";
  std::string body;
  for (const auto& r : file.results) {
    if (r.identifier.empty() || r.display_format != "BAR_GRAPH") continue;
    const results::Entry* ours = FindEntry(r, targets.front().identifier);
    if (!ours) continue;
    const bool kept_apart = StandInForOf(*ours).has_value();
    std::string lines;
    for (size_t i = 1; i < targets.size(); ++i)
      lines += Compare(r, targets.front(), targets[i], kept_apart, true, settings);
    // Between the set-ups that stand for published systems: what the published comparison was.
    for (size_t i = 1; i < targets.size(); ++i)
      for (size_t j = i + 1; j < targets.size(); ++j)
        if (!targets[i].published.empty() && !targets[j].published.empty())
          lines += Compare(r, targets[i], targets[j], kept_apart, false, settings);
    if (lines.empty()) continue;
    body += "  " + r.title + (r.app_version.empty() ? "" : " " + r.app_version) +
            (r.description.empty() ? "" : " [" + r.description + "]") + " (" + UnitWords(r) + ")\n" + lines;
  }
  if (body.empty()) return "";
  return "Set-up costs here beside the published (ratios of values, trials paired by round; " +
         Fixed("%g %%, same within +-%g %%", settings.confidence * 100, settings.same_within_percent) +
         "; a published ratio is as published: its systems ran once each, separately):\n" + body;
}

}  // namespace ptsn::reproduce
