#include "runner/fleet/agent.h"

#include <openssl/rand.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "runner/client/upload_queue.h"
#include "runner/openbenchmarking/wire.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/strings.h"

namespace ptsn::fleet {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string RandomSession() {
  unsigned char raw[12];
  if (RAND_bytes(raw, sizeof raw) != 1) throw Error("agent: the system random generator failed");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  for (unsigned char b : raw) s += kHex[b >> 4], s += kHex[b & 15];
  return s;
}

std::string ErrorText(const client::HttpResponse& r) {
  try {
    auto j = json::parse(r.body);
    if (j.is_object() && j.contains("error") && j["error"].is_string()) return j["error"].get<std::string>();
  } catch (const json::exception&) {
  }
  return Trim(r.body.substr(0, 200));
}

using SteadyClock = std::chrono::steady_clock;

}  // namespace

Task ParseTask(const std::string& poll_answer) {
  try {
    auto j = json::parse(poll_answer).at("task");
    Task t;
    t.id = j.at("id").get<std::int64_t>();
    t.job = j.at("job").get<std::int64_t>();
    t.attempt = j.value("attempt", 1);
    t.machine = j.at("machine").get<std::string>();
    CheckMachineName(t.machine);
    t.title = j.value("title", "");
    t.lease_seconds = std::max(3, j.value("lease_seconds", 30));
    t.spec = JobSpecFromJson(j.at("spec").dump());
    return t;
  } catch (const json::exception& e) {
    throw Error(std::string("agent: the server sent a task that is not one: ") + e.what());
  }
}

Agent::Agent(AgentOptions options, client::HttpTransport& http, TaskExecutor& executor, std::function<bool()> stop,
             std::ostream& log)
    : options_(std::move(options)), http_(http), executor_(executor), stop_(std::move(stop)), log_(log) {
  session_ = RandomSession();
  queue_dir_ = options_.state_dir + "/upload-queue";
}

std::string Agent::Url(const std::string& path) const {
  std::string base = options_.server_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base + path;
}

void Agent::Sleep(double seconds) {
  auto until = SteadyClock::now() + std::chrono::milliseconds(static_cast<int>(seconds * 1000));
  while (!stop_() && SteadyClock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

void Agent::SayHello() {
  json body{{"session", session_}, {"hardware", options_.hardware}, {"software", options_.software},
            {"tags", options_.tags}, {"version", options_.version}};
  auto r = http_.Post(Url("/api/v1/fleet/agent/hello"), body.dump(), options_.token);
  if (r.status == 401 || r.status == 403) throw client::ServerRefusal("agent: the server refused the token: " + ErrorText(r), r.status);
  if (r.status != 200) throw Error("agent: hello: server answered HTTP " + std::to_string(r.status) + ": " + ErrorText(r));
  std::string machine = json::parse(r.body).value("machine", "");
  if (!options_.name.empty() && machine != options_.name)
    throw client::ServerRefusal("agent: this token belongs to machine '" + machine + "', not '" + options_.name + "'", 403);
  options_.name = machine;
}

void Agent::FlushUploads() {
  for (const auto& p : client::PendingUploads(queue_dir_)) {
    client::HttpResponse r = http_.Post(Url(p.endpoint), p.form_body, options_.token);  // throws when away
    if (r.status == 200) {
      client::RemovePending(p);
      log_ << "agent: " << p.name << ": result uploaded" << std::endl;
      continue;
    }
    if (client::IsRetryableStatus(r.status))
      throw Error("agent: upload of " + p.name + ": server answered HTTP " + std::to_string(r.status) + " (kept for later)");
    // Refused for good (the task failed meanwhile, a damaged file...): kept aside, never deleted.
    fs::create_directories(queue_dir_ + "/refused");
    fs::rename(p.path, queue_dir_ + "/refused/" + fs::path(p.path).filename().string());
    log_ << "agent: " << p.name << ": the server refused the result (HTTP " << r.status << ": " << ErrorText(r)
         << "); kept in " << queue_dir_ << "/refused" << std::endl;
  }
}

void Agent::Report(const std::string& path, const std::string& json_body) {
  // A report that cannot be sent is not fatal: the lease then expires and the server retries.
  for (int attempt = 0; attempt < 5 && !stop_(); ++attempt) {
    try {
      auto r = http_.Post(Url(path), json_body, options_.token);
      if (!client::IsRetryableStatus(r.status)) return;
    } catch (const Error&) {
    }
    Sleep(1 << attempt);
  }
}

void Agent::RunTask(const Task& task) {
  const std::string task_path = "/api/v1/fleet/agent/tasks/" + std::to_string(task.id);
  log_ << "agent: task " << task.id << " (job " << task.job << ", attempt " << task.attempt << "): "
       << Join(task.spec.tests, " ") << std::endl;
  if (std::string why = executor_.Check(task.spec); !why.empty()) {
    log_ << "agent: task " << task.id << ": refused: " << why << std::endl;
    Report(task_path + "/fail", json{{"reason", "refused by the agent: " + why}}.dump());
    return;
  }

  std::mutex mu;
  std::condition_variable cv;
  std::string progress;
  bool progress_changed = false, finished = false;
  std::atomic<bool> cancel{false};
  TaskExecutor::Outcome outcome;
  std::thread worker([&] {
    auto out = executor_.Execute(
        task,
        [&](const std::string& p) {
          std::lock_guard lock(mu);
          progress = p;
          progress_changed = true;
          cv.notify_all();
        },
        cancel);
    std::lock_guard lock(mu);
    outcome = std::move(out);
    finished = true;
    cv.notify_all();
  });

  // Renew the lease every third of it, and sooner (at most once a second) when progress changes.
  const auto renew_every = std::chrono::milliseconds(task.lease_seconds * 1000 / 3);
  auto last_renew = SteadyClock::now();
  bool lost = false, released = false;
  std::unique_lock lock(mu);
  while (!finished) {
    cv.wait_for(lock, std::chrono::milliseconds(200));
    if (finished) break;
    if (stop_() && !released) {
      cancel = true;
      released = true;
      continue;
    }
    const auto now = SteadyClock::now();
    if (cancel || (now - last_renew < renew_every && !(progress_changed && now - last_renew >= std::chrono::seconds(1))))
      continue;
    const std::string p = progress;
    progress_changed = false;
    lock.unlock();
    try {
      auto r = http_.Post(Url(task_path + "/renew"), json{{"session", session_}, {"progress", p}}.dump(), options_.token);
      if (r.status == 409 || r.status == 404) {
        log_ << "agent: task " << task.id << ": " << ErrorText(r) << "; stopping it" << std::endl;
        lost = true;
        cancel = true;
      }
      last_renew = now;
    } catch (const Error& e) {
      // The server is away: keep running; the lease is taken back by the next renewal that gets through.
      last_renew = now;
    }
    lock.lock();
  }
  lock.unlock();
  worker.join();

  if (released) {
    log_ << "agent: stopping: task " << task.id << " given back" << std::endl;
    Report(task_path + "/release", json{{"session", session_}, {"reason", "agent stopped"}}.dump());
    return;
  }
  if (lost) return;
  if (outcome.result_xml.empty()) {
    log_ << "agent: task " << task.id << ": failed: " << outcome.failure << std::endl;
    Report(task_path + "/fail", json{{"reason", outcome.failure.empty() ? "no result was saved" : outcome.failure}}.dump());
    return;
  }
  wire::Upload up;
  up.xml = std::move(outcome.result_xml);
  up.local_file_name = "fleet-task-" + std::to_string(task.id);
  // On disk before it is sent: a kill or a server that is away loses nothing.
  client::QueueUpload(queue_dir_, options_.server_url, wire::EncodeForm(wire::EncodeUpload(up)),
                      "task " + std::to_string(task.id), task_path + "/result");
  if (!outcome.failure.empty()) log_ << "agent: task " << task.id << ": in part: " << outcome.failure << std::endl;
  try {
    FlushUploads();
  } catch (const Error& e) {
    log_ << e.what() << std::endl;  // sent by a later round
  }
}

bool Agent::RunOnce(int wait) {
  FlushUploads();
  auto r = http_.Post(Url("/api/v1/fleet/agent/poll"), json{{"session", session_}, {"wait", wait}}.dump(), options_.token);
  if (r.status == 204) return false;
  if (r.status == 401 || r.status == 403) throw client::ServerRefusal("agent: poll: " + ErrorText(r), r.status);
  if (r.status != 200) throw Error("agent: poll: server answered HTTP " + std::to_string(r.status) + ": " + ErrorText(r));
  RunTask(ParseTask(r.body));
  return true;
}

int Agent::Run() {
  std::mt19937 rng(std::random_device{}());
  double backoff = 1;
  bool greeted = false;
  while (!stop_()) {
    try {
      if (!greeted) {
        SayHello();
        greeted = true;
        log_ << "agent: " << options_.name << " connected to " << options_.server_url << " (session " << session_ << ")"
             << std::endl;
      }
      RunOnce(options_.poll_seconds);
      backoff = 1;
    } catch (const client::ServerRefusal& e) {
      if (e.status() == 401 || e.status() == 403) {
        log_ << e.what() << std::endl;
        return 1;
      }
      log_ << e.what() << std::endl;
      Sleep(backoff);
    } catch (const Error& e) {
      std::uniform_real_distribution<double> jitter(0.8, 1.2);
      const double pause = std::min(backoff, options_.max_backoff_seconds) * jitter(rng);
      log_ << e.what() << "; retrying in " << static_cast<int>(pause * 10) / 10.0 << " s" << std::endl;
      greeted = false;  // a restarted server learns about us again
      Sleep(pause);
      backoff = std::min(backoff * 2, options_.max_backoff_seconds);
    }
  }
  log_ << "agent: stopped" << std::endl;
  return 0;
}

}  // namespace ptsn::fleet
