// A cache of parsed profile directories, so loading the same profiles again skips XML parsing and
// schema validation. One file (the profiles.parse_cache setting) holds, per profile directory:
// the hash of its listing, the content hash of every XML file read, the hash of the XSDs it was
// validated against, and what ReadProfileDirectory() produced (the ProfileSource, its loader
// issues and schema issues). An entry is used only when the directory listing and every file's
// bytes hash the same as when it was written (files are still read, only not parsed), and the
// schemas too when validation is asked for; anything else - a changed, added or removed file, other
// schemas, a truncated or corrupt cache file, another format version - falls back to the cold
// path, so a load through the cache gives exactly what a load without it gives.
#pragma once

#include <atomic>
#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "runner/profile/profile_loader.h"

namespace ptsn::profile {

class ProfileCache {
 public:
  // Reads `path` if it exists; a file that is unreadable, truncated, corrupt or of another format
  // is ignored (load_problem() says why) and replaced on Save(). The file is read and checked on
  // another thread, so the caller can list its profile directories meanwhile; the first Read(),
  // Save() or load_problem() waits for it.
  explicit ProfileCache(std::string path);
  // Saves what changed, best effort (a cache that cannot be written only costs speed).
  ~ProfileCache();
  ProfileCache(const ProfileCache&) = delete;
  ProfileCache& operator=(const ProfileCache&) = delete;

  // ReadProfileDirectory() through the cache (how.inputs is ignored). Thread-safe.
  ProfileSource Read(const std::string& dir, const std::string& identifier, std::vector<LoadIssue>* issues,
                     const DirectoryRead& how = {});

  // Writes the cache atomically when an entry was added or replaced since the last Save(),
  // dropping entries whose directory is gone; throws ptsn::Error naming the file when it cannot be
  // written. Not to be called while another thread is in Read().
  void Save();

  const std::string& path() const { return path_; }
  const std::string& load_problem() const;
  size_t hits() const { return hits_; }
  size_t misses() const { return misses_; }

  struct Entry {
    ProfileInputs inputs;
    uint64_t schema_hash = 0;  // 0: not validated
    ProfileSource source;
    std::vector<LoadIssue> issues, schema_issues;
  };

 private:
  void Load();               // reads and checks the file (on the loading thread)
  void WaitLoaded() const;   // returns once Load() has run
  std::string path_;
  std::string load_problem_;
  // The file's bytes and, per normalized directory, its entry's bytes: entries are decoded only
  // when used, by the thread that uses them, straight into the caller's ProfileSource.
  FileSnapshot raw_;
  std::map<std::string, std::string_view, std::less<>> stored_;  // read-only once loaded
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const Entry>> updates_;  // written by this process (mutex_)
  bool dirty_ = false;                                             // updates_ not saved yet (mutex_)
  std::atomic<size_t> hits_{0}, misses_{0};
  mutable std::once_flag loaded_;
  mutable std::future<void> loading_;  // Load() on its thread; invalid when it ran in the constructor
};

}  // namespace ptsn::profile
