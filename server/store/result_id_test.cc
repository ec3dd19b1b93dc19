#include "server/store/result_id.h"

#include <gtest/gtest.h>

#include <set>

namespace ptsn::server {
namespace {

constexpr std::time_t k2011_10_08_0900 = 1318064400;  // 2011-10-08 09:00:00 UTC

TEST(ResultId, HasOpenBenchmarkingShape) {
  std::string id = FormatResultId(k2011_10_08_0900, 32, "ar", "CPU Governor Comparison");
  EXPECT_EQ(id, "1110083-AR-CPUGOVERN32");
  EXPECT_EQ(id.size(), 22u);
  EXPECT_TRUE(IsResultIdCompliant(id));
  EXPECT_EQ(DayKey(k2011_10_08_0900), "111008");
}

TEST(ResultId, PublishedIdsAreCompliant) {
  for (const char* id : {"1110088-AR-1110066AR56", "1706268-TR-CPUGOVERN32", "2309255-NE-LENOVO13754"})
    EXPECT_TRUE(IsResultIdCompliant(id)) << id;
  for (const char* bad : {"1110088-AR-1110066AR5", "111008X-AR-1110066AR56", "1110088-A-11100660AR56",
                          "1110088-AR-11100-6AR56", "", "'; DROP TABLE results;--"})
    EXPECT_FALSE(IsResultIdCompliant(bad)) << bad;
}

TEST(ResultId, TitleWithoutLettersAndShortUserArePadded) {
  std::string id = FormatResultId(k2011_10_08_0900, 5, "", "12345 !!");
  EXPECT_EQ(id, "1110083-XX-00000000005");
  EXPECT_TRUE(IsResultIdCompliant(id));
}

TEST(ResultId, DistinctSequencesNeverCollideWhateverTheTitle) {
  std::set<std::string> seen;
  const char* titles[] = {"A", "AB", "ABCDEFGHIJKLMNOP", "", "A1B2", "Z"};
  for (int64_t seq = 1; seq <= 3000; ++seq) {
    std::string id = FormatResultId(k2011_10_08_0900, seq, "al", titles[seq % 6]);
    ASSERT_EQ(id.size(), 22u) << id;
    ASSERT_TRUE(IsResultIdCompliant(id)) << id;
    ASSERT_TRUE(seen.insert(id).second) << "duplicate " << id;
  }
  // Very large sequence numbers squeeze the stem out but still fit.
  EXPECT_EQ(FormatResultId(k2011_10_08_0900, 12345678901, "al", "Title"), "1110083-AL-12345678901");
  EXPECT_THROW(FormatResultId(k2011_10_08_0900, 123456789012, "al", "T"), std::invalid_argument);
  EXPECT_THROW(FormatResultId(k2011_10_08_0900, 0, "al", "T"), std::invalid_argument);
}

}  // namespace
}  // namespace ptsn::server
