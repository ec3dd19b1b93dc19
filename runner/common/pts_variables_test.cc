#include "runner/common/pts_variables.h"

#include <gtest/gtest.h>

#include <map>

namespace ptsn {
namespace {

TEST(PtsVariables, ReadFromTheLookupEmptyAsUnset) {
  std::map<std::string, std::string> env = {{"TEST_RESULTS_NAME", "crypt"}, {"SKIP_TESTS", ""},
                                            {"PTS_DOWNLOAD_CACHE", "/srv/cache"}};
  auto v = ReadPtsVariables([&](const std::string& k) -> std::optional<std::string> {
    auto it = env.find(k);
    if (it == env.end() || it->second.empty()) return std::nullopt;
    return it->second;
  });
  EXPECT_EQ(v.results_name, "crypt");
  EXPECT_EQ(v.skip_tests, std::nullopt);
  EXPECT_EQ(v.download_cache, "/srv/cache");
  EXPECT_EQ(v.output_dir, std::nullopt);
}

TEST(PtsVariables, TheProcessEnvironmentCountsAnEmptyValueAsUnset) {
  setenv("PTSN_TEST_EMPTY_VARIABLE", "", 1);
  setenv("PTSN_TEST_SET_VARIABLE", "x", 1);
  EXPECT_EQ(PtsEnvironment()("PTSN_TEST_EMPTY_VARIABLE"), std::nullopt);
  EXPECT_EQ(PtsEnvironment()("PTSN_TEST_SET_VARIABLE"), "x");
  unsetenv("PTSN_TEST_EMPTY_VARIABLE");
  unsetenv("PTSN_TEST_SET_VARIABLE");
}

}  // namespace
}  // namespace ptsn
