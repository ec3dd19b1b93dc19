// Load and fault tests on loopback, bounded in count and time. Counts come from
// PTSN_LOAD_UPLOADS / PTSN_LOAD_FETCHES (defaults: the 200 and 2,000); bench/ runs more.
#include "tests/server/load_support.h"
#include "tests/support/required.h"

namespace ptsn::test {
namespace {

class LoadTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    backend_ = std::make_unique<Backend>(GetParam());
    if (!backend_->skip.empty()) PTSN_SKIP_UNLESS_REQUIRED("pg", backend_->skip);
  }
  std::unique_ptr<Backend> backend_;
};

TEST_P(LoadTest, ConcurrentUploadsThenFetchesAllByteForByte) {
  const int uploads = EnvCount("PTSN_LOAD_UPLOADS", 200), fetches = EnvCount("PTSN_LOAD_FETCHES", 2000);
  const std::string token = backend_->Token("loader");
  ServerProcess server(backend_->args);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(50);

  std::vector<Acked> acked(uploads);
  std::atomic<int> next{0}, errors{0};
  std::mutex mu;
  std::string first_error;
  auto fail = [&](const std::string& why) {
    ++errors;
    std::lock_guard lock(mu);
    if (first_error.empty()) first_error = why;
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 50; ++t) {
    threads.emplace_back([&, t] {
      httplib::Client http("127.0.0.1", server.port());
      http.set_read_timeout(20);
      for (int i; (i = next++) < uploads && std::chrono::steady_clock::now() < deadline;) {
        std::string xml = server::testing::SampleCompositeXml("Load Run " + std::to_string(i), 1 + i % 30, 1 + t % 3, i);
        // Every third as bzip2: the server's own decoder and its deflate for storage, 50 at once.
        std::string why, id = UploadOnce(http, token, xml, &why, /*bzip2=*/i % 3 == 0);
        if (id.empty()) fail(why);
        acked[i] = {id, xml};
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_EQ(errors, 0) << first_error;
  std::set<std::string> ids;
  for (const auto& a : acked) ids.insert(a.id);
  ASSERT_EQ(ids.size(), size_t(uploads)) << "duplicate or missing IDs";

  threads.clear();
  std::atomic<int> done{0};
  for (int t = 0; t < 50; ++t) {
    threads.emplace_back([&, t] {
      httplib::Client http("127.0.0.1", server.port());
      http.set_keep_alive(true);
      http.set_read_timeout(20);
      std::mt19937 rng(t);
      for (int i; (i = done++) < fetches && std::chrono::steady_clock::now() < deadline;) {
        const Acked& a = acked[rng() % uploads];
        auto res = http.Get("/api/v1/results/" + a.id + "/composite.xml");
        if (!res || res->status != 200) fail("fetch " + a.id + (res ? ": HTTP " + std::to_string(res->status) : ": no response"));
        else if (res->body != a.xml) fail("fetch " + a.id + ": body differs from the upload");
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(errors, 0) << first_error;
  EXPECT_LT(std::chrono::steady_clock::now(), deadline) << "the load did not finish in time";
}

TEST_P(LoadTest, KillDashNineMidLoadLosesNoAcknowledgedUpload) {
  const std::string token = backend_->Token("crasher");
  auto server = std::make_unique<ServerProcess>(backend_->args);
  const int port = server->port();
  std::mutex mu;
  std::vector<Acked> acked;
  std::atomic<int> attempts{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&, t] {
      httplib::Client http("127.0.0.1", port);
      http.set_read_timeout(10);
      for (int i = 0; !stop && i < 400; ++i) {
        int n = attempts++;
        std::string xml = server::testing::SampleCompositeXml("Crash Run " + std::to_string(n), 1 + n % 40, 1 + t % 2, n);
        std::string why, id = UploadOnce(http, token, xml, &why);
        if (id.empty()) continue;  // refused or cut off by the kill: never acknowledged
        std::lock_guard lock(mu);
        acked.push_back({id, xml});
      }
    });
  }
  // Kill once a good number of uploads went through, with more in flight.
  for (int waited = 0; waited < 200; ++waited) {
    {
      std::lock_guard lock(mu);
      if (acked.size() >= 60) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  server->Kill(SIGKILL);
  stop = true;
  for (auto& th : threads) th.join();
  ASSERT_GE(acked.size(), 20u) << "too few uploads before the kill to mean anything";

  server = std::make_unique<ServerProcess>(backend_->args);
  httplib::Client http("127.0.0.1", server->port());
  for (const auto& a : acked) {
    auto res = http.Get("/api/v1/results/" + a.id + "/composite.xml");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200) << a.id << " was acknowledged but is gone";
    ASSERT_EQ(res->body, a.xml) << a.id << " differs";
  }
  // Whatever was stored (acknowledged or not) is whole: its XML matches the hash stored with it.
  auto list = json::parse(http.Get("/api/v1/results?limit=500")->body)["results"];
  EXPECT_GE(list.size(), acked.size());
  for (const auto& item : list) {
    auto meta = json::parse(http.Get("/api/v1/results/" + item["id"].get<std::string>())->body);
    EXPECT_EQ(wire::Sha1Hex(meta["composite_xml"].get<std::string>()), meta["composite_xml_hash"]) << item["id"];
  }
  // And it keeps serving uploads.
  std::string why;
  EXPECT_TRUE(server::IsResultIdCompliant(UploadOnce(http, token, server::testing::SampleCompositeXml("After"), &why))) << why;
}

INSTANTIATE_TEST_SUITE_P(Storage, LoadTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& p) { return p.param ? "PostgreSQL" : "SQLite"; });

}  // namespace
}  // namespace ptsn::test
