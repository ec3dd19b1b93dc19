// The original test profiles a published result names, fetched when they are not on disk, so the
// plan can run originals on a fresh machine: for each Result's profile ("pts/fs-mark-1.0.0")
// with no version of its major.minor here, the exact version when the servers' index has it,
// else the newest of the same major.minor (what PTS substitutes), with its <Extends> parents
// (runner/client/profile_source.h). Offline, only the profile cache is used.
#pragma once

#include <string>
#include <vector>

#include "results-xml/model/result_file.h"
#include "runner/client/profile_source.h"
#include "runner/profile/profile_repository.h"

namespace ptsn::reproduce {

struct OriginalsFetched {
  std::vector<std::string> fetched;  // "pts/fs-mark-1.0.3" (for pts/fs-mark-1.0.0), parents included
  std::vector<std::string> missing;  // one line each: what could not be had and why
};

// Fetches what is missing and rescans `repo` when anything was fetched.
OriginalsFetched FetchOriginals(const results::ResultFile& file, profile::ProfileRepository& repo,
                                client::ProfileSource& source);

}  // namespace ptsn::reproduce
