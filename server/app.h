// The HTTP surface of the results server: the OpenBenchmarking client protocol
// (POST /f/client.php), a small JSON API under /api/v1, the web pages and /healthz.
// Handlers are thin: decode → check → Storage → encode.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "server/http/fair_gate.h"
#include "server/fleet/fleet_service.h"
#include "server/store/group_commit.h"
#include "server/http/http.h"
#include "server/results/profile_mirror.h"
#include "server/http/rate_limit.h"
#include "server/http/single_flight.h"
#include "server/store/storage.h"
#include "server/http/ttl_cache.h"
#include "server/store/upload_check.h"

namespace ptsn::server {

struct ServerOptions {
  std::string public_url;                 // base of the "url" in upload answers; "" = from the Host header
  size_t max_body_bytes = 16 << 20;       // whole request, from a client with a valid token
  size_t anonymous_body_bytes = 64 << 10; // a POST without a token (a clone request is a few bytes)
  size_t max_xml_bytes = results::kMaxUploadXmlBytes;  // the result file after decompression
  UploadLimits xml_limits;
  // Uploads + deletes per token, and failed logins per client address; 0 = off.
  double write_rate_per_second = 10;
  double write_burst = 60;
  // Writes per client address, whatever the token (many clients may share one address);
  // < 0 = ten times the per-token figures.
  double address_rate_per_second = -1;
  double address_burst = -1;
  // A second upload of the same file (composite_xml_hash) with the same token within this many
  // seconds gets the first one's ID instead of a new result (a retry after a lost answer); 0 = off.
  int64_t dedupe_seconds = 24 * 3600;
  int cpu_slots = 0;                      // requests doing CPU work at once (FairGate); 0 = one per core
  double cache_seconds = 10;              // how long a fetched result / token is served from memory; 0 = off
  size_t cache_entries = 256;             // results kept in memory at most
  size_t cache_bytes = 256 << 20;         // ... and their bytes at most
  size_t page_results = 50;               // charts per result page (larger results are paged)
  double page_cache_seconds = 600;        // rendered pages kept (a delete here drops them at once)
  size_t page_cache_bytes = 64 << 20;
  FleetOptions fleet;                     // agents, schedules, history (server/fleet_service.h)
  std::string mirror_dir;                 // test profiles served to repo_index / acquire_test; "" = none
  bool anonymous_uploads = false;         // r=upload_test_result without a token, as OpenBenchmarking.org takes them
};

using WallClock = std::function<std::time_t()>;

class App {
 public:
  App(Storage& storage, ServerOptions options, WallClock clock = [] { return std::time(nullptr); },
      RateLimiter::Clock rate_clock = RateLimiter::SteadySeconds);
  ~App();
  // Adds every route and the error answers to `router`.
  void Install(http::Router& router);

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
  // `dedupe_key` (the token's hash): the same upload (file, logs, listing) this key stored within
  // dedupe_seconds is answered with that result's ID; "" = always a new result.
  Stored CommitUpload(const NewResult& result, const std::string& dedupe_key = "");
  // How old the storage's last answer to a health check may be for /healthz to say "ok" without
  // asking it again (see storage_answered_ms_).
  static constexpr int64_t kHealthFreshMs = 3000;

  // A stored result, from memory when it was fetched lately; nullptr when there is none.
  std::shared_ptr<const StoredResult> Fetch(const std::string& id);

 private:
  Storage& storage_;
  ServerOptions options_;
  WallClock clock_;
  RateLimiter write_limiter_;    // per token (and failed logins per address)
  RateLimiter address_limiter_;  // writes per address
  std::mutex health_mu_;          // held only to read or set write_failure_
  std::string write_failure_;    // why the last write failed; "" after a success
  GroupCommitter committer_;
  FairGate gate_;
  TtlCache<StoredResult> results_;
  TtlCache<std::string> users_;  // token → user name
  TtlCache<std::string> pages_;  // "ID[,ID...]#page" → rendered HTML
  SingleFlight<std::string> renders_;  // one render per page (or result JSON) at a time
  std::unique_ptr<FleetService> fleet_;
  std::unique_ptr<ProfileMirror> mirror_;  // options_.mirror_dir's profiles (ob_protocol.h)
  std::unique_ptr<struct Routes> routes_;  // the handlers keep a pointer to it

  // When the storage last answered a check (steady clock, ms; 0 after it failed one). A thread
  // checks every second, so that /healthz without a token, while all is well, is answered on the
  // event loop from this: no worker thread, no storage (under load, the hop to a worker took up
  // to 60 ms). Otherwise, or when the last answer is over kHealthFreshMs old (a storage that
  // stalls), /healthz asks the storage itself.
  std::atomic<int64_t> storage_answered_ms_;
  void NoteStorageCheck(bool answered);
  std::mutex checker_mu_;
  std::condition_variable checker_cv_;
  bool stopping_ = false;
  std::thread health_checker_;  // last: it starts once everything it uses is made
  friend struct Routes;
};

}  // namespace ptsn::server
