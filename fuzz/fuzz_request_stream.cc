// The bytes a client sends on a connection as the server follows their framing before
// libmicrohttpd parses them (server/http/request_stream.h). The first byte says where to cut the
// rest into two reads. Oracles: the count taken does not depend on how the bytes are cut; it is
// never more than was given; nothing is taken after bad framing.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "server/http/request_stream.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using ptsn::server::http::RequestStream;
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  const size_t cut = bytes.empty() ? 0 : data[0] % (bytes.size() + 1);

  RequestStream whole;
  const size_t taken = whole.Feed(bytes);
  RequestStream split;
  size_t taken_split = split.Feed(bytes.substr(0, cut));
  if (taken_split == cut) taken_split += split.Feed(bytes.substr(cut));
  if (taken > bytes.size() || taken_split != taken) {
    std::fprintf(stderr, "oracle failed: %zu bytes taken whole, %zu cut at %zu (of %zu)\n", taken, taken_split, cut, bytes.size());
    std::abort();
  }
  if (taken < bytes.size() && (whole.problem() == nullptr || whole.Feed("GET / HTTP/1.1\r\n\r\n") != 0)) {
    std::fprintf(stderr, "oracle failed: bad framing without a problem, or bytes taken after it\n");
    std::abort();
  }
  return 0;
}
