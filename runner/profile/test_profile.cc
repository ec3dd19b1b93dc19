#include "runner/profile/test_profile.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "runner/common/strings.h"

namespace ptsn::profile {

std::string LoadIssue::ToString() const {
  std::string out = file + ": ";
  if (!element.empty()) out += element + ": ";
  return out + message;
}

int TestOption::ExplicitDefault() const {
  // pts_test_option::set_option_default(): ""/"0" mean entry 1; an entry that does not exist
  // leaves the default unset.
  long wanted = 1;
  if (!default_entry_raw.empty() && default_entry_raw != "0") wanted = std::strtol(default_entry_raw.c_str(), nullptr, 10);
  long idx = wanted - 1;
  return idx >= 0 && idx < static_cast<long>(entries.size()) ? static_cast<int>(idx) : -1;
}

int TestOption::DefaultIndex() const {
  int idx = ExplicitDefault();
  return idx >= 0 ? idx : static_cast<int>(entries.size()) - 1;
}

int TestOption::DefaultIndexRaw() const { return std::max(ExplicitDefault(), 0); }

std::string TestProfile::BaseName() const {
  std::string base = identifier.substr(identifier.rfind('/') + 1);
  return SplitNameVersion(base).first;
}

std::string TestProfile::IdentifierWithoutVersion() const {
  // pts_test_profile_parser::get_identifier(false): strip "-<version>" after the last '-'.
  size_t dash = identifier.rfind('-');
  if (dash != std::string::npos && dash > 0 && IsVersionString(identifier.substr(dash + 1)))
    return identifier.substr(0, dash);
  return identifier;
}

std::string TestProfile::ScriptPath(const std::string& kind, const std::string& os) const {
  for (const std::string& name : {kind + "_" + os + ".sh", kind + ".sh"}) {
    auto it = scripts.find(name);
    if (it != scripts.end()) return it->second;
  }
  return "";
}

std::string TestProfile::Field(std::string_view key) const {
  auto it = fields.find(key);
  return it == fields.end() ? std::string() : it->second;
}

bool ParsePtsBool(const std::string& text, bool fallback) {
  std::string t = ToLower(Trim(text));
  if (t.empty()) return fallback;
  if (t == "true" || t == "1" || t == "yes" || t == "on") return true;
  if (t == "false" || t == "0" || t == "no" || t == "off") return false;
  return fallback;
}

std::vector<std::string> CommaList(const std::string& text) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  std::string_view rest(text);
  for (;;) {
    size_t comma = rest.find(',');
    std::string_view part = rest.substr(0, comma);
    while (!part.empty() && space(part.front())) part.remove_prefix(1);
    while (!part.empty() && space(part.back())) part.remove_suffix(1);
    if (!part.empty()) out.emplace_back(part);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

bool IsVersionString(const std::string& s) {
  if (s.empty() || s.find('.') == std::string::npos) return false;
  for (char c : s)
    if (!(c == '.' || (c >= '0' && c <= '9'))) return false;
  return true;
}

std::pair<std::string, std::string> SplitNameVersion(const std::string& base) {
  size_t dash = base.rfind('-');
  if (dash != std::string::npos && IsVersionString(base.substr(dash + 1)))
    return {base.substr(0, dash), base.substr(dash + 1)};
  return {base, ""};
}

int CompareVersions(const std::string& a, const std::string& b) {
  auto pa = Split(a, '.'), pb = Split(b, '.');
  for (size_t i = 0; i < std::max(pa.size(), pb.size()); ++i) {
    long x = i < pa.size() && !pa[i].empty() ? std::atol(pa[i].c_str()) : 0;
    long y = i < pb.size() && !pb[i].empty() ? std::atol(pb[i].c_str()) : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return pa.size() == pb.size() ? 0 : (pa.size() < pb.size() ? -1 : 1);
}

}  // namespace ptsn::profile
