// The few file-system operations profile loading needs, done with plain POSIX calls: listing a
// directory uses the entry types readdir() already returns (no stat per entry), and a file is
// opened and read exactly once. std::filesystem's probing (exists/is_directory/status) costs
// several stat calls per file, which dominated loading the 600-profile corpus.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ptsn::profile {

// What stat() says of a file, to know it is unchanged without reading it (as git's index does).
// All zero ("unknown") when the file changed within the last seconds: a write in the same clock
// tick could leave size and timestamps as they were, so such a file is always compared by content.
struct FileStamp {
  uint64_t dev = 0, ino = 0, size = 0;
  int64_t mtime_ns = 0, ctime_ns = 0;  // ctime cannot be set by users: a rewrite always moves it
  bool known() const { return ino != 0 || mtime_ns != 0 || ctime_ns != 0; }
  bool operator==(const FileStamp&) const = default;
};
struct DirEntry {
  std::string name;
  bool is_directory = false;  // symlinks are followed
  bool is_regular = false;
  FileStamp stamp;  // StampOf() this entry, taken while listing; unknown unless asked for (see below)
};

// Entries of `dir` except "." and "..", sorted by name; false when it cannot be opened. When
// `stamp_wanted` is given, the regular files it names get their stamp in the same pass: one
// fstatat() relative to the open directory instead of a stat() walking the whole path later.
bool ListDirectory(const std::string& dir, std::vector<DirEntry>* out, bool (*stamp_wanted)(std::string_view) = nullptr);

// The stamp of `path` (following links) for comparing with a recorded one; unknown when absent.
FileStamp StampOf(const std::string& path);

// Reads the whole file into `out`, and its stamp (taken before reading) into `stamp` when given.
// On failure returns false with strerror text in `error`.
bool ReadWholeFile(const std::string& path, std::string* out, std::string* error, FileStamp* stamp = nullptr);

// The bytes of a whole file, read once into memory the kernel hands over already populated (one
// mmap(MAP_POPULATE) instead of a page fault per 4 KiB and a zero fill): for the MB-sized profile
// cache, read at every start. A private copy, so later writes to the file cannot change it.
class FileSnapshot {
 public:
  FileSnapshot() = default;
  ~FileSnapshot() { Clear(); }
  FileSnapshot(const FileSnapshot&) = delete;
  FileSnapshot& operator=(const FileSnapshot&) = delete;
  // False with strerror text in `error` when it cannot be read (or changed size while read).
  bool Read(const std::string& path, std::string* error);
  void Clear();
  std::string_view view() const { return {data_, size_}; }

 private:
  char* data_ = nullptr;
  size_t size_ = 0, mapped_ = 0;
};

// A fast 64-bit content hash (not cryptographic: it tells "changed" from "unchanged" for the
// profile cache, where a collision only costs a stale entry on a deliberately forged file).
uint64_t ContentHash(std::string_view data, uint64_t seed = 0);

}  // namespace ptsn::profile
