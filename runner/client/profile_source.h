// Test profiles on demand, as PTS gets them from OpenBenchmarking.org: a repository's index
// (r=repo_index, kept in the cache for IndexCacheTTL days), a profile's zip (r=acquire_test,
// used only when its sha1 matches; kept in the cache) extracted into a profile directory that
// the profile repository searches, and the profile's <Extends> parents the same way. Once there,
// everything works from the cache: offline, nothing is asked and a missing profile is named.
//
//   <cache_dir>/<repo>.index                 the index as the server sent it
//   <cache_dir>/<repo>/<name>-<version>.zip  the profile as the server sent it
//   <profiles_dir>/<repo>/<name>-<version>/  the profile, extracted
#pragma once

#include <ctime>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "runner/client/ob_client.h"
#include "runner/openbenchmarking/protocol.h"

namespace ptsn {
class Settings;
}

namespace ptsn::client {

struct ProfileSourceOptions {
  std::string cache_dir;
  std::string profiles_dir;
  double index_ttl_days = 3;  // PTS's Options/OpenBenchmarking/IndexCacheTTL
  // False: the cache is read, never written (a fetched index is kept in memory, a fetched zip
  // only extracted into profiles_dir): `run <ID> --dry-run`.
  bool keep = true;
  std::function<std::time_t()> now = [] { return std::time(nullptr); };
  // Whether a profile ("pts/fs-mark-1.0.3") is on disk in any search path; by default only
  // profiles_dir is looked at.
  std::function<bool(const std::string& qualified)> on_disk;

  // profiles.ob_cache, profiles.server_cache and profiles.index_ttl_days.
  static ProfileSourceOptions FromSettings(const Settings& settings);
};

class ProfileSource {
 public:
  ProfileSource(ProfileSourceOptions options, ObClient& client);

  ObClient& client() { return client_; }
  const ProfileSourceOptions& options() const { return options_; }

  // The index of `repo`: the cached one while younger than the TTL, else the servers' (cached
  // anew), else the cached one at any age (offline, or no server answered). nullopt when there
  // is none; `why_not` then says what was tried.
  std::optional<ob::RepoIndexDoc> Index(const std::string& repo, std::string* why_not = nullptr);
  // The cached index only, at any age; never asks a server.
  std::optional<ob::RepoIndexDoc> CachedIndex(const std::string& repo) const;

  // What the index makes of a name (PTS's evaluate_string_to_qualifier): "pts/fs-mark" the newest
  // version, "pts/fs-mark-1.0" the newest 1.0.x, "pts/fs-mark-1.0.3" itself when indexed.
  // nullopt when the index (fetched if needed) has no such test or version; `why_not` says why.
  std::optional<std::string> Resolve(const std::string& name, std::string* why_not = nullptr);

  // Makes `qualified` ("pts/fs-mark-1.0.3") and its <Extends> parents available under
  // profiles_dir: from the cached zip, else from the servers. Returns the identifiers extracted
  // now (empty when all were on disk). Throws ptsn::Error naming what is missing and why
  // (offline, not on any server, a refused zip).
  std::vector<std::string> Fetch(const std::string& qualified);

  // Where `qualified` is (or would be) extracted, and where its zip is cached.
  std::string ProfileDirectory(const std::string& qualified) const;
  std::string ZipPath(const std::string& qualified) const;
  bool OnDisk(const std::string& qualified) const;

 private:
  std::string IndexPath(const std::string& repo) const;
  std::map<std::string, ob::RepoIndexDoc> loaded_;  // indexes read or fetched by this process
  std::map<std::string, std::string> unavailable_;   // repo -> why its index could not be had
  void FetchOne(const std::string& qualified, std::set<std::string>* visiting, std::vector<std::string>* fetched);
  ProfileSourceOptions options_;
  ObClient& client_;
};

// ----- what the commands share -------------------------------------------------------------------

// Resolves `name` ("pts/fs-mark", "pts/fs-mark-1.0", "pts/fs-mark-1.0.3") through the index and
// fetches it. Returns the qualified identifier, or nullopt when `name` is not of the repo/name
// form. Throws ptsn::Error naming what is missing and why when it cannot be had (offline with
// nothing cached, no server answering, not in the index, a refused zip).
std::optional<std::string> FetchByName(ProfileSource& source, const std::string& name);

}  // namespace ptsn::client
