#include "runner/profile/php_compat.h"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ptsn::php {

namespace {

bool IsPhpSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// Length of the numeric prefix of s (after leading whitespace) and whether it looks like an
// integer (no '.', no exponent). Returns 0 when there is no number.
size_t NumericPrefix(std::string_view s, size_t start, bool* is_integer) {
  size_t p = start;
  *is_integer = true;
  if (p < s.size() && (s[p] == '+' || s[p] == '-')) ++p;
  size_t digits = 0;
  while (p < s.size() && std::isdigit(static_cast<unsigned char>(s[p]))) ++p, ++digits;
  if (p < s.size() && s[p] == '.') {
    size_t q = p + 1, frac = 0;
    while (q < s.size() && std::isdigit(static_cast<unsigned char>(s[q]))) ++q, ++frac;
    if (digits + frac > 0) {
      *is_integer = false;
      p = q;
      digits += frac;
    }
  }
  if (digits == 0) return 0;
  if (p < s.size() && (s[p] == 'e' || s[p] == 'E')) {
    size_t q = p + 1;
    if (q < s.size() && (s[q] == '+' || s[q] == '-')) ++q;
    size_t exp_digits = 0;
    while (q < s.size() && std::isdigit(static_cast<unsigned char>(s[q]))) ++q, ++exp_digits;
    if (exp_digits > 0) {
      *is_integer = false;
      p = q;
    }
  }
  return p - start;
}

Value NumberFromPrefix(std::string_view text, bool is_integer) {
  std::string t(text);
  if (is_integer) {
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(t.c_str(), &end, 10);
    if (errno != ERANGE) return Value::Int(v);
  }
  return Value::Float(std::strtod(t.c_str(), nullptr));
}

double IntPow10(int power) {
  static const double kPowers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  if (power < 0 || power > 22) return std::pow(10.0, static_cast<double>(power));
  return kPowers[power];
}

double RoundHelper(double value) { return value >= 0.0 ? std::floor(value + 0.5) : std::ceil(value - 0.5); }

double RoundGetBasic(double value, int places) {
  double f1 = IntPow10(std::abs(places));
  return places >= 0 ? value * f1 : value / f1;
}

}  // namespace

bool IsNumericString(std::string_view s) {
  size_t p = 0;
  while (p < s.size() && IsPhpSpace(s[p])) ++p;
  bool is_integer;
  size_t n = NumericPrefix(s, p, &is_integer);
  if (n == 0) return false;
  p += n;
  while (p < s.size() && IsPhpSpace(s[p])) ++p;
  return p == s.size();
}

Value ToNumber(const Value& v) {
  if (v.kind != Value::Kind::kString) return v;
  size_t p = 0;
  while (p < v.s.size() && IsPhpSpace(v.s[p])) ++p;
  bool is_integer;
  size_t n = NumericPrefix(v.s, p, &is_integer);
  if (n == 0) return Value::Int(0);
  return NumberFromPrefix(std::string_view(v.s).substr(p, n), is_integer);
}

std::string Value::ToString() const {
  switch (kind) {
    case Kind::kString: return s;
    case Kind::kInt: return std::to_string(i);
    case Kind::kFloat: return FloatToString(d);
  }
  return s;
}

bool Value::IsNumeric() const { return kind != Kind::kString || IsNumericString(s); }

bool Value::Truthy() const {
  switch (kind) {
    case Kind::kString: return !(s.empty() || s == "0");
    case Kind::kInt: return i != 0;
    case Kind::kFloat: return d != 0.0;
  }
  return false;
}

double Value::ToDouble() const {
  Value n = ToNumber(*this);
  return n.kind == Kind::kInt ? static_cast<double>(n.i) : n.d;
}

std::string FloatToString(double d, int precision) {
  if (std::isnan(d)) return "NAN";
  if (std::isinf(d)) return d < 0 ? "-INF" : "INF";
  if (d == 0.0) return std::signbit(d) ? "-0" : "0";
  // %.Ne gives the correctly rounded significant digits that zend_dtoa(mode 2) would produce.
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*e", precision - 1, d);
  std::string out;
  const char* p = buf;
  if (*p == '-') {
    out += '-';
    ++p;
  }
  std::string digits;
  for (; *p && *p != 'e'; ++p)
    if (*p != '.') digits += *p;
  int exponent = std::atoi(p + 1);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  int decpt = exponent + 1;
  if (decpt < 0 ? decpt < -3 : decpt > precision) {
    out += digits[0];
    out += '.';
    out += digits.size() > 1 ? digits.substr(1) : "0";
    out += 'E';
    int e = decpt - 1;
    out += e < 0 ? '-' : '+';
    out += std::to_string(std::abs(e));
  } else if (decpt <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-decpt), '0');
    out += digits;
  } else {
    for (int i = 0; i < decpt; ++i) out += i < static_cast<int>(digits.size()) ? digits[i] : '0';
    if (static_cast<int>(digits.size()) > decpt) {
      out += '.';
      out += digits.substr(static_cast<size_t>(decpt));
    }
  }
  return out;
}

double Round(double value, int places) {
  if (!std::isfinite(value) || value == 0.0) return value;
  int precision_places = 14 - static_cast<int>(std::floor(std::log10(std::fabs(value))));
  double f1 = IntPow10(std::abs(places));
  double tmp;
  if (precision_places > places && precision_places - 15 < places) {
    int use_precision = precision_places;
    tmp = RoundHelper(RoundGetBasic(value, use_precision));
    use_precision = places - use_precision;
    tmp = tmp / IntPow10(std::abs(use_precision));
  } else {
    tmp = places >= 0 ? value * f1 : value / f1;
    if (std::fabs(tmp) >= 1e15) return value;
  }
  tmp = RoundHelper(tmp);
  if (std::abs(places) < 23) {
    tmp = places > 0 ? tmp / f1 : tmp * f1;
  } else {
    char buf[40];
    std::snprintf(buf, 39, "%15fe%d", tmp, -places);
    double back = std::strtod(buf, nullptr);
    if (!std::isfinite(back)) return value;
    tmp = back;
  }
  return tmp;
}

std::string NumberFormat(double value, int decimals) {
  if (decimals < 0) decimals = 0;
  double d = Round(value, decimals);
  if (!std::isfinite(d)) return FloatToString(d);
  char buf[512];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, d);
  std::string out = buf;
  // number_format never prints a negative zero.
  if (out[0] == '-' && out.find_first_not_of("-0.") == std::string::npos) out.erase(0, 1);
  return out;
}

namespace {

bool BothInts(const Value& a, const Value& b) { return a.kind == Value::Kind::kInt && b.kind == Value::Kind::kInt; }
double AsDouble(const Value& n) { return n.kind == Value::Kind::kInt ? static_cast<double>(n.i) : n.d; }

}  // namespace

Value Add(const Value& a, const Value& b) {
  Value x = ToNumber(a), y = ToNumber(b);
  if (BothInts(x, y)) {
    int64_t r;
    if (!__builtin_add_overflow(x.i, y.i, &r)) return Value::Int(r);
  }
  return Value::Float(AsDouble(x) + AsDouble(y));
}

Value Mul(const Value& a, const Value& b) {
  Value x = ToNumber(a), y = ToNumber(b);
  if (BothInts(x, y)) {
    int64_t r;
    if (!__builtin_mul_overflow(x.i, y.i, &r)) return Value::Int(r);
  }
  return Value::Float(AsDouble(x) * AsDouble(y));
}

Value Div(const Value& a, const Value& b) {
  Value x = ToNumber(a), y = ToNumber(b);
  if (BothInts(x, y) && y.i != 0 && !(x.i == INT64_MIN && y.i == -1) && x.i % y.i == 0) return Value::Int(x.i / y.i);
  return Value::Float(AsDouble(x) / AsDouble(y));
}

bool LooseEquals(const Value& a, const Value& b) { return Compare(a, b) == 0; }

int Compare(const Value& a, const Value& b) {
  auto cmp_num = [](double x, double y) { return x < y ? -1 : (x > y ? 1 : 0); };
  if (a.is_string() && b.is_string()) {
    if (IsNumericString(a.s) && IsNumericString(b.s)) {
      Value x = ToNumber(a), y = ToNumber(b);
      if (BothInts(x, y)) return x.i < y.i ? -1 : (x.i > y.i ? 1 : 0);
      return cmp_num(AsDouble(x), AsDouble(y));
    }
    int c = a.s.compare(b.s);
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  if (!a.is_string() && !b.is_string()) {
    if (BothInts(a, b)) return a.i < b.i ? -1 : (a.i > b.i ? 1 : 0);
    return cmp_num(AsDouble(a), AsDouble(b));
  }
  // number vs string: numeric strings compare as numbers, others compare as strings (PHP 8).
  const Value& str = a.is_string() ? a : b;
  if (IsNumericString(str.s)) return cmp_num(AsDouble(ToNumber(a)), AsDouble(ToNumber(b)));
  int c = a.ToString().compare(b.ToString());
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

std::string Trim(std::string_view s) {
  auto is_trim = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0' || c == '\x0B'; };
  size_t b = 0, e = s.size();
  while (b < e && is_trim(s[b])) ++b;
  while (e > b && is_trim(s[e - 1])) --e;
  return std::string(s.substr(b, e - b));
}

std::string StrReplace(std::string_view subject, std::string_view search, std::string_view replace) {
  if (search.empty()) return std::string(subject);
  std::string out;
  size_t pos = 0;
  for (size_t hit; (hit = subject.find(search, pos)) != std::string_view::npos; pos = hit + search.size()) {
    out.append(subject.substr(pos, hit - pos));
    out.append(replace);
  }
  out.append(subject.substr(pos));
  return out;
}

int DecimalsOf(const std::string& printed) {
  size_t dot = printed.rfind('.');
  return dot == std::string::npos ? 0 : static_cast<int>(printed.size() - dot - 1);
}

}  // namespace ptsn::php
