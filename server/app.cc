#include "server/app.h"

#include <httplib.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <thread>
#include <nlohmann/json.hpp>

#include "runner/client/wire.h"
#include "runner/common/strings.h"
#include "server/auth.h"
#include "server/pages.h"
#include "server/result_id.h"

namespace ptsn::server {

using nlohmann::json;

namespace {

void SendJson(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace), "application/json");
}

// OpenBenchmarking wraps every answer in {"openbenchmarking": {...}}.
json Ob(const std::string& key, json inner) { return json{{"openbenchmarking", json{{key, std::move(inner)}}}}; }

std::string BearerToken(const httplib::Request& req) {
  std::string auth = req.get_header_value("Authorization");
  if (StartsWith(auth, "Bearer ")) return Trim(auth.substr(7));
  return "";
}

std::string BaseUrl(const ServerOptions& o, const httplib::Request& req) {
  if (!o.public_url.empty()) return o.public_url;
  std::string host = req.get_header_value("Host");
  return "http://" + (host.empty() ? std::string("127.0.0.1") : host);
}

// Well-formed UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF), as JSON output needs.
bool ValidUtf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    // ASCII runs (nearly all of a result file) eight bytes at a time.
    while (end - p >= 8) {
      uint64_t word;
      std::memcpy(&word, p, 8);
      if (word & 0x8080808080808080ull) break;
      p += 8;
    }
    if (p == end) break;
    if (*p < 0x80) {
      ++p;
      continue;
    }
    int n;
    unsigned lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (*p >= 0xC2 && *p <= 0xDF) n = 1;
    else if (*p == 0xE0) n = 2, lo = 0xA0;
    else if (*p == 0xED) n = 2, hi = 0x9F;
    else if (*p >= 0xE1 && *p <= 0xEF) n = 2;
    else if (*p == 0xF0) n = 3, lo = 0x90;
    else if (*p >= 0xF1 && *p <= 0xF3) n = 3;
    else if (*p == 0xF4) n = 3, hi = 0x8F;
    else return false;
    if (end - p <= n || p[1] < lo || p[1] > hi) return false;
    for (int i = 2; i <= n; ++i)
      if ((p[i] & 0xC0) != 0x80) return false;
    p += n + 1;
  }
  return true;
}

unsigned CoreCount() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 2 : n;
}

int ParseIntParam(const httplib::Request& req, const char* name, int fallback, int lo, int hi) {
  if (!req.has_param(name)) return fallback;
  const std::string v = req.get_param_value(name);
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
      committer_(storage_),
      gate_(options_.cpu_slots > 0 ? options_.cpu_slots : static_cast<int>(CoreCount())),
      results_(options_.cache_seconds, options_.cache_entries, rate_clock),
      users_(options_.cache_seconds, 4096, rate_clock) {
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
}

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
  if (xml.size() > options_.max_xml_bytes)
    throw HttpError{413, "composite.xml: over the limit of " + std::to_string(options_.max_xml_bytes) + " bytes"};
  NewResult r;  // UTF-8: the reader checks it (naming the line) in CheckResultFile
  try {
    r.summary = CheckResultFile(xml, options_.xml_limits);
  } catch (const UploadRejected& e) {
    throw HttpError{400, e.message};
  }
  if (local_file_name.size() > 256 || !ValidUtf8(local_file_name))
    throw HttpError{400, "local_file_name: over 256 bytes or not UTF-8"};
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

App::Stored App::CommitUpload(const NewResult& r) {
  std::time_t when = r.uploaded_at;
  std::string id = committer_.Insert(r, DayKey(when), [&, when](int64_t seq) {
    return FormatResultId(when, seq, r.owner, r.summary.title);
  });
  return {id};
}

// The handlers, with access to App's private parts.
struct Routes {
  App& app;

  // The token comes from 'Authorization: Bearer', else from a `token` form field.
  std::string RequireUser(const httplib::Request& req, const std::string& form_token = "") {
    std::string token = BearerToken(req);
    if (token.empty()) token = form_token;
    if (token.empty())
      throw HttpError{401, "authentication required: send 'Authorization: Bearer <token>' "
                           "(make one with: pts-native-server token create NAME)"};
    if (auto known = app.users_.Get(token)) return *known;
    auto user = Authenticate(app.storage_, token);
    if (user) app.users_.Put(token, std::make_shared<const std::string>(*user));
    if (!user) {
      if (!app.write_limiter_.Allow("auth:" + req.remote_addr))
        throw HttpError{429, "too many failed authentication attempts; slow down"};
      throw HttpError{401, "unknown or revoked token"};
    }
    return *user;
  }

  void LimitWrites(const httplib::Request& req) {
    if (!app.write_limiter_.Allow(req.remote_addr))
      throw HttpError{429, "too many uploads or deletes from " + req.remote_addr + "; retry later"};
  }

  // Runs `fn`; HttpError and storage failures become a status and a message in `shape`.
  template <typename Fn, typename Shape>
  void Guard(httplib::Response& res, const Fn& fn, const Shape& shape) {
    try {
      fn();
    } catch (const HttpError& e) {
      SendJson(res, e.status, shape(e.message));
    } catch (const StorageError& e) {
      SendJson(res, 503, shape("storage unavailable: " + std::string(e.what())));
    }
  }

  // Form fields of /f/client.php: the body's (read here, because the HTTP library refuses
  // url-encoded bodies over 8 KiB itself) and then the query string's.
  struct Form {
    std::map<std::string, std::string> fields;
    bool has(const std::string& k) const { return fields.count(k) > 0; }
    std::string get(const std::string& k) const {
      auto it = fields.find(k);
      return it == fields.end() ? "" : it->second;
    }
  };

  void ClientPhpRequest(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
    std::string body;
    body.reserve(std::min<size_t>(std::strtoull(req.get_header_value("Content-Length").c_str(), nullptr, 10),
                                  app.options_.max_body_bytes + 1));
    bool too_big = false;
    bool complete = reader([&](const char* data, size_t n) {
      body.append(data, n);
      too_big = body.size() > app.options_.max_body_bytes;
      return !too_big;
    });
    // The library stops before calling us when Content-Length is already over its limit.
    if (!complete && std::strtoull(req.get_header_value("Content-Length").c_str(), nullptr, 10) > app.options_.max_body_bytes)
      too_big = true;
    if (too_big) {
      SendJson(res, 413, Ob("error", "request body is over the size limit of " + std::to_string(app.options_.max_body_bytes) + " bytes"));
      return;
    }
    if (!complete) {
      SendJson(res, 400, Ob("error", "the request body could not be read"));
      return;
    }
    Form form;
    try {
      for (auto& [k, v] : wire::DecodeForm(body)) form.fields.emplace(std::move(k), std::move(v));
    } catch (const wire::WireError& e) {
      SendJson(res, 400, Ob("error", e.message));
      return;
    }
    for (const auto& [k, v] : req.params) form.fields.emplace(k, v);
    ClientPhp(req, form, res);
  }

  void ClientPhp(const httplib::Request& req, const Form& form, httplib::Response& res) {
    const std::string r = form.get("r");
    if (r == "upload_test_result") {
      Guard(res, [&] {
        LimitWrites(req);
        std::string user = RequireUser(req, form.get("token"));
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
        auto stored = app.CommitUpload(checked);
        SendJson(res, 200, Ob("upload", {{"id", stored.id}, {"url", BaseUrl(app.options_, req) + "/result/" + stored.id}}));
      }, [](const std::string& m) { return Ob("upload", {{"error", m}}); });
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
          res.set_content(*stored->system_logs_zip, "application/zip");
          return;
        }
        json logs = stored->system_logs_zip ? json(wire::Sha1Hex(*stored->system_logs_zip)) : json(false);
        SendJson(res, 200, Ob("result", {{"composite_xml", stored->xml}, {"system_logs_available", logs}}));
      }, [](const std::string& m) { return Ob("result", {{"error", m}}); });
    } else {
      SendJson(res, 400, Ob("error", r.empty() ? "missing request field r" : "unsupported request r=" + r.substr(0, 64)));
    }
  }

  json Listed(const ListedResult& l, const httplib::Request& req) {
    return {{"id", l.id},         {"title", l.title},   {"owner", l.owner},
            {"uploaded_at", l.uploaded_at}, {"systems", l.systems}, {"tests", l.tests},
            {"system_count", l.system_count}, {"result_count", l.result_count},
            {"url", BaseUrl(app.options_, req) + "/result/" + l.id}};
  }

  SearchQuery QueryOf(const httplib::Request& req) {
    SearchQuery q;
    q.text = req.get_param_value("q");
    q.test = req.get_param_value("test");
    q.system = req.get_param_value("system");
    for (auto* s : {&q.text, &q.test, &q.system})
      if (s->size() > 200) throw HttpError{400, "search terms are limited to 200 characters"};
    q.limit = ParseIntParam(req, "limit", 50, 1, 500);
    q.offset = ParseIntParam(req, "offset", 0, 0, 1 << 30);
    return q;
  }

  // The fleet's routes (server/fleet_service.h), whose handlers answer before they return on
  // this transport (a long-poll blocks its request thread while it waits).
  void InstallFleet(httplib::Server& svr) {
    for (auto& route : app.fleet_->Routes()) {
      httplib::Server::Handler handler = [this, handle = route.handle](const httplib::Request& req, httplib::Response& res) {
        FleetRequest f;
        f.method = req.method;
        for (size_t i = 1; i < req.matches.size(); ++i) f.groups.push_back(req.matches[i]);
        f.bearer = BearerToken(req);
        for (const auto& [k, v] : req.params) f.params.emplace(k, v);
        f.body = req.body;
        FleetResponse out;
        handle(f, [&out](FleetResponse r) { out = std::move(r); });
        res.status = out.status;
        if (out.status != 204) res.set_content(out.body, out.content_type);
      };
      if (route.method == "GET") svr.Get(route.pattern, handler);
      else if (route.method == "POST") svr.Post(route.pattern, handler);
      else svr.Delete(route.pattern, handler);
    }
  }

  void Install(httplib::Server& svr) {
    auto err_shape = [](const std::string& m) { return json{{"error", m}}; };
    svr.Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
      bool ok = app.storage_.Healthy();
      SendJson(res, ok ? 200 : 503, {{"status", ok ? "ok" : "storage unavailable"}, {"storage", app.storage_.Describe()}});
    });
    svr.Post("/f/client.php", [this](const httplib::Request& req, httplib::Response& res,
                                     const httplib::ContentReader& reader) { ClientPhpRequest(req, res, reader); });

    svr.Post("/api/v1/results", [this, err_shape](const httplib::Request& req, httplib::Response& res) {
      Guard(res, [&] {
        LimitWrites(req);
        std::string user = RequireUser(req);
        std::string sha = req.get_header_value("X-Composite-Sha1");
        if (!sha.empty() && sha != wire::Sha1Hex(req.body))
          throw HttpError{400, "X-Composite-Sha1: does not match the sha1 of the body"};
        bool unlisted = req.get_param_value("unlisted") == "1" || req.get_param_value("unlisted") == "true";
        NewResult checked = [&] {
          auto pass = app.gate_.Enter();
          return app.CheckUpload(user, req.body, std::nullopt, req.get_param_value("name"), unlisted);
        }();
        auto stored = app.CommitUpload(checked);
        SendJson(res, 201, {{"id", stored.id}, {"url", BaseUrl(app.options_, req) + "/result/" + stored.id}});
      }, err_shape);
    });
    svr.Get("/api/v1/results", [this, err_shape](const httplib::Request& req, httplib::Response& res) {
      Guard(res, [&] {
        json list = json::array();
        for (const auto& l : app.storage_.Search(QueryOf(req))) list.push_back(Listed(l, req));
        SendJson(res, 200, {{"results", list}});
      }, err_shape);
    });
    svr.Get(R"(/api/v1/results/([^/]+)/composite\.xml)", [this, err_shape](const httplib::Request& req, httplib::Response& res) {
      Guard(res, [&] {
        auto stored = app.Fetch(req.matches[1]);
        if (!stored) throw HttpError{404, "no result with ID '" + std::string(req.matches[1]).substr(0, 64) + "'"};
        res.set_header("ETag", "\"" + stored->xml_sha1 + "\"");
        // Written from the shared stored bytes: no copy per request.
        res.set_content_provider(
            stored->xml.size(), "application/xml",
            [stored](size_t offset, size_t length, httplib::DataSink& sink) {
              return sink.write(stored->xml.data() + offset, length);
            });
      }, err_shape);
    });
    svr.Get(R"(/api/v1/results/([^/]+))", [this, err_shape](const httplib::Request& req, httplib::Response& res) {
      Guard(res, [&] {
        auto stored = app.Fetch(req.matches[1]);
        if (!stored) throw HttpError{404, "no result with ID '" + std::string(req.matches[1]).substr(0, 64) + "'"};
        SendJson(res, 200, {{"id", stored->id}, {"title", stored->title}, {"owner", stored->owner},
                            {"unlisted", stored->unlisted}, {"uploaded_at", stored->uploaded_at},
                            {"composite_xml_hash", stored->xml_sha1}, {"composite_xml", stored->xml},
                            {"system_logs_available", stored->system_logs_zip.has_value()}});
      }, err_shape);
    });
    svr.Delete(R"(/api/v1/results/([^/]+))", [this, err_shape](const httplib::Request& req, httplib::Response& res) {
      Guard(res, [&] {
        LimitWrites(req);
        std::string user = RequireUser(req);
        switch (app.storage_.Delete(req.matches[1], user)) {
          case DeleteOutcome::kDeleted: app.results_.Erase(req.matches[1]); res.status = 204; return;
          case DeleteOutcome::kNotFound: throw HttpError{404, "no result with ID '" + std::string(req.matches[1]).substr(0, 64) + "'"};
          case DeleteOutcome::kForbidden: throw HttpError{403, "result " + std::string(req.matches[1]) + " belongs to another user"};
        }
      }, err_shape);
    });

    // Web pages.
    auto list_page = [this](const httplib::Request& req, httplib::Response& res) {
      try {
        SearchQuery q = QueryOf(req);
        res.set_content(RenderListPage(app.storage_.Search(q), q), "text/html; charset=utf-8");
      } catch (const HttpError& e) {
        res.status = e.status;
        res.set_content(RenderErrorPage(e.status, e.message), "text/html; charset=utf-8");
      } catch (const StorageError& e) {
        res.status = 503;
        res.set_content(RenderErrorPage(503, "storage unavailable"), "text/html; charset=utf-8");
      }
    };
    svr.Get("/", list_page);
    svr.Get("/results", list_page);
    svr.Get(R"(/result/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
      std::vector<StoredResult> found;
      try {
        auto ids = Split(std::string(req.matches[1]), ',');
        if (ids.size() > 12) throw HttpError{400, "at most 12 results can be compared"};
        for (const auto& id : ids) {
          auto stored = app.Fetch(Trim(id));
          if (!stored) throw HttpError{404, "no result with ID '" + Trim(id).substr(0, 64) + "'"};
          found.push_back(*stored);
        }
        res.set_content(RenderResultPage(found), "text/html; charset=utf-8");
      } catch (const HttpError& e) {
        res.status = e.status;
        res.set_content(RenderErrorPage(e.status, e.message), "text/html; charset=utf-8");
      } catch (const StorageError& e) {
        res.status = 503;
        res.set_content(RenderErrorPage(503, "storage unavailable"), "text/html; charset=utf-8");
      }
    });

    InstallFleet(svr);

    // Everything else that names a known path with the wrong method: 405, not a silent 404.
    auto not_allowed = [](const httplib::Request& req, httplib::Response& res) {
      SendJson(res, 405, {{"error", "method " + req.method + " is not allowed on " + req.path.substr(0, 100)}});
    };
    svr.Get("/f/client.php", not_allowed);
    for (const char* p : {"/f/client.php", "/api/v1/results.*", "/result/.*", "/healthz", "/"}) {
      svr.Put(p, not_allowed);
      svr.Patch(p, not_allowed);
      svr.Delete(p, not_allowed);
    }
    svr.Post("/api/v1/results/.*", not_allowed);
    svr.Post("/result/.*", not_allowed);

    svr.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
      if (!res.body.empty()) return;
      std::string msg = res.status == 413 ? "request body is over the size limit"
                        : res.status == 404 ? "no such page: " + req.path.substr(0, 100)
                                            : "request failed";
      SendJson(res, res.status, {{"error", msg}});
    });
    svr.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
      std::string msg = "internal error";
      try {
        std::rethrow_exception(ep);
      } catch (const std::exception& e) {
        msg += std::string(": ") + e.what();
      } catch (...) {
      }
      SendJson(res, 500, {{"error", msg}});
    });
    svr.set_payload_max_length(app.options_.max_body_bytes);
    svr.set_keep_alive_max_count(1000);
    // Without it small answers wait out the peer's delayed ACK (~40 ms each).
    svr.set_tcp_nodelay(true);
    svr.set_read_timeout(30);
    int threads = app.options_.threads;
    svr.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  }
};

App::~App() = default;

void App::Install(httplib::Server& server) {
  routes_ = std::make_unique<Routes>(Routes{*this});
  routes_->Install(server);
}

}  // namespace ptsn::server
