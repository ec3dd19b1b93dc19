#include "results-xml/export_common.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "results-xml/statistics.h"
#include "runner/common/strings.h"

namespace ptsn::results {

namespace {
bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }

// mantissa / 10^decimals, negated when asked, for a mantissa below 2^53 and decimals <= 22: both
// exact doubles, so the one IEEE division rounds as strtod does (Clinger's fast path).
double ExactDecimal(uint64_t mantissa, int decimals, bool negative) {
  static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const double v = static_cast<double>(mantissa) / kPow10[decimals];
  return negative ? -v : v;
}

// "-123.45" with at most 15 significant digits, as exactly as strtod: the digits form an integer
// below 2^53 and 10^k (k <= 22) is exact, so one IEEE division rounds correctly (Clinger's fast path).
std::optional<double> PlainDecimal(std::string_view s) {
  size_t i = 0;
  const bool negative = !s.empty() && s[0] == '-';
  i += negative;
  uint64_t mantissa = 0;
  int digits = 0, decimals = 0;
  bool dot = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (IsAsciiDigit(c)) {
      mantissa = mantissa * 10 + static_cast<uint64_t>(c - '0');
      digits += mantissa != 0;
      decimals += dot;
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      return std::nullopt;
    }
  }
  if (digits > 15 || decimals > 22 || !IsAsciiDigit(s.back())) return std::nullopt;
  return ExactDecimal(mantissa, decimals, negative);
}

}  // namespace

std::optional<double> NumericValue(std::string_view s) {
  // Fast paths for the plain decimals result files are made of; everything else (leading '+',
  // surrounding whitespace, exponents, non-numbers) takes PHP's rules from statistics.h.
  if (!s.empty() && (IsAsciiDigit(s[0]) || s[0] == '-' || s[0] == '.')) {
    if (auto v = PlainDecimal(s)) return v;
    double v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && end == s.data() + s.size() && IsAsciiDigit(s.back())) return v;
  }
  if (!PhpIsNumeric(s)) return std::nullopt;
  return PhpToNumber(s);
}

namespace {
// ParseSeriesInto() with the pieces separated by `sep` (',' samples, ':' trials); without
// `kSummary` only values and all_numeric are filled (min, max, sum stay 0).
// `texts` (when not null) gets each piece's text beside its value.
// kTerminated: the byte after s is there to read and is none of '0'..'9', '.' and `sep` (the
// NUL after a std::string's text), so the scans need not check for the end at every byte.
template <bool kSummary, bool kTerminated = false>
void ParsePartsInto(std::string_view s, char sep, ParsedSeries& p, std::vector<std::string_view>* texts = nullptr);
}  // namespace

std::vector<double> EntryNumbers(const Entry& e) {
  std::vector<double> out;
  EntryNumbersInto(e, out);
  return out;
}

void EntryNumbersInto(const Entry& e, std::vector<double>& out) { EntryNumbersInto(e, out, nullptr); }

void EntryNumbersInto(const Entry& e, std::vector<double>& out, std::vector<std::string_view>* texts) {
  out.clear();
  if (texts) texts->clear();
  auto add = [&](std::string_view piece) {
    if (auto n = NumericValue(piece)) {
      out.push_back(*n);
      if (texts) texts->push_back(piece);
    }
  };
  // ParsePartsInto reads each piece as NumericValue does; only a list with non-numeric pieces
  // (which it counts as 0 where these are left out) is split again.
  auto parse = [&](const std::string& list, char sep) {  // (a std::string: NUL-terminated)
    ParsedSeries p;
    p.values.swap(out);
    ParsePartsInto<false, true>(list, sep, p, texts);
    out.swap(p.values);
    if (!p.all_numeric) {
      out.clear();
      if (texts) texts->clear();
      ForEachPart(list, sep, add);
    }
  };
  if (IsSeries(e)) return parse(e.value, ',');
  // NumericTrials() without a string per trial: NumericValue(t) is PhpIsNumeric(t) ? PhpToNumber(t).
  if (!e.raw_string || e.raw_string->empty()) return add(e.value);
  parse(*e.raw_string, ':');
}

ParsedSeries ParseSeries(std::string_view s) {
  ParsedSeries p;
  ParseSeriesInto(s, p);
  return p;
}

void ParseSeriesInto(std::string_view s, ParsedSeries& p) { ParsePartsInto<true>(s, ',', p); }

namespace {
template <bool kSummary, bool kTerminated>
void ParsePartsInto(std::string_view s, char sep, ParsedSeries& p, std::vector<std::string_view>* texts) {
  p.values.clear();
  p.all_numeric = true;
  p.min = p.max = p.sum = 0;
  p.values.reserve(s.size() / 2 + 1);  // a sample takes at least two bytes with its separator
  // One pass: each piece up to the next `sep` is read as a plain decimal while it is scanned
  // ("-12.50": the shape NumericValue reads exactly, at most 19 digits so the integer cannot
  // overflow, at most 15 of them significant); anything else goes through NumericValue itself.
  const char* c = s.data();
  const char* const end = c + s.size();
  auto before_end = [end](const char* at) { return kTerminated || at < end; };
  for (;;) {
    const char* const start = c;
    const bool negative = before_end(c) && *c == '-';
    c += negative;
    const char* const digits_begin = c;
    uint64_t mantissa = 0;
    for (unsigned d; before_end(c) && (d = static_cast<unsigned char>(*c) - unsigned{'0'}) <= 9; ++c)
      mantissa = mantissa * 10 + d;
    const char* const int_end = c;
    int decimals = 0;
    if (before_end(c) && *c == '.') {
      const char* const frac_begin = ++c;
      for (unsigned d; before_end(c) && (d = static_cast<unsigned char>(*c) - unsigned{'0'}) <= 9; ++c)
        mantissa = mantissa * 10 + d;
      decimals = static_cast<int>(c - frac_begin);
    }
    const long digits = (int_end - digits_begin) + decimals;
    double v;
    if (c < end && *c != sep) {  // more than a plain decimal: find the piece's end
      const void* comma = std::memchr(c, sep, static_cast<size_t>(end - c));
      c = comma ? static_cast<const char*>(comma) : end;
      auto n = NumericValue(std::string_view(start, static_cast<size_t>(c - start)));
      if (!n) p.all_numeric = false;
      v = n.value_or(0);
    } else if (digits > 0 && digits <= 19 && mantissa < 1000000000000000ULL && IsAsciiDigit(c[-1])) {
      v = ExactDecimal(mantissa, decimals, negative);
    } else {
      auto n = NumericValue(std::string_view(start, static_cast<size_t>(c - start)));
      if (!n) p.all_numeric = false;
      v = n.value_or(0);
    }
    // As std::minmax_element: the first smallest, the last largest (0.0 vs -0.0).
    if constexpr (kSummary) {
      if (p.values.empty()) p.min = p.max = v;
      p.min = v < p.min ? v : p.min;
      p.max = v >= p.max ? v : p.max;
      p.sum += v;
    }
    p.values.push_back(v);
    if (texts) texts->emplace_back(start, static_cast<size_t>(c - start));
    if (c == end) break;
    ++c;  // the separator
  }
}
}  // namespace

namespace {

__extension__ typedef unsigned __int128 Uint128;

// 10^0 .. 10^19, every power of ten a uint64_t holds.
constexpr uint64_t kPow10[] = {1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
                               100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL,
                               1000000000000ULL, 10000000000000ULL, 100000000000000ULL,
                               1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
                               1000000000000000000ULL, 10000000000000000000ULL};

// The shortest round-trip digits by Schubfach (R. Giulietti, "The Schubfach way to render
// doubles", 2021): a = c * 2^q has the rounding interval [c - 1/2, c + 1/2] * 2^q (narrower
// below a power of two; closed when c is even, as round-half-even parsing reads it). Scaled by
// 10^-k so that it is a few units wide, the candidates are s = floor(a * 10^-k) and s + 1, and
// first the multiples of ten around them: the shortest decimal in the interval, the one
// nearest to a when two are (ties to even), as std::to_chars' shortest form prints it. The
// scaling uses 10^-k to 126 bits, rounded up, and "round to odd" products (section 9 of the
// paper): exact enough to decide every comparison. Only for 10^-k = 10^0 .. 10^37, whose
// 126-bit forms are exact integers shifted (a in about [9e-22, 7e16]); false elsewhere.
namespace schubfach {

// floor(e * log10(2)), floor(e * log10(2) + log10(3/4)), floor(e * log2(10)) for the
// exponents here (the paper's fixed-point forms, checked against exact values below).
constexpr int FloorLog10Pow2(int e) { return static_cast<int>((e * 661971961083LL) >> 41); }
constexpr int FloorLog10ThreeQuartersPow2(int e) { return static_cast<int>((e * 661971961083LL - 274743187321LL) >> 41); }
constexpr int FloorLog2Pow10(int e) { return static_cast<int>((e * 913124641741LL) >> 38); }

constexpr int kMaxPower = 37;  // 10^37 < 2^123: every table entry is 10^m exactly, shifted
struct Scale {
  uint64_t high, low;  // g = 10^m * 2^(125 - floor(log2 10^m)) + 1 = high * 2^63 + low (low < 2^63)
};
constexpr std::array<Scale, kMaxPower + 1> kScales = [] {
  std::array<Scale, kMaxPower + 1> t{};
  Uint128 power = 1;
  for (int m = 0; m <= kMaxPower; ++m, power *= 10) {
    int bits = 0;
    while ((power >> bits) != 0) ++bits;  // floor(log2 10^m) = bits - 1
    const Uint128 g = (power << (126 - bits)) + 1;
    t[static_cast<size_t>(m)] = {static_cast<uint64_t>(g >> 63), static_cast<uint64_t>(g) & ((uint64_t{1} << 63) - 1)};
  }
  return t;
}();
constexpr bool LogsAgree() {  // the fixed-point logarithm is exact over the table
  Uint128 power = 1;
  for (int m = 0; m <= kMaxPower; ++m, power *= 10) {
    int bits = 0;
    while ((power >> bits) != 0) ++bits;
    if (FloorLog2Pow10(m) != bits - 1) return false;
  }
  return true;
}
static_assert(LogsAgree());

// g * cp / 2^127 rounded to odd: the floor, with its lowest bit set when anything was cut off.
inline uint64_t RoundToOdd(const Scale& g, uint64_t cp) {
  const auto x1 = static_cast<uint64_t>((Uint128{g.low} * cp) >> 64);
  const Uint128 y = Uint128{g.high} * cp;
  const auto y0 = static_cast<uint64_t>(y), y1 = static_cast<uint64_t>(y >> 64);
  const uint64_t z = (y0 >> 1) + x1;
  const uint64_t vbp = y1 + (z >> 63);
  constexpr uint64_t kMask63 = (uint64_t{1} << 63) - 1;
  return vbp | (((z & kMask63) + kMask63) >> 63);
}

// For a finite normal a > 0: the shortest digits d (< 10^17, possibly with trailing zeros)
// and e with a ~ d * 10^e, or false outside the table's range.
inline bool ShortestDigits(double a, uint64_t& d, int& e) {
  uint64_t bits;
  std::memcpy(&bits, &a, sizeof bits);
  const int biased = static_cast<int>(bits >> 52);  // a > 0: no sign bit
  if (biased == 0 || biased == 0x7FF) return false;
  constexpr uint64_t kHidden = uint64_t{1} << 52;
  const uint64_t c = kHidden | (bits & (kHidden - 1));
  const int q = biased - 1075;  // a = c * 2^q
  if (q < 0 && q > -53) {  // an integer below 2^53 is its own shortest form
    const uint64_t f = c >> -q;
    if (f << -q == c) {
      d = f, e = 0;
      return true;
    }
  }
  const uint64_t cb = c << 2, cbr = cb + 2;
  uint64_t cbl;
  int k;
  if (c != kHidden) {
    cbl = cb - 2;
    k = FloorLog10Pow2(q);
  } else {  // below a power of two the interval is a quarter as wide as above it
    cbl = cb - 1;
    k = FloorLog10ThreeQuartersPow2(q);
  }
  if (k > 0 || -k > kMaxPower) return false;
  const int h = q + FloorLog2Pow10(-k) + 2;  // 1..4
  const Scale& g = kScales[static_cast<size_t>(-k)];
  const uint64_t vb = RoundToOdd(g, cb << h), vbl = RoundToOdd(g, cbl << h), vbr = RoundToOdd(g, cbr << h);
  const uint64_t out = c & 1;  // an even c's interval includes its ends
  const uint64_t s = vb >> 2;
  if (s >= 100) {  // one digit fewer: the multiples of ten around a
    const uint64_t s10 = s / 10, sp10 = s10 * 10, tp10 = sp10 + 10;
    const bool upin = vbl + out <= sp10 << 2, wpin = (tp10 << 2) + out <= vbr;
    if (upin != wpin) {
      d = upin ? s10 : s10 + 1, e = k + 1;  // (without the zero)
      return true;
    }
  }
  const uint64_t t = s + 1;
  const bool uin = vbl + out <= s << 2, win = (t << 2) + out <= vbr;
  if (uin != win) {
    d = uin ? s : t, e = k;
    return true;
  }
  const auto cmp = static_cast<int64_t>(vb - ((s + t) << 1));  // both in: the nearer, ties to even
  d = cmp < 0 || (cmp == 0 && (s & 1) == 0) ? s : t, e = k;
  return true;
}

}  // namespace schubfach

// Eight decimal digits of x < 10^8, zero-padded, at out[0..8): 32-bit halves, then pairs.
void WriteEightDigits(uint32_t x, char* out) {
  static constexpr auto kPairs = [] {
    std::array<char, 200> t{};
    for (int i = 0; i < 100; ++i) t[2 * i] = static_cast<char>('0' + i / 10), t[2 * i + 1] = static_cast<char>('0' + i % 10);
    return t;
  }();
  const uint32_t hi = x / 10000, lo = x % 10000;
  std::memcpy(out, kPairs.data() + 2 * (hi / 100), 2);
  std::memcpy(out + 2, kPairs.data() + 2 * (hi % 100), 2);
  std::memcpy(out + 4, kPairs.data() + 2 * (lo / 100), 2);
  std::memcpy(out + 6, kPairs.data() + 2 * (lo % 100), 2);
}

// The decimal digits of 0 < m < 10^17 at `out` (room for 17 bytes, written past the digits),
// returning how many: written as a zero-padded 24-digit field, then the leading zeros skipped
// by knowing the count, so no digit loop and no variable-length copy.
size_t WriteDigits(uint64_t m, char* out) {
  // Digits of m: floor(log10(2) * bit length) or one more.
  const int t = ((64 - __builtin_clzll(m)) * 1233) >> 12;
  const size_t n = static_cast<size_t>(t + (m >= kPow10[t]));
  char field[48];  // 24 digits (the first 7 never read), then slack for the fixed-size copy below
  field[7] = static_cast<char>('0' + m / 10000000000000000ULL);  // m < 10^17: one digit there
  WriteEightDigits(static_cast<uint32_t>(m / 100000000 % 100000000), field + 8);
  WriteEightDigits(static_cast<uint32_t>(m % 100000000), field + 16);
  std::memcpy(out, field + 24 - n, 17);
  return n;
}
}  // namespace

size_t FormatPhpJsonFloat(double v, char* buf) {
  if (!std::isfinite(v)) {
    buf[0] = '0';
    return 1;
  }
  if (v == 0) {
    if (!std::signbit(v)) {
      buf[0] = '0';
      return 1;
    }
    std::memcpy(buf, "-0.0", 4);
    return 4;
  }
  // The shortest round-trip digits ("d" "ddd", decimal exponent of the first), then the layout.
  char digits[48];
  size_t n = 0;
  int exponent = 0;
  uint64_t m = 0;
  int e10 = 0;
  const bool found = schubfach::ShortestDigits(std::fabs(v), m, e10);
  if (found) {
    n = WriteDigits(m, digits);
    exponent = static_cast<int>(n) - 1 + e10;
    while (digits[n - 1] == '0') --n;
  } else {
    char sci[48];  // "-d.ddde+XX"
    const char* const sci_end = std::to_chars(sci, sci + sizeof sci, v, std::chars_format::scientific).ptr;
    const char* c = sci + (sci[0] == '-');
    for (; *c != 'e'; ++c)
      if (*c != '.') digits[n++] = *c;
    ++c;  // 'e'
    const bool exponent_negative = *c == '-';
    c += *c == '-' || *c == '+';
    for (; c < sci_end; ++c) exponent = exponent * 10 + (*c - '0');
    if (exponent_negative) exponent = -exponent;
  }

  // Pieces are copied with fixed 24-byte moves (n <= 17 digits), each overwriting the
  // previous one's spare tail: kPhpJsonFloatRoom has room for the longest layout plus that slack.
  char* o = buf;
  if (v < 0) *o++ = '-';
  if (exponent < -4 || exponent > 16) {
    *o++ = digits[0];
    *o++ = '.';
    if (n > 1) {
      std::memcpy(o, digits + 1, 24);
      o += n - 1;
    } else {
      *o++ = '0';
    }
    *o++ = 'e';
    *o++ = exponent < 0 ? '-' : '+';
    o = std::to_chars(o, o + 8, std::abs(exponent)).ptr;
  } else if (exponent < 0) {
    static constexpr char kLead[8] = {'0', '.', '0', '0', '0', '0', '0', '0'};
    std::memcpy(o, kLead, 8);  // "0." and up to 3 zeros (exponent >= -4)
    o += 1 - exponent;
    std::memcpy(o, digits, 24);
    o += n;
  } else {
    const auto int_digits = static_cast<size_t>(exponent + 1);  // <= 17
    std::memcpy(o, digits, 24);
    if (n <= int_digits) {
      o += n;
      std::memset(o, '0', 24);
      o += int_digits - n;
    } else {
      o += int_digits;
      *o++ = '.';
      std::memcpy(o, digits + int_digits, 24);
      o += n - int_digits;
    }
  }
  return static_cast<size_t>(o - buf);
}

void AppendPhpJsonFloat(std::string& out, double v) {
  char buf[kPhpJsonFloatRoom];
  out.append(buf, FormatPhpJsonFloat(v, buf));
}

// A decimal of at most 15 significant digits survives text -> double -> text, so the shortest
// digits that round-trip its double (what PHP prints) are its own digits without leading and
// trailing zeros.
// "-12.5", "0.05", "7": an optional '-', "0" or digits without a leading zero, and when there
// is a point, digits after it ending in a non-zero one; 1 to 15 significant digits, the first
// at most four places after the point. (A trial or run time as PTS writes it.)
bool IsPhpJsonDecimal(std::string_view text) {
  const char* const end = text.data() + text.size();
  bool plain = false;
  return ScanPhpJsonDecimal(text.data(), end, plain) == end && plain;
}

namespace {
// ScanPhpJsonDecimal, and with kValue the digits as an integer and how many follow the point
// (meaningful when plain).
template <bool kValue>
const char* ScanDecimal(const char* c, const char* end, bool& plain, uint64_t& mantissa, int& decimals) {
  plain = false;
  const bool negative = c < end && *c == '-';
  c += negative;
  const char* const int_begin = c;
  for (; c < end && IsAsciiDigit(*c); ++c)
    if constexpr (kValue) mantissa = mantissa * 10 + static_cast<uint64_t>(*c - '0');
  const long int_digits = c - int_begin;
  if (int_digits == 0 || (int_digits > 1 && *int_begin == '0')) return c;
  const bool zero_int = *int_begin == '0';
  if (c == end || *c != '.') {
    plain = int_digits <= 15 && !(negative && zero_int);
    return c;
  }
  const char* const frac_begin = ++c;
  for (; c < end && IsAsciiDigit(*c); ++c)
    if constexpr (kValue) mantissa = mantissa * 10 + static_cast<uint64_t>(*c - '0');
  if constexpr (kValue) decimals = static_cast<int>(c - frac_begin);
  if (c == frac_begin || c[-1] == '0') return c;
  if (!zero_int) {
    plain = int_digits + (c - frac_begin) <= 15;
    return c;
  }
  const char* first = frac_begin;  // first significant digit
  while (*first == '0') ++first;
  plain = first - frac_begin <= 3 && c - first <= 15;
  return c;
}
}  // namespace

const char* ScanPhpJsonDecimal(const char* c, const char* end, bool& plain) {
  uint64_t unused_mantissa = 0;
  int unused_decimals = 0;
  return ScanDecimal<false>(c, end, plain, unused_mantissa, unused_decimals);
}

const char* ScanPhpJsonDecimal(const char* c, const char* end, bool& plain, double& value) {
  uint64_t mantissa = 0;
  int decimals = 0;
  const char* const stop = ScanDecimal<true>(c, end, plain, mantissa, decimals);
  if (plain) {  // at most 15 significant digits, at most 18 decimals: NumericValue's exact quotient
    value = ExactDecimal(mantissa, decimals, *c == '-');
  }
  return stop;
}

bool AppendPlainDecimalAsPhpJson(std::string& out, std::string_view text) {
  if (IsPhpJsonDecimal(text)) {
    out += text;
    return true;
  }
  size_t i = 0;
  const bool negative = !text.empty() && text[0] == '-';
  i += negative;
  const size_t int_begin = i;
  while (i < text.size() && IsAsciiDigit(text[i])) ++i;
  const size_t int_end = i;
  size_t frac_begin = i, frac_end = i;
  if (i < text.size() && text[i] == '.') {
    frac_begin = ++i;
    while (i < text.size() && IsAsciiDigit(text[i])) ++i;
    frac_end = i;
  }
  // The same shapes NumericValue's exact fast path takes: digits on both sides allowed, at
  // least one digit, ending in a digit, nothing after.
  if (i != text.size() || int_end + (frac_end > frac_begin ? 1 : 0) == int_begin || text.back() == '.' ||
      frac_end - frac_begin > 22)
    return false;
  std::string_view int_part = text.substr(int_begin, int_end - int_begin);
  std::string_view frac_part = text.substr(frac_begin, frac_end - frac_begin);
  while (!int_part.empty() && int_part.front() == '0') int_part.remove_prefix(1);
  while (!frac_part.empty() && frac_part.back() == '0') frac_part.remove_suffix(1);
  size_t lead = 0;  // zeros after the point before the first significant digit (int_part empty)
  if (int_part.empty())
    while (lead < frac_part.size() && frac_part[lead] == '0') ++lead;
  const size_t significant = int_part.empty() ? frac_part.size() - lead : int_part.size() + frac_part.size();
  if (significant > 15) return false;
  if (significant == 0) {
    out += negative ? "-0.0" : "0";
    return true;
  }
  // Decimal exponent of the first significant digit: fixed notation only within [-4, 16].
  const long exponent = int_part.empty() ? -static_cast<long>(lead) - 1 : static_cast<long>(int_part.size()) - 1;
  if (exponent < -4 || exponent > 16) return false;
  // At most 17 integer digits, or "0." and 3 zeros before 15 digits: composed, then one append.
  char buf[48];
  char* o = buf;
  if (negative) *o++ = '-';
  if (int_part.empty()) *o++ = '0';
  else o = std::copy(int_part.begin(), int_part.end(), o);
  if (!frac_part.empty()) {
    *o++ = '.';
    o = std::copy(frac_part.begin(), frac_part.end(), o);
  }
  out.append(buf, static_cast<size_t>(o - buf));
  return true;
}

namespace {
// "-12.50" for decimals = 2: an optional '-', "0" or digits without a leading zero, then '.' and
// exactly `decimals` digits ("12" for 0), at most 15 digits in all, and not a negative zero.
// number_format() of its value at `decimals` prints it unchanged (set_precision_test checks).
bool IsCanonicalDecimal(std::string_view s, int decimals) {
  size_t i = s.starts_with('-') ? 1 : 0;
  const size_t int_begin = i;
  bool nonzero = false;
  while (i < s.size() && IsAsciiDigit(s[i])) nonzero |= s[i++] != '0';
  const size_t int_digits = i - int_begin;
  if (int_digits == 0 || (int_digits > 1 && s[int_begin] == '0')) return false;
  size_t frac_digits = 0;
  if (decimals > 0) {
    if (i == s.size() || s[i] != '.') return false;
    for (++i; i < s.size() && IsAsciiDigit(s[i]); ++i, ++frac_digits) nonzero |= s[i] != '0';
  }
  return i == s.size() && frac_digits == static_cast<size_t>(decimals) && int_digits + frac_digits <= 15 &&
         (nonzero || int_begin == 0);
}
}  // namespace

std::string SetPrecision(std::string_view value, int decimals) {
  // The usual entry value already has the block's precision: nothing to round or print.
  if (IsCanonicalDecimal(value, decimals)) return std::string(value);
  auto n = NumericValue(value);
  return n ? PhpNumberFormat(*n, decimals) : std::string(value);
}

int PhpCompare(std::string_view a, std::string_view b) {
  auto na = NumericValue(a);
  auto nb = NumericValue(b);
  if (na && nb) return *na < *nb ? -1 : (*na > *nb ? 1 : 0);
  int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

std::string_view PhpMin(const std::vector<std::string_view>& values) {
  if (values.empty()) return {};
  std::string_view best = values.front();
  for (size_t i = 1; i < values.size(); ++i)
    if (PhpCompare(values[i], best) < 0) best = values[i];
  return best;
}

std::string_view PhpMax(const std::vector<std::string_view>& values) {
  if (values.empty()) return {};
  std::string_view best = values.front();
  for (size_t i = 1; i < values.size(); ++i)
    if (PhpCompare(values[i], best) > 0) best = values[i];
  return best;
}

std::vector<std::string_view> SplitViews(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    size_t p = s.find(sep, start);
    if (p == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, p - start));
    start = p + 1;
  }
}

std::vector<std::pair<std::string, std::string>> SplitComponents(std::string_view components) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t start = 0;
  while (start <= components.size()) {
    size_t end = components.find(", ", start);
    std::string_view piece =
        components.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    size_t colon = piece.find(": ");
    if (colon != std::string_view::npos) {
      std::string key(piece.substr(0, colon));
      // explode(': ') keeps only the second piece: "A: B: C" → value "B".
      std::string_view rest = piece.substr(colon + 2);
      std::string value(rest.substr(0, rest.find(": ")));
      bool replaced = false;
      for (auto& kv : out)
        if (kv.first == key) kv.second = value, replaced = true;
      if (!replaced) out.emplace_back(std::move(key), std::move(value));
    }
    if (end == std::string_view::npos) break;
    start = end + 2;
  }
  return out;
}

namespace {

std::string BrandColorUncached(std::string_view identifier) {
  const std::string i = ToLower(identifier) + " ";
  auto has = [&](const char* needle) { return i.find(needle) != std::string::npos; };
  if (has("geforce") || has("nvidia") || has("quadro") || has("rtx ") || has("gtx ")) return "#77b900";
  if (has("radeon") || has("amd ") || has("epyc") || has("opteron ") || has("fx-") || has("firepro ") ||
      has("ryzen ") || has("threadripper ") || has("a10-") || has("athlon ") || has("r9 ") ||
      has("r7 ") || has("hd 7") || (has("rx ") && !has("thunderx ")))
    return "#f1052d";
  if (has("intel ") || has("xeon ") || has("core i") || has("core ultra") || has("pentium") ||
      has("celeron") || has("arc "))
    return "#0b5997";
  if (has("bsd")) return "#850000";
  if (has("windows ") || has("microsoft")) return "#373277";
  if (has("ec2 ") || has("amazon")) return "#ff9900";
  if (has("google")) return "#4885ed";
  if (has("arm ")) return "#f6d452";
  return {};
}

}  // namespace

std::string BrandColor(std::string_view identifier) {
  if (identifier.empty()) return {};
  // A pure function of the identifier, asked for every row of every result: a file has a few
  // systems, so remember the answers (bounded, in case a caller feeds endless identifiers).
  thread_local std::unordered_map<std::string, std::string> known;
  std::string key(identifier);
  if (auto it = known.find(key); it != known.end()) return it->second;
  if (known.size() >= 1024) known.clear();
  std::string color = BrandColorUncached(identifier);
  known.emplace(std::move(key), color);
  return color;
}

std::optional<std::string> EntryJsonString(const Entry& e, const char* key) {
  // Most entries carry no JSON or PTS's own keys: skip the parse unless the key is there.
  if (!e.json || e.json->find(key) == std::string::npos) return std::nullopt;
  auto j = nlohmann::json::parse(*e.json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::optional<std::string> StandInMark(const Entry& e) { return EntryJsonString(e, kStandInKey); }

bool SameUnit(std::string_view a, std::string_view b) {
  auto norm = [](std::string_view s) {
    std::string n = ToLower(Trim(s));
    return n == "mib/s" ? std::string("mb/s") : n;  // many PTS "MB/s" are MiB/s; the note says which
  };
  return norm(a) == norm(b);
}

bool StandInInOtherUnit(const Entry& e, const Result& r) {
  auto scale = EntryJsonString(e, kStandInScaleKey);
  return scale && StandInMark(e) && !SameUnit(*scale, r.scale);
}

std::string EntryLabel(const Entry& e) { return StandInMark(e) ? e.identifier + " *" : e.identifier; }

std::string StandInFootnote(const std::string& label) { return "* STAND-IN: " + label + " (not the original program)"; }

std::vector<std::string> StandInFootnotes(const Result& r) {
  std::vector<std::string> out;
  for (const auto& e : r.entries)
    if (auto label = StandInMark(e)) {
      std::string note = StandInFootnote(*label);
      if (std::find(out.begin(), out.end(), note) == out.end()) out.push_back(std::move(note));
    }
  return out;
}

}  // namespace ptsn::results
