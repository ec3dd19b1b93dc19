#include "results-xml/export_common.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

namespace ptsn::results {
namespace {

// NumericValue's fast path for plain decimals must give strtod's double, bit for bit.
TEST(NumericValue, PlainDecimalsParseExactlyAsStrtod) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<long long> mantissa(-999999999999999LL, 999999999999999LL);
  std::uniform_int_distribution<int> decimals(0, 20), shorten(1, 15);
  for (int i = 0; i < 200000; ++i) {
    std::string digits = std::to_string(std::llabs(mantissa(rng))).substr(0, static_cast<size_t>(shorten(rng)));
    int d = decimals(rng);
    std::string s = digits;
    if (d > 0) {
      if (static_cast<int>(s.size()) <= d) s.insert(0, static_cast<size_t>(d - s.size() + 1), '0');
      s.insert(s.size() - static_cast<size_t>(d), ".");
    }
    if (i % 2) s.insert(0, "-");
    auto v = NumericValue(s);
    ASSERT_TRUE(v) << s;
    ASSERT_EQ(*v, std::strtod(s.c_str(), nullptr)) << s;
  }
  for (const char* s : {"0", "-0", "0.0", "007", ".5", "-.5", "1234567890123456789", "0.1", "123.456789012345678"})
    EXPECT_EQ(*NumericValue(s), std::strtod(s, nullptr)) << s;
  for (const char* s : {"", "-", ".", "1.2.3", "1e5x", "abc", "1-2"}) EXPECT_FALSE(NumericValue(s)) << s;
  EXPECT_EQ(*NumericValue("1e5"), 100000);
  EXPECT_EQ(*NumericValue(" 12 "), 12);
}

}  // namespace
}  // namespace ptsn::results
