#include "server/http/request_stream.h"

#include <strings.h>

#include <algorithm>

namespace ptsn::server::http {

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t'; }

std::string_view Trimmed(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

bool SameName(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

size_t RequestStream::Feed(std::string_view bytes) {
  for (size_t i = 0; i < bytes.size(); ++i) {
    switch (state_) {
      case State::kBroken:
        return i;
      case State::kUnfollowed:
        return bytes.size();
      case State::kBody:
      case State::kChunkData: {
        const uint64_t take = std::min<uint64_t>(remaining_, bytes.size() - i);  // at least 1
        remaining_ -= take;
        i += take - 1;
        if (remaining_ == 0) state_ = state_ == State::kBody ? State::kHead : State::kChunkEnd;
        break;
      }
      default: {  // a line: of a head, a chunk-size line, the CRLF after a chunk, a trailer
        const char c = bytes[i];
        if (after_cr_) {
          after_cr_ = false;
          if (c != '\n') Break("a CR not followed by LF");
          else EndLine();
        } else if (c == '\r') {
          after_cr_ = true;
        } else if (c == '\n') {
          Break("a line ending in a bare LF, not CRLF");
        } else if (c == '\0') {
          Break("a NUL byte");
        } else if (state_ == State::kChunkEnd) {
          Break("a chunk's data longer than its size");
        } else if (line_.size() < kMaxLine) {
          line_ += c;
        } else {
          line_cut_ = true;
        }
        if (state_ == State::kBroken) return i;
      }
    }
  }
  return bytes.size();
}

void RequestStream::EndLine() {
  switch (state_) {
    case State::kHead:
      if (!request_line_) request_line_ = !line_.empty();  // empty lines before one are skipped, as libmicrohttpd does
      else if (line_.empty()) EndHead();
      else HeadField();
      break;
    case State::kChunkSize:
      ChunkSize();
      break;
    case State::kChunkEnd:
      state_ = State::kChunkSize;
      break;
    case State::kTrailers:
      if (line_.empty()) state_ = State::kHead;  // the next request
      else HeadField();
      break;
    default:
      break;
  }
  line_.clear();
  line_cut_ = false;
}

void RequestStream::HeadField() {
  if (IsSpace(line_[0])) return Break("a folded field line (obsolete line folding)");
  const size_t colon = line_.find(':');
  if (colon == std::string::npos) return;  // no colon: libmicrohttpd refuses it; or a name over kMaxLine: no framing field
  const std::string_view name(line_.data(), colon);
  if (name.find_first_of(" \t") != std::string_view::npos) return Break("whitespace in a field's name or before its colon");
  if (state_ != State::kHead) return;  // a trailer frames nothing
  const std::string_view value = Trimmed(std::string_view(line_).substr(colon + 1));
  const bool length = SameName(name, "Content-Length"), coding = SameName(name, "Transfer-Encoding");
  if ((length || coding) && line_cut_) return Break("a Content-Length or Transfer-Encoding field line over 256 bytes");
  if (length) {
    if (length_seen_ || value.empty() || value.size() > 19 || value.find_first_not_of("0123456789") != std::string_view::npos)
      unfollowable_ = true;
    else
      length_ = std::stoull(std::string(value));
    length_seen_ = true;
  } else if (coding) {
    if (chunked_ || !SameName(value, "chunked")) unfollowable_ = true;
    chunked_ = true;
  }
}

void RequestStream::EndHead() {
  // Framing CheckFraming refuses, closing the connection, is not followed.
  if (unfollowable_ || (chunked_ && length_seen_)) {
    state_ = State::kUnfollowed;
  } else if (chunked_) {
    state_ = State::kChunkSize;
  } else if (length_ > 0) {
    remaining_ = length_;
    state_ = State::kBody;
  }
  request_line_ = chunked_ = length_seen_ = unfollowable_ = false;
  length_ = 0;
}

void RequestStream::ChunkSize() {
  // chunk-size [ BWS ";" chunk-ext ] (RFC 9112 7.1)
  uint64_t size = 0;
  size_t digits = 0;
  for (; digits < line_.size() && HexDigit(line_[digits]) >= 0; ++digits) {
    if (size > (UINT64_MAX >> 4)) return Break("a chunk size too large");
    size = size * 16 + static_cast<uint64_t>(HexDigit(line_[digits]));
  }
  const std::string_view rest = Trimmed(std::string_view(line_).substr(digits));
  if (digits == 0 || line_cut_ || !(rest.empty() || rest.front() == ';'))
    return Break("a chunk-size line that is not a hexadecimal number");
  if (size == 0) {
    state_ = State::kTrailers;
  } else {
    remaining_ = size;
    state_ = State::kChunkData;
  }
}

}  // namespace ptsn::server::http
