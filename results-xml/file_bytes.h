// The bytes of a result file, read-only and mapped rather than copied: a 4 MB composite.xml read
// into a string costs ~1,000 page faults (zero-fill, then copy) — a third of an export's time —
// where a populated private mapping of the page-cache pages costs one mmap call.
#pragma once

#include <string>
#include <string_view>

namespace ptsn::results {

class FileBytes {
 public:
  // Errors are ReadFile's (runner/common/atomic_file.h), naming `path`. Files that cannot be
  // mapped (empty, /proc, pipes, mmap refused) are read with ReadFile instead.
  explicit FileBytes(const std::string& path);
  ~FileBytes();
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;

  std::string_view view() const { return map_ ? std::string_view(static_cast<const char*>(map_), size_) : copy_; }

 private:
  void* map_ = nullptr;
  size_t size_ = 0;
  std::string copy_;
};

}  // namespace ptsn::results
