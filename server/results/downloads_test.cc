#include "server/results/downloads.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include "server/http/http_server.h"
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "runner/common/error.h"
#include "runner/install/checksum.h"

namespace fs = std::filesystem;

namespace ptsn::server {
namespace {

class DownloadsServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("ptsn-srvdl-" + std::to_string(getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "src/pts/dbench-1.0.2");
    fs::create_directories(root_ / "src/by-sha256");
    std::ofstream(root_ / "src/pts/dbench-1.0.2/dbench-4.0.tar.gz") << std::string(200000, 'd');
    std::ofstream(root_ / "src/fs_mark-3.3.tar.gz") << "fs_mark";
    std::ofstream(root_ / "src/copy.tar.gz") << "fs_mark";  // the same bytes under another name
    std::ofstream(root_ / "src/by-sha256/whatever") << "an index entry";
    store_ = (root_ / "store").string();
  }
  void TearDown() override { fs::remove_all(root_); }
  std::string Sha(const fs::path& p) { return install::ComputeDigests(p.string()).sha256; }
  fs::path root_;
  std::string store_;
};

TEST_F(DownloadsServerTest, ImportStoresEachContentOnceBySha256) {
  auto n = ImportDownloads((root_ / "src").string(), store_);
  EXPECT_EQ(n.added, 2u);
  EXPECT_EQ(n.present, 1u);
  EXPECT_EQ(n.bytes, 200000u + 7u);
  EXPECT_TRUE(fs::exists(store_ + "/" + Sha(root_ / "src/fs_mark-3.3.tar.gz")));
  EXPECT_FALSE(fs::exists(store_ + "/" + Sha(root_ / "src/by-sha256/whatever")));
  auto again = ImportDownloads((root_ / "src").string(), store_);
  EXPECT_EQ(again.added, 0u);
  EXPECT_EQ(again.present, 3u);
  EXPECT_THROW(ImportDownloads((root_ / "nope").string(), store_), Error);
}

TEST_F(DownloadsServerTest, ServesExactSha256NamesOnly) {
  ImportDownloads((root_ / "src").string(), store_);
  std::ofstream(store_ + "/notes.txt") << "not a download";
  http::Router router;
  InstallDownloadRoutes(router, store_);
  router.not_found = [](const http::Request&, http::Response& res) { res.status = 404; };
  router.not_allowed = [](const http::Request&, http::Response& res) { res.status = 405; };
  router.internal_error = [](const http::Request&, http::Response& res, const std::string&) { res.status = 500; };
  http::HttpServer http_server(router, {});
  int port = http_server.Start("127.0.0.1", 0);
  httplib::Client c("127.0.0.1", port);
  std::string sha = Sha(root_ / "src/pts/dbench-1.0.2/dbench-4.0.tar.gz");
  auto r = c.Get("/downloads/" + sha);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, std::string(200000, 'd'));
  EXPECT_EQ(c.Get("/downloads/" + std::string(64, '0'))->status, 404);
  std::string upper = sha;
  for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  EXPECT_EQ(c.Get("/downloads/" + upper)->status, 404);
  EXPECT_EQ(c.Get("/downloads/notes.txt")->status, 404);
  EXPECT_EQ(c.Get("/downloads/..%2F..%2Fetc%2Fpasswd")->status, 404);
}

}  // namespace
}  // namespace ptsn::server
