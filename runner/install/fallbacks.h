// Where a download that has moved may still be found: when every URL of a profile's file fails,
// the file is looked up by the SHA256 its downloads.xml gives, in order,
//   1. download-cache directories: PTS's (pts-download-cache.json lists each file's sha256) and
//      ours (by-sha256/<sha256>, a hard link kept beside every verified file we cache);
//   2. results servers: GET <server>/downloads/<sha256> (pts-native-server import-downloads);
//   3. the Debian source archive: its Sources index lists the SHA256 of every upstream tarball.
// A fallback only says where to look; AcquireFiles uses what it finds only when the SHA256
// matches, and the outcome names where the file came from. Remote fallbacks go through the
// Fetcher, so offline they open no socket.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runner/install/debian_sources.h"
#include "runner/install/fetcher.h"

namespace ptsn::install {

struct FallbackCandidate {
  std::string url;     // file://, http:// or https://
  std::string origin;  // for notes: "the Debian archive (bookworm/main)"
};

class DownloadFallback {
 public:
  virtual ~DownloadFallback() = default;
  // Places that may hold the file with this SHA256 (lower-case hex), best first. Problems met
  // on the way (an index that could not be fetched) are appended to `problems`.
  virtual std::vector<FallbackCandidate> Locate(const std::string& sha256, Fetcher& fetcher,
                                                std::vector<std::string>& problems) = 0;
  // Whether a copy is on this machine (offline planning); never opens a socket.
  virtual bool HasLocalCopy(const std::string& sha256) const { return (void)sha256, false; }
};

// Our cache's index of verified files by SHA256: "<cache>/by-sha256/<sha256>".
std::string BySha256Path(const std::string& cache_dir, const std::string& sha256);
// Links (else copies) `file` as its by-sha256 entry; failures are ignored (it is an index).
void RecordBySha256(const std::string& cache_dir, const std::string& file, const std::string& sha256);

std::unique_ptr<DownloadFallback> MakeCacheDirectoryFallback(std::vector<std::string> directories);
std::unique_ptr<DownloadFallback> MakeServerFallback(std::vector<std::string> server_urls);
std::unique_ptr<DownloadFallback> MakeDebianArchiveFallback(DebianArchive archive);

// The fallbacks the settings name: `order` lists "cache", "server" and "debian" (comma or space
// separated; "none" or "" = none) in the order they are tried.
struct FallbackSources {
  std::string order = "cache,server,debian";
  std::vector<std::string> cache_directories;
  std::vector<std::string> servers;
  DebianArchive debian;
};
// Throws ptsn::Error naming the unknown word.
std::vector<std::shared_ptr<DownloadFallback>> MakeFallbacks(const FallbackSources& sources);

}  // namespace ptsn::install
