// Small pieces several exports share: how PTS compares its string values, splits a
// "Processor: X, Memory: Y" component string, and picks a brand colour for an identifier.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ptsn::results {

// The value of a PHP-numeric string, nullopt otherwise (statistics.h has the PHP rules).
std::optional<double> NumericValue(std::string_view s);

// A comma-separated series (LINE_GRAPH value) parsed once. Non-numeric parts count as 0 in
// values/sum (PHP's array_sum) and clear all_numeric; min/max are numeric (callers needing
// PHP's string-comparison min/max of mixed series use PhpMin/PhpMax).
struct ParsedSeries {
  std::vector<double> values;
  bool all_numeric = true;
  double min = 0, max = 0, sum = 0;
};
ParsedSeries ParseSeries(std::string_view s);

// pts_math::set_precision(): number_format() for numeric strings, others unchanged.
std::string SetPrecision(std::string_view value, int decimals);

// PHP empty() of a string: "" and "0".
inline bool PhpEmpty(std::string_view s) { return s.empty() || s == "0"; }

// PHP 8 comparison of two strings: numerically when both are numeric, else byte-wise.
int PhpCompare(std::string_view a, std::string_view b);

// PHP min()/max() over strings with PhpCompare (first of equal elements wins). "" when empty.
std::string_view PhpMin(const std::vector<std::string_view>& values);
std::string_view PhpMax(const std::vector<std::string_view>& values);

// Splits `s` at every `sep` into views of `s` (PHP explode()).
std::vector<std::string_view> SplitViews(std::string_view s, char sep);

// pts_result_file_analyzer::system_component_string_to_array(): "Processor: X, Memory: Y" →
// {("Processor","X"), ("Memory","Y")}; pieces without ": " are dropped, later keys replace
// earlier ones in place (PHP array semantics).
std::vector<std::pair<std::string, std::string>> SplitComponents(std::string_view components);

// The vendor colour PTS paints a system identifier with ("#0b5997" for Intel...), "" when none.
std::string BrandColor(std::string_view identifier);

}  // namespace ptsn::results
