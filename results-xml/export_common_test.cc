#include "results-xml/export_common.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>
#include <string>
#include <cstring>
#include <cmath>
#include <algorithm>
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

// ParseSeries reads plain decimals itself while it scans; every piece must come out as
// NumericValue(piece).value_or(0) would, bit for bit, with all_numeric and min/max to match.
TEST(ParseSeries, EachPieceAsNumericValue) {
  const std::vector<std::string> pieces = {
      "89.33", "-0", "0", "-0.0", "0.000", "5.", ".5", "-.5", "-", ".", "", "1e3", " 7", "7 ", "+3", "abc",
      "1.2.3", "0.0000000000000000000001", "12345678901234567890", "1234567890123456789", "999999999999999",
      "9999999999999999", "99999999999999999999.5", "000000000000000000000042.5", "-12.50", "0x1A", "1,"};
  std::mt19937_64 rng(11);
  for (int round = 0; round < 200; ++round) {
    std::vector<std::string> chosen;
    std::string joined;
    const size_t n = 1 + rng() % 8;
    for (size_t i = 0; i < n; ++i) {
      std::string piece = pieces[rng() % pieces.size()];
      if (piece.find(',') != std::string::npos) piece = "3";  // pieces cannot hold the separator
      chosen.push_back(piece);
      joined += (i ? "," : "") + piece;
    }
    const ParsedSeries p = ParseSeries(joined);
    ASSERT_EQ(p.values.size(), chosen.size()) << joined;
    bool all_numeric = true;
    double sum = 0;
    std::vector<double> expected;
    for (const auto& piece : chosen) {
      auto v = NumericValue(piece);
      all_numeric = all_numeric && v.has_value();
      expected.push_back(v.value_or(0));
      sum += expected.back();
    }
    for (size_t i = 0; i < chosen.size(); ++i) {
      EXPECT_EQ(std::memcmp(&p.values[i], &expected[i], sizeof(double)), 0) << joined << " piece " << i;
    }
    EXPECT_EQ(p.all_numeric, all_numeric) << joined;
    EXPECT_EQ(p.sum, sum) << joined;
    auto [lo, hi] = std::minmax_element(expected.begin(), expected.end());
    EXPECT_EQ(std::signbit(p.min), std::signbit(*lo)) << joined;
    EXPECT_EQ(std::signbit(p.max), std::signbit(*hi)) << joined;
    EXPECT_EQ(p.min, *lo);
    EXPECT_EQ(p.max, *hi);
  }
}

}  // namespace
}  // namespace ptsn::results
