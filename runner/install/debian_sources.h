// The Debian source archive as a place to find an upstream tarball by its SHA256. Each suite's
// `Sources` index (<mirror>/dists/<suite>/<component>/source/Sources.xz) lists, per source
// package, its `Directory` in the pool and the `Checksums-Sha256` of every file there — among
// them the `.orig.tar.*` that is, for many programs, the very tarball a PTS profile downloads.
// The index is fetched through a Fetcher (so offline never opens a socket), decompressed with
// liblzma, reduced to "sha256 size pool-path" lines and kept under our data directory for a TTL.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "runner/install/fetcher.h"

namespace ptsn::install {

struct DebianSourceFile {
  std::string sha256;   // lower-case hex
  long long size = 0;
  std::string path;     // "pool/main/d/dbench/dbench_4.0.orig.tar.gz", relative to the mirror
};

// The files of a Sources text (deb822 paragraphs; only Checksums-Sha256, joined with each
// paragraph's Directory). Paragraphs without a Directory and malformed lines are skipped.
std::vector<DebianSourceFile> ParseDebianSources(std::string_view text);

// Decompresses an .xz file (liblzma). Throws ptsn::Error naming `path` when it is not valid xz.
std::string ReadXzFile(const std::string& path);

struct DebianArchive {
  std::string mirror = "http://deb.debian.org/debian";  // no trailing '/'
  std::vector<std::string> suites = {"bookworm"};
  std::vector<std::string> components = {"main"};
  std::string cache_dir;       // where the parsed indexes are kept ("" = not kept)
  long long ttl_seconds = 7 * 24 * 3600;
};

// One suite/component's index, loaded from the cache or fetched (when stale or absent).
class DebianSourcesIndex {
 public:
  // Loads the cached index of `suite`/`component` when younger than the TTL, else fetches and
  // parses Sources.xz and caches it. A fetch that fails falls back to a stale cached index
  // (noted in `problems`); with neither, the index is empty and `problems` says why.
  static DebianSourcesIndex Load(const DebianArchive& archive, const std::string& suite, const std::string& component,
                                 Fetcher& fetcher, std::vector<std::string>& problems);
  explicit DebianSourcesIndex(const std::vector<DebianSourceFile>& files);
  DebianSourcesIndex() = default;

  std::optional<DebianSourceFile> Find(const std::string& sha256) const;
  size_t size() const { return by_sha256_.size(); }

 private:
  std::unordered_map<std::string, DebianSourceFile> by_sha256_;
};

// The cache file of one index: "<cache_dir>/<suite>-<component>-<hash of mirror>.idx".
std::string DebianIndexPath(const DebianArchive& archive, const std::string& suite, const std::string& component);

}  // namespace ptsn::install
