// The fast paths of PhpNumberFormat must print what the printf path prints, digit for digit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

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

}  // namespace
}  // namespace ptsn
