// libmicrohttpd's reads of a connection, checked as they are read: a RequestStream follows the
// bytes, and at the first that frames a request in a way a proxy may read differently (a bare
// LF, see request_stream.h) the client gets a 400 and the connection is closed, before any of
// those bytes reach libmicrohttpd's parser. libmicrohttpd 0.9.75 has no option for this and no
// hook for the bytes it reads, so strict_recv.cc defines `recv` itself: the C library's for
// every socket, and checked for the sockets named here.
#pragma once

namespace ptsn::server::http {

// From libmicrohttpd's notice of a new connection, before it reads from `fd`...
void CheckRequestsOn(int fd);
// ...to its notice of the close, before it closes `fd` (whose number may then be used again).
void StopCheckingRequestsOn(int fd);

}  // namespace ptsn::server::http
