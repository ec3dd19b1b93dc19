#include "runner/reproduce/result_id.h"

#include <gtest/gtest.h>

namespace ptsn::reproduce {

TEST(ResultId, AcceptsPublishedIds) {
  EXPECT_TRUE(IsOpenBenchmarkingId("1110088-AR-1110066AR56"));
  EXPECT_TRUE(IsOpenBenchmarkingId("1706268-TR-CPUGOVERN32"));
  EXPECT_TRUE(IsOpenBenchmarkingId("2309255-NE-LENOVO13754"));
}

TEST(ResultId, RejectsProfilesSuitesAndMalformedIds) {
  EXPECT_FALSE(IsOpenBenchmarkingId("pts/fs-mark-1.0.0"));
  EXPECT_FALSE(IsOpenBenchmarkingId("native/fs-files"));
  EXPECT_FALSE(IsOpenBenchmarkingId("1110088-AR-1110066AR5"));     // 21 characters
  EXPECT_FALSE(IsOpenBenchmarkingId("111008X-AR-1110066AR56"));    // first part not numeric
  EXPECT_FALSE(IsOpenBenchmarkingId("1110088-A-11100066AR567"));   // second part too short
  EXPECT_FALSE(IsOpenBenchmarkingId("1110088-AR-11100-66AR56"));   // four parts
  EXPECT_FALSE(IsOpenBenchmarkingId("1110088-A_-1110066AR56"));
  EXPECT_FALSE(IsOpenBenchmarkingId(""));
}

}  // namespace ptsn::reproduce
