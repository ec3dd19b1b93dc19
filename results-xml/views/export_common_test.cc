#include "results-xml/stats/statistics.h"
#include "results-xml/views/export_common.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <vector>
#include <string>
#include <cstring>
#include <cmath>
#include <algorithm>
#include <random>
#include <charconv>
#include <cstdint>

namespace ptsn::results {
namespace {

// NumericValue of a plain decimal is strtod's double, bit for bit.
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
      "9999999999999999", "99999999999999999999.5", "000000000000000000000042.5", "-12.50", "0x1A", "1,",
      // around the eight-byte reader's window: up to 7 digits with or without a point, and more
      "92.05", "-92.05", "7", "-7", "1234567", "12345678", "123456.7", "1.234567", "1234567.5", "12.3456", "0.5",
      "1.", "12.34.5", "1.2e3", "99.9x", "0012.5", "-0.05", "100000", "9999999", "1234.5678"};
  std::mt19937_64 rng(11);
  for (int round = 0; round < 3000; ++round) {
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


std::string JsonFloat(double v) {
  std::string out = "x";  // appends, never replaces
  AppendPhpJsonFloat(out, v);
  return out.substr(1);
}

TEST(AppendPhpJsonFloat, KnownValues) {
  EXPECT_EQ(JsonFloat(8), "8");
  EXPECT_EQ(JsonFloat(0.1), "0.1");
  EXPECT_EQ(JsonFloat(-0.0), "-0.0");
  EXPECT_EQ(JsonFloat(0.0), "0");
  EXPECT_EQ(JsonFloat(1e25), "1.0e+25");
  EXPECT_EQ(JsonFloat(1e16), "10000000000000000");
  EXPECT_EQ(JsonFloat(1e17), "1.0e+17");
  EXPECT_EQ(JsonFloat(0.0001), "0.0001");
  EXPECT_EQ(JsonFloat(0.00001), "1.0e-5");
  EXPECT_EQ(JsonFloat(-1.5e-300), "-1.5e-300");
  EXPECT_EQ(JsonFloat(49.406666666666666), "49.406666666666666");
  EXPECT_EQ(JsonFloat(std::nan("")), "0");
  EXPECT_EQ(JsonFloat(-HUGE_VAL), "0");
}

// Random bit patterns print the shortest digits that read back as the same double (as
// serialize_precision = -1 does), in fixed notation exactly when the exponent is -4..16.
TEST(AppendPhpJsonFloat, ShortestDigitsThatReadBack) {
  std::mt19937_64 rng(2026);
  for (int i = 0; i < 200000; ++i) {
    uint64_t bits = rng();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    if (!std::isfinite(v) || v == 0) continue;
    const std::string text = JsonFloat(v);
    ASSERT_EQ(std::strtod(text.c_str(), nullptr), v) << text;
    const int exponent = static_cast<int>(std::floor(std::log10(std::fabs(v))));
    if (exponent > -4 && exponent < 16) {
      ASSERT_EQ(text.find('e'), std::string::npos) << text;
    }
    if (exponent < -5 || exponent > 17) {
      ASSERT_NE(text.find('e'), std::string::npos) << text;
    }
    std::string digits;  // the significant ones
    for (char c : text.substr(0, text.find('e')))
      if (c >= '0' && c <= '9' && !(digits.empty() && c == '0')) digits += c;
    while (!digits.empty() && digits.back() == '0') digits.pop_back();
    if (digits.size() > 1) {  // one significant digit fewer never reads back
      char shorter[64];
      std::snprintf(shorter, sizeof shorter, "%.*e", static_cast<int>(digits.size()) - 2, v);
      ASSERT_NE(std::strtod(shorter, nullptr), v) << text << " vs " << shorter;
    }
  }
}

// EntryNumbers as it was (a series split into views, trials as strings through PhpIsNumeric and
// strtod), kept as the reference.
std::vector<double> ReferenceEntryNumbers(const Entry& e) {
  std::vector<double> out;
  if (IsSeries(e)) {
    for (auto part : SplitViews(e.value, ','))
      if (auto n = NumericValue(part)) out.push_back(*n);
    return out;
  }
  for (const std::string& t : EntryTrials(e))
    if (PhpIsNumeric(t)) out.push_back(std::strtod(t.c_str(), nullptr));
  return out;
}

TEST(EntryNumbers, SameAsReference) {
  const std::vector<std::string> pieces = {"89.33", "-0", "0", "-0.0", "5.", ".5", "-", "", "1e3", " 7", "7 ", "+3",
                                           "abc", "1.2.3", "1e999", "-1e999", "1e-320", "12345678901234567890",
                                           "0x1A", "inf", "nan", "\t4\n", "1e", "3"};
  std::mt19937_64 rng(3);
  for (int round = 0; round < 5000; ++round) {
    Entry e;
    const char sep = rng() % 2 ? ',' : ':';
    std::string joined;
    for (size_t i = 0, n = 1 + rng() % 6; i < n; ++i) joined += (i ? std::string(1, sep) : "") + pieces[rng() % pieces.size()];
    switch (rng() % 3) {
      case 0: e.value = joined; break;                       // a series (when it has a ',') or one value
      case 1: e.value = "5", e.raw_string = joined; break;   // trials
      default: e.value = joined, e.raw_string = ""; break;
    }
    const std::vector<double> expected = ReferenceEntryNumbers(e);
    const std::vector<double> got = EntryNumbers(e);
    ASSERT_EQ(got.size(), expected.size()) << e.value << " / " << e.raw_string.value_or("-");
    for (size_t i = 0; i < expected.size(); ++i) {
      ASSERT_EQ(std::memcmp(&got[i], &expected[i], sizeof(double)), 0) << e.value << " piece " << i;
    }
  }
}


// SetPrecision of a numeric text (one already written with the asked precision included) prints
// what number_format of its value prints.
TEST(SetPrecision, EqualsNumberFormat) {
  std::mt19937_64 rng(17);
  std::vector<std::pair<std::string, int>> cases = {{"0", 0}, {"-0", 0}, {"0.00", 2}, {"-0.00", 2}, {"-0.001", 3},
                                                    {"1.005", 3}, {"2.675", 3}, {"007", 0}, {"12.5", 2}, {"1e3", 0},
                                                    {"999999999999999", 0}, {"99999999999999.9", 1}, {"0.5", 0}};
  for (int i = 0; i < 300000; ++i) {
    const int digits = 1 + static_cast<int>(rng() % 16), decimals = static_cast<int>(rng() % 16);
    std::string s = std::to_string(rng() % 10000000000000000ULL).substr(0, static_cast<size_t>(digits));
    if (decimals > 0) {
      if (static_cast<int>(s.size()) <= decimals) s.insert(0, static_cast<size_t>(decimals - static_cast<int>(s.size()) + 1), '0');
      s.insert(s.size() - static_cast<size_t>(decimals), ".");
    }
    if (rng() % 3 == 0) s.insert(0, "-");
    cases.emplace_back(s, rng() % 4 ? decimals : static_cast<int>(rng() % 16));
  }
  for (const auto& [text, decimals] : cases) {
    const auto n = NumericValue(text);
    ASSERT_EQ(SetPrecision(text, decimals), n ? PhpNumberFormat(*n, decimals) : text) << text << " " << decimals;
  }
}

}  // namespace
}  // namespace ptsn::results
