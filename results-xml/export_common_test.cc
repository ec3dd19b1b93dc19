#include "results-xml/export_common.h"
#include "results-xml/statistics.h"

#include <gtest/gtest.h>

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

    // The same pieces as trials (':'), with each number's text: the numeric pieces, in order.
    if (joined.empty()) continue;  // (no RawString: the entry's Value stands alone)
    Entry e{"A", "1", joined, {}};
    std::replace(e.raw_string->begin(), e.raw_string->end(), ',', ':');
    std::vector<double> numbers;
    std::vector<std::string_view> texts;
    EntryNumbersInto(e, numbers, &texts);
    std::vector<double> numeric;
    std::vector<std::string> numeric_texts;
    for (const auto& piece : chosen)
      if (auto v = NumericValue(piece)) numeric.push_back(*v), numeric_texts.push_back(piece);
    ASSERT_EQ(numbers.size(), numeric.size()) << joined;
    ASSERT_EQ(texts.size(), numeric.size()) << joined;
    for (size_t i = 0; i < numeric.size(); ++i) {
      EXPECT_EQ(std::memcmp(&numbers[i], &numeric[i], sizeof(double)), 0) << joined << " number " << i;
      EXPECT_EQ(texts[i], numeric_texts[i]) << joined;
    }
  }
}


// The formatter AppendPhpJsonFloat replaced (session 4's PhpJsonWriter::AppendPhpFloat), kept
// as the reference: it builds the layout from to_chars' scientific text with std::string pieces.
std::string ReferencePhpJsonFloat(double v) {
  std::string out;
  if (!std::isfinite(v)) return "0";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<size_t>(res.ptr - buf));
  const size_t e = sci.find('e');
  std::string digits;
  bool negative = false;
  for (char c : sci.substr(0, e)) {
    if (c == '-') negative = true;
    else if (c != '.') digits += c;
  }
  int exponent = 0;
  std::from_chars(sci.data() + e + 1 + (sci[e + 1] == '+'), sci.data() + sci.size(), exponent);
  if (negative) out += '-';
  if (exponent < -4 || exponent > 16) {
    out += digits[0];
    out += '.';
    out += digits.size() > 1 ? digits.substr(1) : "0";
    out += exponent < 0 ? "e-" : "e+";
    out += std::to_string(std::abs(exponent));
  } else if (exponent < 0) {
    out += "0.";
    out.append(static_cast<size_t>(-exponent - 1), '0');
    out += digits;
  } else {
    const auto int_digits = static_cast<size_t>(exponent + 1);
    if (digits.size() <= int_digits) {
      out += digits;
      out.append(int_digits - digits.size(), '0');
    } else {
      out.append(digits, 0, int_digits);
      out += '.';
      out.append(digits, int_digits);
    }
  }
  return out;
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

// Bit patterns of every kind (random, decimals of 1..17 digits at every exponent, means of
// short decimals, subnormals, the fixed/exponent borders) print as the reference printed them.
TEST(AppendPhpJsonFloat, SameAsReferenceFormatter) {
  std::mt19937_64 rng(2026);
  std::vector<double> values = {0.0, -0.0, 1, -1, 1e16, 9.999999999999998e15, 1e17, 99999999999999990.0, 1e-4, 1e-5,
                                9.9999999999999e-5, 5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
                                -1.7976931348623157e308, 0.1 + 0.2, 1.0 / 3, 2.0 / 3, 123456789012345680.0};
  for (int i = 0; i < 100000; ++i) {
    uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    if (std::isfinite(d)) values.push_back(d);
  }
  std::uniform_int_distribution<int> digits(1, 17), exponent(-30, 30);
  for (int i = 0; i < 100000; ++i) {
    const std::string mantissa = std::to_string(rng() % 100000000000000000ULL).substr(0, static_cast<size_t>(digits(rng)));
    const std::string text = (i % 3 ? "" : "-") + mantissa + "e" + std::to_string(exponent(rng));
    values.push_back(std::strtod(text.c_str(), nullptr));
  }
  for (int i = 0; i < 50000; ++i) {  // means and deviations of three short trials
    const double a = static_cast<double>(rng() % 100000) / 100, b = static_cast<double>(rng() % 100000) / 100,
                 c = static_cast<double>(rng() % 100000) / 100;
    values.push_back((a + b + c) / 3);
    values.push_back(std::sqrt(((a - b) * (a - b) + (b - c) * (b - c)) / 2));
  }
  // Around the 15-digit fast path's borders: 15/16/17 digits, powers of ten, every exponent
  // it takes and a few beyond, and the neighbouring doubles.
  for (const char* mantissa : {"1", "9", "999999999999999", "9999999999999995", "99999999999999999", "100000000000000",
                               "1000000000000001", "123456789012345", "1234567890123456", "12345678901234567", "5",
                               "4999999999999999", "25", "7205759403792794"}) {
    for (int e = -45; e <= 45; ++e) {
      const double d = std::strtod((std::string(mantissa) + "e" + std::to_string(e)).c_str(), nullptr);
      for (double x : {d, std::nextafter(d, 0.0), std::nextafter(d, HUGE_VAL), -d}) values.push_back(x);
    }
  }
  // Log-uniform over the Schubfach path's range (about 9e-22 to 7e16) and beyond, with powers
  // of two (their rounding interval is lopsided) and their neighbours.
  std::uniform_real_distribution<double> log10_of(-24, 20);
  for (int i = 0; i < 300000; ++i) values.push_back(std::pow(10.0, log10_of(rng)));
  for (int e = -80; e <= 60; ++e) {
    const double p = std::ldexp(1.0, e);
    for (double x : {p, std::nextafter(p, 0.0), std::nextafter(p, HUGE_VAL), 3 * p, std::nextafter(3 * p, 0.0)})
      values.push_back(x);
  }
  for (double v : values) ASSERT_EQ(JsonFloat(v), ReferencePhpJsonFloat(v)) << std::hexfloat << v;
}

// A million doubles of 15 to 17 significant digits (random mantissas at exponents around the
// statistics' range, their neighbouring doubles, and the means and deviations statistics
// produce), where Schubfach's choices between one digit fewer, s and s + 1 all occur: each
// prints as the reference does.
TEST(AppendPhpJsonFloat, SixteenAndSeventeenDigitDoublesSameAsReference) {
  std::mt19937_64 rng(17);
  std::uniform_int_distribution<int> exponent(-12, 20);
  std::string out, expected;
  for (int i = 0; i < 1000000; ++i) {
    double v;
    if (i % 4 == 3) {  // a 15-digit decimal's double or a neighbour: the multiple-of-ten cases
      const unsigned long long mantissa = 100000000000000ULL + rng() % 900000000000000ULL;
      v = std::strtod((std::to_string(mantissa) + "e" + std::to_string(exponent(rng) - 14)).c_str(), nullptr);
      if (i % 3) v = std::nextafter(v, i % 3 == 1 ? 0.0 : HUGE_VAL);
    } else if (i % 2) {
      const unsigned long long mantissa = 10000000000000000ULL + rng() % 90000000000000000ULL;
      v = std::strtod((std::to_string(mantissa) + "e" + std::to_string(exponent(rng) - 16)).c_str(), nullptr);
    } else {
      const double a = static_cast<double>(rng() % 10000000) / 1000, b = static_cast<double>(rng() % 10000000) / 1000;
      v = i % 4 ? (a + b + 1) / 3 : std::sqrt(a * a + b * b) / 7;
    }
    if (i % 5 == 0) v = -v;
    out.clear();
    AppendPhpJsonFloat(out, v);
    ASSERT_EQ(out, ReferencePhpJsonFloat(v)) << std::hexfloat << v;
  }
}

// The text fast path prints what formatting the text's double prints.
TEST(AppendPlainDecimalAsPhpJson, SameAsFormattingTheDouble) {
  std::mt19937_64 rng(5);
  std::vector<std::string> texts = {"0", "-0", "0.000", "-0.0", "007.50", "49.41", "-12.50", "0.0001", "0.00001",
                                    "12345678901234567", "1234567890123456", "123456789012345", "99999999999999999",
                                    "10000000000000000", "100000000000000000", ".5", "-.5", "5.",
                                    "0.0001", "0.00001", "-0.0001", "-0.5", "0.5", "00", "00.5", "1.10", "-12",
                                    "999999999999999", "1000000000000000", "0.000123456789012345", "0.0001234567890123456",
                                    "12345678901234.5", "1234567890123.45", "-0", "0"};
  for (int i = 0; i < 100000; ++i) {
    std::string s = std::to_string(rng() % 10000000000000000ULL).substr(0, 1 + rng() % 17);
    const size_t point = rng() % (s.size() + 3);
    if (point < s.size()) s.insert(point, ".");
    if (rng() % 4 == 0) s.insert(0, std::string(rng() % 4, '0'));
    if (rng() % 2) s.insert(0, "-");
    texts.push_back(s);
  }
  for (const auto& t : texts) {
    std::string fast;
    if (!AppendPlainDecimalAsPhpJson(fast, t)) {
      EXPECT_TRUE(fast.empty()) << t;
      continue;
    }
    auto v = NumericValue(t);
    ASSERT_TRUE(v) << t;
    ASSERT_EQ(fast, JsonFloat(*v)) << t;
  }
  std::string out;
  for (const char* t : {"1e5", "+5", " 5", "5 ", "abc", "", "-", ".", "1.2.3", "1234567890123456"})
    EXPECT_FALSE(AppendPlainDecimalAsPhpJson(out, t)) << t;
  EXPECT_TRUE(out.empty());
}


// EntryNumbers as it was (a series split into views, trials as strings through PhpIsNumeric and
// strtod), kept as the reference for EntryNumbersInto.
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
  std::vector<double> reused;
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
    EntryNumbersInto(e, reused);
    const std::vector<double> got = EntryNumbers(e);
    ASSERT_EQ(got.size(), expected.size()) << e.value << " / " << e.raw_string.value_or("-");
    ASSERT_EQ(reused.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      ASSERT_EQ(std::memcmp(&got[i], &expected[i], sizeof(double)), 0) << e.value << " piece " << i;
      ASSERT_EQ(std::memcmp(&reused[i], &expected[i], sizeof(double)), 0);
    }
  }
}


// SetPrecision's shortcut (a value already written with the asked precision is returned as it
// is) prints what number_format of its value prints.
TEST(SetPrecision, ShortcutEqualsNumberFormat) {
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
