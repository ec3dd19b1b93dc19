#include "runner/common/shared_dir.h"

#include <cstdlib>

#ifndef PTSN_SHARED_DIR
#define PTSN_SHARED_DIR ""
#endif

namespace ptsn {

std::string SharedDir() {
  const char* env = std::getenv("PTSN_SHARED_DIR");
  return env && *env ? env : PTSN_SHARED_DIR;
}

}  // namespace ptsn
