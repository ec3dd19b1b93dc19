// A small HTTP load client for bench_server.sh: C concurrent keep-alive connections, closed
// loop (each sends its next request when the previous answer is in), a fixed number of requests
// (fetch of one stored result, or protocol upload of a result file); reports requests/s, latency
// percentiles and its own CPU time. One thread and epoll, so that on a 2-core machine the client
// takes as little CPU (and as few runnable threads) from the server under test as it can.
// Loopback only; bounded in count and time. SIGUSR1 ends the run early (no new requests; the
// figures cover what was done), for a background load that lasts as long as another one.
//   bench_load_client fetch  HOST PORT PATH CONCURRENCY REQUESTS
//   bench_load_client upload HOST PORT TOKEN CONCURRENCY REQUESTS RESULTS_PER_FILE [URL_PATH]
// `upload` encodes as PTS does when PHP has bzip2 (composite_xml_bz above 40,000 bytes);
// `upload-gz` as PTS does on a stock Debian php-cli without the bz2 extension (raw DEFLATE), which
// is also what `pts-native upload-result` sends.
// `phoromatic` sends the same file as a Phoromatic client's result upload (r=result_upload,
// composite_xml_gz) to URL_PATH (/phoromatic.php); TOKEN is ACCOUNT_ID:MACHINE_SELF_ID there,
// and an answer counts as an error unless it carries an upload_id.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "runner/openbenchmarking/wire.h"
#include "server/testing/sample_result.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Conn {
  int fd = -1;
  int request = -1;  // index being served, -1 = idle
  const std::string* out = nullptr;
  size_t sent = 0;
  std::string in;
  Clock::time_point t0;
};

int Connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 && errno != EINPROGRESS) {
    std::perror("connect");
    std::exit(2);
  }
  return fd;
}

// Parses one complete response at the front of `in`: status, whether the server closes, and the
// total length; 0 while incomplete. An answer without Content-Length (PHP's built-in server)
// ends when the server closes: `eof`.
size_t ResponseLength(const std::string& in, bool eof, int* status, bool* closes) {
  size_t end = in.find("\r\n\r\n");
  if (end == std::string::npos) return 0;
  std::string head = in.substr(0, end);
  for (auto& ch : head) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  *status = std::atoi(head.c_str() + 9);
  *closes = head.find("connection: close") != std::string::npos;
  size_t cl = head.find("content-length:");
  if (cl == std::string::npos) {
    *closes = true;
    return eof ? in.size() : 0;
  }
  size_t body = std::strtoull(head.c_str() + cl + 15, nullptr, 10);
  return in.size() >= end + 4 + body ? end + 4 + body : 0;
}

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

}  // namespace

volatile sig_atomic_t g_stop = 0;

int main(int argc, char** argv) {
  std::signal(SIGUSR1, [](int) { g_stop = 1; });
  if (argc < 7) {
    std::fprintf(stderr, "usage: %s fetch HOST PORT PATH C N | upload HOST PORT TOKEN C N RESULTS [PATH]\n", argv[0]);
    return 2;
  }
  const std::string mode = argv[1], host = argv[2], arg = argv[4];
  const int port = std::stoi(argv[3]), concurrency = std::stoi(argv[5]), total = std::stoi(argv[6]);
  const int results = argc > 7 ? std::stoi(argv[7]) : 100;
  const std::string upload_path = argc > 8 ? argv[8] : "/f/client.php";
  if (host != "127.0.0.1" && host != "localhost") {
    std::fprintf(stderr, "loopback only\n");
    return 2;
  }
  // Requests are prepared before the clock starts; each upload is a distinct file (distinct hash).
  std::vector<std::string> requests;
  const std::string host_line = "Host: 127.0.0.1:" + std::to_string(port) + "\r\n";
  const bool phoromatic = mode == "phoromatic";
  const bool upload = mode == "upload" || mode == "upload-gz" || phoromatic;
  std::string auth_header = "Authorization: Bearer " + arg + "\r\n";
  if (phoromatic) auth_header.clear();
  if (upload) {
    for (int i = 0; i < total; ++i) {
      ptsn::wire::Upload up;
      up.xml = ptsn::server::testing::SampleCompositeXml("Bench Upload " + std::to_string(i), results, 2, i);
      // Built directly rather than by EncodeUpload, which sends DEFLATE only (as a stock PTS).
      ptsn::wire::FormFields fields;
      if (phoromatic) {
        // What a Phoromatic client posts (phoromatic.php's request variables; result_upload.php).
        const std::string aid = arg.substr(0, arg.find(':')), msi = arg.substr(arg.find(':') + 1);
        fields = {{"aid", aid}, {"msi", msi}, {"r", "result_upload"}, {"pts", "10.8.6"}, {"pts_core", "10860"}};
      } else {
        fields = {{"r", "upload_test_result"}, {"client_version", "10860"}};
      }
      if (mode == "upload") fields.emplace_back("composite_xml_bz", ptsn::wire::Base64Encode(ptsn::wire::Bzip2Compress(up.xml, 8)));
      else fields.emplace_back("composite_xml_gz", ptsn::wire::Base64Encode(ptsn::wire::RawDeflate(up.xml, 9)));
      fields.emplace_back("composite_xml_hash", ptsn::wire::Sha1Hex(up.xml));
      std::string body = ptsn::wire::EncodeForm(fields);
      requests.push_back("POST " + upload_path + " HTTP/1.1\r\n" + host_line + auth_header +
                         "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: " +
                         std::to_string(body.size()) + "\r\n\r\n" + body);
    }
  } else {
    requests.push_back("GET " + arg + " HTTP/1.1\r\n" + host_line + "\r\n");
  }
  auto request_for = [&](int i) -> const std::string* { return &requests[upload ? i : 0]; };

  const double cpu0 = CpuSeconds();
  std::vector<double> latencies;
  latencies.reserve(total);
  int next = 0, done = 0, errors = 0, reconnects = 0;
  int ep = epoll_create1(0);
  std::vector<Conn> conns(std::max(1, std::min(concurrency, total)));
  auto arm = [&](size_t k, bool add) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    if (conns[k].out && conns[k].sent < conns[k].out->size()) ev.events |= EPOLLOUT;
    ev.data.u64 = k;
    epoll_ctl(ep, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, conns[k].fd, &ev);
  };
  auto start_next = [&](size_t k) {
    Conn& c = conns[k];
    if (next >= total || g_stop) {
      c.request = -1;
      c.out = nullptr;
      arm(k, false);
      return;
    }
    c.request = next++;
    c.out = request_for(c.request);
    c.sent = 0;
    c.in.clear();
    c.t0 = Clock::now();
    arm(k, false);
  };
  auto reopen = [&](size_t k) {
    epoll_ctl(ep, EPOLL_CTL_DEL, conns[k].fd, nullptr);
    close(conns[k].fd);
    conns[k].fd = Connect(port);
    ++reconnects;
  };
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::seconds(120);
  for (size_t k = 0; k < conns.size(); ++k) {
    conns[k].fd = Connect(port);
    arm(k, true);
    start_next(k);
  }
  std::vector<epoll_event> events(conns.size());
  char buf[65536];
  while (done < total && Clock::now() < deadline) {
    if (g_stop && std::all_of(conns.begin(), conns.end(), [](const Conn& c) { return c.request < 0; })) break;
    int n = epoll_wait(ep, events.data(), static_cast<int>(events.size()), 1000);
    for (int e = 0; e < n; ++e) {
      size_t k = events[e].data.u64;
      Conn& c = conns[k];
      if (c.request < 0) continue;
      if ((events[e].events & EPOLLOUT) && c.sent < c.out->size()) {
        ssize_t w = send(c.fd, c.out->data() + c.sent, c.out->size() - c.sent, MSG_NOSIGNAL);
        if (w > 0) c.sent += static_cast<size_t>(w);
        if (c.sent == c.out->size()) arm(k, false);
      }
      if (!(events[e].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) continue;
      bool eof = false;
      for (;;) {
        ssize_t r = recv(c.fd, buf, sizeof buf, 0);
        if (r > 0) {
          c.in.append(buf, static_cast<size_t>(r));
          continue;
        }
        eof = r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
        break;
      }
      int status = 0;
      bool closes = false;
      if (ResponseLength(c.in, eof, &status, &closes) > 0) {
        latencies.push_back(std::chrono::duration<double, std::milli>(Clock::now() - c.t0).count());
        ++done;
        if (status != 200 || (phoromatic && c.in.find("\"upload_id\"") == std::string::npos)) {
          if (errors++ == 0) std::fprintf(stderr, "first error: %s\n", c.in.substr(0, 600).c_str());
        }
        if (closes || eof) {
          reopen(k);
          arm(k, true);
        }
        start_next(k);
      } else if (eof) {  // closed with no answer: count as an error, go on with a new connection
        ++errors;
        ++done;
        reopen(k);
        arm(k, true);
        start_next(k);
      }
    }
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const double cpu = CpuSeconds() - cpu0;
  std::sort(latencies.begin(), latencies.end());
  auto pct = [&](double p) {
    return latencies.empty() ? 0.0 : latencies[std::min(latencies.size() - 1, size_t(p * latencies.size()))];
  };
  std::printf("%s requests=%d errors=%d seconds=%.2f rps=%.0f p50_ms=%.2f p99_ms=%.2f max_ms=%.2f client_cpu_s=%.2f reconnects=%d\n",
              mode.c_str(), done, errors, seconds, done / seconds, pct(0.50), pct(0.99),
              latencies.empty() ? 0 : latencies.back(), cpu, reconnects);
  return errors == 0 && done == total ? 0 : 1;
}
