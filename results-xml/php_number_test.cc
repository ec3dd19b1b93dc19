#include "results-xml/php_number.h"

#include <gtest/gtest.h>

namespace ptsn::results::php {
namespace {

TEST(PhpNumber, IsNumericFollowsPhp8) {
  for (const char* yes : {"1", "1.5", ".5", "1.", "-3", "+3", " 12", "12 ", "1e3", "1.5E-2"})
    EXPECT_TRUE(IsNumeric(yes)) << yes;
  for (const char* no : {"", ".", "abc", "1,2", "0x1A", "1e", "- 1", "PASS", "12abc"})
    EXPECT_FALSE(IsNumeric(no)) << no;
}

TEST(PhpNumber, RoundPreRoundsLikePhp) {
  // php -r 'echo round(60.49999999999999);' → 61 (pre-rounding to 15 significant digits)
  EXPECT_EQ(Round(60.49999999999999, 0), 61);
  EXPECT_EQ(Round(60.4999, 0), 60);
  EXPECT_EQ(Round(-2.5, 0), -3);
  EXPECT_DOUBLE_EQ(Round(1.005, 2), 1.01);
  EXPECT_DOUBLE_EQ(Round(124.126666, 2), 124.13);
}

TEST(PhpNumber, NumberFormat) {
  EXPECT_EQ(NumberFormat(124.126666, 2), "124.13");
  EXPECT_EQ(NumberFormat(1.005, 2), "1.01");
  EXPECT_EQ(NumberFormat(99.5, 0), "100");
  EXPECT_EQ(NumberFormat(-0.001, 2), "0.00");
  EXPECT_EQ(NumberFormat(3, 2), "3.00");
  EXPECT_EQ(SetPrecision("PASS", 2), "PASS");
  EXPECT_EQ(SetPrecision("12.345", 1), "12.3");
}

TEST(PhpNumber, FloatToStringUsesPrecision14) {
  EXPECT_EQ(FloatToString(93.3), "93.3");
  EXPECT_EQ(FloatToString(100), "100");
  EXPECT_EQ(FloatToString(124.126666666666), "124.12666666667");
  EXPECT_EQ(FloatToString(1e25), "1.0E+25");
  EXPECT_EQ(FloatToString(1e-5), "1.0E-5");
  EXPECT_EQ(FloatToString(0.1 + 0.2), "0.3");
}

TEST(PhpNumber, PrecisionCountsCharactersAfterLastDot) {
  EXPECT_EQ(Precision("124.13"), 2);
  EXPECT_EQ(Precision("694"), 0);
  EXPECT_EQ(Precision("1.0,2.000"), 3);
}

}  // namespace
}  // namespace ptsn::results::php
