#include "runner/reproduce/originals.h"

#include <map>
#include <set>

#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/reproduce/profile_id.h"

namespace ptsn::reproduce {

OriginalsFetched FetchOriginals(const results::ResultFile& file, profile::ProfileRepository& repo,
                                client::ProfileSource& source) {
  std::set<std::string> wanted;
  for (const auto& r : file.results)
    if (!r.identifier.empty()) wanted.insert(r.identifier);
  // Profiles on disk, by base and major.minor: those need nothing fetched.
  std::set<std::string> on_disk;
  for (const auto& ref : repo.ListProfiles()) {
    ProfileId id = SplitProfileId(ref.identifier);
    on_disk.insert(id.base + "-" + MajorMinor(id.version));
  }
  OriginalsFetched out;
  std::map<std::string, std::vector<std::string>> failures;  // why -> identifiers, so a shared cause is one line
  for (const auto& identifier : wanted) {
    ProfileId id = SplitProfileId(identifier);
    if (id.version.empty() || identifier.rfind("local/", 0) == 0) continue;
    const std::string series = id.base + "-" + MajorMinor(id.version);
    if (on_disk.count(series)) continue;
    std::string why;
    auto chosen = source.Resolve(identifier, &why);
    if (!chosen) chosen = source.Resolve(series, &why);  // the newest of its major.minor
    if (!chosen) {
      failures[why].push_back(identifier);
      continue;
    }
    try {
      for (auto& f : source.Fetch(*chosen))
        out.fetched.push_back(f == *chosen && f != identifier ? f + " (for " + identifier + ")" : f);
    } catch (const Error& e) {
      failures[e.what()].push_back(identifier);
    }
  }
  for (const auto& [why, ids] : failures) out.missing.push_back(Join(ids, ", ") + ": not on disk and not fetched: " + why);
  if (!out.fetched.empty()) repo.Rescan();
  return out;
}

}  // namespace ptsn::reproduce
