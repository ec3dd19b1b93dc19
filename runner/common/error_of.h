// For tests: the message of the ptsn::Error that `f` throws, or "no error".
#pragma once

#include <functional>
#include <string>

#include "runner/common/error.h"

namespace ptsn::test {

inline std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace ptsn::test
