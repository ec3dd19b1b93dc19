#include "runner/common/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runner/common/atomic_file.h"
#include "runner/common/error.h"

namespace ptsn {

FileLock::FileLock(const std::string& path) : FileLock(path, true) {}

FileLock::FileLock(const std::string& path, bool wait) {
  fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw FileError(path, std::string("cannot open the lock file: ") + std::strerror(errno));
  while (flock(fd_, wait ? LOCK_EX : LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    int e = errno;
    close(fd_);
    fd_ = -1;
    if (e == EWOULDBLOCK && !wait) return;
    throw FileError(path, std::string("cannot lock: ") + std::strerror(e));
  }
}

std::optional<FileLock> FileLock::TryClaim(const std::string& path) {
  while (true) {
    FileLock lock(path, false);
    if (!lock.locked()) return std::nullopt;
    // Locked, but the file may be one its last holder removed after this open: then the claim
    // is the file now at `path` (made anew if none), tried again.
    struct stat held {}, now {};
    if (fstat(lock.fd_, &held) == 0 && stat(path.c_str(), &now) == 0 && held.st_dev == now.st_dev &&
        held.st_ino == now.st_ino) {
      lock.remove_ = path;
      return lock;
    }
  }
}

FileLock::FileLock(FileLock&& other) noexcept : remove_(std::move(other.remove_)), fd_(other.fd_) { other.fd_ = -1; }

FileLock::~FileLock() {
  if (fd_ < 0) return;
  if (!remove_.empty()) unlink(remove_.c_str());  // before the lock goes: see TryClaim
  close(fd_);  // releases the lock
}

void FileLock::Note(std::string_view text) {
  if (ftruncate(fd_, 0) == 0 && lseek(fd_, 0, SEEK_SET) == 0) WriteAll(fd_, text);
}

}  // namespace ptsn
