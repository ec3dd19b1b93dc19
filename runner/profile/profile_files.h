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

struct DirEntry {
  std::string name;
  bool is_directory = false;  // symlinks are followed
  bool is_regular = false;
};

// Entries of `dir` except "." and "..", sorted by name; false when it cannot be opened.
bool ListDirectory(const std::string& dir, std::vector<DirEntry>* out);

// Reads the whole file into `out`. On failure returns false with strerror text in `error`.
bool ReadWholeFile(const std::string& path, std::string* out, std::string* error);

// A fast 64-bit content hash (not cryptographic: it tells "changed" from "unchanged" for the
// profile cache, where a collision only costs a stale entry on a deliberately forged file).
uint64_t ContentHash(std::string_view data, uint64_t seed = 0);

}  // namespace ptsn::profile
