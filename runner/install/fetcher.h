// Fetching one URL to a file. Behind an interface so that offline mode can guarantee no socket
// is ever opened (OfflineFetcher refuses everything but file://) and tests can count requests.
#pragma once

#include <memory>
#include <string>

namespace ptsn::install {

struct FetchResult {
  bool ok = false;
  std::string error;  // "HTTP 404", "connection refused", ...
};

class Fetcher {
 public:
  virtual ~Fetcher() = default;
  // Downloads `url` into `dest`; if `dest` already holds a partial download it is resumed
  // (HTTP Range) when the server allows, else restarted.
  virtual FetchResult Fetch(const std::string& url, const std::string& dest) = 0;
  virtual bool CanReach(const std::string& url) const = 0;  // false: never attempted (offline)
};

// libcurl: http, https, ftp and file; redirects followed but an https URL never continues on
// plain http; http_proxy/https_proxy/no_proxy are honoured (libcurl reads them).
std::unique_ptr<Fetcher> MakeCurlFetcher(long connect_timeout_seconds = 20);
// Local files only (file:// URLs); everything else is refused without touching the network.
std::unique_ptr<Fetcher> MakeOfflineFetcher();

}  // namespace ptsn::install
