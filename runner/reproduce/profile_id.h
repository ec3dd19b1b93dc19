// Splitting a versioned test profile identifier ("pts/fs-mark-1.0.3") into its parts, and
// choosing a version the way PTS substitutes a newer patch release for a missing one.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ptsn::reproduce {

struct ProfileId {
  std::string base;     // "pts/fs-mark"
  std::string version;  // "1.0.3"; "" when the identifier has none
};

ProfileId SplitProfileId(const std::string& identifier);
// "1.0.3" -> "1.0" (PTS drops the last segment; the comparison hash does the same).
std::string MajorMinor(const std::string& version);

// PTS (`test_profile_newer_minor_version_available`): when the exact version is not installed,
// the newest version of the same major.minor is used; results still line up because the
// comparison hash ignores the patch level. Returns the full identifier to use, or nullopt when
// no version of that major.minor is among `installed` or `available`.
std::optional<std::string> ChooseProfileVersion(const std::string& wanted_identifier,
                                                const std::vector<std::string>& installed,
                                                const std::vector<std::string>& available);

}  // namespace ptsn::reproduce
