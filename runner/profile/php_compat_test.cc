// Expected strings are what PHP 8.2 prints for the same expressions.
#include "runner/profile/php_compat.h"

#include <gtest/gtest.h>

namespace ptsn::php {
namespace {

TEST(PhpCompat, FloatToString) {
  EXPECT_EQ(FloatToString(2519366.0 / 1024), "2460.318359375");
  EXPECT_EQ(FloatToString(39.0 * 1000), "39000");
  EXPECT_EQ(FloatToString(0.1 + 0.2), "0.3");
  EXPECT_EQ(FloatToString(1e25), "1.0E+25");
  EXPECT_EQ(FloatToString(1.5e-5), "1.5E-5");
  EXPECT_EQ(FloatToString(0.0001), "0.0001");
  EXPECT_EQ(FloatToString(123456789012345678.0), "1.2345678901235E+17");
  EXPECT_EQ(FloatToString(-0.0), "-0");
}

TEST(PhpCompat, RoundAndNumberFormat) {
  EXPECT_EQ(Round(1413.838621, 0), 1414);
  EXPECT_EQ(FloatToString(Round(1.955, 2)), "1.96");  // pre-rounding: the naive way gives 1.95
  EXPECT_EQ(FloatToString(Round(5.045, 2)), "5.05");
  EXPECT_EQ(FloatToString(Round(-2.5, 0)), "-3");
  EXPECT_EQ(NumberFormat(1472.65, 1), "1472.7");
  EXPECT_EQ(NumberFormat(270, 2), "270.00");
  EXPECT_EQ(NumberFormat(-0.001, 2), "0.00");
  // PHP's printf stops at 318 decimals; number_format pads the rest with zeros.
  const std::string wide = NumberFormat(1.5, 400);
  EXPECT_EQ(wide.size(), 2u + 400u);
  EXPECT_EQ(wide.substr(0, 4), "1.50");
  EXPECT_EQ(wide.find_first_not_of('0', 3), std::string::npos);
}

TEST(PhpCompat, IsNumeric) {
  for (const char* yes : {"1", " 12", "12 ", "-1.5", ".5", "5.", "1e3", "+3", "1E-2"}) EXPECT_TRUE(IsNumericString(yes)) << yes;
  for (const char* no : {"", ".", "1,234", "12k", "abc", "1e", "0x1A", " ", "--1"}) EXPECT_FALSE(IsNumericString(no)) << no;
}

TEST(PhpCompat, ArithmeticKeepsIntsWherePhpDoes) {
  EXPECT_EQ(Mul(Value::Str("58"), Value::Int(1000)).kind, Value::Kind::kInt);
  EXPECT_EQ(Mul(Value::Str("58.8"), Value::Int(1000)).ToString(), "58800");
  EXPECT_EQ(Div(Value::Int(10), Value::Int(4)).ToString(), "2.5");
  EXPECT_EQ(Div(Value::Int(12), Value::Int(4)).kind, Value::Kind::kInt);
  EXPECT_EQ(Add(Value::Str("1.5"), Value::Str("2")).ToString(), "3.5");
}

TEST(PhpCompat, LooseComparison) {
  EXPECT_TRUE(LooseEquals(Value::Str("1.0"), Value::Str("1")));
  EXPECT_TRUE(LooseEquals(Value::Float(58800), Value::Int(58800)));
  EXPECT_FALSE(LooseEquals(Value::Str("abc"), Value::Int(0)));  // PHP 8
  EXPECT_FALSE(LooseEquals(Value::Str(""), Value::Int(0)));
  EXPECT_LT(Compare(Value::Str("9"), Value::Str("10")), 0);    // numeric strings compare as numbers
  EXPECT_GT(Compare(Value::Str("b"), Value::Str("a")), 0);
  EXPECT_FALSE(Value::Str("0").Truthy());
  EXPECT_FALSE(Value::Float(0).Truthy());
  EXPECT_TRUE(Value::Str("0.0").Truthy());
}

TEST(PhpCompat, Strings) {
  EXPECT_EQ(Trim("\n\t x \r\n"), "x");
  EXPECT_EQ(StrReplace("a-b-c", "-", "+"), "a+b+c");
  EXPECT_EQ(DecimalsOf("3.125"), 3);
  EXPECT_EQ(DecimalsOf("1.0E+25"), 5);  // strlen("0E+25"), as PHP counts
  EXPECT_EQ(DecimalsOf("42"), 0);
}

}  // namespace
}  // namespace ptsn::php
