// Small pieces several exports share: how PTS compares its string values, splits a
// "Processor: X, Memory: Y" component string, and picks a brand colour for an identifier.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "results-xml/model/result_file.h"

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

// True for a LINE_GRAPH value: a comma list of monitor samples rather than one number.
inline bool IsSeries(const Entry& e) { return e.value.find(',') != std::string::npos; }

// The numbers an entry's statistics describe: the samples of a series, else the numeric trials
// (RawString, or Value alone for a single trial). Non-numeric pieces are left out.
std::vector<double> EntryNumbers(const Entry& e);

// PHP json_encode() of a float (serialize_precision = -1), appended to `out`: the shortest
// digits that round-trip, fixed notation unless the decimal exponent is below -4 or above 16,
// then "d.ddde+X" (at least one decimal); 0 -> "0", -0 -> "-0.0"; INF/NAN -> "0" (json_encode
// fails on them; result files never produce them).
void AppendPhpJsonFloat(std::string& out, double v);

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

// Calls fn(piece) for each piece SplitViews(s, sep) would return, without building the vector.
template <typename Fn>
void ForEachPart(std::string_view s, char sep, Fn&& fn) {
  for (size_t start = 0;;) {
    const size_t p = s.find(sep, start);
    if (p == std::string_view::npos) return fn(s.substr(start));
    fn(s.substr(start, p - start));
    start = p + 1;
  }
}

// pts_result_file_analyzer::system_component_string_to_array(): "Processor: X, Memory: Y" →
// {("Processor","X"), ("Memory","Y")}; pieces without ": " are dropped, later keys replace
// earlier ones in place (PHP array semantics).
std::vector<std::pair<std::string, std::string>> SplitComponents(std::string_view components);

// A stand-in: `run <ID>` files a result measured by a stand-in profile (not the published test's
// own program) under the published result, marked in the entry's JSON with
// {"stand-in":"native/fs-files-1.0.0 for pts/fs-mark-1.0"}. Every view marks such a row ("This
// Box *") and prints StandInFootnote() with it, so it is never passed off as the original.
inline constexpr const char* kStandInKey = "stand-in";
// The stand-in's own unit, on an entry filed under a Result of another scale (written only while
// the two are the same unit, MiB/s vs MB/s; older files may hold one in another unit).
inline constexpr const char* kStandInScaleKey = "stand-in-scale";
// A string member of an entry's JSON, nullopt when absent or not a string.
std::optional<std::string> EntryJsonString(const Entry& e, const char* key);
// The stand-in's label, nullopt for an entry the original program measured.
std::optional<std::string> StandInMark(const Entry& e);
// Units that compare directly: equal, or MB/s vs MiB/s (PTS's "MB/s" is often MiB/s).
bool SameUnit(std::string_view a, std::string_view b);
// A stand-in entry whose own unit is not `r`'s: no percentage may be computed against `r`'s
// other entries.
bool StandInInOtherUnit(const Entry& e, const Result& r);
// How a view names an entry's row: "identifier *" for a stand-in, else the identifier.
std::string EntryLabel(const Entry& e);
// "* STAND-IN: <label> (not the original program)".
std::string StandInFootnote(const std::string& label);
// The footnotes of `r`'s stand-in entries, one per distinct label, in entry order.
std::vector<std::string> StandInFootnotes(const Result& r);

// The vendor colour PTS paints a system identifier with ("#0b5997" for Intel...), "" when none.
std::string BrandColor(std::string_view identifier);

}  // namespace ptsn::results
