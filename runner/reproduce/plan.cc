#include "runner/reproduce/plan.h"

#include <algorithm>

#include "results-xml/model/comparison_hash.h"
#include "results-xml/views/export_common.h"
#include "runner/common/strings.h"
#include "runner/monitor/sensors.h"
#include "runner/reproduce/profile_id.h"

namespace ptsn::reproduce {

std::vector<const PlanItem*> ReproducePlan::Unavailable() const {
  std::vector<const PlanItem*> out;
  for (const auto& i : items)
    if (i.kind == PlanKind::kUnavailable) out.push_back(&i);
  return out;
}

std::vector<EnvVar> ParsePresetEnvironment(const std::string& preset) {
  // PTS splits on ';' and keeps pairs whose '=' is not the first character.
  std::vector<EnvVar> out;
  for (const auto& part : Split(preset, ';')) {
    size_t eq = part.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    std::string name = Trim(part.substr(0, eq));
    if (name.empty()) continue;
    out.push_back({name, Trim(part.substr(eq + 1))});
  }
  return out;
}

std::vector<std::string> PublishedSensors(const results::ResultFile& file) {
  std::vector<std::string> out;
  auto add = [&](const monitor::SensorKind* kind) {
    if (!kind) return;
    std::string name = std::string(kind->type) + "." + std::string(kind->sensor);
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  };
  static const std::string kMonitor = " Monitor";
  for (const auto& r : file.results) {
    if (!r.identifier.empty()) continue;  // a test's own result
    // The whole-run monitor of PTS 3.x: Arguments "cpu.usage".
    std::string first = r.arguments.substr(0, r.arguments.find(' '));
    if (size_t dot = first.find('.'); dot != std::string::npos) {
      add(monitor::FindSensorKind(first.substr(0, dot), first.substr(dot + 1)));
      continue;
    }
    // A test's monitor result: Description "CPU Usage Monitor" or "CPU Usage (Summary) Monitor".
    if (!EndsWith(r.description, kMonitor)) continue;
    std::string name = r.description.substr(0, r.description.size() - kMonitor.size());
    if (size_t q = name.rfind(" ("); q != std::string::npos && name.back() == ')') name.resize(q);
    for (const auto& kind : monitor::SensorKinds())
      if (monitor::SensorDisplayName(kind) == name) add(&kind);
  }
  return out;
}

namespace {

std::optional<std::string> UnsafeArguments(const std::string& args) {
  for (const char* bad : {"; ", "&&", "|"})
    if (args.find(bad) != std::string::npos) return std::string("arguments contain '") + bad + "'";
  return std::nullopt;
}

// Why the stored profile cannot be used; "" when `chosen` is set and runnable.
std::string OriginalProblem(const std::string& original, const std::optional<std::string>& chosen,
                            const ProfileCatalog& catalog) {
  if (!chosen) {
    ProfileId id = SplitProfileId(original);
    std::string series = id.version.empty() ? id.base : id.base + "-" + MajorMinor(id.version) + ".x";
    return "no profile " + series + " here";
  }
  std::string why = catalog.WhyNotRunnable(*chosen);
  return why.empty() ? "" : *chosen + ": " + why;
}

// The first declared stand-in for `r` that can run here, as a plan item; why the others cannot
// is appended to `problems` ("; stand-in X: why").
std::optional<PlanItem> RunnableStandIn(const PlanItem& base, const results::Result& r, const ProfileCatalog& catalog,
                                        const std::vector<StandInRule>& stand_ins, std::string& problems) {
  for (const auto& m : FindStandIns(stand_ins, r.identifier, r.arguments)) {
    std::string why_not = catalog.WhyNotRunnable(m.rule->stand_in_profile);
    if (!why_not.empty()) {
      problems += "; stand-in " + m.rule->stand_in_profile + ": " + why_not;
      continue;
    }
    PlanItem item = base;
    item.kind = PlanKind::kStandIn;
    item.profile = m.rule->stand_in_profile;
    item.arguments = m.arguments;
    item.description = m.description;
    item.stand_in_label = StandInLabel(m.rule->stand_in_profile, r.identifier);
    item.note = m.rule->note;
    item.packages = catalog.PackagesToInstall(m.rule->stand_in_profile);
    return item;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> NotATest(const results::ResultFile& file, size_t i) {
  const results::Result& r = file.results.at(i);
  if (Trim(r.identifier).empty()) return "derived result (no test profile)";
  if (auto bad = UnsafeArguments(r.arguments)) return *bad + ", which PTS refuses to re-run";
  if (!r.entries.empty() &&
      std::all_of(r.entries.begin(), r.entries.end(), [](const results::Entry& e) { return results::StandInMark(e); }))
    return "a stand-in's own result (it runs with the test it stands in for)";
  return std::nullopt;
}

PlanItem UseAlternative(const PlanItem& original, const std::string& why) {
  PlanItem alt = original.alternative.at(0);
  alt.reason = why;
  return alt;
}

ReproducePlan BuildPlan(const results::ResultFile& file, const ProfileCatalog& catalog,
                        const std::vector<StandInRule>& stand_ins) {
  ReproducePlan plan;
  for (size_t i = 0; i < file.results.size(); ++i) {
    const results::Result& r = file.results[i];
    if (auto why = NotATest(file, i)) {
      plan.not_rerun.push_back({i, *why});
      continue;
    }
    PlanItem item;
    item.result_index = i;
    item.original_hash = results::ComparisonHash(r);
    item.original = r.identifier;
    ProfileId id = SplitProfileId(r.identifier);
    auto chosen = ChooseProfileVersion(r.identifier, catalog.Installed(id.base), catalog.Available(id.base));
    std::string problem = OriginalProblem(r.identifier, chosen, catalog);
    std::string stand_in_problems;
    std::optional<PlanItem> stand_in = RunnableStandIn(item, r, catalog, stand_ins, stand_in_problems);
    if (problem.empty()) {
      item.kind = PlanKind::kOriginal;
      item.profile = *chosen;
      item.arguments = r.arguments;
      item.description = r.description;
      item.packages = catalog.PackagesToInstall(*chosen);
      if (stand_in) item.alternative.push_back(std::move(*stand_in));
      plan.items.push_back(std::move(item));
      continue;
    }
    item.reason = problem + stand_in_problems;
    if (stand_in) {
      stand_in->reason = item.reason;
      item = std::move(*stand_in);
    }
    plan.items.push_back(std::move(item));
  }
  return plan;
}

// Each test: its published title, then one line that begins with what happens to it (run,
// STAND-IN or CANNOT RUN), so the plan can be read, and grepped, line by line.
std::string ItemHeading(const results::ResultFile& file, const PlanItem& item) {
  const results::Result& r = file.results[item.result_index];
  return std::to_string(item.result_index + 1) + ". " + r.title + (r.app_version.empty() ? "" : " " + r.app_version) +
         (r.description.empty() ? "" : " [" + r.description + "]");
}

std::string FormatPlan(const results::ResultFile& file, const ReproducePlan& plan) {
  std::string out;
  size_t originals = 0, stand_ins = 0, unavailable = 0;
  for (const auto& it : plan.items) {
    out += "  " + ItemHeading(file, it) + "\n";
    switch (it.kind) {
      case PlanKind::kOriginal:
        ++originals;
        out += "run      " + it.profile + (it.arguments.empty() ? "" : " " + it.arguments) +
               (it.profile != it.original ? "  (in place of " + it.original + ")" : "") + "\n";
        if (!it.packages.empty()) out += "         (installs Debian packages " + Join(it.packages, " ") + " first)\n";
        if (!it.alternative.empty())
          out += "         (should installing fail: STAND-IN " + it.alternative[0].profile + ")\n";
        break;
      case PlanKind::kStandIn:
        ++stand_ins;
        out += "STAND-IN " + it.profile + (it.arguments.empty() ? "" : " " + it.arguments) + "\n";
        out += "         (" + it.stand_in_label + "; original: " + it.reason + ")\n";
        if (!it.note.empty()) out += "         note: " + it.note + "\n";
        if (!it.packages.empty()) out += "         (installs Debian packages " + Join(it.packages, " ") + " first)\n";
        break;
      case PlanKind::kUnavailable:
        ++unavailable;
        out += "CANNOT RUN " + it.original + ": " + it.reason + "\n";
        break;
    }
  }
  out += "Plan: " + std::to_string(plan.items.size()) + " tests: " + std::to_string(originals) + " original, " +
         std::to_string(stand_ins) + " stand-in, " + std::to_string(unavailable) + " cannot run";
  if (!plan.not_rerun.empty())
    out += "; " + std::to_string(plan.not_rerun.size()) + " derived/refused results are not re-run";
  out += "\n";
  return out;
}

}  // namespace ptsn::reproduce
