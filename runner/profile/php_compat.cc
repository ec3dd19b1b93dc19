#include "runner/profile/php_compat.h"

#include "runner/common/php_number.h"

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

}  // namespace

bool IsNumericString(std::string_view s) {
  return PhpIsNumeric(s);
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
  return PhpFloatToString(d, precision);
}

double Round(double value, int places) {
  return PhpRound(value, places);
}

std::string NumberFormat(double value, int decimals) {
  return PhpNumberFormat(value, decimals);
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

std::string_view TrimView(std::string_view s) {
  auto is_trim = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0' || c == '\x0B'; };
  size_t b = 0, e = s.size();
  while (b < e && is_trim(s[b])) ++b;
  while (e > b && is_trim(s[e - 1])) --e;
  return s.substr(b, e - b);
}

std::string Trim(std::string_view s) { return std::string(TrimView(s)); }

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
