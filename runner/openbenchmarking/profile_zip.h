// The zip archives acquire_test carries: a test profile's directory (test-definition.xml,
// downloads.xml, install.sh, ... at the top of the archive, as OpenBenchmarking.org packs them).
// Written and read in memory with minizip (Debian's libminizip). A zip from a server is
// untrusted: reading checks every entry before anything touches the disk — no absolute paths,
// no "..", no backslashes, no symbolic links or other special files, no encryption, CRCs
// verified, and the number of entries and the bytes they inflate to bounded (a small zip cannot
// expand into gigabytes; sizes are counted as inflated, not taken from the headers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ptsn::ob {

struct ZipError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ZipLimits {
  size_t max_entries = 1000;
  std::uint64_t max_file_bytes = 16u << 20;   // one entry, inflated
  std::uint64_t max_total_bytes = 64u << 20;  // all entries, inflated
};

struct ZipEntry {
  std::string name;  // "install.sh", "patches/a.diff"; directories end in '/'
  std::string data;
  bool executable = false;
};

// A deterministic archive (fixed dates, entries in the order given, DEFLATE level 9): the same
// files always give the same bytes, so a profile's sha1 is stable across imports.
std::string WriteZip(const std::vector<ZipEntry>& entries);
// The regular files below `dir`, relative names sorted; symbolic links and other special files
// are left out. Throws ZipError naming the file that cannot be read.
std::vector<ZipEntry> DirectoryEntries(const std::string& dir);

// Every entry, checked as described above. Throws ZipError naming the entry at fault.
std::vector<ZipEntry> ReadZip(std::string_view zip, const ZipLimits& limits = {});

// ReadZip, then writes the entries below `dest`, which must not exist yet: into a new
// temporary sibling directory first (files created exclusively, never through a link), renamed
// to `dest` when complete, so `dest` is either whole or absent. Throws ZipError.
void ExtractZip(std::string_view zip, const std::string& dest, const ZipLimits& limits = {});

}  // namespace ptsn::ob
