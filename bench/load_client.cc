// A small HTTP load client for bench_server.sh: C concurrent keep-alive connections send a
// fixed number of requests (fetch of one stored result, or protocol upload of a result file)
// and report requests/s and latency percentiles. Loopback only; bounded in count and time.
//   bench_load_client fetch  HOST PORT PATH CONCURRENCY REQUESTS
//   bench_load_client upload HOST PORT TOKEN CONCURRENCY REQUESTS RESULTS_PER_FILE
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "runner/client/wire.h"
#include "server/testing/sample_result.h"

int main(int argc, char** argv) {
  if (argc < 7) {
    std::fprintf(stderr, "usage: %s fetch HOST PORT PATH C N | upload HOST PORT TOKEN C N RESULTS\n", argv[0]);
    return 2;
  }
  const std::string mode = argv[1], host = argv[2], arg = argv[4];
  const int port = std::stoi(argv[3]), concurrency = std::stoi(argv[5]), total = std::stoi(argv[6]);
  const int results = argc > 7 ? std::stoi(argv[7]) : 100;
  if (host != "127.0.0.1" && host != "localhost") {
    std::fprintf(stderr, "loopback only\n");
    return 2;
  }
  // Upload bodies are prepared before the clock starts; each is a distinct file (distinct hash).
  std::vector<std::string> bodies;
  if (mode == "upload") {
    for (int i = 0; i < total; ++i) {
      ptsn::wire::Upload up;
      up.xml = ptsn::server::testing::SampleCompositeXml("Bench Upload " + std::to_string(i), results, 2, i);
      bodies.push_back(ptsn::wire::EncodeForm(ptsn::wire::EncodeUpload(up)));
    }
  }
  std::vector<double> latencies(total, 0);
  std::atomic<int> next{0}, errors{0};
  auto start = std::chrono::steady_clock::now();
  auto deadline = start + std::chrono::seconds(120);
  std::vector<std::thread> threads;
  for (int t = 0; t < concurrency; ++t) {
    threads.emplace_back([&] {
      httplib::Client http(host, port);
      http.set_keep_alive(true);
      http.set_tcp_nodelay(true);
      http.set_read_timeout(30);
      httplib::Headers h;
      if (mode == "upload") h.emplace("Authorization", "Bearer " + arg);
      for (int i; (i = next++) < total && std::chrono::steady_clock::now() < deadline;) {
        auto t0 = std::chrono::steady_clock::now();
        auto res = mode == "upload" ? http.Post("/f/client.php", h, bodies[i], "application/x-www-form-urlencoded")
                                    : http.Get(arg);
        latencies[i] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (!res || res->status != 200) ++errors;
      }
    });
  }
  for (auto& th : threads) th.join();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  int done = std::min(next.load(), total);
  std::vector<double> sorted(latencies.begin(), latencies.begin() + done);
  std::sort(sorted.begin(), sorted.end());
  auto pct = [&](double p) { return sorted.empty() ? 0.0 : sorted[std::min(sorted.size() - 1, size_t(p * sorted.size()))]; };
  std::printf("%s requests=%d errors=%d seconds=%.2f rps=%.0f p50_ms=%.2f p99_ms=%.2f max_ms=%.2f\n", mode.c_str(),
              done, errors.load(), seconds, done / seconds, pct(0.50), pct(0.99), sorted.empty() ? 0 : sorted.back());
  return errors == 0 ? 0 : 1;
}
