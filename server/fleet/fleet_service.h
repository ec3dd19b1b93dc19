// The fleet on the results server: agents register, long-poll for tasks, renew leases and
// upload results; users create schedules and run-now jobs and read their status; pages show
// machines, schedules and each machine's history. Each route takes the server's http::Request
// (its path's groups in `matches`) and answers through a callback (so a transport able to park a request
// can answer a long-poll later without a thread; see fleet_waiters.h), and app.cc registers
// Routes() in a few lines. A background thread expires leases, fires cron schedules, merges
// finished jobs (backstop for the merge done right after a job's last task) and writes
// last-seen times.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "server/fleet/fleet_store.h"
#include "server/fleet/fleet_waiters.h"
#include "server/fleet/fleet_webhook.h"
#include "server/http/http.h"
#include "server/store/storage.h"

namespace ptsn::server {

struct FleetOptions {
  TimeLimits limits;
  int poll_seconds = 25;         // longest long-poll an agent is held
  std::int64_t offline_after = 90;  // a machine not heard from in this long is offline
  RegressionPolicy policy;
  std::string webhook_url;       // "" = off
  double sweep_seconds = 1;
  std::int64_t merge_stale_seconds = 120;  // a merge claimed this long ago by a process that died is redone
  size_t max_result_bytes = 8 << 20;
  // Machines (their hardware and software), jobs, schedules and history are shown only to a
  // user's token unless this is set: a lab's inventory is not for anyone who finds the port.
  // (A browser sends no token: the /fleet pages need this.)
  bool public_reads = false;
};

// Answers a route once, now or later (a parked long-poll answers from another thread).
using FleetRespond = std::function<void(http::Response)>;

class FleetService {
 public:
  using Clock = std::function<std::int64_t()>;  // Unix seconds
  // The user a token belongs to (the server's own check, with its cache and limits); nullopt for none.
  using UserOf = std::function<std::optional<std::string>(const std::string& token)>;
  // Stores a merged result file as a normal result of `owner`; returns its ID. Throws FleetError.
  using StoreResult = std::function<std::string(const std::string& owner, const std::string& xml)>;

  FleetService(Storage& storage, FleetOptions options, UserOf user_of, StoreResult store_result,
               Clock clock = [] { return static_cast<std::int64_t>(std::time(nullptr)); });
  ~FleetService();

  struct Route {
    std::string method;   // GET | POST | DELETE
    std::string pattern;  // regular expression of the whole path
    std::function<void(const http::Request&, FleetRespond)> handle;
  };
  std::vector<Route> Routes();

  // The machine of an agent token (cached for 30 s); nullopt for an unknown or empty one.
  std::optional<std::string> AgentOf(const std::string& token);
  static constexpr const char* kUnknownAgentToken = "unknown agent token (a user token cannot act as an agent)";

  FleetStore& store() { return store_; }
  FleetWaiters& waiters() { return waiters_; }
  // One pass of the background work (tests call it instead of waiting for the thread).
  void Sweep();
  // Merges `job` when all of its tasks are over and nobody merged it yet.
  void MaybeMerge(std::int64_t job);

 private:
  // Agent routes.
  void Hello(const http::Request& req, const FleetRespond& respond);
  void Poll(const http::Request& req, const FleetRespond& respond);
  void Renew(const http::Request& req, const FleetRespond& respond);
  void Result(const http::Request& req, const FleetRespond& respond);
  void Failed(const http::Request& req, const FleetRespond& respond);
  void Release(const http::Request& req, const FleetRespond& respond);
  // User routes.
  void CreateJob(const http::Request& req, const FleetRespond& respond);
  void CreateSchedule(const http::Request& req, const FleetRespond& respond);
  void RunSchedule(const http::Request& req, const FleetRespond& respond);
  void DeleteSchedule(const http::Request& req, const FleetRespond& respond);
  // Reads.
  void JobStatus(const http::Request& req, const FleetRespond& respond);
  void Machines(const http::Request& req, const FleetRespond& respond);
  void MachineHistory(const http::Request& req, const FleetRespond& respond);
  void Regressions(const http::Request& req, const FleetRespond& respond);
  void ListSchedules(const http::Request& req, const FleetRespond& respond);
  void ListJobs(const http::Request& req, const FleetRespond& respond);
  // Pages.
  void FleetPage(const http::Request& req, const FleetRespond& respond);
  void MachinePage(const http::Request& req, const FleetRespond& respond);
  void JobPage(const http::Request& req, const FleetRespond& respond);

  std::string RequireAgent(const http::Request& req);
  std::string RequireUser(const http::Request& req);
  // For reads and pages: a user's token unless public_reads. `page`: asked by a browser, which
  // sends no token: the refusal tells the operator how to show the pages.
  void RequireReader(const http::Request& req, bool page = false);
  // The schedule `name` when `user` owns it; 404 when there is none, 403 when another user does.
  ScheduleRow OwnSchedule(const std::string& user, const std::string& name);
  void Seen(const std::string& machine);
  bool Online(const MachineRow& m);
  std::int64_t StartJob(const std::string& owner, const std::string& spec_json, const std::string& selector,
                        const std::string& title);
  void Finished(const std::vector<std::int64_t>& jobs);
  void Announce(const std::vector<HistoryRow>& flagged);
  void SweepLoop();

  Storage& storage_;
  FleetOptions options_;
  UserOf user_of_;
  StoreResult store_result_;
  Clock clock_;
  FleetStore store_;
  FleetWaiters waiters_;
  Webhook webhook_;
  std::int64_t started_at_;

  std::mutex seen_mu_;
  std::map<std::string, std::int64_t> seen_;    // last heard, not yet written
  std::map<std::string, std::int64_t> heard_;   // last heard by this process
  std::mutex tokens_mu_;
  std::map<std::string, std::pair<std::string, std::int64_t>> agent_tokens_;  // token sha → (machine, cached at)

  std::mutex sweep_mu_;
  std::condition_variable sweep_cv_;
  bool stop_ = false;
  std::int64_t last_touch_ = 0;
  std::thread sweeper_;
};

}  // namespace ptsn::server
