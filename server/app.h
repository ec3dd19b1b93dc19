// The HTTP surface of the results server: the OpenBenchmarking client protocol
// (POST /f/client.php), a small JSON API under /api/v1, the web pages and /healthz.
// Handlers are thin: decode → check → Storage → encode.
#pragma once

#include <cstddef>
#include <ctime>
#include <functional>
#include <memory>
#include <string>

#include "server/rate_limit.h"
#include "server/storage.h"
#include "server/upload_check.h"

namespace httplib {
class Server;
}

namespace ptsn::server {

struct ServerOptions {
  std::string public_url;                 // base of the "url" in upload answers; "" = from the Host header
  size_t max_body_bytes = 16 << 20;       // whole request
  size_t max_xml_bytes = 8 << 20;         // the result file after decompression
  UploadLimits xml_limits;
  double write_rate_per_second = 10;      // uploads + deletes + failed logins per client address; 0 = off
  double write_burst = 60;
  int threads = 64;                       // one per keep-alive connection being served
};

using WallClock = std::function<std::time_t()>;

class App {
 public:
  App(Storage& storage, ServerOptions options, WallClock clock = [] { return std::time(nullptr); },
      RateLimiter::Clock rate_clock = RateLimiter::SteadySeconds);
  ~App();
  // Installs every route, the limits and the error handlers on `server`.
  void Install(httplib::Server& server);

  const ServerOptions& options() const { return options_; }
  Storage& storage() { return storage_; }

  // The upload path shared by the protocol and the JSON API. Throws HttpError.
  struct Stored {
    std::string id;
  };
  Stored StoreUpload(const std::string& owner, std::string xml, std::optional<std::string> logs,
                     std::string local_file_name, bool unlisted);

 private:
  Storage& storage_;
  ServerOptions options_;
  WallClock clock_;
  RateLimiter write_limiter_;
  std::unique_ptr<struct Routes> routes_;  // the handlers keep a pointer to it
  friend struct Routes;
};

// A client error the handlers turn into a status and a one-line message.
struct HttpError {
  int status;
  std::string message;
};

}  // namespace ptsn::server
