// An exclusive lock on a lock file (flock): what serialises processes that change one thing on
// disk (a result file, an install directory). The kernel releases it when the holder dies, so a
// killed run never leaves it held. The lock file itself stays.
#pragma once

#include <string>

namespace ptsn {

class FileLock {
 public:
  // Makes the file (not its directory) when missing and waits for the lock; throws ptsn::Error
  // naming the file when it cannot be opened or locked.
  explicit FileLock(const std::string& path);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace ptsn
