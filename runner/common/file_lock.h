// An exclusive lock on a lock file (flock): what serialises processes that change one thing on
// disk (a result file, an install directory). The kernel releases it when the holder dies, so a
// killed run never leaves it held. The lock file itself stays, except a claim's (TryClaim).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ptsn {

class FileLock {
 public:
  // Makes the file (not its directory) when missing and waits for the lock; throws ptsn::Error
  // naming the file when it cannot be opened or locked.
  explicit FileLock(const std::string& path);
  // A claim: the lock if no one holds it now, else nullopt (never waits). The file exists only
  // while the claim is held: it is made here and removed when the claim is released (a process
  // that opened it just before is never left holding a removed file). Throws as the constructor.
  static std::optional<FileLock> TryClaim(const std::string& path);
  ~FileLock();
  FileLock(FileLock&& other) noexcept;
  FileLock& operator=(FileLock&&) = delete;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

  // Replaces the lock file's text (who holds it, for whoever finds it held); best effort.
  void Note(std::string_view text);

 private:
  FileLock(const std::string& path, bool wait);
  bool locked() const { return fd_ >= 0; }
  std::string remove_;  // a claim's file, removed on release
  int fd_ = -1;
};

}  // namespace ptsn
