// RunPlan: a profile x one option combination -> what is run (the argument string) and how the
// result is labelled (arguments, description). Batch mode plans every combination of the options
// PRESET_OPTIONS / PRESET_OPTIONS_VALUES leave open; other runs take the default of an open option.
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

// What `picks` select; options without a pick become their default entry (kDefault) or every
// entry (kEvery: batch mode, PTS's RunAllTestCombinations).
std::vector<PlannedTest> PlanPicked(const profile::TestProfile& p, const profile::OptionPicks& picks,
                                    profile::OpenOptions open);

// Options that need an answer (more than one entry, or free text) and have no pick:
// "size (Block Size: 4KB, 1MB)". Empty when nothing is missing.
std::vector<std::string> UnansweredOptions(const profile::TestProfile& p, const profile::OptionPicks& picks);

// SKIP_TESTS matching: the identifier with or without version, or the base name.
bool IsSkipped(const profile::TestProfile& p, const std::string& skip_tests);

}  // namespace ptsn::run
