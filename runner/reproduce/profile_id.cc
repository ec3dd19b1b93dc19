#include "runner/reproduce/profile_id.h"

#include <cctype>
#include <cstdlib>

#include "runner/common/strings.h"

namespace ptsn::reproduce {

ProfileId SplitProfileId(const std::string& identifier) {
  size_t dash = identifier.rfind('-');
  size_t slash = identifier.rfind('/');
  if (dash == std::string::npos || (slash != std::string::npos && dash < slash) || dash + 1 >= identifier.size() ||
      !std::isdigit(static_cast<unsigned char>(identifier[dash + 1])))
    return {identifier, ""};
  return {identifier.substr(0, dash), identifier.substr(dash + 1)};
}

std::string MajorMinor(const std::string& version) {
  size_t dot = version.rfind('.');
  return dot == std::string::npos ? version : version.substr(0, dot);
}

namespace {

// Numeric, segment-wise: 1.0.10 > 1.0.9.
bool VersionLess(const std::string& a, const std::string& b) {
  auto pa = Split(a, '.'), pb = Split(b, '.');
  for (size_t i = 0; i < pa.size() && i < pb.size(); ++i) {
    long x = std::strtol(pa[i].c_str(), nullptr, 10), y = std::strtol(pb[i].c_str(), nullptr, 10);
    if (x != y) return x < y;
  }
  return pa.size() < pb.size();
}

std::optional<std::string> NewestOfSeries(const ProfileId& wanted, const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  std::string series = MajorMinor(wanted.version);
  for (const auto& c : candidates) {
    ProfileId id = SplitProfileId(c);
    if (id.base != wanted.base || MajorMinor(id.version) != series) continue;
    if (!best || VersionLess(SplitProfileId(*best).version, id.version)) best = c;
  }
  return best;
}

}  // namespace

std::optional<std::string> ChooseProfileVersion(const std::string& wanted_identifier,
                                                const std::vector<std::string>& installed,
                                                const std::vector<std::string>& available) {
  for (const auto& i : installed)
    if (i == wanted_identifier) return i;
  ProfileId wanted = SplitProfileId(wanted_identifier);
  if (wanted.version.empty()) return std::nullopt;
  std::vector<std::string> all = installed;
  all.insert(all.end(), available.begin(), available.end());
  return NewestOfSeries(wanted, all);
}

}  // namespace ptsn::reproduce
