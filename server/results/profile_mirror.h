// The server as a mirror of OpenBenchmarking.org's test profiles: a tree of PTS profiles
// (<repo>/<name>-<version>/test-definition.xml ...) imported into the data directory as the
// zips acquire_test hands out and the index repo_index answers with, shaped as
// OpenBenchmarking.org's own (runner/openbenchmarking/protocol.h):
//   <mirror>/<repo>.index
//   <mirror>/<repo>/<name>-<version>.zip
// Importing again is idempotent (zips are deterministic; an unchanged profile is not rewritten)
// and adds to what is there (versions are merged, newest first).
#pragma once

#include <ctime>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "runner/openbenchmarking/protocol.h"

namespace ptsn::server {

struct ImportReport {
  size_t added = 0;      // new or changed profiles written
  size_t unchanged = 0;  // already there, byte for byte
  std::vector<std::string> repos;                              // indexes rewritten
  std::vector<std::pair<std::string, std::string>> skipped;    // directory, why
};

// Imports every <tree>/<repo>/<name>-<version>/ that has a test-definition.xml. Throws
// ptsn::Error when `tree` cannot be read or the mirror cannot be written.
ImportReport ImportProfiles(const std::string& tree, const std::string& mirror_dir, std::time_t now);

// The index entry a profile directory contributes (title, type, ... from its test-definition.xml).
ob::IndexTest IndexEntryFor(const std::string& profile_dir, std::time_t now);

// What the protocol handlers read: indexes and zips, from memory after the first read (reloaded
// when the file changes, so an import is served without a restart).
class ProfileMirror {
 public:
  explicit ProfileMirror(std::string mirror_dir) : dir_(std::move(mirror_dir)) {}
  const std::string& directory() const { return dir_; }
  // The index document of `repo` as stored; nullopt when the mirror has none.
  std::shared_ptr<const std::string> Index(const std::string& repo);
  // The zip of "pts/fs-mark-1.0.3" with its sha1; nullopt when the mirror has no such profile.
  std::shared_ptr<const ob::AcquiredTest> Test(const std::string& qualified);

 private:
  struct Cached {
    std::time_t mtime = 0;
    long long size = -1;
    std::shared_ptr<const void> value;
  };
  std::shared_ptr<const void> Load(const std::string& path, bool zip);
  std::string dir_;
  std::mutex mu_;
  std::map<std::string, Cached> cache_;
};

}  // namespace ptsn::server
