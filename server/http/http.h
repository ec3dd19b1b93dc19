// The server's own small request/response types and route table, independent of the HTTP
// library underneath (http_server.h serves them with libmicrohttpd). Every room's routes take
// these (the fleet's too), so a request is never copied into another room's own type.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ptsn::server::http {

// Case-insensitive header names (HTTP says so).
struct CaseLess {
  bool operator()(const std::string& a, const std::string& b) const;
};
using Headers = std::multimap<std::string, std::string, CaseLess>;
using Params = std::multimap<std::string, std::string>;

struct Request {
  std::string method;       // "GET", "POST", ... (HEAD is served by the GET route)
  std::string path;         // decoded, without the query string
  Headers headers;
  Params params;            // the query string's, decoded
  std::string body;         // empty until the whole body is in (routes see it whole)
  std::string remote_addr;  // the client (a trusted proxy's X-Real-IP when it sent one)
  std::vector<std::string> matches;  // [0] the whole path, [1...] the route pattern's groups

  bool HasHeader(const std::string& name) const { return headers.count(name) > 0; }
  std::string Header(const std::string& name) const;
  bool HasParam(const std::string& name) const { return params.count(name) > 0; }
  std::string Param(const std::string& name) const;
};

// The token of "Authorization: Bearer <token>" (scheme in any case, spaces around), "" when none.
std::string BearerToken(const Request& req);

struct Response {
  int status = 200;
  Headers headers;
  std::string body;
  // A body shared with something that outlives the request (a cached stored result or page):
  // sent from there without a copy. When set, `body` is ignored.
  std::shared_ptr<const void> shared_owner;
  std::string_view shared_body;
  // A body read from an open file (sent with sendfile); the descriptor is closed with the last copy.
  std::shared_ptr<const int> file;
  size_t file_size = 0;
  bool close_connection = false;  // answer with "Connection: close" and close afterwards

  void SetHeader(const std::string& name, const std::string& value);
  void SetContent(std::string content, const std::string& content_type);
  // `owner` keeps `bytes` alive until the answer is sent.
  void SetSharedContent(std::shared_ptr<const void> owner, std::string_view bytes, const std::string& content_type);
  // Takes `fd` (open for reading, `size` bytes): it is closed once the answer is sent.
  void SetFileContent(int fd, size_t size, const std::string& content_type);
  std::string_view content() const { return shared_owner ? shared_body : std::string_view(body); }
};

using Handler = std::function<void(const Request&, Response&)>;

// How a route answers what the server refuses on its own (a body too large: 413; no memory left
// for bodies: 503) with `message`. Unset: that status with {"error": message}.
using Refuse = std::function<void(int status, const std::string& message, Response& res)>;

// How much body a request may send, decided from its headers before any of it is read.
struct Admission {
  bool refused = false;  // `refusal` is the answer; the body is never read
  Response refusal;
  size_t max_body = 0;   // bytes; a body over it is refused with 413 as soon as it is over
  Refuse refuse;         // the route's shape for the server's own refusals
};

// Whether requests of `method` carry a body (POST, PUT, PATCH). Routes of other methods refuse
// one as soon as its headers announce it, so that nobody can make the server hold a body that
// no handler reads.
bool TakesBody(const std::string& method);
// Runs once the headers are in (req.body is empty). Routes without one get the server's
// default body limit.
using Admit = std::function<Admission(const Request&)>;

// Answers on the connection's event loop, without the hop to a worker thread, when it can do so
// at once (never blocking: e.g. from a cache); returns false to leave the request to the Handler.
using QuickHandler = std::function<bool(const Request&, Response&)>;

// A handler that may answer later, from any thread: it calls `done` exactly once, when `res`
// holds the answer (e.g. a long-poll parked until there is work). Until then the connection
// waits suspended and holds no worker thread. HttpServer::Stop waits until every parked request
// is answered: whoever parks them answers them first when stopping (FleetWaiters::Shutdown).
using Done = std::function<void()>;
using AsyncHandler = std::function<void(const Request&, Response&, Done done)>;

struct Route {
  std::string method;
  std::regex pattern;  // the whole path must match
  std::string pattern_text;
  Handler handler;
  Admit admit;
  QuickHandler quick;
  AsyncHandler async;  // set instead of `handler` by AddAsync
};

// The route table. Rows are added once at start-up; lookups are read-only and thread-safe.
class Router {
 public:
  Router& Get(const std::string& pattern, Handler h) { return Add("GET", pattern, std::move(h)); }
  // A GET whose `quick` answers what it can without blocking (see QuickHandler).
  Router& Get(const std::string& pattern, QuickHandler quick, Handler h) {
    Add("GET", pattern, std::move(h));
    routes_.back().quick = std::move(quick);
    return *this;
  }
  Router& Post(const std::string& pattern, Handler h, Admit admit = {}) {
    return Add("POST", pattern, std::move(h), std::move(admit));
  }
  Router& Put(const std::string& pattern, Handler h, Admit admit = {}) {
    return Add("PUT", pattern, std::move(h), std::move(admit));
  }
  Router& Delete(const std::string& pattern, Handler h) { return Add("DELETE", pattern, std::move(h)); }
  Router& Add(std::string method, const std::string& pattern, Handler h, Admit admit = {});
  Router& AddAsync(std::string method, const std::string& pattern, AsyncHandler h, Admit admit = {}) {
    Add(std::move(method), pattern, nullptr, std::move(admit));
    routes_.back().async = std::move(h);
    return *this;
  }

  struct Match {
    const Route* route = nullptr;  // nullptr: none for this method
    bool path_known = false;       // another method has a route for this path (→ 405, not 404)
    std::vector<std::string> groups;
  };
  Match Find(const std::string& method, const std::string& path) const;

  // Answers for requests no route takes; JSON by default.
  std::function<void(const Request&, Response&)> not_found;
  std::function<void(const Request&, Response&)> not_allowed;
  std::function<void(const Request&, Response&, const std::string& what)> internal_error;

 private:
  std::vector<Route> routes_;
};

}  // namespace ptsn::server::http

namespace ptsn::server {

// A client error the handlers turn into a status and a one-line message.
struct HttpError {
  int status;
  std::string message;
};

}  // namespace ptsn::server
