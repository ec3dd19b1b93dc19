// The fortified recv of <bits/socket2.h> is an inline definition this file may not repeat.
#undef _FORTIFY_SOURCE
#include "server/http/strict_recv.h"

#include <sys/socket.h>
#include <sys/types.h>

#include <cerrno>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "server/http/request_stream.h"

namespace ptsn::server::http {

namespace {

// Each stream is fed only by the thread that reads its connection (libmicrohttpd reads a
// connection from one event loop), so the lock guards the table, not the streams.
struct Checked {
  std::mutex mu;
  std::unordered_map<int, std::unique_ptr<RequestStream>> streams;
};

Checked& Table() {
  static Checked* table = new Checked;  // never destroyed: recv may run during exit
  return *table;
}

RequestStream* StreamOf(int fd) {
  Checked& t = Table();
  std::lock_guard lock(t.mu);
  auto it = t.streams.find(fd);
  return it == t.streams.end() ? nullptr : it->second.get();
}

// The 400, written here: libmicrohttpd is reading, so nothing of an answer is under way. What the
// client sent next is read and dropped (a little of it), as a close with unread bytes would reset
// the connection, and the client could lose the answer. The error makes libmicrohttpd close.
ssize_t Refuse(int fd, const char* problem) {
  const std::string body = std::string("{\"error\":\"malformed request framing: ") + problem + " (RFC 9112)\"}";
  const std::string wire = "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: " +
                           std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
  (void)!::send(fd, wire.data(), wire.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  ::shutdown(fd, SHUT_WR);
  char sink[4096];
  for (int i = 0; i < 256 && ::recvfrom(fd, sink, sizeof sink, MSG_DONTWAIT, nullptr, nullptr) > 0; ++i) {
  }
  errno = ECONNRESET;
  return -1;
}

}  // namespace

void CheckRequestsOn(int fd) {
  if (fd < 0) return;
  Checked& t = Table();
  std::lock_guard lock(t.mu);
  t.streams.insert_or_assign(fd, std::make_unique<RequestStream>());
}

void StopCheckingRequestsOn(int fd) {
  Checked& t = Table();
  std::lock_guard lock(t.mu);
  t.streams.erase(fd);
}

}  // namespace ptsn::server::http

// The C library's recv is recvfrom without an address; libmicrohttpd's calls to recv land here
// (a definition in the program comes before the C library's).
extern "C" ssize_t recv(int fd, void* buf, size_t len, int flags) {
  const ssize_t n = ::recvfrom(fd, buf, len, flags, nullptr, nullptr);
  if (n <= 0 || (flags & MSG_PEEK)) return n;
  ptsn::server::http::RequestStream* stream = ptsn::server::http::StreamOf(fd);
  if (!stream) return n;
  const size_t read = static_cast<size_t>(n);
  if (stream->Feed({static_cast<const char*>(buf), read}) < read) return ptsn::server::http::Refuse(fd, stream->problem());
  return n;
}
