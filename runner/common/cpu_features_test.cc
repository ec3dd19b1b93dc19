#include "runner/common/cpu_features.h"

#include <gtest/gtest.h>

namespace ptsn {
namespace {

// The same answers as GCC's own feature test (which this replaces to keep its constructor out).
TEST(CpuFeatures, AgreeWithTheCompilersFeatureTest) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  EXPECT_EQ(CpuHasAesNi(), __builtin_cpu_supports("aes") != 0);
  EXPECT_EQ(CpuHasShaNi(), __builtin_cpu_supports("sha") && __builtin_cpu_supports("sse4.1"));
#else
  EXPECT_FALSE(CpuHasShaNi());
#endif
}

}  // namespace
}  // namespace ptsn
