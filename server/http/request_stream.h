// The bytes a client sends on one connection, followed as HTTP/1.1 frames them (RFC 9112): heads,
// bodies by Content-Length or chunked, trailers, request after request. It finds a line ending
// other than CRLF where one frames the request (a bare LF or a bare CR in a head, a chunk-size
// line or a trailer), and what else in a head RFC 9112 says to reject or that libmicrohttpd
// reads its own way: a NUL, whitespace before a field's colon (5.1), a folded line (5.2), a chunk
// size that is not plain hexadecimal. libmicrohttpd 0.9.75 reads a bare LF as a line's end
// ("TODO: Add MHD option to disallow"), keeps a bare CR in a value, ends a line at a NUL and
// unfolds folded lines; a proxy in front may read any of these differently (request smuggling).
// Bodies are skipped, not read: a bare LF in an upload is data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ptsn::server::http {

class RequestStream {
 public:
  // How many of `bytes` (the next ones on the connection) are well framed: all of them, or the
  // offset where bad framing begins (problem() says what); after it every later byte is refused.
  size_t Feed(std::string_view bytes);

  // What was wrong, once Feed has refused a byte (one line, for the client); null before.
  const char* problem() const { return problem_; }

 private:
  enum class State {
    kHead,        // the request line and header fields, up to the empty line
    kBody,        // `remaining_` bytes of a Content-Length body
    kChunkSize,   // a chunk-size line
    kChunkData,   // `remaining_` bytes of a chunk
    kChunkEnd,    // the CRLF after a chunk's data
    kTrailers,    // trailer fields, up to the empty line
    kUnfollowed,  // framing CheckFraming refuses, closing the connection: not followed
    kBroken,
  };

  // A line of a head, a chunk-size line or a trailer ended in CRLF.
  void EndLine();
  void HeadField();
  void EndHead();
  void ChunkSize();
  void Break(const char* problem) {
    state_ = State::kBroken;
    problem_ = problem;
  }

  static constexpr size_t kMaxLine = 256;  // of a line kept: framing fields and chunk sizes are short

  State state_ = State::kHead;
  const char* problem_ = nullptr;
  bool after_cr_ = false;    // the byte before was a CR
  bool request_line_ = false;  // the head's request line has been read
  std::string line_;         // the current line, its first kMaxLine bytes
  bool line_cut_ = false;    // the line was longer
  bool chunked_ = false;     // the head named a Transfer-Encoding
  bool length_seen_ = false;
  uint64_t length_ = 0;      // the head's Content-Length
  bool unfollowable_ = false;  // the head frames its body in a way we do not follow
  uint64_t remaining_ = 0;
};

}  // namespace ptsn::server::http
