#include "runner/common/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runner/common/error.h"

namespace ptsn {

FileLock::FileLock(const std::string& path) {
  fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw FileError(path, std::string("cannot open the lock file: ") + std::strerror(errno));
  while (flock(fd_, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    int e = errno;
    close(fd_);
    throw FileError(path, std::string("cannot lock: ") + std::strerror(e));
  }
}

FileLock::~FileLock() {
  if (fd_ >= 0) close(fd_);  // releases the lock
}

}  // namespace ptsn
