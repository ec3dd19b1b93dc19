#include "runner/run/round_count.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "results-xml/stats/statistics.h"
#include "results-xml/stats/verdict.h"

namespace ptsn::run {

namespace {

std::string Percent(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", v);
  return buf;
}

// One instance per target: the targets whose paired ratio to the first is not yet known to the goal.
std::vector<std::string> ImpreciseRatios(const RoundState& s, double ci_goal_percent) {
  std::vector<std::string> wanting;
  for (size_t k = 1; k < s.values.size(); ++k) {
    // Rounds in which both the reference and this target gave a value.
    std::vector<double> ref, other;
    for (size_t i = 0; i < s.values[0].size() && i < s.values[k].size(); ++i)
      if (!std::isnan(s.values[0][i]) && !std::isnan(s.values[k][i])) {
        ref.push_back(s.values[0][i]);
        other.push_back(s.values[k][i]);
      }
    // Mostly failing trials will not get better by running more of them.
    if (static_cast<int>(ref.size()) * 2 < s.rounds_done) continue;
    std::string name = k < s.names.size() ? s.names[k] : "target " + std::to_string(k + 1);
    auto r = results::PairRatio(ref, other);
    if (!r) {
      wanting.push_back(name + ": fewer than 2 paired rounds");
    } else if (r->half_width_percent() > ci_goal_percent) {
      char ratio[32];
      std::snprintf(ratio, sizeof ratio, "x%.3f", r->ratio);
      wanting.push_back(name + ": " + ratio + " +-" + Percent(r->half_width_percent()) + " (goal +-" +
                        Percent(ci_goal_percent) + ")");
    }
  }
  return wanting;
}

// Whether undecided verdicts add instance pairs (else rounds).
bool AddsInstances(const RoundState& s) { return s.max_instances > s.start_instances; }

// Several instances per target (docs/verdicts.md): the kinds whose verdict against the first is
// still unknown. Every added round or instance pair is a look at the data, so each uses Pocock's
// level for as many looks as the bound allows: a false "different" stays near 5 % over all of them.
std::vector<std::string> UndecidedVerdicts(const RoundState& s, const DynamicRunLimits& limits,
                                           double same_within_percent) {
  std::vector<results::SystemTrials> systems;
  for (size_t k = 0; k < s.values.size() && k < s.names.size(); ++k) systems.push_back({s.names[k], s.values[k]});
  results::VerdictSettings settings{same_within_percent, results::PocockConfidence(0.95, VerdictLooks(s, limits))};
  std::vector<std::string> wanting;
  for (const auto& v : results::VerdictsAgainstFirst(systems, settings))
    // A kind without one usable round (failing trials) will not get better with more of them.
    if (v.verdict.kind == results::VerdictKind::kUnknown && v.verdict.rounds > 0)
      wanting.push_back(v.kind + ": " + results::VerdictText(v.verdict, settings));
  return wanting;
}

double MeanTrialSeconds(const RoundState& s) { return s.trials > 0 ? s.trials_seconds / s.trials : 0; }

// One more round: a trial on every target.
double ExpectedRoundSeconds(const RoundState& s) { return MeanTrialSeconds(s) * static_cast<double>(s.values.size()); }

// One more instance pair: one new instance of every kind, set up, then its scheduled rounds.
double ExpectedInstancePairSeconds(const RoundState& s) {
  const double kinds = static_cast<double>(s.values.size()) / std::max(1, s.instances);
  return s.last_setup_seconds + MeanTrialSeconds(s) * kinds * s.scheduled;
}

bool HasInstances(const std::vector<std::string>& names) {
  return std::any_of(names.begin(), names.end(),
                     [](const std::string& n) { return results::ParseInstanceName(n).instance > 1; });
}

}  // namespace

int VerdictLooks(const RoundState& s, const DynamicRunLimits& limits) {
  if (AddsInstances(s)) return s.max_instances - s.start_instances + 1;
  if (!limits.enabled) return 1;
  return std::max(1, limits.max_runs - s.scheduled + 1);
}

RoundDecision DecideMoreRounds(const RoundState& s, const DynamicRunLimits& limits, double ci_goal_percent,
                               double same_within_percent) {
  RoundDecision d;
  if (s.values.size() < 2 || s.rounds_done < s.scheduled) return d;
  // Adding instance pairs has its own bound (max_instances): FORCE_TIMES_TO_RUN fixes the rounds
  // per instance, not how many instances a decision takes.
  const bool by_instances = HasInstances(s.names) && AddsInstances(s);
  if (!limits.enabled && !by_instances) return d;
  std::vector<std::string> wanting = HasInstances(s.names) ? UndecidedVerdicts(s, limits, same_within_percent)
                                                           : ImpreciseRatios(s, ci_goal_percent);
  if (wanting.empty()) return d;
  std::string reason;
  for (const auto& w : wanting) reason += (reason.empty() ? "" : "; ") + w;
  if (by_instances) {
    if (s.instances >= s.max_instances) d.stopped_by = "max_target_instances";
    else if (!FitsTimeBudget(s.extra_seconds, ExpectedInstancePairSeconds(s), limits.time_budget_seconds))
      d.stopped_by = "time_budget";
    else d.add_instance = true;
  } else if (s.rounds_done >= limits.max_runs) {
    d.stopped_by = "max_runs";
  } else if (!FitsTimeBudget(s.extra_seconds, ExpectedRoundSeconds(s), limits.time_budget_seconds)) {
    d.stopped_by = "time_budget";
  } else {
    d.add = true;
  }
  d.reason = reason;
  return d;
}

}  // namespace ptsn::run
