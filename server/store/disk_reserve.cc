#include "server/store/disk_reserve.h"

#include <fcntl.h>
#include <unistd.h>

namespace ptsn::server {

bool DiskReserve::Hold() {
  if (bytes_ == 0) return held_ = true;
  int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return held_ = false;
  const bool ok = ::posix_fallocate(fd, 0, static_cast<off_t>(bytes_)) == 0;
  ::close(fd);
  if (!ok) ::unlink(path_.c_str());  // a part of it would only take room nobody can use
  return held_ = ok;
}

void DiskReserve::GiveUp() {
  if (bytes_ > 0) ::unlink(path_.c_str());
  held_ = false;
}

}  // namespace ptsn::server
