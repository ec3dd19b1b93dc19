// Finding and loading profiles and suites from search paths, with <Extends> inheritance.
//
// A root is a directory in PTS's layout: <root>/<repo>/<name>-<version>/test-definition.xml
// (suites: .../suite-definition.xml). Roots are searched in order; DefaultRoots() gives the
// bundled profiles/, the user's profiles.directory, the PTS home's test-profiles/ and test-suites/,
// and the server cache. Name resolution follows PTS (pts_openbenchmarking::
// evaluate_string_to_qualifier): "pts/fs-mark-1.0.3" exact; "pts/fs-mark-1.0" the newest version
// starting with 1.0 (else containing it); "pts/fs-mark" the newest version; "fs-mark" the same in
// the repositories local, pts, system, git, then any other, first hit wins; a directory path is
// loaded as is.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runner/profile/profile_files.h"
#include "runner/profile/test_profile.h"

namespace ptsn {
class Settings;
}

namespace ptsn::profile {

struct ProfileRef {
  std::string identifier;  // "pts/fs-mark-1.0.3"
  std::string directory;
};

class ProfileCache;
class ProfileSchemas;

// Optional checks made while a profile's own files are parsed (never its parents').
struct LoadChecks {
  const ProfileSchemas* schemas = nullptr;          // XSD-validate each file's parsed tree...
  std::vector<LoadIssue>* schema_issues = nullptr;  // ...appending the violations here
};

class ProfileRepository {
 public:
  explicit ProfileRepository(std::vector<std::string> roots);
  // Search paths from the settings, in order (missing directories are skipped when listing).
  static std::vector<std::string> DefaultRoots(const Settings& settings);
  static ProfileRepository FromSettings(const Settings& settings) { return ProfileRepository(DefaultRoots(settings)); }

  const std::vector<std::string>& roots() const { return roots_; }
  // Forgets the listing, so profiles added to the roots since (fetched ones) are found.
  void Rescan() { index_.reset(); }

  std::optional<ProfileRef> FindProfile(const std::string& name) const;
  std::optional<ProfileRef> FindSuite(const std::string& name) const;

  // Resolves `name` (or a directory path) and loads it with its Extends chain. Throws ptsn::Error
  // naming the file and element: not found, malformed XML, unknown element, Extends cycle or
  // missing parent, no results definition. Non-fatal findings go to `warnings`.
  TestProfile LoadProfile(const std::string& name, std::vector<LoadIssue>* warnings = nullptr,
                          const LoadChecks& checks = {}) const;
  TestSuite LoadSuite(const std::string& name, std::vector<LoadIssue>* warnings = nullptr) const;
  // Loads the profile in `dir` under the given identifier (derived from the path when empty).
  TestProfile LoadDirectory(const std::string& dir, const std::string& identifier = "",
                            std::vector<LoadIssue>* warnings = nullptr, const LoadChecks& checks = {}) const;

  // Profile directories are read through `cache` when set (see profile_cache.h); thread-safe.
  void SetCache(std::shared_ptr<ProfileCache> cache) { cache_ = std::move(cache); }
  // SetCache() with a cache read from `path`; none when path is "". Returns the cache set.
  std::shared_ptr<ProfileCache> UseCacheFile(const std::string& path);
  const std::shared_ptr<ProfileCache>& cache() const { return cache_; }

  // Every profile / suite found, sorted by identifier; for an identifier present in several
  // roots the first root wins.
  std::vector<ProfileRef> ListProfiles() const;
  std::vector<ProfileRef> ListSuites() const;

 private:
  struct Index {
    std::map<std::string, ProfileRef> profiles;  // identifier -> first root's copy
    std::map<std::string, ProfileRef> suites;
    // Entries of every profile directory listed while indexing, so loading need not list again.
    std::map<std::string, std::vector<DirEntry>> listings;
    std::chrono::steady_clock::time_point listed_at;  // when those listings (and their stamps) were taken
  };
  const Index& GetIndex() const;
  std::optional<ProfileRef> Find(const std::map<std::string, ProfileRef>& items, const std::string& name) const;
  TestProfile LoadRef(const ProfileRef& ref, std::vector<std::string>* visiting, std::vector<LoadIssue>* warnings,
                      const LoadChecks& checks) const;

  std::vector<std::string> roots_;
  mutable std::shared_ptr<Index> index_;
  std::shared_ptr<ProfileCache> cache_;
};

// The existing directories called `name` among those pts-native ships data in: the source tree
// it was built from (run from its build tree only), beside the binary, ../share/pts-native/
// ("profiles", "bundled-results").
std::vector<std::string> BundledDirectories(const std::string& name);

// Runs work(0..count-1) on up to `threads` threads (0: one per core); rethrows the first exception.
void ForEachParallel(size_t count, unsigned threads, const std::function<void(size_t)>& work);

// Loads every profile below `root` (PTS layout) and reports each failure; for corpus checks.
struct BulkLoadReport {
  std::vector<TestProfile> loaded;
  std::vector<std::pair<std::string, std::string>> rejected;  // identifier, reason
  std::vector<LoadIssue> warnings;
};
// Profiles are loaded on `threads` threads (0: one per core); results are in identifier order.
BulkLoadReport LoadAllProfiles(const ProfileRepository& repo, unsigned threads = 0);

}  // namespace ptsn::profile
