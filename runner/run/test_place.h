// Where a run's disk tests run and whose results they are: one per storage target in a run
// across targets (runner/targets), none otherwise (this system, the usual test directory).
#pragma once

#include <string>

#include "results-xml/result_file.h"

namespace ptsn::run {

struct TestPlace {
  results::System system;  // the System its results are recorded under
  std::string test_dir;    // where its disk tests run (PTS_NATIVE_TEST_DIR)
};

}  // namespace ptsn::run
