// Fleet benchmark client (bench_fleet.sh runs it against a pts-native-server):
//   bench_fleet latency URL USER_TOKEN AGENT_TOKEN MACHINE RUNS
//     one simulated agent long-polls; each run starts a job for its machine and measures the
//     time from sending the run-now request to the agent holding the task (dispatch latency);
//     prints median, p90 and max in milliseconds.
//   bench_fleet idle URL TOKENS_FILE SECONDS SERVER_PID POLL_SECONDS
//     one simulated agent per token in TOKENS_FILE ("machine token" lines), each long-polling
//     with no work; after a warm-up, the server's CPU time over SECONDS as a share of one core,
//     and the polls answered.
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <unistd.h>
#include <vector>

#include "runner/openbenchmarking/wire.h"

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

double CpuSeconds(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream f(s.substr(s.rfind(')') + 2));
  std::string field;
  long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && f >> field; ++i) {
    if (i == 14) utime = std::stoll(field);
    if (i == 15) stime = std::stoll(field);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// The process's "Threads:" and "VmRSS:" (kB) from /proc/PID/status.
std::pair<long, long> ThreadsAndRssKb(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  long threads = -1, rss = -1;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Threads:", 0) == 0) threads = std::atol(line.c_str() + 8);
    if (line.rfind("VmRSS:", 0) == 0) rss = std::atol(line.c_str() + 6);
  }
  return {threads, rss};
}

std::string HostPort(const std::string& url) { return url.substr(url.find("://") + 3); }

int Latency(const std::string& url, const std::string& user_token, const std::string& agent_token,
            const std::string& machine, int runs) {
  httplib::Client agent("http://" + HostPort(url)), user("http://" + HostPort(url));
  agent.set_read_timeout(60);
  httplib::Headers a{{"Authorization", "Bearer " + agent_token}}, u{{"Authorization", "Bearer " + user_token}};
  auto hello = agent.Post("/api/v1/fleet/agent/hello", a, json{{"session", "bench"}}.dump(), "application/json");
  if (!hello || hello->status != 200) {
    std::cerr << "hello failed\n";
    return 1;
  }
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    std::atomic<bool> got{false};
    Clock::time_point received;
    std::int64_t task = 0;
    std::thread poller([&] {
      // As the agent does: a parked poll is answered "nothing yet" when woken, then polled again.
      for (int tries = 0; tries < 5 && task == 0; ++tries) {
        auto p = agent.Post("/api/v1/fleet/agent/poll", a, json{{"session", "bench"}, {"wait", 20}}.dump(), "application/json");
        received = Clock::now();
        if (p && p->status == 200) task = json::parse(p->body)["task"]["id"].get<std::int64_t>();
      }
      got = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the poll is waiting
    const auto sent = Clock::now();
    auto j = user.Post("/api/v1/fleet/jobs", u,
                       json{{"spec", {{"tests", {"native/cipher"}}}}, {"machines", machine}}.dump(), "application/json");
    poller.join();
    if (!j || j->status != 201 || task == 0) {
      std::cerr << "run " << r << ": no task dispatched\n";
      return 1;
    }
    ms.push_back(std::chrono::duration<double, std::milli>(received - sent).count());
    // Finish the task so the next run starts clean.
    std::string xml = "<?xml version=\"1.0\"?>\n<PhoronixTestSuite><Generated><Title>b</Title></Generated><System>"
                      "<Identifier>" + machine + "</Identifier></System></PhoronixTestSuite>\n";
    ptsn::wire::Upload up;
    up.xml = xml;
    agent.Post("/api/v1/fleet/agent/tasks/" + std::to_string(task) + "/result", a,
               ptsn::wire::EncodeForm(ptsn::wire::EncodeUpload(up)), "application/x-www-form-urlencoded");
  }
  std::sort(ms.begin(), ms.end());
  std::printf("dispatch latency (run-now request sent -> waiting agent holds the task), %d runs: median %.1f ms, p90 %.1f ms, max %.1f ms\n",
              runs, ms[ms.size() / 2], ms[ms.size() * 9 / 10], ms.back());
  return 0;
}

int Idle(const std::string& url, const std::string& tokens_file, double seconds, int server_pid, int poll_seconds) {
  std::vector<std::pair<std::string, std::string>> agents;
  std::ifstream in(tokens_file);
  for (std::string m, t; in >> m >> t;) agents.emplace_back(m, t);
  std::atomic<bool> stop{false};
  std::atomic<long> polls{0}, errors{0};
  std::vector<std::thread> threads;
  for (size_t i = 0; i < agents.size(); ++i)
    threads.emplace_back([&, i] {
      httplib::Client c("http://" + HostPort(url));
      c.set_read_timeout(poll_seconds + 30);
      httplib::Headers a{{"Authorization", "Bearer " + agents[i].second}};
      const std::string session = "idle" + std::to_string(i);
      if (auto h = c.Post("/api/v1/fleet/agent/hello", a, json{{"session", session}}.dump(), "application/json");
          !h || h->status != 200) {
        ++errors;
        return;
      }
      while (!stop) {
        auto p = c.Post("/api/v1/fleet/agent/poll", a, json{{"session", session}, {"wait", poll_seconds}}.dump(),
                        "application/json");
        if (!p) {
          ++errors;
          std::this_thread::sleep_for(std::chrono::seconds(1));
          continue;
        }
        ++polls;
      }
    });
  std::this_thread::sleep_for(std::chrono::seconds(poll_seconds + 2));  // every agent waiting, hellos done
  const double cpu0 = CpuSeconds(server_pid);
  const long polls0 = polls;
  const auto t0 = Clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<int>(seconds * 1000)));
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  const double cpu = CpuSeconds(server_pid) - cpu0;
  const long answered = polls - polls0;
  const auto [server_threads, rss] = ThreadsAndRssKb(server_pid);
  std::printf("%zu idle agents long-polling (%d s polls) for %.0f s: server CPU %.2f%% of one core, %ld polls answered (%.1f/s), "
              "%ld errors; server threads %ld, RSS %ld kB\n",
              agents.size(), poll_seconds, wall, 100 * cpu / wall, answered, answered / wall, errors.load(), server_threads, rss);
  stop = true;
  for (auto& t : threads) t.detach();  // their polls end with the server
  return errors.load() == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> a(argv + 1, argv + argc);
  if (a.size() == 6 && a[0] == "latency") return Latency(a[1], a[2], a[3], a[4], std::stoi(a[5]));
  if (a.size() == 6 && a[0] == "idle") return Idle(a[1], a[2], std::stod(a[3]), std::stoi(a[4]), std::stoi(a[5]));
  std::cerr << "usage: bench_fleet latency URL USER_TOKEN AGENT_TOKEN MACHINE RUNS\n"
               "       bench_fleet idle URL TOKENS_FILE SECONDS SERVER_PID POLL_SECONDS\n";
  return 2;
}
