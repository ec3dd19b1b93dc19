// Scale: two pts-native-server processes on one PostgreSQL database and 50 simulated agents
// (threads speaking the agent protocol, half to each server): every task of every job runs
// exactly once, and each job's result holds all 50 machines. The same on SQLite with one server.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "results-xml/model/result_xml.h"
#include "runner/openbenchmarking/wire.h"
#include "server/testing/pg_schema.h"
#include "server/testing/sample_result.h"
#include "tests/fleet/fleet_processes.h"
#include "tests/support/required.h"

namespace ptsn::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string ResultFor(const std::string& machine, std::int64_t task) {
  std::string xml = server::testing::SampleCompositeXml("task " + std::to_string(task), 2, 1, static_cast<int>(task % 40));
  for (size_t at; (at = xml.find("System 1")) != std::string::npos;) xml.replace(at, 8, machine);
  return xml;
}

struct SimulatedFleet {
  std::vector<std::string> urls;  // servers, the agents spread over them
  std::vector<std::string> tokens;
  std::mutex mu;
  std::multiset<std::int64_t> ran;  // task ids, one entry per time a task was handed out
  std::atomic<int> errors{0};
  std::atomic<bool> stop{false};
  std::string last_error;

  void Agent(size_t i) {
    const std::string machine = "sim" + std::to_string(i);
    httplib::Client http(urls[i % urls.size()]);
    http.set_read_timeout(30);
    httplib::Headers auth{{"Authorization", "Bearer " + tokens[i]}};
    const std::string session = "session-" + std::to_string(i);
    auto answer = [](const httplib::Result& r) {
      return r ? "HTTP " + std::to_string(r->status) + " " + r->body : "no answer (" + httplib::to_string(r.error()) + ")";
    };
    auto fail = [&](const std::string& what) {
      ++errors;
      std::lock_guard lock(mu);
      last_error = machine + ": " + what;
    };
    auto hello = http.Post("/api/v1/fleet/agent/hello", auth, json{{"session", session}, {"hardware", "Sim"}}.dump(), "application/json");
    if (!hello || hello->status != 200) return fail("hello: " + answer(hello));
    while (!stop) {
      auto r = http.Post("/api/v1/fleet/agent/poll", auth, json{{"session", session}, {"wait", 2}}.dump(), "application/json");
      if (!r) return fail("poll: " + answer(r));
      if (r->status == 204) continue;
      if (r->status != 200) return fail("poll: HTTP " + std::to_string(r->status) + " " + r->body);
      std::int64_t task = json::parse(r->body)["task"]["id"].get<std::int64_t>();
      {
        std::lock_guard lock(mu);
        ran.insert(task);
      }
      const std::string path = "/api/v1/fleet/agent/tasks/" + std::to_string(task);
      auto renew = http.Post(path + "/renew", auth, json{{"session", session}, {"progress", "running"}}.dump(), "application/json");
      if (!renew || renew->status != 200) return fail("renew: " + answer(renew));
      wire::Upload up;
      up.xml = ResultFor(machine, task);
      auto done = http.Post(path + "/result", auth, wire::EncodeForm(wire::EncodeUpload(up)), "application/x-www-form-urlencoded");
      if (!done || done->status != 200) return fail("result: " + answer(done));
    }
  }
};

void RunFleet(const std::vector<std::string>& server_args, int servers, const std::string& data_dir, const std::string& db_arg,
              const std::string& log_dir) {
  constexpr int kAgents = 50, kJobs = 4;
  SimulatedFleet fleet;
  for (int i = 0; i < kAgents; ++i) {
    auto [rc, out] = Shell(std::string("'") + PTSN_SERVER_BINARY + "' token create --agent sim" + std::to_string(i) + " " + db_arg);
    ASSERT_EQ(rc, 0) << out;
    fleet.tokens.push_back(LastLine(out));
  }
  auto [rc, user] = Shell(std::string("'") + PTSN_SERVER_BINARY + "' token create alice " + db_arg);
  ASSERT_EQ(rc, 0) << user;
  const std::string user_token = LastLine(user);
  std::vector<std::unique_ptr<FleetServer>> procs;
  for (int s = 0; s < servers; ++s) {
    procs.push_back(std::make_unique<FleetServer>(server_args, log_dir + "/server" + std::to_string(s) + ".log"));
    fleet.urls.push_back(procs.back()->url());
  }
  std::vector<std::thread> agents;
  // Agents stop and are joined however this function returns (an ASSERT returns early).
  struct JoinAgents {
    SimulatedFleet& fleet;
    std::vector<std::thread>& agents;
    ~JoinAgents() {
      fleet.stop = true;
      for (auto& t : agents)
        if (t.joinable()) t.join();
    }
  } join_agents{fleet, agents};
  for (int i = 0; i < kAgents; ++i) agents.emplace_back([&fleet, i] { fleet.Agent(static_cast<size_t>(i)); });
  // What a failed wait shows: the agents' errors and the servers' logs.
  auto why = [&] {
    std::string out = "agent errors: " + std::to_string(fleet.errors.load());
    {
      std::lock_guard lock(fleet.mu);
      out += " (last: " + fleet.last_error + ")";
    }
    for (int s = 0; s < servers; ++s) {
      std::string log = ReadText(log_dir + "/server" + std::to_string(s) + ".log");
      out += "\nserver" + std::to_string(s) + ".log (tail):\n" + log.substr(log.size() > 4000 ? log.size() - 4000 : 0);
    }
    return out;
  };
  // Wait until all are greeted (their tokens resolve), then start the jobs, alternating servers.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  std::vector<std::string> jobs;
  for (int j = 0; j < kJobs; ++j) {
    httplib::Client http(fleet.urls[j % fleet.urls.size()]);
    auto r = http.Post("/api/v1/fleet/jobs", {{"Authorization", "Bearer " + user_token}},
                       json{{"spec", {{"tests", {"native/cipher"}}}}, {"machines", "all"}}.dump(), "application/json");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 201) << r->body;
    jobs.push_back(std::to_string(json::parse(r->body)["job"].get<int>()));
  }
  std::vector<std::string> results;
  for (const auto& job : jobs) {
    httplib::Client http(fleet.urls.back());
    json j;
    for (int i = 0; i < 1200; ++i) {
      auto r = http.Get("/api/v1/fleet/jobs/" + job, {{"Authorization", "Bearer " + user_token}});
      ASSERT_TRUE(r);
      j = json::parse(r->body);
      if (j["state"] == "done" || j["state"] == "failed" || j["state"] == "partial") break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ASSERT_EQ(j["state"], "done") << why() << "\n" << j.dump();
    results.push_back(j["result_id"].get<std::string>());
  }
  fleet.stop = true;
  for (auto& t : agents) t.join();
  EXPECT_EQ(fleet.errors.load(), 0) << fleet.last_error;
  EXPECT_EQ(fleet.ran.size(), static_cast<size_t>(kAgents * kJobs)) << "every task handed out";
  EXPECT_EQ(std::set<std::int64_t>(fleet.ran.begin(), fleet.ran.end()).size(), fleet.ran.size()) << "a task ran twice";
  httplib::Client http(fleet.urls[0]);
  for (const auto& id : results) {
    auto r = http.Get("/api/v1/results/" + id + "/composite.xml");
    ASSERT_TRUE(r && r->status == 200);
    EXPECT_EQ(results::ParseResultFile(r->body, id).systems.size(), static_cast<size_t>(kAgents));
  }
  (void)data_dir;
}

TEST(FleetScale, TwoServersOnOnePostgresRunEveryTaskOnce) {
  const char* base = std::getenv("PTSN_TEST_PG");
  if (!base || !*base)
    PTSN_SKIP_UNLESS_REQUIRED("pg", "PTSN_TEST_PG is not set (contrib/start-test-services.sh starts a PostgreSQL)");
  std::random_device rd;
  server::testing::PgTestSchema schema("ptsn_fleet_" + std::to_string(rd() % 1000000));
  std::string dir = (fs::temp_directory_path() / ("ptsn_fleet_pg_" + std::to_string(rd()))).string();
  fs::create_directories(dir);
  const std::string db = "--database \"" + schema.conninfo + "\"";
  RunFleet({"--database", schema.conninfo, "--fleet-poll", "2"}, 2, dir, db, dir);
  if (!::testing::Test::HasFailure()) fs::remove_all(dir);
}

TEST(FleetScale, OneServerOnSqliteRunsEveryTaskOnce) {
  std::random_device rd;
  std::string dir = (fs::temp_directory_path() / ("ptsn_fleet_sqlite_" + std::to_string(rd()))).string();
  fs::create_directories(dir + "/data");
  RunFleet({"--data", dir + "/data", "--fleet-poll", "2"}, 1, dir, "--data '" + dir + "/data'", dir);
  if (!::testing::Test::HasFailure()) fs::remove_all(dir);
}

}  // namespace
}  // namespace ptsn::test
