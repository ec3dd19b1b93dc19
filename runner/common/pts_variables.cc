#include "runner/common/pts_variables.h"

namespace ptsn {

EnvLookup PtsEnvironment() {
  return [process = ProcessEnvironment()](const std::string& name) -> std::optional<std::string> {
    auto v = process(name);
    if (!v || v->empty()) return std::nullopt;
    return v;
  };
}

PtsVariables ReadPtsVariables(const EnvLookup& env) {
  PtsVariables v;
  v.preset_options = env("PRESET_OPTIONS");
  v.preset_options_values = env("PRESET_OPTIONS_VALUES");
  v.skip_tests = env("SKIP_TESTS");
  v.results_name = env("TEST_RESULTS_NAME");
  v.results_identifier = env("TEST_RESULTS_IDENTIFIER");
  v.results_description = env("TEST_RESULTS_DESCRIPTION");
  v.output_dir = env("OUTPUT_DIR");
  v.download_cache = env("PTS_DOWNLOAD_CACHE");
  v.download_cache_override = env("PTS_DOWNLOAD_CACHE_OVERRIDE");
  return v;
}

}  // namespace ptsn
