#include "server/http/http_server.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_set>

#include "server/http/body_budget.h"
#include "server/http/http_framing.h"
#include "server/http/request_stream.h"

namespace ptsn::server::http {

namespace {

using Clock = std::chrono::steady_clock;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now().time_since_epoch()).count();
}

// A fixed set of threads taking jobs first come, first served.
class WorkerPool {
 public:
  explicit WorkerPool(int n) {
    for (int i = 0; i < std::max(n, 1); ++i) threads_.emplace_back([this] { Loop(); });
  }
  ~WorkerPool() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  void Submit(std::function<void()> job) {
    {
      std::lock_guard lock(mu_);
      jobs_.push_back(std::move(job));
    }
    cv_.notify_one();
  }

 private:
  void Loop() {
    std::unique_lock lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // stopping, nothing left
      auto job = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      job();
      lock.lock();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

// ---- The request framing check: every byte libmicrohttpd reads from a client, before its parser ----
// libmicrohttpd 0.9.75 reads a bare LF as a line's end ("TODO: Add MHD option to disallow"), keeps
// a bare CR in a value, ends a line at a NUL and unfolds folded lines. Its strict mode
// (MHD_OPTION_STRICT_FOR_CLIENT) only asks for a Host and refuses spaces in the URL (or, at -1,
// before a colon), and it has no hook for the bytes it reads. A proxy in front may read any of
// these another way (request smuggling), so each connection's bytes are followed as libmicrohttpd
// reads them (RequestStream, request_stream.h), and at the first badly framed byte the client
// gets a 400 and the connection is closed, before libmicrohttpd's parser sees it. How the reads
// get here: the server links a copy of libmicrohttpd.a whose one call to recv is renamed
// ptsn_mhd_recv (server/CMakeLists.txt), defined at the end of this file. Only libmicrohttpd's
// reads come here; every other recv in the process (libpq's, libcurl's) is the C library's.
// A bare LF: RFC 9112 2.2 lets a recipient read it as a line's end, and nginx does (it then sends
// its own CRLF upstream, so behind nginx none reaches us). Straight from clients we refuse it:
// the clients we serve (PTS, pts-native, browsers) send CRLF, and a proxy that passes a head on as
// it came while reading a bare LF as part of a field (one field to it, two to us) is all request
// smuggling needs.

// The RequestStream of each connection libmicrohttpd reads, by descriptor, without a lock: a slot
// is set when libmicrohttpd announces the connection, before it reads from it, and cleared before
// it closes the descriptor; in between only the thread reading the connection looks at it.
class StreamsByFd {
 public:
  static StreamsByFd& Get() {
    static StreamsByFd* table = new StreamsByFd;  // never destroyed: a read may come during exit
    return *table;
  }
  // False when `fd` is beyond the table.
  bool Set(int fd, RequestStream* stream) {
    if (fd < 0 || fd >= kPages * kPageSize) return false;
    Slot* page = pages_[fd / kPageSize].load(std::memory_order_acquire);
    if (!page) {
      auto* fresh = new Slot[kPageSize]();
      if (pages_[fd / kPageSize].compare_exchange_strong(page, fresh, std::memory_order_acq_rel)) page = fresh;
      else delete[] fresh;  // another thread's page is `page` now
    }
    page[fd % kPageSize].store(stream, std::memory_order_release);
    return true;
  }
  RequestStream* Find(int fd) const {
    if (fd < 0 || fd >= kPages * kPageSize) return nullptr;
    const Slot* page = pages_[fd / kPageSize].load(std::memory_order_acquire);
    return page ? page[fd % kPageSize].load(std::memory_order_acquire) : nullptr;
  }

 private:
  using Slot = std::atomic<RequestStream*>;
  static constexpr int kPageSize = 4096, kPages = 1024;  // descriptors below 4 Mi, pages made as needed
  std::atomic<Slot*> pages_[kPages] = {};
};

// The 400, written here: libmicrohttpd is reading, so nothing of an answer is under way. What the
// client sent next is read and dropped (a little of it), as a close with unread bytes would reset
// the connection, and the client could lose the answer. The error makes libmicrohttpd close.
ssize_t RefuseFraming(int fd, const char* problem) {
  const std::string body = std::string("{\"error\":\"malformed request framing: ") + problem + " (RFC 9112)\"}";
  const std::string wire = "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: " +
                           std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
  (void)!::send(fd, wire.data(), wire.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  ::shutdown(fd, SHUT_WR);
  char sink[4096];
  for (int i = 0; i < 256 && ::recv(fd, sink, sizeof sink, MSG_DONTWAIT) > 0; ++i) {
  }
  errno = ECONNRESET;
  return -1;
}

// libmicrohttpd's read of `fd`, checked.
ssize_t ReadChecked(int fd, void* buf, size_t len, int flags) {
  const ssize_t n = ::recv(fd, buf, len, flags);
  if (n <= 0 || (flags & MSG_PEEK)) return n;
  RequestStream* stream = StreamsByFd::Get().Find(fd);
  if (!stream) return n;  // not a client connection (libmicrohttpd reads only those with recv)
  const size_t read = static_cast<size_t>(n);
  if (stream->Feed({static_cast<const char*>(buf), read}) < read) return RefuseFraming(fd, stream->problem());
  return n;
}

// One connection: its framing as read so far, and its deadline, watched by the sweeper; 0 = none (a
// handler is running or the answer is being sent: libmicrohttpd's own inactivity timeout covers a
// client that stops reading).
struct ConnectionState {
  int fd = -1;
  RequestStream stream;
  std::atomic<int64_t> deadline_ms{0};
  bool cut = false;  // the sweeper shut it down (guarded by the registry's mutex)
};

// One request, from its headers to the end of its answer.
struct Exchange {
  explicit Exchange(BodyBudget* budget) : share(budget) {}
  Request req;
  const Route* route = nullptr;
  size_t max_body = 0;
  Refuse refuse;                  // the route's shape for our own refusals (Admission::refuse)
  BodyBudget::Share share;        // what the body holds of the server's BodyBudget
  bool refused_mid_body = false;  // a 413/503 was written; what follows is discarded, then we close
  size_t discarded = 0;
  int64_t refused_at_ms = 0;
  bool dispatched = false;
  Response res;

  // Once the handler has it (or it is refused): its memory goes back to the budget.
  void DropBody() {
    req.body.clear();
    req.body.shrink_to_fit();
    share.Drop();
  }
};

// Whether the headers announce a body (any Transfer-Encoding, a Content-Length other than 0).
bool AnnouncesBody(const Request& req) {
  if (req.HasHeader("Transfer-Encoding")) return true;
  auto [from, to] = req.headers.equal_range("Content-Length");
  for (auto it = from; it != to; ++it)
    if (it->second.find_first_not_of("0 \t") != std::string::npos) return true;
  return false;
}

std::string JsonEscaped(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    out += c;
  }
  return out;
}

std::string AddressText(const sockaddr* sa) {
  char buf[INET6_ADDRSTRLEN] = {0};
  if (!sa) return "";
  if (sa->sa_family == AF_INET) inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, buf, sizeof buf);
  else if (sa->sa_family == AF_INET6) {
    const auto* a6 = reinterpret_cast<const sockaddr_in6*>(sa);
    if (IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr)) inet_ntop(AF_INET, &a6->sin6_addr.s6_addr[12], buf, sizeof buf);
    else inet_ntop(AF_INET6, &a6->sin6_addr, buf, sizeof buf);
  }
  return buf;
}

}  // namespace

struct HttpServer::Impl {
  const Router& router;
  ServerLimits limits;
  MHD_Daemon* daemon = nullptr;
  int listen_fd = -1;
  BodyBudget budget;
  std::unique_ptr<WorkerPool> workers;

  std::mutex reg_mu;
  std::unordered_set<ConnectionState*> connections;
  std::thread sweeper;
  std::mutex sweep_mu;
  std::condition_variable sweep_cv;
  bool stopping = false;

  std::atomic<int> in_flight{0};  // handlers dispatched and not yet resumed

  Impl(const Router& r, ServerLimits l) : router(r), limits(std::move(l)), budget(limits.max_body_memory) {}

  // ---- connections and their deadlines ----
  static void OnConnection(void* cls, MHD_Connection* conn, void** socket_context, MHD_ConnectionNotificationCode code) {
    auto* self = static_cast<Impl*>(cls);
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
      auto* cs = new ConnectionState;
      const MHD_ConnectionInfo* info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
      cs->fd = info ? info->connect_fd : -1;
      if (!StreamsByFd::Get().Set(cs->fd, &cs->stream)) ::shutdown(cs->fd, SHUT_RDWR);  // unchecked: never read
      cs->deadline_ms = NowMs() + 1000LL * self->limits.header_timeout_seconds;
      std::lock_guard lock(self->reg_mu);
      self->connections.insert(cs);
      *socket_context = cs;
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
      // Called before libmicrohttpd closes the descriptor: once it is out of the registry the
      // sweeper can no longer shut down a descriptor number that another connection reuses.
      auto* cs = static_cast<ConnectionState*>(*socket_context);
      if (!cs) return;
      StreamsByFd::Get().Set(cs->fd, nullptr);
      {
        std::lock_guard lock(self->reg_mu);
        self->connections.erase(cs);
      }
      delete cs;
      *socket_context = nullptr;
    }
  }

  static ConnectionState* StateOf(MHD_Connection* conn) {
    const MHD_ConnectionInfo* info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? static_cast<ConnectionState*>(info->socket_context) : nullptr;
  }

  // Shuts down connections past their deadline; libmicrohttpd then sees the end and closes them.
  void SweepLoop() {
    std::unique_lock lock(sweep_mu);
    while (!stopping) {
      sweep_cv.wait_for(lock, std::chrono::milliseconds(500));
      const int64_t now = NowMs();
      std::lock_guard reg(reg_mu);
      for (ConnectionState* cs : connections) {
        int64_t d = cs->deadline_ms.load(std::memory_order_relaxed);
        if (d == 0 || d > now || cs->cut || cs->fd < 0) continue;
        ::shutdown(cs->fd, SHUT_RDWR);
        cs->cut = true;
      }
    }
  }

  // ---- requests ----
  static void OnCompleted(void* cls, MHD_Connection* conn, void** req_cls, MHD_RequestTerminationCode) {
    auto* self = static_cast<Impl*>(cls);
    delete static_cast<Exchange*>(*req_cls);
    *req_cls = nullptr;
    if (ConnectionState* cs = StateOf(conn))
      cs->deadline_ms = NowMs() + 1000LL * self->limits.header_timeout_seconds;  // for the next request
  }

  static MHD_Result OnRequest(void* cls, MHD_Connection* conn, const char* url, const char* method, const char*,
                              const char* upload_data, size_t* upload_data_size, void** req_cls) {
    auto* self = static_cast<Impl*>(cls);
    auto* ex = static_cast<Exchange*>(*req_cls);
    if (!ex) {
      ex = new Exchange(&self->budget);
      *req_cls = ex;
      return self->BeginRequest(conn, url, method, *ex);
    }
    if (*upload_data_size > 0) {
      const size_t n = *upload_data_size;
      *upload_data_size = 0;
      if (ex->refused_mid_body) {
        // Read and dropped for a little while, so the client can read the 413 before the close
        // (closing with unread data would reset the connection and could lose the answer).
        ex->discarded += n;
        return (ex->discarded > (1u << 20) || NowMs() - ex->refused_at_ms > 2000) ? MHD_NO : MHD_YES;
      }
      if (ex->req.body.size() + n > ex->max_body) {
        self->RefuseMidBody(conn, *ex, 413, TooLargeMessage(*ex));
        return MHD_YES;
      }
      if (!ex->share.Cover(ex->req.body.size() + n, ex->max_body)) {
        self->RefuseMidBody(conn, *ex, 503, self->BusyMessage());
        return MHD_YES;
      }
      if (ex->req.body.empty()) {
        // Room for the whole body at once: no copy as it grows (a doubling string held the old
        // and the new buffer, 48 MB for a 16 MB body). Pages not yet written cost no memory.
        const std::string length = ex->req.Header("Content-Length");
        ex->req.body.reserve(length.empty() ? ex->max_body : std::min<size_t>(ex->max_body, std::strtoull(length.c_str(), nullptr, 10)));
      }
      ex->req.body.append(upload_data, n);
      return MHD_YES;
    }
    if (ex->refused_mid_body) return MHD_NO;  // the body ended after the 413: close
    if (!ex->dispatched && ex->route->quick) {
      bool answered = false;
      try {
        answered = ex->route->quick(ex->req, ex->res);
      } catch (const std::exception&) {
        ex->res = Response{};  // the worker's handler answers it, errors included
      }
      if (answered) {
        ex->dispatched = true;
        return Queue(conn, ex->res);
      }
    }
    if (!ex->dispatched) {
      ex->dispatched = true;
      if (ConnectionState* cs = StateOf(conn)) cs->deadline_ms = 0;
      self->Dispatch(conn, ex);
      return MHD_YES;
    }
    return self->Queue(conn, ex->res);  // resumed: the handler's answer is ready
  }

  MHD_Result BeginRequest(MHD_Connection* conn, const char* url, const char* method, Exchange& ex) {
    Request& req = ex.req;
    req.method = method;
    req.path = url;
    MHD_get_connection_values(
        conn, MHD_HEADER_KIND,
        [](void* out, MHD_ValueKind, const char* k, const char* v) {
          static_cast<Headers*>(out)->emplace(k, v ? v : "");
          return MHD_YES;
        },
        &req.headers);
    MHD_get_connection_values(
        conn, MHD_GET_ARGUMENT_KIND,
        [](void* out, MHD_ValueKind, const char* k, const char* v) {
          static_cast<Params*>(out)->emplace(k, v ? v : "");
          return MHD_YES;
        },
        &req.params);
    const MHD_ConnectionInfo* addr = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    req.remote_addr = AddressText(addr ? addr->client_addr : nullptr);
    if (std::find(limits.trusted_proxies.begin(), limits.trusted_proxies.end(), req.remote_addr) !=
        limits.trusted_proxies.end()) {
      std::string real = req.Header("X-Real-IP");
      if (real.empty()) {
        real = req.Header("X-Forwarded-For");
        if (auto comma = real.rfind(','); comma != std::string::npos) real = real.substr(comma + 1);
      }
      real.erase(0, real.find_first_not_of(" \t"));
      real.erase(real.find_last_not_of(" \t") + 1);
      if (!real.empty() && real.size() <= 64) req.remote_addr = real;
    }

    if (auto problem = CheckFraming(req.headers)) {
      Response res;
      res.status = problem->status;
      res.SetContent("{\"error\":\"" + JsonEscaped(problem->message) + "\"}", "application/json");
      res.close_connection = true;  // nothing after these headers can be trusted to be a request
      return Queue(conn, res);
    }
    Router::Match m = router.Find(req.method, req.path);
    if (!m.route) {
      Response res;
      if (m.path_known) router.not_allowed(req, res);
      else router.not_found(req, res);
      return Queue(conn, res);  // before any body: libmicrohttpd closes if one was coming
    }
    ex.route = m.route;
    req.matches = std::move(m.groups);
    if (!TakesBody(ex.route->method) && AnnouncesBody(req)) {
      Response res;
      Refusal(ex, 413, "a " + ex.route->method + " request takes no body here", res);
      return Queue(conn, res);  // before the body: libmicrohttpd reads none of it and closes
    }
    Admission a;
    a.max_body = limits.max_body_bytes;
    if (ex.route->admit) {
      try {
        a = ex.route->admit(req);
      } catch (const std::exception& e) {
        Response res;
        router.internal_error(req, res, e.what());
        return Queue(conn, res);
      }
    }
    if (a.refused) return Queue(conn, a.refusal);
    ex.max_body = a.max_body;
    ex.refuse = std::move(a.refuse);
    const std::string length = req.Header("Content-Length");
    const size_t announced = length.empty() ? 0 : std::strtoull(length.c_str(), nullptr, 10);
    if (announced > ex.max_body || !ex.share.Cover(announced, ex.max_body)) {
      Response res;
      if (announced > ex.max_body) Refusal(ex, 413, TooLargeMessage(ex), res);
      else Refusal(ex, 503, BusyMessage(), res);
      return Queue(conn, res);
    }
    if (ConnectionState* cs = StateOf(conn)) cs->deadline_ms = NowMs() + 1000LL * limits.body_timeout_seconds;
    return MHD_YES;
  }

  static std::string TooLargeMessage(const Exchange& ex) {
    return "request body is over the size limit of " + std::to_string(ex.max_body) + " bytes";
  }
  std::string BusyMessage() const {
    return "the server holds its limit of " + std::to_string(budget.total() >> 20) +
           " MiB of request bodies; retry later";
  }

  // A refusal of the server's own (413, 503), in the route's shape; the connection is closed.
  static void Refusal(const Exchange& ex, int status, const std::string& message, Response& res) {
    if (ex.refuse) {
      ex.refuse(status, message, res);
    } else {
      res.status = status;
      res.SetContent("{\"error\":\"" + JsonEscaped(message) + "\"}", "application/json");
    }
    if (status == 503) res.SetHeader("Retry-After", "5");
    res.close_connection = true;
  }

  // libmicrohttpd cannot queue an answer while a body is being read, only before or after: the
  // refusal is written to the socket here (nothing else has been written for this request),
  // and the connection is closed once the client stops sending or after a little more of it.
  void RefuseMidBody(MHD_Connection* conn, Exchange& ex, int status, const std::string& message) {
    ex.refused_mid_body = true;
    ex.refused_at_ms = NowMs();
    ex.DropBody();
    Response res;
    Refusal(ex, status, message, res);
    const char* reason = MHD_get_reason_phrase_for(static_cast<unsigned>(res.status));
    std::string wire = "HTTP/1.1 " + std::to_string(res.status) + " " + (reason ? reason : "") + "\r\n";
    for (const auto& [k, v] : res.headers) wire += k + ": " + v + "\r\n";
    wire += "Content-Length: " + std::to_string(res.body.size()) + "\r\nConnection: close\r\n\r\n" + res.body;
    const MHD_ConnectionInfo* info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (info) {
      (void)!::send(info->connect_fd, wire.data(), wire.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      ::shutdown(info->connect_fd, SHUT_WR);
    }
  }

  void Dispatch(MHD_Connection* conn, Exchange* ex) {
    MHD_suspend_connection(conn);
    ++in_flight;
    if (ex->route->async) {
      // The handler parks the request (a long-poll) and calls `done` later from another thread;
      // until then the connection stays suspended and this worker is free for others.
      workers->Submit([this, conn, ex] {
        auto answered = std::make_shared<std::atomic<bool>>(false);
        auto resume = [this, conn, ex, answered] {
          if (answered->exchange(true)) return;  // once only, whoever calls it
          ex->DropBody();
          MHD_resume_connection(conn);
          --in_flight;
        };
        auto fail = [&](const char* what) {
          if (answered->load()) return;  // answered already: nothing more to send
          ex->res = Response{};
          router.internal_error(ex->req, ex->res, what);
          resume();
        };
        try {
          ex->route->async(ex->req, ex->res, resume);
        } catch (const std::exception& e) {
          fail(e.what());
        } catch (...) {
          fail("unknown exception");
        }
      });
      return;
    }
    workers->Submit([this, conn, ex] {
      try {
        ex->route->handler(ex->req, ex->res);
      } catch (const std::exception& e) {
        ex->res = Response{};
        router.internal_error(ex->req, ex->res, e.what());
      } catch (...) {
        ex->res = Response{};
        router.internal_error(ex->req, ex->res, "unknown exception");
      }
      ex->DropBody();
      MHD_resume_connection(conn);
      --in_flight;
    });
  }

  static MHD_Result Queue(MHD_Connection* conn, Response& res) {
    MHD_Response* r;
    if (res.file) {
      const int fd = ::dup(*res.file);  // libmicrohttpd closes its own copy
      r = fd < 0 ? nullptr : MHD_create_response_from_fd(res.file_size, fd);
      if (!r && fd >= 0) ::close(fd);
    } else if (res.shared_owner) {
      auto* owner = new std::shared_ptr<const void>(std::move(res.shared_owner));
      r = MHD_create_response_from_buffer_with_free_callback_cls(
          res.shared_body.size(), const_cast<char*>(res.shared_body.data()),
          [](void* p) { delete static_cast<std::shared_ptr<const void>*>(p); }, owner);
      if (!r) delete owner;
    } else {
      auto* body = new std::string(std::move(res.body));
      r = MHD_create_response_from_buffer_with_free_callback_cls(
          body->size(), body->data(), [](void* p) { delete static_cast<std::string*>(p); }, body);
      if (!r) delete body;
    }
    if (!r) return MHD_NO;
    for (const auto& [k, v] : res.headers) MHD_add_response_header(r, k.c_str(), v.c_str());
    if (res.close_connection) MHD_add_response_header(r, "Connection", "close");
    MHD_Result ok = MHD_queue_response(conn, static_cast<unsigned>(res.status), r);
    MHD_destroy_response(r);
    return ok;
  }

  int Bind(const std::string& host, int port) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    addrinfo* found = nullptr;
    const std::string service = std::to_string(port);
    if (int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &found); rc != 0)
      throw std::runtime_error("cannot resolve " + host + ": " + gai_strerror(rc));
    std::string why = "no address";
    for (addrinfo* a = found; a; a = a->ai_next) {
      int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
      if (fd < 0) continue;
      int one = 1;
      setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
      if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 4096) == 0) {
        listen_fd = fd;
        break;
      }
      why = std::strerror(errno);
      ::close(fd);
    }
    freeaddrinfo(found);
    if (listen_fd < 0) throw std::runtime_error("cannot listen on " + host + ":" + service + ": " + why);
    sockaddr_storage bound{};
    socklen_t len = sizeof bound;
    getsockname(listen_fd, reinterpret_cast<sockaddr*>(&bound), &len);
    return ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                             : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  }

  void Start() {
    workers = std::make_unique<WorkerPool>(limits.workers);
    const unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME;
    daemon = MHD_start_daemon(
        flags, 0, nullptr, nullptr, &Impl::OnRequest, this,
        MHD_OPTION_LISTEN_SOCKET, listen_fd,
        MHD_OPTION_THREAD_POOL_SIZE, static_cast<unsigned>(std::max(limits.event_loops, 1)),
        MHD_OPTION_CONNECTION_LIMIT, limits.max_connections,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, limits.max_connections_per_address,
        MHD_OPTION_CONNECTION_TIMEOUT, std::max(limits.header_timeout_seconds, limits.body_timeout_seconds),
        MHD_OPTION_NOTIFY_COMPLETED, &Impl::OnCompleted, this,
        MHD_OPTION_NOTIFY_CONNECTION, &Impl::OnConnection, this,
        MHD_OPTION_END);
    if (!daemon) {
      workers.reset();
      throw std::runtime_error("libmicrohttpd did not start (too many connections or threads asked for?)");
    }
    sweeper = std::thread([this] { SweepLoop(); });
  }

  void Stop() {
    if (!daemon) return;
    MHD_quiesce_daemon(daemon);  // no new connections
    // Suspended connections must be resumed before the daemon stops: let the handlers finish.
    while (in_flight.load() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    {
      std::lock_guard lock(sweep_mu);
      stopping = true;
    }
    sweep_cv.notify_all();
    sweeper.join();
    MHD_stop_daemon(daemon);
    daemon = nullptr;
    workers.reset();
    if (listen_fd >= 0) ::close(listen_fd);
    listen_fd = -1;
  }
};

HttpServer::HttpServer(const Router& router, ServerLimits limits)
    : impl_(std::make_unique<Impl>(router, std::move(limits))) {}

HttpServer::~HttpServer() { Stop(); }

int HttpServer::Start(const std::string& host, int port) {
  int bound = impl_->Bind(host, port);
  impl_->Start();
  return bound;
}

void HttpServer::Stop() { impl_->Stop(); }

long RaiseFileLimit() {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return -1;
  if (rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    getrlimit(RLIMIT_NOFILE, &rl);
  }
  return static_cast<long>(rl.rlim_cur);
}

}  // namespace ptsn::server::http

// libmicrohttpd's calls to recv, renamed in the copy of libmicrohttpd.a the server links (server/CMakeLists.txt).
extern "C" ssize_t ptsn_mhd_recv(int fd, void* buf, size_t len, int flags);
extern "C" ssize_t ptsn_mhd_recv(int fd, void* buf, size_t len, int flags) {
  return ptsn::server::http::ReadChecked(fd, buf, len, flags);
}
