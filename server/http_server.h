// httplib::Server with a listen backlog fit for many clients: Debian's compiled cpp-httplib
// listens with a backlog of 5, so 50 clients connecting at once overflow it. listen() may be
// called again on a listening socket to change the backlog.
#pragma once

#include <httplib.h>
#include <sys/socket.h>

namespace ptsn::server {

class HttpServer : public httplib::Server {
 public:
  // Call after bind_to_port / bind_to_any_port.
  void WidenBacklog(int backlog = 1024) { ::listen(svr_sock_, backlog); }
};

}  // namespace ptsn::server
