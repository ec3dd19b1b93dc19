// Serves a Router over HTTP/1.1 with libmicrohttpd: a few event loops (epoll) own every
// connection and read requests as they come, however slowly; only a request whose headers and
// body are all in is handed to a pool of worker threads, which run the route's handler while
// its connection waits suspended (costing no thread). So idle, slow or keep-alive connections
// beyond the worker count cost a socket and a few KiB each, never a thread (cpp-httplib kept a
// thread per connection: 64 idle connections stopped the server).
// Limits enforced while reading, whatever the transfer encoding: no body at all on routes that
// take none, the route's body limit (413 as soon as a body goes over it; the connection is then
// closed, so nothing after it is read as another request), the bodies' memory in all (503), a
// deadline for each request's headers and one for its body, a cap on connections per client
// address and in all. Every byte read from a client is checked for framing a proxy could read
// otherwise before libmicrohttpd parses it (RequestStream; how, at the top of http_server.cc).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "server/http/http.h"

namespace ptsn::server::http {

struct ServerLimits {
  int workers = 64;                       // threads running handlers
  int event_loops = 2;                    // libmicrohttpd threads polling the connections
  size_t max_body_bytes = 16 << 20;       // for routes without an Admit of their own
  // Request bodies held in memory at once, by all requests together; a request that would go
  // over it is refused with 503 (body_budget.h).
  size_t max_body_memory = 256 << 20;
  unsigned max_connections = 20000;       // in all; more are closed at once
  unsigned max_connections_per_address = 256;  // 0 = no cap (behind a proxy that caps them itself)
  // From a connection's start (or the end of its previous answer) to the end of the next
  // request's headers: also how long an idle keep-alive connection is kept.
  unsigned header_timeout_seconds = 30;
  unsigned body_timeout_seconds = 120;    // from the end of the headers to the end of the body
  // Addresses of reverse proxies whose X-Real-IP (else the last X-Forwarded-For) names the client.
  std::vector<std::string> trusted_proxies;
};

class HttpServer {
 public:
  HttpServer(const Router& router, ServerLimits limits);
  ~HttpServer();  // stops
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds HOST:PORT (port 0 picks a free one) and starts serving; returns the port. Throws
  // std::runtime_error with the reason when it cannot.
  int Start(const std::string& host, int port);
  // Stops accepting, lets running handlers finish, closes every connection.
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Raises the soft limit on open files to the hard limit (each connection is a descriptor);
// returns the new soft limit.
long RaiseFileLimit();

}  // namespace ptsn::server::http
