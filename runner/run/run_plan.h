// RunPlan: a profile x one option combination -> what is run (the argument string) and how the
// result is labelled (arguments, description). Batch mode plans every combination; a preset plans
// what PRESET_OPTIONS / PRESET_OPTIONS_VALUES select.
#pragma once

#include <string>
#include <vector>

#include "runner/profile/options.h"
#include "runner/profile/test_profile.h"

namespace ptsn::run {

struct PlannedTest {
  profile::TestProfile profile;
  profile::RunOption option;  // stored arguments + description
  std::string pts_arguments;  // what the scripts receive (Default/Arguments etc. added)
};

PlannedTest MakePlannedTest(const profile::TestProfile& p, const profile::RunOption& option);

// Every combination of every option (PTS batch mode with RunAllTestCombinations).
std::vector<PlannedTest> PlanAllCombinations(const profile::TestProfile& p);
// The combinations PRESET_OPTIONS / PRESET_OPTIONS_VALUES select (defaults for the rest).
std::vector<PlannedTest> PlanFromPresets(const profile::TestProfile& p, const std::string& preset_options,
                                         const std::string& preset_values);

// Options that need an answer (more than one entry, or free text) and have none in the presets:
// "size (Block Size: 4KB, 1MB)". Empty when nothing is missing.
std::vector<std::string> UnansweredOptions(const profile::TestProfile& p, const std::string& preset_options,
                                           const std::string& preset_values);

// SKIP_TESTS matching: the identifier with or without version, or the base name.
bool IsSkipped(const profile::TestProfile& p, const std::string& skip_tests);

}  // namespace ptsn::run
