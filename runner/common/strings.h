// Small string helpers used across modules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ptsn {

// A duration as people read it: "42s", "1m 05s", "1h 02m".
std::string FormatDuration(double seconds);
std::string Trim(std::string_view s);
std::vector<std::string> Split(std::string_view s, char sep);
std::string Join(const std::vector<std::string>& parts, std::string_view sep);
bool StartsWith(std::string_view s, std::string_view prefix);
bool EndsWith(std::string_view s, std::string_view suffix);
std::string ToLower(std::string_view s);
// Every occurrence of `from` (non-empty) replaced by `to`, left to right (PHP str_replace).
std::string ReplaceAll(std::string_view s, std::string_view from, std::string_view to);
// Case-insensitive equality with '-' and '_' treated alike (command names, option names).
bool SameCommandName(std::string_view a, std::string_view b);

// The UTF-8 character starting at s[at] (s[at] >= 0x80 or not): its length and code point, or
// length 0 when it is not valid UTF-8 (a stray or missing continuation byte, cut short, an
// overlong form, a surrogate, beyond U+10FFFF).
struct Utf8Char {
  size_t length = 0;
  uint32_t code_point = 0;
};
Utf8Char DecodeUtf8(std::string_view s, size_t at);
// Every character of `s` as DecodeUtf8 takes it (what JSON output needs).
bool IsValidUtf8(std::string_view s);

}  // namespace ptsn
