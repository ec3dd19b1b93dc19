#include "server/app.h"

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <strings.h>
#include <thread>
#include <type_traits>
#include <nlohmann/json.hpp>

#include "runner/openbenchmarking/wire.h"
#include "runner/common/strings.h"
#include "server/store/auth.h"
#include "server/results/ob_protocol.h"
#include "results-xml/views/view_export.h"
#include "runner/common/error.h"
#include "server/results/pages.h"
#include "server/store/result_id.h"

namespace ptsn::server {

using nlohmann::json;

namespace {

using http::Request;
using http::Response;
using http::BearerToken;

int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void SendJson(Response& res, int status, const json& body) {
  res.status = status;
  res.SetContent(body.dump(-1, ' ', false, json::error_handler_t::replace), "application/json");
}

// OpenBenchmarking wraps every answer in {"openbenchmarking": {...}}.
json Ob(const std::string& key, json inner) { return json{{"openbenchmarking", json{{key, std::move(inner)}}}}; }

// A refused upload on the protocol's route. OpenBenchmarking.org answers these with HTTP 200 and
// the reason in the JSON, and PTS 10.8.6 reads only a 200 answer's body (pts_openbenchmarking_upload
// then prints the "error"; any other status shows as "Unhandled Exception"): so do we. "status"
// is the HTTP status the refusal stands for (401, 413, 429, 503...), for our own client's
// decision to retry.
void ObUploadRefusal(int status, const std::string& message, Response& res) {
  SendJson(res, 200, Ob("upload", {{"error", message}, {"status", status}}));
}

// The token of "Authorization: Bearer <token>" (the scheme in any case, RFC 9110 11.1); "".
std::string BaseUrl(const ServerOptions& o, const Request& req) {
  if (!o.public_url.empty()) return o.public_url;
  std::string host = req.Header("Host");
  return "http://" + (host.empty() ? std::string("127.0.0.1") : host);
}

unsigned CoreCount() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 2 : n;
}

int ParseIntParam(const Request& req, const char* name, int fallback, int lo, int hi) {
  if (!req.HasParam(name)) return fallback;
  const std::string v = req.Param(name);
  try {
    size_t used = 0;
    int n = std::stoi(v, &used);
    if (used != v.size()) throw std::invalid_argument(v);
    return std::clamp(n, lo, hi);
  } catch (const std::exception&) {
    throw HttpError{400, std::string(name) + ": not a number: " + v.substr(0, 40)};
  }
}

}  // namespace

App::App(Storage& storage, ServerOptions options, WallClock clock, RateLimiter::Clock rate_clock)
    : storage_(storage),
      options_(std::move(options)),
      clock_(std::move(clock)),
      write_limiter_(options_.write_rate_per_second, options_.write_burst, rate_clock),
      address_limiter_(options_.address_rate_per_second >= 0 ? options_.address_rate_per_second
                                                             : 10 * options_.write_rate_per_second,
                       options_.address_burst >= 0 ? options_.address_burst : 10 * options_.write_burst, rate_clock),
      committer_(storage_),
      gate_(options_.cpu_slots > 0 ? options_.cpu_slots : static_cast<int>(CoreCount())),
      results_(options_.cache_seconds, options_.cache_entries, rate_clock, options_.cache_bytes,
               [](const StoredResult& r) { return r.xml.size() + (r.system_logs_zip ? r.system_logs_zip->size() : 0); }),
      users_(options_.cache_seconds, 4096, rate_clock),
      pages_(options_.page_cache_seconds, 4096, rate_clock, options_.page_cache_bytes,
             [](const std::string& html) { return html.size(); }),
      mirror_(options_.mirror_dir.empty() ? nullptr : std::make_unique<ProfileMirror>(options_.mirror_dir)) {
  fleet_ = std::make_unique<FleetService>(
      storage_, options_.fleet,
      [this](const std::string& token) -> std::optional<std::string> {
        if (auto known = users_.Get(token)) return *known;
        auto user = Authenticate(storage_, token);
        if (user) users_.Put(token, std::make_shared<const std::string>(*user));
        return user;
      },
      [this](const std::string& owner, const std::string& xml) {
        try {
          NewResult checked = [&] {
            auto pass = gate_.Enter();
            return CheckUpload(owner, xml, std::nullopt, "fleet", false);
          }();
          return CommitUpload(checked).id;
        } catch (const HttpError& e) {
          throw FleetError{e.status, e.message};
        }
      },
      [this] { return static_cast<std::int64_t>(clock_()); });
  NoteStorageCheck(storage_.Healthy());
  health_checker_ = std::thread([this] {
    std::unique_lock lock(checker_mu_);
    while (!checker_cv_.wait_for(lock, std::chrono::seconds(1), [this] { return stopping_; })) {
      lock.unlock();
      NoteStorageCheck(storage_.Healthy());
      lock.lock();
    }
  });
}

void App::NoteStorageCheck(bool answered) { storage_answered_ms_ = answered ? SteadyMs() : 0; }

std::shared_ptr<const StoredResult> App::Fetch(const std::string& id) {
  if (auto hit = results_.Get(id)) return hit;
  auto stored = storage_.Get(id);
  if (!stored) return nullptr;
  auto shared = std::make_shared<const StoredResult>(std::move(*stored));
  results_.Put(id, shared);
  return shared;
}

NewResult App::CheckUpload(const std::string& owner, std::string xml, std::optional<std::string> logs,
                           std::string local_file_name, bool unlisted, std::string xml_sha1,
                           std::optional<std::string> xml_deflated) {
  if (std::string why = results::UploadSizeProblem(xml.size(), options_.max_xml_bytes); !why.empty())
    throw HttpError{413, why};
  NewResult r;  // UTF-8: the reader checks it (naming the line) in CheckResultFile
  try {
    r.summary = CheckResultFile(xml, options_.xml_limits);
  } catch (const UploadRejected& e) {
    throw HttpError{400, e.message};
  }
  if (std::string why = results::UploadNameProblem(local_file_name); !why.empty()) throw HttpError{400, why};
  r.owner = owner;
  r.unlisted = unlisted;
  r.xml_sha1 = xml_sha1.empty() ? wire::Sha1Hex(xml) : std::move(xml_sha1);
  r.xml = std::move(xml);
  PackForStorage(r, std::move(xml_deflated));
  r.system_logs_zip = std::move(logs);
  r.local_file_name = std::move(local_file_name);
  r.uploaded_at = clock_();
  return r;
}

App::Stored App::CommitUpload(const NewResult& r, const std::string& dedupe_key) {
  std::time_t when = r.uploaded_at;
  Dedupe dedupe;
  // A retry repeats every field: the same file with other logs or listing is another upload.
  if (!dedupe_key.empty() && options_.dedupe_seconds > 0)
    dedupe = {wire::Sha256Hex(dedupe_key + "|" + (r.system_logs_zip ? wire::Sha1Hex(*r.system_logs_zip) : "-") + "|" +
                              (r.unlisted ? "unlisted" : "listed")),
              when - options_.dedupe_seconds};
  try {
    std::string id = committer_.Insert(r, DayKey(when), [&, when](int64_t seq) {
      return FormatResultId(when, seq, r.owner, r.summary.title);
    }, dedupe);
    std::lock_guard lock(health_mu_);
    write_failure_.clear();
    return {id};
  } catch (const StorageError& e) {
    std::lock_guard lock(health_mu_);
    write_failure_ = e.what();
    throw;
  }
}

// The handlers, with access to App's private parts.
struct Routes {
  App& app;

  static std::string Unauthenticated() {
    return "authentication required: send 'Authorization: Bearer <token>' "
           "(make one with: pts-native-server token create NAME)";
  }

  // The user of the request's bearer token; nullopt when it has none. Throws 401/429 for a
  // token nobody has (and counts the failure against the address).
  std::optional<std::string> UserOf(const Request& req) {
    std::string token = BearerToken(req);
    if (token.empty()) return std::nullopt;
    if (auto known = app.users_.Get(token)) return *known;
    auto user = Authenticate(app.storage_, token);
    if (!user) {
      if (!app.write_limiter_.Allow("auth:" + req.remote_addr))
        throw HttpError{429, "too many failed authentication attempts; slow down"};
      throw HttpError{401, "unknown or revoked token"};
    }
    app.users_.Put(token, std::make_shared<const std::string>(*user));
    return user;
  }

  std::string RequireUser(const Request& req) {
    auto user = UserOf(req);
    if (!user) throw HttpError{401, Unauthenticated()};
    return *user;
  }

  // One more write for this token and this address, or 429. Writes without a token (anonymous
  // uploads) are limited as a token's are, but per client address (a trusted proxy's X-Real-IP):
  // one shared bucket let one client refuse everyone's.
  void LimitWrites(const Request& req) {
    const std::string token = BearerToken(req);
    if (token.empty() ? !app.write_limiter_.Allow("anonymous:" + req.remote_addr)
                      : !app.write_limiter_.Allow("token:" + token))
      throw HttpError{429, token.empty() ? "too many anonymous uploads from " + req.remote_addr + "; retry later"
                                         : "too many uploads or deletes with this token; retry later"};
    if (!app.address_limiter_.Allow(req.remote_addr))
      throw HttpError{429, "too many uploads or deletes from " + req.remote_addr + "; retry later"};
  }

  // An agent's requests (polls, claims, renewals, results) under its own token's limit only:
  // agent tokens are the operator's, one per machine, and a fleet behind one NAT shares an
  // address; 50 agents there made ~700 requests in a few seconds, past the address burst (600).
  void LimitAgentRequests(const std::string& token) {
    if (!app.write_limiter_.Allow("token:" + token))
      throw HttpError{429, "too many requests with this agent token; retry later"};
  }

  // Tokens travel in the Authorization header only: a query string ends up in logs.
  static void RefuseTokenInQuery(const Request& req) {
    if (req.HasParam("token"))
      throw HttpError{400, "send the token as 'Authorization: Bearer <token>', not in the URL"};
  }

  // Runs `fn`; HttpError and storage failures become a status and a message: the JSON
  // `shape(message)` with that status, or what `shape(status, message, res)` answers. Returns
  // false when `fn` was refused so.
  template <typename Fn, typename Shape>
  bool Guard(Response& res, const Fn& fn, const Shape& shape) {
    auto refuse = [&](int status, const std::string& message) {
      if constexpr (std::is_invocable_v<Shape, int, const std::string&, Response&>) shape(status, message, res);
      else SendJson(res, status, shape(message));
    };
    try {
      fn();
      return true;
    } catch (const HttpError& e) {
      refuse(e.status, e.message);
    } catch (const StorageError& e) {
      refuse(503, "storage unavailable: " + std::string(e.what()));
    }
    return false;
  }

  // Before the body: the token (when one is sent, or `token_required`) and for writes the rate
  // limits, so that a refused client never gets to send its body; its size limit.
  template <typename Shape>
  http::Admission Admit(const Request& req, bool token_required, bool write, const Shape& shape) {
    http::Admission a;
    a.refused = !Guard(a.refusal, [&] {
      RefuseTokenInQuery(req);
      auto user = UserOf(req);
      if (!user && token_required) throw HttpError{401, Unauthenticated()};
      if (user && write) LimitWrites(req);
      // With --anonymous-uploads a request without a token may be an upload: the full limit.
      a.max_body = user || (!token_required && app.options_.anonymous_uploads) ? app.options_.max_body_bytes
                                                                               : app.options_.anonymous_body_bytes;
    }, shape);
    if (a.refused) a.refusal.close_connection = true;
    return a;
  }

  // Form fields of /f/client.php: the body's (url-encoded or multipart/form-data), then the
  // query string's.
  struct Form {
    std::map<std::string, std::string> fields;
    bool has(const std::string& k) const { return fields.count(k) > 0; }
    std::string get(const std::string& k) const {
      auto it = fields.find(k);
      return it == fields.end() ? "" : it->second;
    }
  };

  void ClientPhpRequest(const Request& req, Response& res) {
    Form form;
    try {
      const std::string type = req.Header("Content-Type");
      wire::FormFields fields = strncasecmp(type.c_str(), "multipart/form-data", 19) == 0
                                    ? wire::DecodeMultipart(req.body, type)
                                    : wire::DecodeForm(req.body);
      for (auto& [k, v] : fields) form.fields.emplace(std::move(k), std::move(v));
    } catch (const wire::WireError& e) {
      ObUploadRefusal(400, e.message, res);  // before `r` is known: an upload is the form that can be wrong
      return;
    }
    for (const auto& [k, v] : req.params) form.fields.emplace(k, v);
    if (form.has("token")) {
      ObUploadRefusal(400, "send the token as 'Authorization: Bearer <token>', not as a form field", res);
      return;
    }
    ClientPhp(req, form, res);
  }

  void ClientPhp(const Request& req, const Form& form, Response& res) {
    const std::string r = form.get("r");
    if (r == "upload_test_result") {
      Guard(res, [&] {
        // A stock PTS sends no token: with --anonymous-uploads its uploads are taken as
        // OpenBenchmarking.org takes them, owned by 'anonymous' (rate limits still apply).
        const bool anonymous = app.options_.anonymous_uploads && BearerToken(req).empty();
        std::string user = anonymous ? "anonymous" : RequireUser(req);
        LimitWrites(req);
        auto pass = app.gate_.Enter();  // decoding and checking are the CPU-heavy part
        wire::Upload up;
        try {
          up = wire::DecodeUpload(
              [&](const std::string& name) -> std::optional<std::string> {
                if (!form.has(name)) return std::nullopt;
                return form.get(name);
              },
              app.options_.max_xml_bytes);
        } catch (const wire::WireError& e) {
          throw HttpError{400, e.message};
        }
        NewResult checked = app.CheckUpload(user, std::move(up.xml), std::move(up.system_logs_zip),
                                            std::move(up.local_file_name), up.unlisted, std::move(up.xml_sha1),
                                            std::move(up.xml_deflated));
        { auto leave = std::move(pass); }  // not held while waiting for the commit
        auto stored = app.CommitUpload(checked, wire::Sha256Hex(BearerToken(req)));
        SendJson(res, 200, Ob("upload", {{"id", stored.id}, {"url", BaseUrl(app.options_, req) + "/result/" + stored.id}}));
      }, ObUploadRefusal);
    } else if (r == "clone_openbenchmarking_result" || r == "is_openbenchmarking_result" ||
               r == "clone_openbenchmarking_system_logs") {
      Guard(res, [&] {
        const std::string id = form.get("i");
        auto stored = app.Fetch(id);
        if (r == "is_openbenchmarking_result") {
          SendJson(res, 200, Ob("result", {{"valid", stored ? "TRUE" : "FALSE"}}));
          return;
        }
        if (!stored) throw HttpError{404, "no result with ID '" + id.substr(0, 64) + "'"};
        if (r == "clone_openbenchmarking_system_logs") {
          if (!stored->system_logs_zip) throw HttpError{404, "result " + stored->id + " has no system logs"};
          res.SetSharedContent(stored, *stored->system_logs_zip, "application/zip");
          return;
        }
        json logs = stored->system_logs_zip ? json(wire::Sha1Hex(*stored->system_logs_zip)) : json(false);
        SendJson(res, 200, Ob("result", {{"composite_xml", stored->xml}, {"system_logs_available", logs}}));
      }, [](const std::string& m) { return Ob("result", {{"error", m}}); });
    } else if (auto answer = AnswerProfileRequest(r, [&](const std::string& k) { return form.get(k); }, app.mirror_.get())) {
      res.status = answer->status;
      res.SetContent(std::move(answer->body), answer->content_type);
    } else {
      SendJson(res, 400, Ob("error", r.empty() ? "missing request field r" : "unsupported request r=" + r.substr(0, 64)));
    }
  }

  json Listed(const ListedResult& l, const Request& req) {
    return {{"id", l.id},         {"title", l.title},   {"owner", l.owner},
            {"uploaded_at", l.uploaded_at}, {"systems", l.systems}, {"tests", l.tests},
            {"system_count", l.system_count}, {"result_count", l.result_count},
            {"url", BaseUrl(app.options_, req) + "/result/" + l.id}};
  }

  SearchQuery QueryOf(const Request& req) {
    SearchQuery q;
    q.text = req.Param("q");
    q.test = req.Param("test");
    q.system = req.Param("system");
    for (auto* s : {&q.text, &q.test, &q.system})
      if (s->size() > 200) throw HttpError{400, "search terms are limited to 200 characters"};
    q.limit = ParseIntParam(req, "limit", 50, 1, 500);
    q.offset = ParseIntParam(req, "offset", 0, 0, 1 << 30);
    return q;
  }

  // "ok"; "degraded" while writes fail (reads may still work); "storage unavailable". The kind of
  // storage only, never where it lives (a path, a host): any user may hold a token, and the
  // operator has the server's own output. A wrong token is not an error here (a health check
  // must not fail on it) but is counted, and past the limit answered 429 as elsewhere.
  void Healthz(const Request& req, Response& res) {
    try {
      UserOf(req);
    } catch (const HttpError& e) {
      if (e.status == 429) {
        SendJson(res, 429, {{"error", e.message}});
        return;
      }
    }
    const bool reachable = app.storage_.Healthy();
    app.NoteStorageCheck(reachable);
    std::string failure = WriteFailure();
    // Checked again here, not only by the next write: a full disk with room again is healthy.
    if (!failure.empty() && reachable && app.storage_.WritableAgain() == true) {
      std::lock_guard lock(app.health_mu_);
      if (app.write_failure_ == failure) app.write_failure_.clear();
      failure = app.write_failure_;
    }
    json out{{"status", !reachable ? "storage unavailable" : failure.empty() ? "ok" : "degraded"}, {"storage", StorageKind()}};
    if (!failure.empty()) out["reason"] = "writes fail: " + failure;
    SendJson(res, reachable && failure.empty() ? 200 : 503, out);
  }

  // "ok" on the event loop, from the health checker's last look, for a probe without a token
  // while all is well; anything else goes to Healthz.
  bool QuickHealthz(const Request& req, Response& res) {
    if (req.HasHeader("Authorization") || SteadyMs() - app.storage_answered_ms_ > App::kHealthFreshMs ||
        !WriteFailure().empty())
      return false;
    SendJson(res, 200, {{"status", "ok"}, {"storage", StorageKind()}});
    return true;
  }

  std::string WriteFailure() {
    std::lock_guard lock(app.health_mu_);
    return app.write_failure_;
  }
  std::string StorageKind() const {
    const std::string where = app.storage_.Describe();
    return where.substr(0, where.find(':'));
  }

  // What `render` makes for `key`: made once however many ask at once (the others wait for it
  // and share it), through the CPU gate shared with uploads, so renders in progress are at most
  // one per key and, holding memory, at most the gate's slots at once. `keep`: kept in the page
  // cache and served from it while fresh. A large render's memory goes back to the system now,
  // not whenever (if ever) each thread's malloc arena trims itself.
  std::shared_ptr<const std::string> Rendered(const std::string& key, bool keep,
                                              const std::function<std::string(size_t& input)>& render) {
    if (auto hit = keep ? app.pages_.Get(key) : nullptr) return hit;
    return app.renders_.Do(key, [&]() -> std::shared_ptr<const std::string> {
      if (auto hit = keep ? app.pages_.Get(key) : nullptr) return hit;  // made just before this flight began
      auto pass = app.gate_.Enter();
      size_t input = 0;
      auto made = std::make_shared<const std::string>(render(input));
      if (keep) app.pages_.Put(key, made);
      if (input > (1u << 20)) malloc_trim(0);
      return made;
    });
  }

  // The stored results of `ids`, shared with the cache (never copied); 404 for one missing.
  std::vector<std::shared_ptr<const StoredResult>> FetchAll(const std::vector<std::string>& ids) {
    std::vector<std::shared_ptr<const StoredResult>> found;
    for (const auto& id : ids) {
      auto stored = app.Fetch(id);
      if (!stored) throw HttpError{404, "no result with ID '" + id.substr(0, 64) + "'"};
      found.push_back(std::move(stored));
    }
    return found;
  }

  // A result page (several IDs: merged), one page of `page_results` charts.
  std::shared_ptr<const std::string> ResultPage(const std::string& ids_text, int page,
                                                const results::ViewerOptions& options) {
    auto ids = Split(ids_text, ',');
    if (ids.size() > 12) throw HttpError{400, "at most 12 results can be compared"};
    std::string key;
    for (auto& id : ids) key += (key.empty() ? "" : ",") + (id = Trim(id));
    key += "#" + std::to_string(page) + "?" + options.ToQuery();
    return Rendered(key, true, [&](size_t& input) {
      auto found = FetchAll(ids);
      for (const auto& r : found) input += r->xml.size();
      return RenderResultPage(found, PageWindow{static_cast<size_t>(page), app.options_.page_results}, options);
    });
  }

  // export=: the view in another format, made once for the requests that ask at once.
  std::shared_ptr<const std::string> ResultExport(const std::string& ids_text, const results::ViewerOptions& options) {
    auto ids = Split(ids_text, ',');
    if (ids.size() > 12) throw HttpError{400, "at most 12 results can be compared"};
    std::string key;
    for (auto& id : ids) key += (key.empty() ? "" : ",") + (id = Trim(id));
    key += "#export?" + options.ToQuery();
    return Rendered(key, true, [&](size_t& input) {
      auto found = FetchAll(ids);
      for (const auto& r : found) input += r->xml.size();
      return RenderResultExport(found, options);
    });
  }

  // GET /api/v1/results/ID: the result with its file inside the JSON, made once for the
  // requests that ask at once; not kept (the stored result's cache says how fresh it is).
  std::shared_ptr<const std::string> ResultJson(const std::string& id) {
    return Rendered(id + "#json", false, [&](size_t& input) {
      auto stored = FetchAll({id}).front();
      input = stored->xml.size();
      return json{{"id", stored->id}, {"title", stored->title}, {"owner", stored->owner},
                  {"unlisted", stored->unlisted}, {"uploaded_at", stored->uploaded_at},
                  {"composite_xml_hash", stored->xml_sha1}, {"composite_xml", stored->xml},
                  {"system_logs_available", stored->system_logs_zip.has_value()}}
          .dump(-1, ' ', false, json::error_handler_t::replace);
    });
  }

  // The fleet's routes (server/fleet_service.h). They may answer later (a long-poll parks until
  // there is work or its deadline): the connection waits suspended, holding no worker thread.
  // The same protections as the results API: tokens in the header only, a body limit decided
  // before the body is read, the write rate limits on what a user changes (jobs, schedules),
  // and failed token checks counted against the address (agent tokens are checked by the fleet).
  void InstallFleet(http::Router& routes) {
    auto err_shape = [](const std::string& m) { return json{{"error", m}}; };
    for (auto& route : app.fleet_->Routes()) {
      const bool agent = route.pattern.rfind("/api/v1/fleet/agent/", 0) == 0;
      const bool write = !agent && route.method != "GET";
      routes.AddAsync(
          route.method, route.pattern,
          [this, handle = route.handle](const Request& req, Response& res, http::Done done) {
            const bool sent_token = !BearerToken(req).empty();
            handle(req, [this, &res, done, sent_token, addr = req.remote_addr](Response out) {
              if (out.status == 401 && sent_token && !app.write_limiter_.Allow("auth:" + addr)) {
                out.status = 429;
                out.SetContent(json{{"error", "too many failed authentication attempts; slow down"}}.dump(),
                                "application/json");
              }
              res = std::move(out);
              done();
            });
          },
          [this, agent, write, err_shape](const Request& req) {
            if (!agent) return Admit(req, false, write, err_shape);
            http::Admission a;  // an agent's token is no user's: checked here, before the body
            a.refused = !Guard(a.refusal, [&] {
              RefuseTokenInQuery(req);
              const std::string token = BearerToken(req);
              if (!token.empty() && !app.fleet_->AgentOf(token)) {
                if (!app.write_limiter_.Allow("auth:" + req.remote_addr))
                  throw HttpError{429, "too many failed authentication attempts; slow down"};
                throw HttpError{401, FleetService::kUnknownAgentToken};
              }
              if (!token.empty()) LimitAgentRequests(token);
              a.max_body = token.empty() ? app.options_.anonymous_body_bytes : app.options_.max_body_bytes;
            }, err_shape);
            if (a.refused) a.refusal.close_connection = true;
            return a;
          });
    }
  }

  void Install(http::Router& routes) {
    auto err_shape = [](const std::string& m) { return json{{"error", m}}; };
    routes.Get(
        "/healthz", [this](const Request& req, Response& res) { return QuickHealthz(req, res); },
        [this](const Request& req, Response& res) { Healthz(req, res); });
    // PTS's connectivity check (pts_network): any other body is "No Internet Connectivity".
    routes.Get("/PTS", [](const Request&, Response& res) { res.SetContent("PTS", "text/plain"); });
    routes.Post("/f/client.php", [this](const Request& req, Response& res) { ClientPhpRequest(req, res); },
             [this](const Request& req) {
               http::Admission a = Admit(req, false, false, ObUploadRefusal);
               a.refuse = ObUploadRefusal;  // the server's own refusals (413, 503) too
               return a;
             });

    routes.Post("/api/v1/results", [this, err_shape](const Request& req, Response& res) {
      Guard(res, [&] {
        std::string user = RequireUser(req);
        std::string sha = req.Header("X-Composite-Sha1");
        if (!sha.empty() && sha != wire::Sha1Hex(req.body))
          throw HttpError{400, "X-Composite-Sha1: does not match the sha1 of the body"};
        bool unlisted = req.Param("unlisted") == "1" || req.Param("unlisted") == "true";
        NewResult checked = [&] {
          auto pass = app.gate_.Enter();
          return app.CheckUpload(user, req.body, std::nullopt, req.Param("name"), unlisted);
        }();
        auto stored = app.CommitUpload(checked, wire::Sha256Hex(BearerToken(req)));
        SendJson(res, 201, {{"id", stored.id}, {"url", BaseUrl(app.options_, req) + "/result/" + stored.id}});
      }, err_shape);
    }, [this, err_shape](const Request& req) { return Admit(req, true, true, err_shape); });
    routes.Get("/api/v1/results", [this, err_shape](const Request& req, Response& res) {
      Guard(res, [&] {
        json list = json::array();
        for (const auto& l : app.storage_.Search(QueryOf(req))) list.push_back(Listed(l, req));
        SendJson(res, 200, {{"results", list}});
      }, err_shape);
    });
    auto send_xml = [](Response& res, const std::shared_ptr<const StoredResult>& stored) {
      res.SetHeader("ETag", "\"" + stored->xml_sha1 + "\"");
      res.SetSharedContent(stored, stored->xml, "application/xml");  // no copy per request
    };
    routes.Get(R"(/api/v1/results/([^/]+)/composite\.xml)",
            [this, send_xml](const Request& req, Response& res) {  // fetched lately: from memory, at once
              auto stored = app.results_.Get(req.matches[1]);
              if (stored) send_xml(res, stored);
              return stored != nullptr;
            },
            [this, err_shape, send_xml](const Request& req, Response& res) {
              Guard(res, [&] {
                auto stored = app.Fetch(req.matches[1]);
                if (!stored) throw HttpError{404, "no result with ID '" + req.matches[1].substr(0, 64) + "'"};
                send_xml(res, stored);
              }, err_shape);
            });
    routes.Get(R"(/api/v1/results/([^/]+))", [this, err_shape](const Request& req, Response& res) {
      Guard(res, [&] {
        auto body = ResultJson(req.matches[1]);
        res.SetSharedContent(body, *body, "application/json");
      }, err_shape);
    });
    routes.Delete(R"(/api/v1/results/([^/]+))", [this, err_shape](const Request& req, Response& res) {
      Guard(res, [&] {
        RefuseTokenInQuery(req);
        std::string user = RequireUser(req);
        LimitWrites(req);
        const std::string& id = req.matches[1];
        switch (app.storage_.Delete(id, user)) {
          case DeleteOutcome::kDeleted:
            app.results_.Erase(id);
            app.pages_.EraseIf([&](const std::string& key) {
              for (const auto& part : Split(key.substr(0, key.rfind('#')), ','))
                if (part == id) return true;
              return false;
            });
            res.status = 204;
            return;
          case DeleteOutcome::kNotFound: throw HttpError{404, "no result with ID '" + id.substr(0, 64) + "'"};
          case DeleteOutcome::kForbidden: throw HttpError{403, "result " + id + " belongs to another user"};
        }
      }, err_shape);
    });

    // Web pages.
    auto html_errors = [](Response& res, const auto& fn) {
      try {
        fn();
      } catch (const HttpError& e) {
        res.status = e.status;
        res.SetContent(RenderErrorPage(e.status, e.message), "text/html; charset=utf-8");
      } catch (const StorageError&) {
        res.status = 503;
        res.SetContent(RenderErrorPage(503, "storage unavailable"), "text/html; charset=utf-8");
      }
    };
    auto list_page = [this, html_errors](const Request& req, Response& res) {
      html_errors(res, [&] {
        SearchQuery q = QueryOf(req);
        res.SetContent(RenderListPage(app.storage_.Search(q), q), "text/html; charset=utf-8");
      });
    };
    routes.Get("/", list_page);
    routes.Get("/results", list_page);
    routes.Get(R"(/result/([^/]+))", [this, html_errors](const Request& req, Response& res) {
      html_errors(res, [&] {
        const int page = ParseIntParam(req, "page", 1, 1, 1 << 20) - 1;
        // OpenBenchmarking's view options (nor, hgv[], hnr, ...) as its links carry them.
        const results::ViewerOptions options = results::ParseViewerOptions({req.params.begin(), req.params.end()});
        if (!options.export_format.empty()) {
          const results::ExportFormat* format = nullptr;
          try {
            format = &results::FindExportFormat(options.export_format);
          } catch (const ptsn::Error& e) {
            throw HttpError{400, e.what()};
          }
          auto body = ResultExport(req.matches[1], options);
          res.SetSharedContent(body, *body, format->content_type);
          return;
        }
        auto html = ResultPage(req.matches[1], page, options);
        res.SetSharedContent(html, *html, "text/html; charset=utf-8");
      });
    });

    InstallFleet(routes);

    routes.not_found = [](const Request& req, Response& res) {
      SendJson(res, 404, {{"error", "no such page: " + req.path.substr(0, 100)}});
    };
    routes.not_allowed = [](const Request& req, Response& res) {
      SendJson(res, 405, {{"error", "method " + req.method + " is not allowed on " + req.path.substr(0, 100)}});
    };
    routes.internal_error = [](const Request&, Response& res, const std::string& what) {
      SendJson(res, 500, {{"error", "internal error: " + what}});
    };
  }
};

App::~App() {
  {
    std::lock_guard lock(checker_mu_);
    stopping_ = true;
  }
  checker_cv_.notify_all();
  health_checker_.join();
}

void App::Install(http::Router& router) {
  routes_ = std::make_unique<Routes>(Routes{*this});
  routes_->Install(router);
}

}  // namespace ptsn::server
