// The fast paths of PhpNumberFormat must print what the printf path prints, digit for digit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "runner/common/php_number.h"

namespace ptsn {
namespace {

std::string ViaPrintf(double value, int decimals) {
  double d = PhpRound(value, decimals);
  char buf[400];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, d);
  std::string s = buf;
  if (d == 0 && s[0] == '-') s.erase(0, 1);
  return s;
}

TEST(PhpNumberFormat, FastPathPrintsWhatPrintfPrints) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> mantissa(-1, 1);
  std::uniform_int_distribution<int> exponent(-8, 16), places(0, 15);
  for (int i = 0; i < 200000; ++i) {
    const double v = mantissa(rng) * std::pow(10.0, exponent(rng));
    const int p = places(rng);
    ASSERT_EQ(PhpNumberFormat(v, p), ViaPrintf(v, p)) << v << " " << p;
  }
  for (double v : {0.0, -0.0, 0.5, -0.5, 1.005, 2.675, -1.005, 999999999999999.0, 1e15, -1e15, 0.0049, -0.0049,
                   123456789.125, 1e-9})
    for (int p = 0; p <= 15; ++p) EXPECT_EQ(PhpNumberFormat(v, p), ViaPrintf(v, p)) << v << " " << p;
  EXPECT_EQ(PhpNumberFormat(124.125, 2), "124.13");
  EXPECT_EQ(PhpNumberFormat(-0.001, 2), "0.00");
  EXPECT_EQ(PhpNumberFormat(7, 0), "7");
  EXPECT_EQ(PhpNumberFormat(0.05, 3), "0.050");
}

// PhpRound's magnitude (the only step that differs from PHP's code, which calls log10) is
// libm's floor(log10) at random magnitudes and at the doubles around every power of ten, where
// log10 may round onto the integer.
TEST(PhpRound, MagnitudeIsLibmsFloorOfLog10) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> log10_of(-25, 25);
  std::vector<double> values;
  for (int i = 0; i < 300000; ++i) values.push_back(std::pow(10.0, log10_of(rng)) * (i % 2 ? 1 : -1));
  for (int k = -24; k <= 24; ++k) {
    const double p = std::pow(10.0, k);
    const double exact = std::strtod(("1e" + std::to_string(k)).c_str(), nullptr);
    for (double base : {p, exact}) {
      double below = base, above = base;
      for (int step = 0; step < 2000; ++step) {
        values.push_back(below), values.push_back(above);
        below = std::nextafter(below, 0.0), above = std::nextafter(above, HUGE_VAL);
      }
      for (double f : {1 - 1e-12, 1 + 1e-12, 1 - 2e-12, 1 + 2e-12, 1 - 1e-13, 1 + 1e-13})
        for (double x = base * f, n = 0; n < 50; ++n, x = std::nextafter(x, HUGE_VAL)) values.push_back(x);
    }
  }
  for (double v : values) ASSERT_EQ(PhpFloorLog10(std::fabs(v)), std::floor(std::log10(std::fabs(v)))) << v;
}

// AppendPhpNumberFormat adds to what is there, on both its paths.
TEST(PhpNumberFormat, AppendKeepsWhatWasThere) {
  std::string s = "SE +/- ";
  AppendPhpNumberFormat(s, 0.754, 2);
  EXPECT_EQ(s, "SE +/- 0.75");
  AppendPhpNumberFormat(s, -1e300, 0);
  EXPECT_EQ(s, "SE +/- 0.75" + PhpNumberFormat(-1e300, 0));
}


// PhpFloatToString as it was, all through printf: kept as the reference for its fast path.
std::string FloatToStringViaPrintf(double value, int precision) {
  if (std::isnan(value)) return "NAN";
  if (std::isinf(value)) return value > 0 ? "INF" : "-INF";
  if (value == 0) return std::signbit(value) ? "-0" : "0";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*e", precision - 1, value);
  std::string s = buf;
  bool negative = s[0] == '-';
  if (negative) s.erase(0, 1);
  size_t e = s.find('e');
  int exponent = std::atoi(s.c_str() + e + 1);
  std::string digits = s.substr(0, 1) + s.substr(2, e - 2);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out = negative ? "-" : "";
  if (exponent < -4 || exponent >= precision) {
    out += digits[0];
    out += '.';
    out += digits.size() > 1 ? digits.substr(1) : "0";
    out += exponent < 0 ? "E-" : "E+";
    out += std::to_string(std::abs(exponent));
  } else if (exponent < 0) {
    out += "0." + std::string(-exponent - 1, '0') + digits;
  } else {
    size_t int_len = exponent + 1;
    if (digits.size() <= int_len) out += digits + std::string(int_len - digits.size(), '0');
    else out += digits.substr(0, int_len) + "." + digits.substr(int_len);
  }
  return out;
}

TEST(PhpFloatToString, FastPathPrintsWhatPrintfPrints) {
  std::mt19937_64 rng(8);
  std::vector<double> values = {0.0, -0.0, 0.1, 0.3, 1.005, 2.675, 1e14, 1e15, 99999999999999.0, 999999999999999.0,
                                1e-5, 1e-4, 0.0001, 123.456, -7.5, 5e-324, 1.7976931348623157e308, 1.0 / 3,
                                std::nan(""), HUGE_VAL, -HUGE_VAL};
  std::uniform_int_distribution<int> digits(1, 17), exponent(-30, 30);
  for (int i = 0; i < 100000; ++i) {
    const std::string mantissa = std::to_string(rng() % 100000000000000000ULL).substr(0, static_cast<size_t>(digits(rng)));
    values.push_back(std::strtod((mantissa + "e" + std::to_string(exponent(rng))).c_str(), nullptr) * (i % 2 ? 1 : -1));
  }
  std::uniform_real_distribution<double> log10_of(-10, 40);
  for (int i = 0; i < 100000; ++i) values.push_back(std::pow(10.0, log10_of(rng)));
  for (int i = 0; i < 50000; ++i)  // what CSV cells print: round(mean of samples, 2)
    values.push_back(PhpRound(static_cast<double>(rng() % 10000000) / static_cast<double>(1 + rng() % 997), 2));
  for (double v : values)
    for (int precision : {14, 2, 5, 15, 17}) ASSERT_EQ(PhpFloatToString(v, precision), FloatToStringViaPrintf(v, precision)) << v;
}

// ShortDecimal finds the digits of doubles written with few digits and only those.
TEST(ShortDecimal, ExactOrNothing) {
  unsigned long long m = 0;
  int k = 0;
  ASSERT_TRUE(ShortDecimal(49.41, 15, m, k));
  EXPECT_EQ(m, 494100000000000ULL);
  EXPECT_EQ(k, 13);
  ASSERT_TRUE(ShortDecimal(0.5, 1, m, k));
  EXPECT_EQ(m, 5ULL);
  EXPECT_FALSE(ShortDecimal(1.0 / 3, 15, m, k));
  EXPECT_FALSE(ShortDecimal(0.1 + 0.2, 15, m, k));  // 0.30000000000000004 needs 17 digits
  EXPECT_FALSE(ShortDecimal(123456.7, 6, m, k));    // needs 7
  EXPECT_FALSE(ShortDecimal(5e-324, 15, m, k));
  EXPECT_FALSE(ShortDecimal(HUGE_VAL, 15, m, k));
  EXPECT_FALSE(ShortDecimal(1.0, 16, m, k));  // more than 15 digits is never claimed
}

}  // namespace
}  // namespace ptsn
