// The HTTP surface of the results server: the OpenBenchmarking client protocol
// (POST /f/client.php), a small JSON API under /api/v1, the web pages and /healthz.
// Handlers are thin: decode → check → Storage → encode.
#pragma once

#include <cstddef>
#include <ctime>
#include <functional>
#include <memory>
#include <string>

#include "server/fair_gate.h"
#include "server/fleet_service.h"
#include "server/group_commit.h"
#include "server/rate_limit.h"
#include "server/storage.h"
#include "server/ttl_cache.h"
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
  int cpu_slots = 0;                      // requests doing CPU work at once (FairGate); 0 = one per core
  double cache_seconds = 10;              // how long a fetched result / token is served from memory; 0 = off
  size_t cache_entries = 256;             // results kept in memory at most
  FleetOptions fleet;                     // agents, schedules, history (server/fleet_service.h)
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
  FleetService& fleet() { return *fleet_; }

  // The upload path shared by the protocol and the JSON API, in two steps: CheckUpload (CPU
  // only: limits, UTF-8, the result-file checks; callers run it inside the FairGate) and
  // CommitUpload (waits for the group commit; outside the gate). Both throw HttpError.
  struct Stored {
    std::string id;
  };
  // `xml_sha1` may be given when the caller already computed it; `xml_deflated`, the client's raw
  // DEFLATE of `xml` (composite_xml_gz, already checked to inflate to exactly `xml`).
  NewResult CheckUpload(const std::string& owner, std::string xml, std::optional<std::string> logs,
                        std::string local_file_name, bool unlisted, std::string xml_sha1 = "",
                        std::optional<std::string> xml_deflated = std::nullopt);
  Stored CommitUpload(const NewResult& result);
  // A stored result, from memory when it was fetched lately; nullptr when there is none.
  std::shared_ptr<const StoredResult> Fetch(const std::string& id);

 private:
  Storage& storage_;
  ServerOptions options_;
  WallClock clock_;
  RateLimiter write_limiter_;
  GroupCommitter committer_;
  FairGate gate_;
  TtlCache<StoredResult> results_;
  TtlCache<std::string> users_;  // token → user name
  std::unique_ptr<FleetService> fleet_;
  std::unique_ptr<struct Routes> routes_;  // the handlers keep a pointer to it
  friend struct Routes;
};

// A client error the handlers turn into a status and a one-line message.
struct HttpError {
  int status;
  std::string message;
};

}  // namespace ptsn::server
