// The bytes of a result file, read-only, without a copy per reader: a large file is mapped (a 4 MB
// composite.xml read into a fresh string costs ~1,000 page faults, zero-fill then copy, a third of
// an export's time, where a populated private mapping of the page-cache pages costs one mmap
// call); a small one is read into a buffer the thread keeps for the next file, so that reading
// many files one after another (merge-results) touches the same memory and makes no mmap and
// munmap per file (an munmap while another thread of the process runs also costs a TLB flush on
// that thread's CPU).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace ptsn::results {

class FileBytes {
 public:
  // Errors are ReadFile's (runner/common/atomic_file.h), naming `path`. Files that cannot be
  // mapped or read so (empty, /proc, pipes, mmap refused) are read with ReadFile instead.
  explicit FileBytes(const std::string& path);
  ~FileBytes();
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;

  std::string_view view() const {
    if (map_) return {static_cast<const char*>(map_), size_};
    if (buffer_) return {buffer_.get(), size_};
    return copy_;
  }

  // Files up to this size are read into the thread's buffer, larger ones mapped.
  static constexpr size_t kReadAtMost = 1 << 20;

 private:
  void ReadSmall(int fd, size_t size);

  void* map_ = nullptr;
  std::unique_ptr<char[]> buffer_;  // (the thread's kept buffer, while this holds it)
  size_t buffer_capacity_ = 0;
  size_t size_ = 0;
  std::string copy_;
};

}  // namespace ptsn::results
