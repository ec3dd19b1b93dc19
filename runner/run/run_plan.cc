#include "runner/run/run_plan.h"

#include "runner/common/strings.h"

namespace ptsn::run {

PlannedTest MakePlannedTest(const profile::TestProfile& p, const profile::RunOption& option) {
  return {p, option, profile::PtsTestArguments(p, option.arguments)};
}

std::vector<PlannedTest> PlanPicked(const profile::TestProfile& p, const profile::OptionPicks& picks,
                                    profile::OpenOptions open) {
  std::vector<PlannedTest> out;
  auto options = profile::PickedOptions(p.options, picks, open, p.subtitle);
  for (auto& o : options) {
    if (o.description.empty()) o.description = p.subtitle;
    out.push_back(MakePlannedTest(p, o));
  }
  return out;
}

std::vector<std::string> UnansweredOptions(const profile::TestProfile& p, const profile::OptionPicks& picks) {
  std::vector<std::string> missing;
  for (const auto& o : p.options) {
    if (o.entries.size() == 1 || picks.count(o.identifier)) continue;
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
