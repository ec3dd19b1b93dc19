#include "results-xml/file_bytes.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "runner/common/atomic_file.h"

namespace ptsn::results {

namespace {

// The buffer a thread keeps between small files (the largest one handed back).
struct KeptBuffer {
  std::unique_ptr<char[]> data;
  size_t capacity = 0;
};
thread_local KeptBuffer kept;

}  // namespace

FileBytes::FileBytes(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    const auto size = static_cast<size_t>(st.st_size);
    if (size <= kReadAtMost) {
      ReadSmall(fd, size);
    } else {
      // MAP_POPULATE: the pages are mapped in this one call instead of one fault per 4 KB.
      void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
      if (map != MAP_FAILED) {
        map_ = map;
        size_ = size;
      }
    }
  }
  if (fd >= 0) close(fd);
  if (!map_ && !buffer_) copy_ = ReadFile(path);  // and its errors: cannot open, a directory, cannot read
}

// The file's `size` bytes into the thread's kept buffer (or a new one); buffer_ stays empty if it
// has fewer now or cannot be read (ReadFile then reads it, or says why not).
void FileBytes::ReadSmall(int fd, size_t size) {
  if (kept.capacity >= size) {
    buffer_ = std::move(kept.data);
    buffer_capacity_ = kept.capacity;
    kept.capacity = 0;
  } else {
    buffer_capacity_ = size + (size >> 2);  // room for a somewhat larger next file
    buffer_ = std::make_unique_for_overwrite<char[]>(buffer_capacity_);
  }
  size_t have = 0;
  // The bytes fstat counted, as a mapping would hold (a file that shrank since is read again).
  while (have < size) {
    const ssize_t n = read(fd, buffer_.get() + have, size - have);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    have += static_cast<size_t>(n);
  }
  if (have == size) {
    size_ = size;
    return;
  }
  kept.data = std::move(buffer_);  // (not this file's bytes: ReadFile reads it)
  kept.capacity = buffer_capacity_;
}

FileBytes::~FileBytes() {
  if (map_) munmap(map_, size_);
  if (buffer_ && buffer_capacity_ > kept.capacity) {
    kept.data = std::move(buffer_);
    kept.capacity = buffer_capacity_;
  }
}

}  // namespace ptsn::results
