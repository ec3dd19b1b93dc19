#include "runner/workloads/units.h"

#include <gtest/gtest.h>

#include "runner/common/error.h"

namespace ptsn::workloads {
namespace {

TEST(Units, ParsesSizes) {
  EXPECT_EQ(ParseSize("4096", "--block-size"), 4096u);
  EXPECT_EQ(ParseSize("4k", "--block-size"), 4096u);
  EXPECT_EQ(ParseSize("1M", "--size"), 1u << 20);
  EXPECT_EQ(ParseSize("256m", "--size"), 256u << 20);
  EXPECT_EQ(ParseSize("2GiB", "--size"), 2ull << 30);
  EXPECT_THROW(ParseSize("", "--size"), Error);
  EXPECT_THROW(ParseSize("0", "--size"), Error);
  EXPECT_THROW(ParseSize("4q", "--size"), Error);
  EXPECT_THROW(ParseSize("-4k", "--size"), Error);
  try {
    ParseSize("lots", "--size");
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--size"), std::string::npos);
  }
}

TEST(Units, ParsesCountsAndSeconds) {
  EXPECT_EQ(ParseCount("8", "--threads"), 8);
  EXPECT_THROW(ParseCount("0", "--threads"), Error);
  EXPECT_THROW(ParseCount("2x", "--threads"), Error);
  EXPECT_DOUBLE_EQ(ParseSeconds("3", "--seconds"), 3.0);
  EXPECT_DOUBLE_EQ(ParseSeconds("1.5s", "--seconds"), 1.5);
  EXPECT_DOUBLE_EQ(ParseSeconds("500ms", "--seconds"), 0.5);
  EXPECT_THROW(ParseSeconds("-1", "--seconds"), Error);
}

TEST(Units, FormatsSizes) {
  EXPECT_EQ(FormatSize(4096), "4 KiB");
  EXPECT_EQ(FormatSize(1536), "1.5 KiB");
  EXPECT_EQ(FormatSize(1000), "1000 B");
  EXPECT_EQ(FormatSize(256ull << 20), "256 MiB");
}

}  // namespace
}  // namespace ptsn::workloads
