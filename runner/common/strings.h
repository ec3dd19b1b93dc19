// Small string helpers used across modules.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ptsn {

std::string Trim(std::string_view s);
std::vector<std::string> Split(std::string_view s, char sep);
std::string Join(const std::vector<std::string>& parts, std::string_view sep);
bool StartsWith(std::string_view s, std::string_view prefix);
bool EndsWith(std::string_view s, std::string_view suffix);
std::string ToLower(std::string_view s);
// Case-insensitive equality with '-' and '_' treated alike (command names, option names).
bool SameCommandName(std::string_view a, std::string_view b);

}  // namespace ptsn
