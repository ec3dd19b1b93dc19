// PTS's own environment variables, read in one place. The settings (settings.h) carry what a user
// configures; these are the per-run variables PTS's batch mode and its scripts set, which the
// commands honour as PTS does. An empty value counts as unset, as PHP's getenv() tests do.
#pragma once

#include <optional>
#include <string>

#include "runner/common/settings.h"

namespace ptsn {

// The process environment with empty values as unset: what every command reads PTS's variables
// (and FORCE_TIMES_TO_RUN & co. through run::ReadRunCountOverrides) through.
EnvLookup PtsEnvironment();

struct PtsVariables {
  std::optional<std::string> preset_options;           // PRESET_OPTIONS: option values by index
  std::optional<std::string> preset_options_values;    // PRESET_OPTIONS_VALUES: by value
  std::optional<std::string> skip_tests;               // SKIP_TESTS
  std::optional<std::string> results_name;             // TEST_RESULTS_NAME
  std::optional<std::string> results_identifier;       // TEST_RESULTS_IDENTIFIER
  std::optional<std::string> results_description;      // TEST_RESULTS_DESCRIPTION
  std::optional<std::string> output_dir;               // OUTPUT_DIR: where a copy of the result goes
  std::optional<std::string> download_cache;           // PTS_DOWNLOAD_CACHE: one more cache to look in
  std::optional<std::string> download_cache_override;  // PTS_DOWNLOAD_CACHE_OVERRIDE: make-download-cache's target
};

PtsVariables ReadPtsVariables(const EnvLookup& env = PtsEnvironment());

}  // namespace ptsn
