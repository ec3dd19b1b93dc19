#include "runner/run/run_plan.h"

#include "runner/common/strings.h"

namespace ptsn::run {

PlannedTest MakePlannedTest(const profile::TestProfile& p, const profile::RunOption& option) {
  return {p, option, profile::PtsTestArguments(p, option.arguments)};
}

std::vector<PlannedTest> PlanAllCombinations(const profile::TestProfile& p) {
  std::vector<PlannedTest> out;
  auto options = profile::BatchOptions(p.options);
  if (options.empty()) options.push_back({"", p.subtitle});
  for (const auto& o : options) {
    profile::RunOption fixed = o;
    if (fixed.description.empty()) fixed.description = p.subtitle;
    out.push_back(MakePlannedTest(p, fixed));
  }
  return out;
}

std::vector<PlannedTest> PlanFromPresets(const profile::TestProfile& p, const std::string& preset_options,
                                         const std::string& preset_values) {
  std::vector<PlannedTest> out;
  for (const auto& o : profile::PresetOptions(p, preset_options, preset_values)) out.push_back(MakePlannedTest(p, o));
  return out;
}

std::vector<std::string> UnansweredOptions(const profile::TestProfile& p, const std::string& preset_options,
                                           const std::string& preset_values) {
  auto presets = profile::ParsePresetString(preset_options);
  auto values = profile::ParsePresetString(preset_values);
  // The same keys PresetOptions() looks up: base name, and for PRESET_OPTIONS also "repo/name".
  auto answered = [&](const profile::PresetMap& m, const profile::TestOption& o, bool identifier_too) {
    std::vector<std::string> keys = {p.BaseName()};
    if (identifier_too) keys.push_back(p.IdentifierWithoutVersion());
    for (const auto& key : keys) {
      auto it = m.find(key);
      if (it != m.end() && it->second.count(o.identifier)) return true;
    }
    return false;
  };
  std::vector<std::string> missing;
  for (const auto& o : p.options) {
    if (o.entries.size() == 1) continue;
    if (answered(presets, o, true) || answered(values, o, false)) continue;
    std::vector<std::string> names;
    for (const auto& e : o.entries) names.push_back(e.name);
    missing.push_back(o.identifier + " (" + o.display_name +
                      (names.empty() ? ": free text" : ": " + Join(names, ", ")) + ")");
  }
  return missing;
}

bool IsSkipped(const profile::TestProfile& p, const std::string& skip_tests) {
  for (const auto& raw : Split(skip_tests, ',')) {
    std::string s = Trim(raw);
    if (s.empty()) continue;
    if (s == p.identifier || s == p.IdentifierWithoutVersion() || s == p.BaseName()) return true;
  }
  return false;
}

}  // namespace ptsn::run
