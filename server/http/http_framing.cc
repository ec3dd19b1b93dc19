#include "server/http/http_framing.h"

#include <strings.h>

namespace ptsn::server::http {

std::optional<FramingProblem> CheckFraming(const Headers& headers) {
  const size_t lengths = headers.count("Content-Length");
  const size_t encodings = headers.count("Transfer-Encoding");
  if (lengths > 1) return FramingProblem{400, "more than one Content-Length"};
  if (lengths == 1 && encodings > 0) return FramingProblem{400, "both Content-Length and Transfer-Encoding"};
  if (encodings > 1) return FramingProblem{501, "more than one Transfer-Encoding"};
  if (encodings == 1) {
    const std::string& coding = headers.find("Transfer-Encoding")->second;
    if (strcasecmp(coding.c_str(), "chunked") != 0)
      return FramingProblem{501, "Transfer-Encoding '" + coding.substr(0, 40) + "' is not supported (only chunked)"};
  }
  if (lengths == 1) {
    const std::string& length = headers.find("Content-Length")->second;
    if (length.empty() || length.size() > 19 || length.find_first_not_of("0123456789") != std::string::npos)
      return FramingProblem{400, "Content-Length is not a number"};
  }
  return std::nullopt;
}

}  // namespace ptsn::server::http
