// Request framing that a proxy in front of us may read differently from the way libmicrohttpd
// reads it (request smuggling, RFC 9112 6.1 and 6.3): a Content-Length beside a
// Transfer-Encoding, several Content-Lengths, a transfer coding other than chunked. libmicrohttpd
// 0.9.75 picks one reading and goes on; we refuse these before any route, and close.
#pragma once

#include <optional>
#include <string>

#include "server/http/http.h"

namespace ptsn::server::http {

struct FramingProblem {
  int status;           // 400, or 501 for a transfer coding we do not implement
  std::string message;  // one line, for the client
};

// Nothing when the headers frame the body in one way only.
std::optional<FramingProblem> CheckFraming(const Headers& headers);

}  // namespace ptsn::server::http
