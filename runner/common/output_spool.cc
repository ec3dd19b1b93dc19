#include "runner/common/output_spool.h"

#include <fcntl.h>
#include <sys/sendfile.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "runner/common/atomic_file.h"
#include "runner/common/error.h"

namespace ptsn {

namespace {

std::string DefaultTempDir() {
  const char* env = std::getenv("TMPDIR");
  return env && *env ? env : "/tmp";
}

}  // namespace

OutputSpool::OutputSpool(size_t memory_limit, std::string dir)
    : limit_(memory_limit), dir_(dir.empty() ? DefaultTempDir() : std::move(dir)) {}

OutputSpool::~OutputSpool() {
  if (fd_ >= 0) ::close(fd_);
}

void OutputSpool::Fail(const std::string& what) const {
  throw FileError(dir_, "cannot keep the output in a temporary file here: " + what);
}

void OutputSpool::Spill() {
  // Unlinked from the start: nothing is left behind, whatever happens to the process.
  fd_ = ::open(dir_.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd_ < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
    std::string name = dir_ + "/pts-native-output.XXXXXX";
    fd_ = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd_ >= 0) ::unlink(name.c_str());
  }
  if (fd_ < 0) Fail(std::strerror(errno));
  if (!WriteAll(fd_, memory_)) Fail(std::strerror(errno));
  std::string().swap(memory_);
}

void OutputSpool::Write(std::string_view text) {
  if (fd_ < 0 && memory_.size() + text.size() > limit_) Spill();
  if (fd_ < 0) memory_.append(text);
  else if (!WriteAll(fd_, text)) Fail(std::strerror(errno));
  size_ += text.size();
}

void OutputSpool::Clear() {
  memory_.clear();
  if (fd_ >= 0 && (::ftruncate(fd_, 0) != 0 || ::lseek(fd_, 0, SEEK_SET) != 0)) Fail(std::strerror(errno));
  size_ = 0;
}

void OutputSpool::CopyTo(int fd, const std::string& fd_name) const {
  auto fail = [&] { throw Error("cannot write to " + fd_name + ": " + std::strerror(errno)); };
  if (fd_ < 0) {
    if (!WriteAll(fd, memory_)) fail();
    return;
  }
  off_t at = 0;
  while (static_cast<size_t>(at) < size_) {
    ssize_t n = ::sendfile(fd, fd_, &at, size_ - static_cast<size_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EINVAL || errno == ENOSYS)) break;  // e.g. an O_APPEND file: copy by hand
    if (n <= 0) fail();
  }
  ReadFileFrom(at, [&](std::string_view text) {
    if (!WriteAll(fd, text)) fail();
  });
}

void OutputSpool::ReadBack(const std::function<void(std::string_view)>& take) const {
  if (fd_ < 0) {
    if (!memory_.empty()) take(memory_);
    return;
  }
  ReadFileFrom(0, take);
}

void OutputSpool::ReadFileFrom(off_t at, const std::function<void(std::string_view)>& take) const {
  std::string buffer(size_t{256} << 10, '\0');
  while (static_cast<size_t>(at) < size_) {
    ssize_t n = ::pread(fd_, buffer.data(), std::min(buffer.size(), size_ - static_cast<size_t>(at)), at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) Fail(n < 0 ? std::strerror(errno) : "the temporary file is shorter than what was written");
    take(std::string_view(buffer.data(), static_cast<size_t>(n)));
    at += n;
  }
}

}  // namespace ptsn
