// Whether a proof that cannot run here must fail instead of skipping. PTSN_REQUIRE is a comma list
// of what must not be skipped: vm (the real-kernel scenarios; contrib/vm.sh reads it too), pg (the
// PostgreSQL storage tests), root (tests that need root: loop devices, mounts, package installs).
// CI (.ci/run) sets all three, so a machine that cannot run them fails loudly; a laptop without
// them keeps the skip and its reason.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <string_view>

namespace ptsn::test {

inline bool Required(std::string_view what) {
  const char* env = std::getenv("PTSN_REQUIRE");
  std::string_view list = env ? env : "";
  while (!list.empty()) {
    size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item == what) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace ptsn::test

// Skips with `why`, or fails with it when PTSN_REQUIRE names `what`. Returns from the caller.
#define PTSN_SKIP_UNLESS_REQUIRED(what, why)                                                     \
  do {                                                                                           \
    const std::string why_skip_ = (why);                                                         \
    if (::ptsn::test::Required(what))                                                            \
      GTEST_FAIL() << "PTSN_REQUIRE names " << (what) << ", and this cannot run: " << why_skip_; \
    GTEST_SKIP() << why_skip_;                                                                   \
  } while (0)
