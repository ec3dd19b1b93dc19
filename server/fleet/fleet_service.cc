#include "server/fleet/fleet_service.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "results-xml/store/merge.h"
#include "results-xml/model/result_xml.h"
#include "runner/openbenchmarking/wire.h"
#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/fleet/job_spec.h"
#include "server/fleet/cron.h"
#include "server/fleet/fleet_pages.h"

namespace ptsn::server {

using nlohmann::json;

namespace {

http::Response Json(int status, const json& body) {
  http::Response res;
  res.status = status;
  res.SetContent(body.dump(-1, ' ', false, json::error_handler_t::replace), "application/json");
  return res;
}

http::Response Html(std::string page) {
  http::Response res;
  res.SetContent(std::move(page), "text/html; charset=utf-8");
  return res;
}

http::Response NoContent() {
  http::Response res;
  res.status = 204;
  return res;
}

json ParseBody(const http::Request& req) {
  if (req.body.empty()) return json::object();
  try {
    json j = json::parse(req.body);
    if (!j.is_object()) throw FleetError{400, "request body: not a JSON object"};
    return j;
  } catch (const json::exception& e) {
    throw FleetError{400, std::string("request body: not JSON: ") + e.what()};
  }
}

std::string Field(const json& j, const char* name, size_t max = 200) {
  if (!j.contains(name)) return "";
  if (!j.at(name).is_string()) throw FleetError{400, std::string(name) + ": not a string"};
  std::string v = j.at(name).get<std::string>();
  if (v.size() > max) throw FleetError{400, std::string(name) + ": longer than " + std::to_string(max) + " characters"};
  return v;
}

std::int64_t TaskId(const http::Request& req) {
  try {
    return std::stoll(req.matches.at(1));
  } catch (const std::exception&) {
    throw FleetError{400, "not a task number: " + req.matches.at(1).substr(0, 40)};
  }
}

json TaskJson(const TaskRow& t) {
  return {{"id", t.id},           {"machine", t.machine},         {"state", t.state},
          {"attempts", t.attempts}, {"progress", t.progress},     {"reason", t.reason},
          {"started_at", t.started_at}, {"finished_at", t.finished_at}};
}

std::string JobState(const JobRow& j) {
  if (!j.Finished()) return "running";
  bool any_failed = std::any_of(j.tasks.begin(), j.tasks.end(), [](const TaskRow& t) { return t.state == "failed"; });
  if (j.merge_state != "merged") return j.merge_state == "failed" ? "failed" : "merging";
  return any_failed ? "partial" : "done";
}

json JobJson(const JobRow& j) {
  json tasks = json::array();
  for (const auto& t : j.tasks) tasks.push_back(TaskJson(t));
  json spec = json::parse(j.spec, nullptr, false);
  return {{"id", j.id},       {"title", j.title},           {"owner", j.owner},   {"created_at", j.created_at},
          {"spec", spec},     {"state", JobState(j)},       {"result_id", j.result_id},
          {"note", j.note},   {"schedule_id", j.schedule_id ? json(*j.schedule_id) : json(nullptr)},
          {"tasks", tasks}};
}

json HistoryJson(const HistoryRow& h) {
  json verdict = h.verdict ? json(*h.verdict == -1 ? "regression" : *h.verdict == 1 ? "improvement" : "noise") : json(nullptr);
  json out = {{"machine", h.machine}, {"test", h.label},         {"test_key", h.test_key}, {"scale", h.scale},
              {"proportion", h.proportion}, {"job", h.job_id},   {"task", h.task_id},     {"at", h.measured_at},
              {"n", h.m.n},           {"mean", h.m.mean},        {"ci95", {h.m.ci_low, h.m.ci_high}},
              {"trials", h.trials},   {"verdict", verdict},      {"change_pct", h.change_pct},
              {"baseline_mean", h.baseline_mean}};
  // A change point starts at this result: the step after / before with its interval.
  if (h.verdict && *h.verdict != 0)
    out["change_point"] = {{"ratio", 1 + h.change_pct / 100}, {"ratio_ci95", {h.ratio_low, h.ratio_high}}, {"p_value", h.p_value}};
  return out;
}

// Title of a merged result: at most 126 characters (the result-file schema's limit).
std::string ResultTitle(const std::string& title) { return title.size() <= 126 ? title : title.substr(0, 123) + "..."; }

std::string DefaultTitle(const fleet::JobSpec& spec) { return "Fleet: " + Join(spec.tests, ", "); }

}  // namespace

FleetService::FleetService(Storage& storage, FleetOptions options, UserOf user_of, StoreResult store_result, Clock clock)
    : storage_(storage),
      options_(std::move(options)),
      user_of_(std::move(user_of)),
      store_result_(std::move(store_result)),
      clock_(std::move(clock)),
      store_(storage),
      webhook_(options_.webhook_url),
      started_at_(clock_()) {
  // Jobs created by another server process on the same PostgreSQL wake our waiting agents.
  storage_.Listen("ptsn_fleet", [this](const std::string& payload) {
    if (payload.empty()) waiters_.NotifyAll();
    else
      for (const auto& m : Split(payload, ',')) waiters_.Notify(m);
  });
  if (options_.sweep_seconds > 0) sweeper_ = std::thread([this] { SweepLoop(); });
}

FleetService::~FleetService() {
  {
    std::lock_guard lock(sweep_mu_);
    stop_ = true;
  }
  sweep_cv_.notify_all();
  if (sweeper_.joinable()) sweeper_.join();
}

std::vector<FleetService::Route> FleetService::Routes() {
  auto bind = [this](void (FleetService::*fn)(const http::Request&, const FleetRespond&)) {
    return [this, fn](const http::Request& req, FleetRespond respond) {
      try {
        (this->*fn)(req, respond);
      } catch (const FleetError& e) {
        respond(Json(e.status, {{"error", e.message}}));
      } catch (const Error& e) {
        respond(Json(400, {{"error", e.what()}}));
      } catch (const StorageError& e) {
        respond(Json(503, {{"error", std::string("storage unavailable: ") + e.what()}}));
      }
    };
  };
  const std::string task = R"(/api/v1/fleet/agent/tasks/(\d+))";
  return {
      {"POST", "/api/v1/fleet/agent/hello", bind(&FleetService::Hello)},
      {"POST", "/api/v1/fleet/agent/poll", bind(&FleetService::Poll)},
      {"POST", task + "/renew", bind(&FleetService::Renew)},
      {"POST", task + "/result", bind(&FleetService::Result)},
      {"POST", task + "/fail", bind(&FleetService::Failed)},
      {"POST", task + "/release", bind(&FleetService::Release)},
      {"POST", "/api/v1/fleet/jobs", bind(&FleetService::CreateJob)},
      {"GET", "/api/v1/fleet/jobs", bind(&FleetService::ListJobs)},
      {"GET", R"(/api/v1/fleet/jobs/(\d+))", bind(&FleetService::JobStatus)},
      {"POST", "/api/v1/fleet/schedules", bind(&FleetService::CreateSchedule)},
      {"GET", "/api/v1/fleet/schedules", bind(&FleetService::ListSchedules)},
      {"POST", R"(/api/v1/fleet/schedules/([^/]+)/run)", bind(&FleetService::RunSchedule)},
      {"DELETE", R"(/api/v1/fleet/schedules/([^/]+))", bind(&FleetService::DeleteSchedule)},
      {"POST", R"(/api/v1/fleet/schedules/([^/]+)/delete)", bind(&FleetService::DeleteSchedule)},
      {"GET", "/api/v1/fleet/machines", bind(&FleetService::Machines)},
      {"GET", R"(/api/v1/fleet/machines/([^/]+)/history)", bind(&FleetService::MachineHistory)},
      {"GET", "/api/v1/fleet/regressions", bind(&FleetService::Regressions)},
      {"GET", "/fleet", bind(&FleetService::FleetPage)},
      {"GET", R"(/fleet/machines/([^/]+))", bind(&FleetService::MachinePage)},
      {"GET", R"(/fleet/jobs/(\d+))", bind(&FleetService::JobPage)},
  };
}

// ---- authentication ---------------------------------------------------------------------------

std::optional<std::string> FleetService::AgentOf(const std::string& token) {
  if (token.empty() || token.size() > 256) return std::nullopt;
  const std::string sha = wire::Sha256Hex(token);
  const std::int64_t now = clock_();
  {
    std::lock_guard lock(tokens_mu_);
    auto it = agent_tokens_.find(sha);
    if (it != agent_tokens_.end() && now - it->second.second < 30) return it->second.first;
  }
  auto machine = store_.MachineForToken(sha);
  if (!machine) return std::nullopt;
  std::lock_guard lock(tokens_mu_);
  if (agent_tokens_.size() > 10000) agent_tokens_.clear();
  agent_tokens_[sha] = {*machine, now};
  return machine;
}

std::string FleetService::RequireAgent(const http::Request& req) {
  const std::string token = http::BearerToken(req);
  if (token.empty())
    throw FleetError{401, "agent token required: send 'Authorization: Bearer <token>' (pts-native-server token create --agent NAME)"};
  auto machine = AgentOf(token);
  if (!machine) throw FleetError{401, kUnknownAgentToken};
  return *machine;
}

std::string FleetService::RequireUser(const http::Request& req) {
  const std::string token = http::BearerToken(req);
  if (token.empty())
    throw FleetError{401, "user token required: send 'Authorization: Bearer <token>' (pts-native-server token create NAME)"};
  auto user = user_of_(token);
  if (!user) throw FleetError{401, "unknown or revoked user token (agent tokens cannot manage schedules)"};
  return *user;
}

void FleetService::RequireReader(const http::Request& req, bool page) {
  if (options_.public_reads) return;
  if (page && http::BearerToken(req).empty())
    throw FleetError{401, "the fleet's pages are shown only to a user's token, which a browser does not send: "
                          "run the server with --public-fleet to show them to anyone (docs/fleet.md)"};
  RequireUser(req);
}

void FleetService::Seen(const std::string& machine) {
  std::lock_guard lock(seen_mu_);
  seen_[machine] = heard_[machine] = clock_();
}

bool FleetService::Online(const MachineRow& m) {
  std::int64_t last = m.last_seen;
  {
    std::lock_guard lock(seen_mu_);
    if (auto it = heard_.find(m.name); it != heard_.end()) last = std::max(last, it->second);
  }
  return waiters_.IsWaiting(m.name) || clock_() - last <= options_.offline_after;
}

// ---- agents -----------------------------------------------------------------------------------

void FleetService::Hello(const http::Request& req, const FleetRespond& respond) {
  const std::string machine = RequireAgent(req);
  json b = ParseBody(req);
  const std::string session = Field(b, "session", 64);
  if (session.empty()) throw FleetError{400, "session: missing"};
  MachineInfo info;
  info.hardware = Field(b, "hardware", 4096);
  info.software = Field(b, "software", 4096);
  info.agent_version = Field(b, "version", 64);
  if (b.contains("tags")) {
    if (!b["tags"].is_array()) throw FleetError{400, "tags: not a list"};
    for (const auto& t : b["tags"]) {
      if (!t.is_string()) throw FleetError{400, "tags: not a list of strings"};
      fleet::CheckMachineName(t.get<std::string>());
      info.tags.push_back(t.get<std::string>());
    }
  }
  Seen(machine);
  Finished(store_.Hello(machine, session, info, clock_()));
  respond(Json(200, {{"machine", machine}, {"lease_seconds", options_.limits.lease_seconds},
                     {"poll_seconds", options_.poll_seconds}}));
}

void FleetService::Poll(const http::Request& req, const FleetRespond& respond) {
  const std::string machine = RequireAgent(req);
  json b = ParseBody(req);
  const std::string session = Field(b, "session", 64);
  if (session.empty()) throw FleetError{400, "session: missing"};
  int wait = b.value("wait", 0);
  wait = std::clamp(wait, 0, options_.poll_seconds);
  auto answer = [&](const std::optional<ClaimedTask>& t) {
    if (!t) {
      respond(NoContent());
      return;
    }
    respond(Json(200, {{"task", {{"id", t->task_id}, {"job", t->job_id}, {"attempt", t->attempt}, {"machine", machine},
                                 {"title", t->title}, {"spec", json::parse(t->spec)},
                                 {"lease_seconds", options_.limits.lease_seconds}}}}));
  };
  Seen(machine);
  const std::uint64_t generation = waiters_.Generation();
  auto task = store_.Claim(machine, session, clock_(), options_.limits);
  if (task || wait == 0) {
    answer(task);
    return;
  }
  // Nothing now: the poll is parked (no thread held) until a job for this machine is created
  // or the deadline. Either way it is answered "nothing yet" and the agent polls again at once,
  // so the claim runs on a request thread of its own, not on the thread that woke us.
  waiters_.Wait(
      machine, FleetWaiters::Clock::now() + std::chrono::seconds(wait),
      [respond](bool) { respond(NoContent()); }, generation);
}

void FleetService::Renew(const http::Request& req, const FleetRespond& respond) {
  const std::string machine = RequireAgent(req);
  json b = ParseBody(req);
  const std::int64_t task = TaskId(req);
  Seen(machine);
  if (!store_.Renew(task, machine, Field(b, "session", 64), Field(b, "progress", 4096), clock_(), options_.limits))
    throw FleetError{409, "lease lost: task " + std::to_string(task) + " is no longer this agent's (retried, failed or done)"};
  respond(Json(200, {{"held", true}, {"lease_seconds", options_.limits.lease_seconds}}));
}

void FleetService::Result(const http::Request& req, const FleetRespond& respond) {
  const std::string machine = RequireAgent(req);
  const std::int64_t task = TaskId(req);
  Seen(machine);
  wire::Upload up;
  try {
    auto fields = wire::DecodeForm(req.body);
    std::map<std::string, std::string> form(fields.begin(), fields.end());
    up = wire::DecodeUpload(
        [&](const std::string& name) -> std::optional<std::string> {
          auto it = form.find(name);
          if (it == form.end()) return std::nullopt;
          return it->second;
        },
        options_.max_result_bytes);
  } catch (const wire::WireError& e) {
    throw FleetError{400, e.message};
  }
  results::ResultFile file;
  try {
    file = results::ParseResultFile(up.xml, "task " + std::to_string(task));
  } catch (const Error& e) {
    throw FleetError{400, std::string("composite.xml: ") + e.what()};
  }
  // An agent uploads its own results only: one system, named after its machine.
  if (file.systems.size() != 1 || file.systems[0].identifier != machine)
    throw FleetError{400, "composite.xml: a task's result holds exactly one system, named '" + machine + "'"};
  auto c = store_.Complete(task, machine, up.xml, up.xml_sha1.empty() ? wire::Sha1Hex(up.xml) : up.xml_sha1,
                           MeasurementsOf(file, machine), clock_(), options_.policy);
  Announce(c.flagged);
  if (c.job_finished) MaybeMerge(c.job_id);
  json flagged = json::array();
  for (const auto& h : c.flagged) flagged.push_back(HistoryJson(h));
  respond(Json(200, {{"state", "done"}, {"duplicate", c.duplicate}, {"job", c.job_id}, {"flagged", flagged}}));
}

void FleetService::Failed(const http::Request& req, const FleetRespond& respond) {
  const std::string machine = RequireAgent(req);
  json b = ParseBody(req);
  const std::int64_t task = TaskId(req);
  Seen(machine);
  std::string reason = Field(b, "reason", 4000);
  if (reason.empty()) reason = "the agent reported a failure without a reason";
  auto c = store_.Fail(task, machine, reason, clock_());
  if (c.job_finished) MaybeMerge(c.job_id);
  respond(Json(200, {{"state", "failed"}, {"duplicate", c.duplicate}}));
}

void FleetService::Release(const http::Request& req, const FleetRespond& respond) {
  const std::string machine = RequireAgent(req);
  json b = ParseBody(req);
  Finished(store_.Release(TaskId(req), machine, Field(b, "session", 64), Field(b, "reason", 200), clock_()));
  respond(Json(200, {{"released", true}}));
}

// ---- users ------------------------------------------------------------------------------------

std::int64_t FleetService::StartJob(const std::string& owner, const std::string& spec_json, const std::string& selector,
                                    const std::string& title) {
  auto machines = store_.SelectMachines(selector);
  std::int64_t job = store_.CreateJob(owner, std::nullopt, 0, title, spec_json, machines, clock_());
  for (const auto& m : machines) waiters_.Notify(m);
  return job;
}

void FleetService::CreateJob(const http::Request& req, const FleetRespond& respond) {
  const std::string user = RequireUser(req);
  json b = ParseBody(req);
  if (!b.contains("spec")) throw FleetError{400, "spec: missing"};
  fleet::JobSpec spec = fleet::JobSpecFromJson(b["spec"].dump());
  const std::string selector = b.value("machines", std::string("all"));
  fleet::CheckMachineSelector(selector);
  std::string title = Field(b, "title", 126);
  if (title.empty()) title = DefaultTitle(spec);
  std::int64_t job = StartJob(user, fleet::JobSpecToJson(spec), selector, title);
  respond(Json(201, {{"job", job}}));
}

void FleetService::CreateSchedule(const http::Request& req, const FleetRespond& respond) {
  const std::string user = RequireUser(req);
  json b = ParseBody(req);
  ScheduleRow s;
  s.name = Field(b, "name", 64);
  fleet::CheckMachineName(s.name);  // the same character set
  if (!b.contains("spec")) throw FleetError{400, "spec: missing"};
  s.spec = fleet::JobSpecToJson(fleet::JobSpecFromJson(b["spec"].dump()));
  s.machines = b.value("machines", std::string("all"));
  fleet::CheckMachineSelector(s.machines);
  store_.SelectMachines(s.machines);  // refuses names nobody registered now rather than at 3 a.m.
  s.cron = Trim(Field(b, "cron", 200));
  s.owner = user;
  s.created_at = clock_();
  if (!s.cron.empty()) {
    s.next_fire = NextFire(ParseCron(s.cron), s.created_at);
    if (s.next_fire < 0) throw FleetError{400, "cron: '" + s.cron + "' never fires"};
  }
  s.id = store_.CreateSchedule(s);
  json out{{"schedule", s.id}, {"name", s.name}, {"next_fire", s.next_fire}};
  if (b.value("run_now", false)) out["job"] = StartJob(user, s.spec, s.machines, "Fleet: " + s.name);
  respond(Json(201, out));
}

ScheduleRow FleetService::OwnSchedule(const std::string& user, const std::string& name) {
  auto s = store_.Schedule(name);
  if (!s) throw FleetError{404, "no schedule named '" + name.substr(0, 64) + "'"};
  // As with results: only the owner changes or runs it. There is no admin token; the operator
  // acts for a user with a token of that user's (pts-native-server token create NAME).
  // Its owner is named: any reader of the fleet sees it in the list of schedules.
  if (s->owner != user) throw FleetError{403, "schedule '" + s->name + "' belongs to " + s->owner + ", not to " + user};
  return *s;
}

void FleetService::RunSchedule(const http::Request& req, const FleetRespond& respond) {
  const std::string user = RequireUser(req);
  ScheduleRow s = OwnSchedule(user, req.matches.at(1));
  respond(Json(201, {{"job", StartJob(user, s.spec, s.machines, "Fleet: " + s.name)}}));
}

void FleetService::DeleteSchedule(const http::Request& req, const FleetRespond& respond) {
  OwnSchedule(RequireUser(req), req.matches.at(1));
  if (!store_.DeleteSchedule(req.matches.at(1)))
    throw FleetError{404, "no schedule named '" + req.matches.at(1).substr(0, 64) + "'"};
  respond(NoContent());
}

// ---- reads ------------------------------------------------------------------------------------

void FleetService::JobStatus(const http::Request& req, const FleetRespond& respond) {
  RequireReader(req);
  auto job = store_.Job(std::stoll(req.matches.at(1)));
  if (!job) throw FleetError{404, "no job " + req.matches.at(1).substr(0, 20)};
  respond(Json(200, JobJson(*job)));
}

void FleetService::ListJobs(const http::Request& req, const FleetRespond& respond) {
  RequireReader(req);
  json list = json::array();
  for (const auto& j : store_.RecentJobs(50)) list.push_back(JobJson(j));
  respond(Json(200, {{"jobs", list}}));
}

void FleetService::Machines(const http::Request& req, const FleetRespond& respond) {
  RequireReader(req);
  json list = json::array();
  for (const auto& m : store_.Machines())
    list.push_back({{"name", m.name}, {"online", Online(m)}, {"waiting", waiters_.IsWaiting(m.name)},
                    {"last_seen", m.last_seen}, {"hardware", m.hardware},
                    {"software", m.software}, {"tags", m.tags}, {"agent_version", m.agent_version},
                    {"task", m.task_id ? json({{"id", m.task_id}, {"job", m.job_id}, {"progress", m.progress}}) : json(nullptr)}});
  respond(Json(200, {{"machines", list}}));
}

void FleetService::MachineHistory(const http::Request& req, const FleetRespond& respond) {
  RequireReader(req);
  json list = json::array();
  const bool flagged = req.HasParam("flagged") && req.Param("flagged") != "0";
  for (const auto& h : store_.History(req.matches.at(1), flagged)) list.push_back(HistoryJson(h));
  respond(Json(200, {{"machine", req.matches.at(1)}, {"history", list}}));
}

void FleetService::Regressions(const http::Request& req, const FleetRespond& respond) {
  RequireReader(req);
  json list = json::array();
  for (const auto& h : store_.Flags(200)) list.push_back(HistoryJson(h));
  respond(Json(200, {{"flags", list}}));
}

void FleetService::ListSchedules(const http::Request& req, const FleetRespond& respond) {
  RequireReader(req);
  json list = json::array();
  for (const auto& s : store_.Schedules())
    list.push_back({{"id", s.id}, {"name", s.name}, {"owner", s.owner}, {"spec", json::parse(s.spec, nullptr, false)},
                    {"machines", s.machines}, {"cron", s.cron}, {"next_fire", s.next_fire}});
  respond(Json(200, {{"schedules", list}}));
}

// ---- pages ------------------------------------------------------------------------------------

void FleetService::FleetPage(const http::Request& req, const FleetRespond& respond) {
  RequireReader(req, true);
  std::vector<FleetMachineView> machines;
  for (auto& m : store_.Machines()) machines.push_back({m, Online(m)});
  respond(Html(RenderFleetPage(machines, store_.Schedules(), store_.RecentJobs(20), store_.Flags(20), clock_())));
}

void FleetService::MachinePage(const http::Request& req, const FleetRespond& respond) {
  RequireReader(req, true);
  const std::string& name = req.matches.at(1);
  std::optional<FleetMachineView> view;
  for (auto& m : store_.Machines())
    if (m.name == name) view = FleetMachineView{m, Online(m)};
  if (!view) throw FleetError{404, "no machine named '" + name.substr(0, 64) + "'"};
  respond(Html(RenderMachinePage(*view, store_.History(name), clock_())));
}

void FleetService::JobPage(const http::Request& req, const FleetRespond& respond) {
  RequireReader(req, true);
  auto job = store_.Job(std::stoll(req.matches.at(1)));
  if (!job) throw FleetError{404, "no job " + req.matches.at(1).substr(0, 20)};
  respond(Html(RenderJobPage(*job, JobState(*job))));
}

// ---- background -------------------------------------------------------------------------------

void FleetService::Announce(const std::vector<HistoryRow>& flagged) {
  for (const auto& h : flagged) {
    json body = HistoryJson(h);
    body["event"] = *h.verdict < 0 ? "regression" : "improvement";
    webhook_.Post(body.dump(-1, ' ', false, json::error_handler_t::replace));
  }
}

void FleetService::Finished(const std::vector<std::int64_t>& jobs) {
  for (auto job : jobs) MaybeMerge(job);
}

void FleetService::MaybeMerge(std::int64_t job_id) {
  const std::int64_t now = clock_();
  if (!store_.ClaimMerge(job_id, now, options_.merge_stale_seconds)) return;
  auto job = store_.Job(job_id);
  if (!job) return;
  auto done = store_.DoneResults(job_id);
  if (done.empty()) {
    store_.FinishMerge(job_id, "", "no machine produced a result");
    return;
  }
  std::string note;
  try {
    results::ResultMerger merger(results::ClashPolicy::kRename);
    for (auto& [machine, xml] : done) merger.Add({machine, results::ParseResultFile(xml, machine)});
    auto merged = merger.Finish();
    merged.merged.generated.title = ResultTitle(job->title);
    if (!merged.notices.empty()) note = Join(merged.notices, "; ");
    std::string id = store_result_(job->owner, results::SerializeResultFile(merged.merged));
    store_.FinishMerge(job_id, id, note);
  } catch (const FleetError& e) {
    store_.FinishMerge(job_id, "", "merging the results failed: " + e.message);
  } catch (const Error& e) {
    store_.FinishMerge(job_id, "", std::string("merging the results failed: ") + e.what());
  }
}

void FleetService::Sweep() {
  const std::int64_t now = clock_();
  // Right after a start (a restart after a crash), agents have not had the time to renew.
  if (now - started_at_ >= options_.limits.lease_seconds) Finished(store_.Expire(now, options_.limits));
  for (const auto& s : store_.DueSchedules(now)) {
    std::int64_t next = -1;
    try {
      next = NextFire(ParseCron(s.cron), now);
    } catch (const Error&) {
    }
    std::vector<std::string> machines;
    try {
      machines = store_.SelectMachines(s.machines);
    } catch (const FleetError& e) {
      store_.SetNextFire(s.id, next < 0 ? 0 : next);  // nothing to run on: skip this slot
      continue;
    }
    if (store_.FireSchedule(s, machines, "Fleet: " + s.name, next < 0 ? 0 : next, now))
      for (const auto& m : machines) waiters_.Notify(m);
  }
  for (auto job : store_.JobsToMerge(now, options_.merge_stale_seconds)) MaybeMerge(job);
  if (now - last_touch_ >= 5) {
    std::map<std::string, std::int64_t> seen;
    {
      std::lock_guard lock(seen_mu_);
      seen.swap(seen_);
    }
    store_.Touch(seen);
    last_touch_ = now;
  }
}

void FleetService::SweepLoop() {
  std::unique_lock lock(sweep_mu_);
  while (!stop_) {
    sweep_cv_.wait_for(lock, std::chrono::milliseconds(static_cast<int>(options_.sweep_seconds * 1000)));
    if (stop_) break;
    lock.unlock();
    try {
      Sweep();
    } catch (const std::exception&) {
      // The database is away: the next sweep tries again.
    } catch (const FleetError&) {
    }
    lock.lock();
  }
}

}  // namespace ptsn::server
