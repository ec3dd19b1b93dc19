// PostgreSQL restarted under upload load (its own binary: the restart would break the
// PostgreSQL tests of other binaries, so CTest runs this one alone: RUN_SERIAL).
#include <iostream>

#include "tests/server/load_support.h"
#include "tests/support/required.h"

namespace ptsn::test {
namespace {

// The "same with PostgreSQL restarted": the database (the throwaway cluster of
// contrib/start-test-services.sh) restarts under upload load; the server, not restarted, must
// reconnect by itself, and every upload it acknowledged must be there intact.
TEST(PostgresRestart, ServerReconnectsAndLosesNoAcknowledgedUpload) {
  Backend backend(true);
  if (!backend.skip.empty()) PTSN_SKIP_UNLESS_REQUIRED("pg", backend.skip);
  auto started_at = [] {
    pqxx::connection c(std::getenv("PTSN_TEST_PG"));
    pqxx::nontransaction w(c);
    return w.exec("SELECT pg_postmaster_start_time()::text")[0][0].as<std::string>();
  };
  const std::string before = started_at();
  // The cluster to restart is the one PTSN_TEST_PG reaches, wherever start-test-services.sh put it.
  const std::string data_dir = [] {
    pqxx::connection c(std::getenv("PTSN_TEST_PG"));
    pqxx::nontransaction w(c);
    return w.exec("SHOW data_directory")[0][0].as<std::string>();
  }();
  const std::string token = backend.Token("restarter");
  ServerProcess server(backend.args);
  std::mutex mu;
  std::vector<Acked> acked;
  std::atomic<int> attempts{0}, after_restart{0}, refused{0};
  std::atomic<bool> restarted{false}, stop{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      httplib::Client http("127.0.0.1", server.port());
      http.set_read_timeout(20);
      while (!stop) {
        int n = attempts++;
        std::string xml = server::testing::SampleCompositeXml("Restart Run " + std::to_string(n), 1 + n % 20, 1 + t % 2, n);
        std::string why, id = UploadOnce(http, token, xml, &why);
        if (id.empty()) {  // refused (503) while the database was away: never acknowledged
          ++refused;
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
          continue;
        }
        std::lock_guard lock(mu);
        acked.push_back({id, xml});
        if (restarted) ++after_restart;
      }
    });
  }
  auto acked_count = [&] {
    std::lock_guard lock(mu);
    return acked.size();
  };
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(40);
  while (acked_count() < 30 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  auto [rc, out] = Shell("PTSN_PG_DIR='" + data_dir + "' '" PTSN_SOURCE_DIR "/contrib/start-test-services.sh' --restart-pg");
  const bool did_restart = rc == 0 && started_at() != before;
  restarted = true;
  while (did_restart && after_restart < 30 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  stop = true;
  for (auto& th : threads) th.join();
  if (!did_restart) {
    std::string why = "could not restart the PostgreSQL at PTSN_TEST_PG with contrib/start-test-services.sh "
                      "--restart-pg (not the cluster it manages?): " + out;
    PTSN_SKIP_UNLESS_REQUIRED("pg", why);
  }
  EXPECT_GE(after_restart.load(), 30) << "the server did not get back to storing uploads after the restart";
  std::cout << "acknowledged " << acked.size() << " uploads (" << after_restart << " after the restart), refused "
            << refused << " while the database was away\n";
  httplib::Client http("127.0.0.1", server.port());
  auto health = http.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200) << health->body;
  for (const auto& a : acked) {
    auto res = http.Get("/api/v1/results/" + a.id + "/composite.xml");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200) << a.id << " was acknowledged but is gone";
    ASSERT_EQ(res->body, a.xml) << a.id << " differs";
  }
}

}  // namespace
}  // namespace ptsn::test
