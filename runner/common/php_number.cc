// PHP's number semantics, shared by the results parser (runner/profile) and the result-file
// statistics (results-xml): PTS stores numbers as PHP prints them, so both must agree bit for bit.
#include "runner/common/php_number.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

namespace ptsn {

namespace {

double Pow10(int power) {
  static const double kTable[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  if (power < 0 || power > 22) return std::pow(10.0, power);
  return kTable[power];
}

// PHP_ROUND_HALF_UP: half away from zero.
double RoundHelper(double v) { return v >= 0.0 ? std::floor(v + 0.5) : std::ceil(v - 0.5); }

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

}  // namespace

// floor(log10(a)) as PHP computes it (libm's log10, then floor) for finite a > 0. Where a is
// not within a relative 1e-12 of a power of ten, log10(a) lies more than 4e-13 away from any
// integer, far beyond log10's error (an ulp or so, below 4e-15 for results under 32), so its
// floor is the k with 10^k <= a < 10^(k+1), found by comparisons; near a power of ten, and
// outside 1e-20..1e20, log10 itself decides.
int PhpFloorLog10(double a) {
  static constexpr double kPow[] = {1e-20, 1e-19, 1e-18, 1e-17, 1e-16, 1e-15, 1e-14, 1e-13, 1e-12, 1e-11, 1e-10,
                                    1e-9,  1e-8,  1e-7,  1e-6,  1e-5,  1e-4,  1e-3,  1e-2,  1e-1,  1e0,   1e1,
                                    1e2,   1e3,   1e4,   1e5,   1e6,   1e7,   1e8,   1e9,   1e10,  1e11,  1e12,
                                    1e13,  1e14,  1e15,  1e16,  1e17,  1e18,  1e19,  1e20};
  constexpr int kLow = -20, kHigh = 20;
  if (a >= kPow[0] && a < kPow[kHigh - kLow]) {
    uint64_t bits;
    std::memcpy(&bits, &a, sizeof bits);
    const int e2 = static_cast<int>(bits >> 52) - 1023;  // a in [2^e2, 2^(e2+1)) (a normal, > 0)
    int k = (e2 * 78913) >> 18;  // floor(e2 * log10 2): floor(log10 a) or one less
    if (k < kLow) k = kLow;
    while (k + 1 <= kHigh && a >= kPow[k + 1 - kLow]) ++k;
    const double low = kPow[k - kLow], high = kPow[k + 1 - kLow];
    if (a > low * (1 + 1e-12) && a < high * (1 - 1e-12)) return k;
  }
  return static_cast<int>(std::floor(std::log10(a)));
}

// The PHP 5.3 .. 8.3 _php_math_round(): when the requested places are within the 15 digits a
// double guarantees, first round to 15 significant digits so that 1.005 (really 1.00499999...)
// rounds as the decimal number it was written as.
double PhpRound(double value, int places) {
  if (!std::isfinite(value) || value == 0.0) return value;
  int precision_places = 14 - PhpFloorLog10(std::fabs(value));
  double f1 = Pow10(std::abs(places));
  double tmp;
  if (precision_places > places && precision_places - 15 < places) {
    double f2 = Pow10(std::abs(precision_places));
    tmp = precision_places >= 0 ? value * f2 : value / f2;
    tmp = RoundHelper(tmp);
    int use_precision = places - precision_places;  // < 0 here
    tmp = tmp / Pow10(std::abs(use_precision));
  } else {
    tmp = places >= 0 ? value * f1 : value / f1;
    if (std::fabs(tmp) >= 1e15) return value;
  }
  tmp = RoundHelper(tmp);
  if (std::abs(places) < 23) {
    tmp = places > 0 ? tmp / f1 : tmp * f1;
  } else {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%15fe%d", tmp, -places);
    double t = std::strtod(buf, nullptr);
    if (!std::isfinite(t)) return value;
    tmp = t;
  }
  return tmp;
}

std::string PhpNumberFormat(double value, int decimals) {
  std::string s;
  AppendPhpNumberFormat(s, value, decimals);
  return s;
}

void AppendPhpNumberFormat(std::string& out, double value, int decimals) {
  decimals = std::max(0, decimals);
  double d = PhpRound(value, decimals);
  if (!std::isfinite(d)) {
    out += PhpFloatToString(d);
    return;
  }
  // d is the double nearest to n / 10^decimals for an integer n; while |n| < 2^53 that n is
  // exactly round(d * 10^decimals), and printf("%.*f") would print n's digits. Writing n
  // directly skips printf's arbitrary-precision path (the hot spot of large text exports).
  if (decimals <= 15 && std::fabs(d) * Pow10(decimals) < 1e15) {
    auto n = static_cast<unsigned long long>(std::llround(std::fabs(d) * Pow10(decimals)));
    // n's digits written from the right: the last `decimals` after a '.', at least one before
    // it, and "-" first (number_format never prints "-0.00"); at most 1 + 16 + 1 characters.
    const bool negative = d < 0 && n != 0;
    char text[48];
    char* const end = text + sizeof text;
    char* o = end;
    for (int i = 0; i < decimals; ++i, n /= 10) *--o = static_cast<char>('0' + n % 10);
    if (decimals > 0) *--o = '.';
    do {
      *--o = static_cast<char>('0' + n % 10);
      n /= 10;
    } while (n != 0);
    if (negative) *--o = '-';
    out.append(o, static_cast<size_t>(end - o));
    return;
  }
  // PHP's printf prints at most 318 decimals (NDIG - 2) and number_format pads the rest with
  // zeros. Capping here also keeps glibc from allocating a buffer as large as the precision.
  constexpr int kPrintfMaxDecimals = 318;
  char buf[400];
  std::snprintf(buf, sizeof buf, "%.*f", std::min(decimals, kPrintfMaxDecimals), d);
  // number_format never prints "-0.00": the sign is dropped when the rounded value is zero.
  const char* b = buf;
  if (d == 0 && buf[0] == '-') ++b;
  out += b;
  if (decimals > kPrintfMaxDecimals) out.append(static_cast<size_t>(decimals - kPrintfMaxDecimals), '0');
}

bool ShortDecimal(double a, int max_digits, unsigned long long& m, int& k) {
  uint64_t bits;
  std::memcpy(&bits, &a, sizeof bits);
  const int biased = static_cast<int>((bits >> 52) & 0x7FF);
  if (biased == 0 || biased == 0x7FF || max_digits < 1 || max_digits > 15) return false;
  // floor(log10(a)) is this or one more (a is in [2^e2, 2^(e2+1))).
  const int e = static_cast<int>(std::floor((biased - 1023) * 0.30102999566398120));
  static constexpr double kExact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const double limit = kExact[max_digits] - 0.5;
  k = max_digits - 1 - e;
  for (int attempt = 0; attempt < 2; ++attempt, --k) {
    if (k < -22 || k > 22) return false;
    const double power = kExact[k >= 0 ? k : -k];
    const double scaled = k >= 0 ? a * power : a / power;
    if (scaled >= limit) continue;  // one digit too many: floor(log10(a)) was e + 1
    m = static_cast<unsigned long long>(scaled + 0.5);  // nearest (ties either way: the check decides)
    const double back = k >= 0 ? static_cast<double>(m) / power : static_cast<double>(m) * power;
    return m > 0 && back == a;
  }
  return false;
}

std::string PhpFloatToString(double value, int precision) {
  if (std::isnan(value)) return "NAN";
  if (std::isinf(value)) return value > 0 ? "INF" : "-INF";
  if (value == 0) return std::signbit(value) ? "-0" : "0";
  const bool negative = value < 0;
  std::string digits;
  int exponent;
  unsigned long long m;
  int k;
  if (precision >= 2 && ShortDecimal(std::fabs(value), precision, m, k)) {  // (precision 1: printf's "de-XX" as before)
    // printf's rounding to `precision` digits gives m (see ShortDecimal): skip its
    // arbitrary-precision path, the cost of a CSV export's series cells.
    char buf[24];
    const auto n = static_cast<int>(std::to_chars(buf, buf + sizeof buf, m).ptr - buf);
    digits.assign(buf, static_cast<size_t>(n));
    exponent = n - 1 - k;
  } else {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*e", precision - 1, value);  // d.ddd...e[+-]XX: `precision` significant digits
    std::string s = buf;
    if (negative) s.erase(0, 1);
    size_t e = s.find('e');
    exponent = std::atoi(s.c_str() + e + 1);
    digits = s.substr(0, 1) + s.substr(2, e - 2);
  }
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
    if (digits.size() <= int_len) {
      out += digits + std::string(int_len - digits.size(), '0');
    } else {
      out += digits.substr(0, int_len) + "." + digits.substr(int_len);
    }
  }
  return out;
}

bool PhpIsNumeric(std::string_view s) {
  size_t i = 0, n = s.size();
  while (i < n && IsSpace(s[i])) ++i;
  if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
  size_t int_digits = 0, frac_digits = 0;
  while (i < n && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++int_digits;
  if (i < n && s[i] == '.') {
    ++i;
    while (i < n && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++frac_digits;
  }
  if (int_digits + frac_digits == 0) return false;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < n && (s[j] == '+' || s[j] == '-')) ++j;
    size_t exp_digits = 0;
    while (j < n && std::isdigit(static_cast<unsigned char>(s[j]))) ++j, ++exp_digits;
    if (exp_digits == 0) return false;
    i = j;
  }
  while (i < n && IsSpace(s[i])) ++i;
  return i == n;
}

}  // namespace ptsn
