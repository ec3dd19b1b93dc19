// Numbers the way PHP 8.2 (and therefore PTS) treats them. PTS keeps every value as a string and
// formats with number_format()/round(), whose "pre-rounding" makes 60.4999999999999 round to 61;
// reproducing PTS's text, CSV and JSON output byte for byte needs the same rules.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ptsn::results::php {

// PHP is_numeric(): optional surrounding whitespace (trailing allowed since PHP 8), sign,
// digits with an optional '.', optional exponent. No hex, no "inf"/"nan".
bool IsNumeric(std::string_view s);

// The value of a numeric string; nullopt when !IsNumeric(s).
std::optional<double> ToNumber(std::string_view s);

// PHP empty() of a string: "" and "0".
inline bool IsEmpty(std::string_view s) { return s.empty() || s == "0"; }

// PHP round($value, $places), half away from zero after pre-rounding to 15 significant digits.
double Round(double value, int places);

// PHP number_format($value, $decimals, '.', '') — what PTS's pts_math::set_precision() does to
// numbers. Strings that are not numeric are returned unchanged by the string overload.
std::string NumberFormat(double value, int decimals);
std::string SetPrecision(std::string_view value, int decimals);

// PHP's float-to-string conversion (precision = 14): "93.3", "100", "1.0E+25".
std::string FloatToString(double value);

// pts_math::get_precision() of one string: the number of characters after its last '.'.
int Precision(std::string_view value);

}  // namespace ptsn::results::php
