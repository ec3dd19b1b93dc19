// PHP's number semantics that PTS's stored values depend on (PHP 8.2, checked against php-cli).
#pragma once

#include <string>
#include <string_view>

namespace ptsn {

// PHP round($v, $places) (PHP 8.2 algorithm: pre-rounding to 15 significant digits, then half
// away from zero) — so round(1.005, 2) == 1.01 as in PHP, not 1.0 as naive code gives.
double PhpRound(double value, int places);
// PhpRound's magnitude: floor(log10(a)) exactly as libm's log10 and floor give it, for finite
// a > 0, found by comparisons with powers of ten wherever that answer is certain.
int PhpFloorLog10(double a);
// PHP number_format($v, $decimals, '.', '').
std::string PhpNumberFormat(double value, int decimals);
// The same text appended to `out` (no string of its own: a label built around it).
void AppendPhpNumberFormat(std::string& out, double value, int decimals);
// PHP (string)$float with the given ini precision (default 14): "125.1", "122", "1.0E+15", "-0".
std::string PhpFloatToString(double value, int precision = 14);
// When `a` (finite, > 0) is the double nearest to m / 10^k for an integer m below
// 10^max_digits (max_digits <= 15), sets m and k and returns true. The check is exact (m and
// 10^|k| are exact doubles, one IEEE operation rounds correctly); false when no such m exists or
// a is outside about 1e-8..1e36. Such an m carries a's digits: the doubles around a are closer
// than 15-digit decimals are, so every rounding of a to at most max_digits digits (printf's,
// the shortest round trip's) gives m.
bool ShortDecimal(double a, int max_digits, unsigned long long& m, int& k);
// PHP is_numeric() for strings: optional leading whitespace, sign, digits with optional '.',
// optional exponent, optional trailing whitespace; hex/empty not numeric.
bool PhpIsNumeric(std::string_view s);
}  // namespace ptsn
