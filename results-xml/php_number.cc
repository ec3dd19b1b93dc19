#include "results-xml/php_number.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ptsn::results::php {

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Half away from zero, PHP's PHP_ROUND_HALF_UP helper.
double RoundHelper(double v) { return v >= 0.0 ? std::floor(v + 0.5) : std::ceil(v - 0.5); }

double Pow10(int power) { return std::pow(10.0, static_cast<double>(power)); }

}  // namespace

bool IsNumeric(std::string_view s) {
  size_t i = 0, n = s.size();
  while (i < n && IsSpace(s[i])) ++i;
  if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
  size_t int_digits = 0, frac_digits = 0;
  while (i < n && IsDigit(s[i])) ++i, ++int_digits;
  if (i < n && s[i] == '.') {
    ++i;
    while (i < n && IsDigit(s[i])) ++i, ++frac_digits;
  }
  if (int_digits + frac_digits == 0) return false;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < n && (s[j] == '+' || s[j] == '-')) ++j;
    size_t exp_digits = 0;
    while (j < n && IsDigit(s[j])) ++j, ++exp_digits;
    if (exp_digits == 0) return false;
    i = j;
  }
  while (i < n && IsSpace(s[i])) ++i;
  return i == n;
}

std::optional<double> ToNumber(std::string_view s) {
  if (!IsNumeric(s)) return std::nullopt;
  std::string copy(s);
  return std::strtod(copy.c_str(), nullptr);
}

double Round(double value, int places) {
  if (!std::isfinite(value) || value == 0.0) return value;
  const int precision_places = 14 - static_cast<int>(std::floor(std::log10(std::fabs(value))));
  const double f1 = Pow10(std::abs(places));
  double tmp;
  if (precision_places > places && precision_places - 15 < places) {
    // Pre-round to the precision a double can guarantee, then scale to the requested places.
    const int use_precision = precision_places < -60 ? -60 : precision_places;
    const double basic = use_precision >= 0 ? value * Pow10(use_precision) : value / Pow10(-use_precision);
    tmp = RoundHelper(basic);
    int shift = places - use_precision;
    if (shift < -60) shift = -60;
    tmp = tmp / Pow10(std::abs(shift));
  } else {
    tmp = places >= 0 ? value * f1 : value / f1;
    if (std::fabs(tmp) >= 1e15) return value;
  }
  if (std::fabs(tmp - RoundHelper(tmp)) >= 1e-15) tmp = RoundHelper(tmp);
  return places > 0 ? tmp / f1 : tmp * f1;
}

std::string NumberFormat(double value, int decimals) {
  if (decimals < 0) decimals = 0;
  double d = Round(value, decimals);
  const bool negative = d < 0;
  d = std::fabs(d);  // also turns -0.0 into 0.0: PHP prints "0.00", never "-0.00"
  char buf[512];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, d);
  std::string out = buf;
  if (negative) out.insert(out.begin(), '-');
  return out;
}

std::string SetPrecision(std::string_view value, int decimals) {
  auto n = ToNumber(value);
  return n ? NumberFormat(*n, decimals) : std::string(value);
}

std::string FloatToString(double value) {
  if (std::isnan(value)) return "NAN";
  if (std::isinf(value)) return value > 0 ? "INF" : "-INF";
  if (value == 0.0) return std::signbit(value) ? "-0" : "0";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.14G", value);
  std::string s = buf;
  const size_t e = s.find('E');
  if (e == std::string::npos) return s;
  // %G gives "1E+25" / "1E-05"; PHP gives "1.0E+25" / "1.0E-5".
  std::string mantissa = s.substr(0, e);
  std::string exponent = s.substr(e + 1);
  if (mantissa.find('.') == std::string::npos) mantissa += ".0";
  char sign = exponent[0];
  size_t k = 1;
  while (k + 1 < exponent.size() && exponent[k] == '0') ++k;
  return mantissa + "E" + sign + exponent.substr(k);
}

int Precision(std::string_view value) {
  const size_t dot = value.rfind('.');
  return dot == std::string_view::npos ? 0 : static_cast<int>(value.size() - dot - 1);
}

}  // namespace ptsn::results::php
