// The server as a place to find test downloads that have moved: files imported into a directory
// under their SHA256 (`pts-native-server import-downloads DIR --data D`) and served read-only
// as GET /downloads/<sha256>. A client uses such a file only when its SHA256 is the one the
// profile gives (runner/install/fallbacks.h), so the server needs no trust of its own.
#pragma once

#include <string>

#include "server/http/http.h"

namespace ptsn::server {

struct ImportedDownloads {
  size_t added = 0;      // new files
  size_t present = 0;    // already there (same SHA256)
  size_t bytes = 0;      // of the added files
};

// Copies every regular file below `source` (recursively; symlinks followed, our own by-sha256
// index skipped as a duplicate) into `store_dir`/<sha256>, atomically. Throws ptsn::Error
// naming a file that cannot be read or a store that cannot be written.
ImportedDownloads ImportDownloads(const std::string& source, const std::string& store_dir);

// GET /downloads/<64 hex digits>: the file from `store_dir`, streamed; 404 when absent. Only
// exact lower-case SHA256 names are served, so nothing else in (or above) the directory is.
void InstallDownloadRoutes(http::Router& router, const std::string& store_dir);

}  // namespace ptsn::server
