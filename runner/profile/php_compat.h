// PHP value semantics that PTS's results are made of. PTS stores whatever PHP prints, so matching
// its numbers byte for byte means reproducing PHP 8's string<->number rules: is_numeric(), the
// float-to-string conversion (precision=14), round() with its pre-rounding, number_format(), the
// int/float arithmetic of numeric strings and loose (==) comparison.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ptsn::php {

// A scalar as PHP holds it. Values read from a log are strings; arithmetic makes ints or floats.
struct Value {
  enum class Kind { kString, kInt, kFloat };
  Kind kind = Kind::kString;
  std::string s;
  int64_t i = 0;
  double d = 0;

  static Value Str(std::string v) { return Value{Kind::kString, std::move(v), 0, 0}; }
  static Value Int(int64_t v) { return Value{Kind::kInt, {}, v, 0}; }
  static Value Float(double v) { return Value{Kind::kFloat, {}, 0, v}; }

  bool is_string() const { return kind == Kind::kString; }
  std::string ToString() const;  // (string)$v
  bool IsNumeric() const;        // is_numeric($v)
  bool Truthy() const;           // (bool)$v: "" and "0" and 0 and 0.0 are false
  double ToDouble() const;       // (float)$v, leading-numeric prefix for strings
};

// is_numeric() for strings: optional leading/trailing whitespace, sign, digits, '.', exponent.
bool IsNumericString(std::string_view s);
// A numeric string converted as PHP's arithmetic does: an int when it is an integer that fits,
// else a float. Non-numeric strings give their leading numeric prefix (or 0).
Value ToNumber(const Value& v);

// (string) of a float with precision=14, e.g. 2460.318359375, 39000, 1.0E+25, 1.0E-5.
std::string FloatToString(double d, int precision = 14);
// round($v, $places) of PHP 5.3-8.3 (with pre-rounding to 15 significant digits).
double Round(double value, int places);
// number_format($v, $decimals, '.', '').
std::string NumberFormat(double value, int decimals);

Value Add(const Value& a, const Value& b);
Value Mul(const Value& a, const Value& b);
Value Div(const Value& a, const Value& b);  // caller guarantees b != 0

// $a == $b (PHP 8 rules for strings and numbers).
bool LooseEquals(const Value& a, const Value& b);
// $a <=> $b (PHP 8 rules), used by min()/max().
int Compare(const Value& a, const Value& b);

// PHP trim() with its default character set " \t\n\r\0\x0B".
std::string Trim(std::string_view s);
std::string_view TrimView(std::string_view s);  // the same, as a view into `s`
// str_replace($search, $replace, $subject) for one search string (empty search = no-op).
std::string StrReplace(std::string_view subject, std::string_view search, std::string_view replace);
// strlen(substr(strrchr($v, '.'), 1)): PTS's "number of decimals" of a printed value.
int DecimalsOf(const std::string& printed);

}  // namespace ptsn::php
