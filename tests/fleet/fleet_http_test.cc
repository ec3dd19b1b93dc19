// The fleet's routes on the server's HTTP layer (libmicrohttpd), over real sockets:
//  * parked long-polls hold no worker thread: with 2 workers and 8 agents waiting, other
//    requests are still answered, and a job wakes its machine's poll;
//  * the results API's protections hold on fleet routes too: tokens only in the header, the
//    body limit before the body is read, failed agent-token checks limited per address, the
//    write rate limit on what a user changes.
// Bounds on time are generous (seconds where the server needs milliseconds); the figures are
// bench/bench_fleet.sh's.
#include <gtest/gtest.h>
#include <httplib.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <atomic>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "tests/fleet/fleet_processes.h"

namespace ptsn::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class FleetHttpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device rd;
    dir_ = (fs::temp_directory_path() / ("ptsn_fleet_http_" + std::to_string(rd()))).string();
    fs::create_directories(dir_ + "/data");
    user_token_ = UserToken(dir_ + "/data", "alice");
  }
  void TearDown() override {
    server_.reset();
    fs::remove_all(dir_);
  }
  void StartServer(std::vector<std::string> extra) {
    std::vector<std::string> args{"--data", dir_ + "/data"};
    args.insert(args.end(), extra.begin(), extra.end());
    server_ = std::make_unique<FleetServer>(args, dir_ + "/server.log");
  }
  httplib::Headers Bearer(const std::string& token) { return {{"Authorization", "Bearer " + token}}; }

  std::string dir_, user_token_;
  std::unique_ptr<FleetServer> server_;
};

// With 2 worker threads, 8 parked polls would starve everything if each held one.
TEST_F(FleetHttpTest, ParkedLongPollsHoldNoWorkerThread) {
  constexpr int kAgents = 8;
  std::vector<std::string> tokens;
  for (int i = 0; i < kAgents; ++i) tokens.push_back(AgentToken(dir_ + "/data", "idle" + std::to_string(i)));
  StartServer({"--threads", "2", "--fleet-poll", "60"});
  std::atomic<int> answered{0};
  std::vector<int> statuses(kAgents, 0);
  std::vector<std::thread> polls;
  struct StopAndJoin {  // also when an assertion ends the test early
    FleetServer& server;
    std::vector<std::thread>& threads;
    ~StopAndJoin() {
      server.Kill(SIGTERM);  // parked polls are answered at shutdown, not left hanging
      for (auto& t : threads) t.join();
    }
  } stop_and_join{*server_, polls};
  for (int i = 0; i < kAgents; ++i) {
    polls.emplace_back([&, i] {
      httplib::Client c("127.0.0.1", server_->port());
      c.set_read_timeout(120, 0);
      auto hello = c.Post("/api/v1/fleet/agent/hello", Bearer(tokens[i]), json{{"session", "s" + std::to_string(i)}}.dump(),
                          "application/json");
      if (!hello || hello->status != 200) {
        statuses[i] = hello ? hello->status : -1;
        ++answered;
        return;
      }
      auto r = c.Post("/api/v1/fleet/agent/poll", Bearer(tokens[i]), json{{"session", "s" + std::to_string(i)}, {"wait", 60}}.dump(),
                      "application/json");
      statuses[i] = r ? r->status : -1;
      ++answered;
    });
  }
  httplib::Client c("127.0.0.1", server_->port());
  c.set_read_timeout(20, 0);
  // Until every agent is parked, each check itself needs a free worker. "waiting", not "online":
  // an agent is online from its hello, before its poll is parked, and a job posted then wakes
  // that poll too (it saw the job's generation change): the test once counted 2 polls answered.
  int parked = 0;
  for (int tries = 0; tries < 400 && parked < kAgents; ++tries) {
    auto m = c.Get("/api/v1/fleet/machines", Bearer(user_token_));
    ASSERT_TRUE(m) << "the machines list was not answered while polls were parked";
    ASSERT_EQ(m->status, 200) << m->body;
    parked = 0;
    const json list = json::parse(m->body);  // kept: a range-for over a member of a temporary would dangle
    for (const auto& row : list["machines"]) parked += row["waiting"].get<bool>();
    if (parked < kAgents) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(parked, kAgents) << "answered early: " << answered.load() << "; " << ReadText(dir_ + "/server.log");
  for (int k = 0; k < 20; ++k) {
    auto h = c.Get("/healthz");
    ASSERT_TRUE(h) << "request " << k << " was not answered with 8 polls parked on 2 workers";
    EXPECT_EQ(h->status, 200);
  }
  EXPECT_EQ(answered.load(), 0) << "a poll came back before its deadline with no work";
  // A job for one machine wakes its poll (answered "nothing yet, poll again") well before 60 s.
  auto job = c.Post("/api/v1/fleet/jobs", Bearer(user_token_),
                    json{{"spec", {{"tests", {"native/cipher"}}}}, {"machines", "idle3"}}.dump(), "application/json");
  ASSERT_TRUE(job);
  ASSERT_EQ(job->status, 201) << job->body;
  for (int tries = 0; tries < 400 && answered.load() == 0; ++tries) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(answered.load(), 1) << "the job did not wake exactly its machine's poll";
  EXPECT_EQ(statuses[3], 204);
}

TEST_F(FleetHttpTest, TokensOnlyInTheAuthorizationHeader) {
  const std::string agent = AgentToken(dir_ + "/data", "m1");
  StartServer({});
  httplib::Client c("127.0.0.1", server_->port());
  auto poll = c.Post("/api/v1/fleet/agent/poll?token=" + agent, json{{"session", "x"}, {"wait", 0}}.dump(), "application/json");
  ASSERT_TRUE(poll);
  EXPECT_EQ(poll->status, 400) << poll->body;
  EXPECT_NE(poll->body.find("Authorization"), std::string::npos) << poll->body;
  auto jobs = c.Get("/api/v1/fleet/jobs?token=" + user_token_);
  ASSERT_TRUE(jobs);
  EXPECT_EQ(jobs->status, 400) << jobs->body;
}

// The limit is decided from the headers: the answer comes before the body is sent.
TEST_F(FleetHttpTest, BodyLimitsAreCheckedBeforeTheBodyIsRead) {
  const std::string agent = AgentToken(dir_ + "/data", "m1");
  StartServer({"--max-body", "100000"});
  // Headers only, saying 50 MB follow: a server that waited for the body would not answer.
  auto head_only = [&](const std::string& path, const std::string& token) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<uint16_t>(server_->port()));
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) return -1;
    std::string head = "POST " + path + " HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 50000000\r\n";
    if (!token.empty()) head += "Authorization: Bearer " + token + "\r\n";
    head += "\r\n";
    (void)!::send(fd, head.data(), head.size(), MSG_NOSIGNAL);
    std::string answer;
    pollfd p{fd, POLLIN, 0};
    char buf[4096];
    while (answer.find("\r\n") == std::string::npos && ::poll(&p, 1, 10000) > 0) {
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      answer.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return answer.rfind("HTTP/1.", 0) == 0 && answer.size() >= 12 ? std::atoi(answer.c_str() + 9) : -1;
  };
  EXPECT_EQ(head_only("/api/v1/fleet/agent/tasks/1/result", agent), 413);
  EXPECT_EQ(head_only("/api/v1/fleet/jobs", user_token_), 413);
  EXPECT_EQ(head_only("/api/v1/fleet/agent/poll", ""), 413);  // no token: only a small body
}

TEST_F(FleetHttpTest, FailedAgentTokensAreLimitedPerAddress) {
  StartServer({"--write-rate", "0.001", "--write-burst", "3"});
  httplib::Client c("127.0.0.1", server_->port());
  std::vector<int> statuses;
  for (int i = 0; i < 6; ++i) {
    auto r = c.Post("/api/v1/fleet/agent/poll", Bearer("ptsn_guess" + std::to_string(i)),
                    json{{"session", "x"}, {"wait", 0}}.dump(), "application/json");
    statuses.push_back(r ? r->status : -1);
  }
  EXPECT_EQ(statuses, (std::vector<int>{401, 401, 401, 429, 429, 429}));
}

TEST_F(FleetHttpTest, ScheduleWritesAreRateLimitedPerToken) {
  StartServer({"--write-rate", "0.001", "--write-burst", "2"});
  httplib::Client c("127.0.0.1", server_->port());
  std::vector<int> statuses;
  for (int i = 0; i < 4; ++i) {
    auto r = c.Post("/api/v1/fleet/schedules", Bearer(user_token_),
                    json{{"name", "nightly" + std::to_string(i)}, {"cron", "0 3 * * *"}, {"spec", {{"tests", {"native/cipher"}}}}}.dump(),
                    "application/json");
    statuses.push_back(r ? r->status : -1);
  }
  EXPECT_EQ(statuses[2], 429);
  EXPECT_EQ(statuses[3], 429);
  EXPECT_NE(statuses[0], 429);
  // Reading is not limited.
  auto list = c.Get("/api/v1/fleet/schedules", Bearer(user_token_));
  ASSERT_TRUE(list);
  EXPECT_EQ(list->status, 200) << list->body;
}

// Another user's schedule can be neither run nor deleted (issue 31: bob's DELETE answered 204).
TEST_F(FleetHttpTest, OnlyItsOwnerRunsOrDeletesASchedule) {
  AgentToken(dir_ + "/data", "m1");
  const std::string bob = UserToken(dir_ + "/data", "bob");
  StartServer({});
  httplib::Client c("127.0.0.1", server_->port());
  auto made = c.Post("/api/v1/fleet/schedules", Bearer(user_token_),
                     json{{"name", "alices-nightly"}, {"cron", "0 3 * * *"}, {"machines", "m1"},
                          {"spec", {{"tests", {"native/cipher"}}}}}.dump(),
                     "application/json");
  ASSERT_TRUE(made);
  ASSERT_EQ(made->status, 201) << made->body;
  auto status = [](const httplib::Result& r) { return r ? r->status : -1; };
  EXPECT_EQ(status(c.Post("/api/v1/fleet/schedules/alices-nightly/run", Bearer(bob), "", "application/json")), 403);
  EXPECT_EQ(status(c.Delete("/api/v1/fleet/schedules/alices-nightly", Bearer(bob))), 403);
  EXPECT_EQ(status(c.Post("/api/v1/fleet/schedules/alices-nightly/delete", Bearer(bob), "", "application/json")), 403);
  auto list = c.Get("/api/v1/fleet/schedules", Bearer(user_token_));
  ASSERT_TRUE(list);
  EXPECT_NE(list->body.find("alices-nightly"), std::string::npos) << "bob deleted it: " << list->body;
  auto own = c.Delete("/api/v1/fleet/schedules/alices-nightly", Bearer(user_token_));
  ASSERT_TRUE(own);
  EXPECT_EQ(own->status, 204) << own->body;
}

// The fleet (machines' hardware and software, jobs, schedules, history, the pages) is shown only
// to a user's token unless the server runs with --public-fleet (issue 31: anyone could read it).
TEST_F(FleetHttpTest, FleetReadsNeedAUserTokenUnlessPublic) {
  AgentToken(dir_ + "/data", "m1");
  const std::vector<std::string> reads = {"/api/v1/fleet/machines", "/api/v1/fleet/jobs", "/api/v1/fleet/schedules",
                                          "/api/v1/fleet/regressions", "/api/v1/fleet/machines/m1/history",
                                          "/fleet", "/fleet/machines/m1"};
  StartServer({});
  {
    httplib::Client c("127.0.0.1", server_->port());
    for (const auto& path : reads) {
      auto anonymous = c.Get(path);
      ASSERT_TRUE(anonymous) << path;
      EXPECT_EQ(anonymous->status, 401) << path << ": " << anonymous->body.substr(0, 200);
      // A browser sends no token: its refusal says how the operator shows the pages.
      const bool page = path.rfind("/fleet", 0) == 0;
      EXPECT_EQ(anonymous->body.find("--public-fleet") != std::string::npos, page) << path << ": " << anonymous->body;
      auto user = c.Get(path, Bearer(user_token_));
      ASSERT_TRUE(user) << path;
      EXPECT_EQ(user->status, 200) << path << ": " << user->body.substr(0, 200);
    }
  }
  StartServer({"--public-fleet"});
  httplib::Client c("127.0.0.1", server_->port());
  for (const auto& path : reads) {
    auto anonymous = c.Get(path);
    ASSERT_TRUE(anonymous) << path;
    EXPECT_EQ(anonymous->status, 200) << path << ": " << anonymous->body.substr(0, 200);
  }
}

// An agent's writes are rate limited per token, as a user's are (issue 31: 546 writes/s accepted).
TEST_F(FleetHttpTest, AgentWritesAreRateLimitedPerToken) {
  const std::string agent = AgentToken(dir_ + "/data", "m1");
  StartServer({"--write-rate", "0.001", "--write-burst", "3"});
  httplib::Client c("127.0.0.1", server_->port());
  std::vector<int> statuses;
  for (int i = 0; i < 5; ++i) {
    auto r = c.Post("/api/v1/fleet/agent/hello", Bearer(agent), json{{"session", "s"}}.dump(), "application/json");
    statuses.push_back(r ? r->status : -1);
  }
  EXPECT_EQ(statuses, (std::vector<int>{200, 200, 200, 429, 429}));
}

// A fleet behind one NAT shares an address: agents are limited per token, never per address
// (50 agents there went past the address burst within seconds and were refused).
TEST_F(FleetHttpTest, AgentsBehindOneAddressAreLimitedPerTokenOnly) {
  const std::string m1 = AgentToken(dir_ + "/data", "m1"), m2 = AgentToken(dir_ + "/data", "m2");
  StartServer({"--address-write-rate", "0.001", "--address-write-burst", "2"});
  httplib::Client c("127.0.0.1", server_->port());
  std::vector<int> statuses;
  for (int i = 0; i < 3; ++i)
    for (const auto& token : {m1, m2}) {
      auto r = c.Post("/api/v1/fleet/agent/hello", Bearer(token), json{{"session", "s"}}.dump(), "application/json");
      statuses.push_back(r ? r->status : -1);
    }
  EXPECT_EQ(statuses, std::vector<int>(6, 200));
}

}  // namespace
}  // namespace ptsn::test
