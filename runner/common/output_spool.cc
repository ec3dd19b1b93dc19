#include "runner/common/output_spool.h"

#include <fcntl.h>
#include <sys/sendfile.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "runner/common/atomic_file.h"
#include "runner/common/error.h"

namespace ptsn {

namespace {

std::string DefaultTempDir() {
  const char* env = std::getenv("TMPDIR");
  return env && *env ? env : "/tmp";
}

constexpr size_t kChunk = size_t{256} << 10;

// Chunks no spool holds, kept for the next (up to 16 MiB of them).
class ChunkPool {
 public:
  std::unique_ptr<char[]> Take() {
    {
      std::lock_guard lock(mutex_);
      if (!free_.empty()) {
        auto chunk = std::move(free_.back());
        free_.pop_back();
        return chunk;
      }
    }
    return std::unique_ptr<char[]>(new char[kChunk]);  // not value-initialised: untouched pages
  }
  void Give(std::unique_ptr<char[]> chunk) {
    std::lock_guard lock(mutex_);
    if (free_.size() < 64) free_.push_back(std::move(chunk));
  }

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<char[]>> free_;
};

ChunkPool& Pool() {
  static ChunkPool* pool = new ChunkPool;  // never destroyed: spools may outlive static destruction order
  return *pool;
}

}  // namespace

OutputSpool::OutputSpool(size_t memory_limit, std::string dir)
    : limit_(memory_limit), dir_(dir.empty() ? DefaultTempDir() : std::move(dir)) {}

OutputSpool::~OutputSpool() {
  ReleaseChunks();
  if (fd_ >= 0) ::close(fd_);
}

void OutputSpool::ReleaseChunks() {
  for (auto& chunk : chunks_) Pool().Give(std::move(chunk));
  chunks_.clear();
}

void OutputSpool::Fail(const std::string& what) const {
  throw FileError(dir_, "cannot keep the output in a temporary file here: " + what);
}

void OutputSpool::Spill() {
  // Unlinked from the start: nothing is left behind, whatever happens to the process.
  int fd = ::open(dir_.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
    std::string name = dir_ + "/pts-native-output.XXXXXX";
    fd = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd >= 0) ::unlink(name.c_str());
  }
  if (fd < 0) Fail(std::strerror(errno));
  ReadBack([&](std::string_view text) {  // from memory: fd_ is not set yet
    if (!WriteAll(fd, text)) {
      const int error = errno;
      ::close(fd);
      Fail(std::strerror(error));
    }
  });
  fd_ = fd;
  ReleaseChunks();
}

void OutputSpool::Write(std::string_view text) {
  if (fd_ < 0 && size_ + text.size() > limit_) Spill();
  if (fd_ >= 0) {
    if (!WriteAll(fd_, text)) Fail(std::strerror(errno));
    size_ += text.size();
    return;
  }
  while (!text.empty()) {
    const size_t used = size_ % kChunk;
    if (used == 0 && size_ / kChunk == chunks_.size()) chunks_.push_back(Pool().Take());
    const size_t n = std::min(text.size(), kChunk - used);
    std::memcpy(chunks_.back().get() + used, text.data(), n);
    text.remove_prefix(n);
    size_ += n;
  }
}

void OutputSpool::Clear() {
  ReleaseChunks();
  if (fd_ >= 0 && (::ftruncate(fd_, 0) != 0 || ::lseek(fd_, 0, SEEK_SET) != 0)) Fail(std::strerror(errno));
  size_ = 0;
}

void OutputSpool::CopyTo(int fd, const std::string& fd_name) const {
  auto fail = [&] { throw Error("cannot write to " + fd_name + ": " + std::strerror(errno)); };
  if (fd_ < 0) {
    ReadBack([&](std::string_view text) {
      if (!WriteAll(fd, text)) fail();
    });
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
    for (size_t i = 0; i < chunks_.size(); ++i)
      take(std::string_view(chunks_[i].get(), std::min(kChunk, size_ - i * kChunk)));
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
