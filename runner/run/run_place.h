// Where a run's disk tests run and whose results they are: one per storage target in a run
// across targets (runner/targets), none otherwise (this system, the usual test directory).
#pragma once

#include <functional>
#include <string>

#include "results-xml/model/result_file.h"

namespace ptsn::run {

struct TestPlace {
  results::System system;  // the System its results are recorded under
  std::string test_dir;    // where its disk tests run (PTS_NATIVE_TEST_DIR)
  // Run before each of its scripts and trials: puts the machine in the state the target needs
  // (the kernel's cipher choice, for fscrypt and eCryptfs with impl=); throws ptsn::Error when
  // it cannot, and that trial fails with the reason. Empty = nothing to do.
  std::function<void()> enter;
};

}  // namespace ptsn::run
