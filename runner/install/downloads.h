// Getting a profile's downloads.xml files into its install directory: caches first (ours, a PTS
// download-cache, install.extra_caches: directories or file:// / http:// base URLs), then the
// mirrors in the order the profile lists them, then — for a file that has moved — the fallbacks
// that find it by its SHA256 (fallbacks.h). Every file is verified; a file with a wrong
// checksum is deleted and the report says which URL (or cache) gave what.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "runner/install/checksum.h"
#include "runner/install/fetcher.h"
#include "runner/install/fallbacks.h"

namespace ptsn::install {

struct DownloadItem {
  std::vector<std::string> urls;  // mirrors, in order
  std::string file_name;
  FileCheck check;
  bool optional = false;
};

struct CacheLocation {
  std::string location;  // a directory, or a base URL (file://..., http://...)
  bool IsUrl() const;
};

struct DownloadOptions {
  std::string download_cache;          // ours: verified downloads are kept here ("" = none)
  std::vector<CacheLocation> caches;   // searched after the install dir and before the mirrors
  bool skip_hashes = false;            // NO_FILE_HASH_CHECKS (never for fallbacks: they need the SHA256)
  // Tried in order when every URL failed, for files whose SHA256 is known.
  std::vector<std::shared_ptr<DownloadFallback>> fallbacks;
};

struct DownloadOutcome {
  std::string file_name;
  bool ok = false;
  std::string source;                 // where it came from: "install dir", a cache dir, a URL
  std::string fallback;               // set when a fallback gave it: "the Debian archive (bookworm/main)"
  std::vector<std::string> problems;  // "URL: sha256 is X, expected Y", "URL: HTTP 404", ...
};

struct DownloadReport {
  std::vector<DownloadOutcome> files;
  bool ok() const;                         // every non-optional file present
  std::vector<std::string> Missing() const;  // "name (tried: ...)" for each failed required file
  // One sentence per file a fallback gave: "dbench-4.0.tar.gz was not at its URLs; it came from
  // the Debian archive (bookworm/main): URL, SHA256 verified."
  std::vector<std::string> FallbackNotes() const;
};

// The caches named by the settings: our download cache, <pts_home>/download-cache, then each
// ':'-separated entry of install.extra_caches (URLs may contain ':' — "http://h:80/x" stays whole),
// then PTS_DOWNLOAD_CACHE entries.
std::vector<CacheLocation> CacheLocationsFrom(const std::string& our_cache, const std::string& pts_home,
                                              const std::string& extra_caches, const std::string& pts_download_cache_env);

// Where `item` goes in (or is looked for in) `folder`, described as `folder_label` ("the install
// folder", "the download cache"): every downloads path is made here (runner/common/path_below.h),
// so a FileName that would leave the folder ("../../x", "/etc/x", "a/b") throws Error:
// "downloads.xml FileName '../../x' leaves the install folder (a '..' component)".
std::string DownloadPath(const std::string& folder, const DownloadItem& item, std::string_view folder_label);

// Puts each file into `install_dir`. Throws Error (DownloadPath) for a FileName that names no
// file in the folders, before anything of that file is fetched. `fetcher` decides whether the network may be used.
DownloadReport AcquireFiles(const std::vector<DownloadItem>& items, const std::string& install_dir,
                            const DownloadOptions& options, Fetcher& fetcher);

// Offline planning: which files are neither in the install dir nor in a reachable cache.
std::vector<std::string> MissingOffline(const std::vector<DownloadItem>& items, const std::string& install_dir,
                                        const DownloadOptions& options);

}  // namespace ptsn::install
