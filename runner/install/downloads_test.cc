#include "runner/install/downloads.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "runner/install/install_test_support.h"

namespace fs = std::filesystem;

namespace ptsn::install {
namespace {

const std::string kBody = "the real archive contents\n";
// sha256 of kBody
std::string Sha(const std::string& text) {
  auto p = fs::temp_directory_path() / ("ptsn-sha-" + std::to_string(getpid()));
  std::ofstream(p) << text;
  auto d = ComputeDigests(p.string());
  fs::remove(p);
  return d.sha256;
}

class DownloadsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("ptsn-dl-" + std::to_string(getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    options_.download_cache = (root_ / "cache").string();
    options_.caches = {{options_.download_cache}};
    server_.Serve("/good/file.tar", kBody);
    server_.Serve("/evil/file.tar", "tampered contents\n");
  }
  void TearDown() override { fs::remove_all(root_); }
  std::string Slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  DownloadItem Item(std::vector<std::string> urls) {
    return {std::move(urls), "file.tar", {Sha(kBody), "", 0}, false};
  }
  fs::path root_;
  DownloadOptions options_;
  test::LoopbackServer server_;
  std::unique_ptr<Fetcher> curl_ = MakeCurlFetcher(5);
};

TEST_F(DownloadsTest, RightChecksumIsInstalledAndCached) {
  auto report = AcquireFiles({Item({server_.Url("/good/file.tar")})}, (root_ / "inst").string(), options_, *curl_);
  ASSERT_TRUE(report.ok()) << ::testing::PrintToString(report.Missing());
  EXPECT_EQ(Slurp(root_ / "inst" / "file.tar"), kBody);
  EXPECT_EQ(Slurp(root_ / "cache" / "file.tar"), kBody);
  EXPECT_EQ(report.files[0].source, server_.Url("/good/file.tar"));
  // Second install: from the cache, no request.
  fs::remove_all(root_ / "inst");
  auto again = AcquireFiles({Item({server_.Url("/good/file.tar")})}, (root_ / "inst2").string(), options_, *curl_);
  EXPECT_TRUE(again.ok());
  EXPECT_EQ(again.files[0].source, options_.download_cache);
  EXPECT_EQ(server_.Requests().size(), 1u);
}

TEST_F(DownloadsTest, WrongChecksumIsDeletedNamedAndTheNextMirrorUsed) {
  auto report = AcquireFiles({Item({server_.Url("/evil/file.tar"), server_.Url("/missing/file.tar"),
                                    server_.Url("/good/file.tar")})},
                             (root_ / "inst").string(), options_, *curl_);
  ASSERT_TRUE(report.ok());
  const auto& problems = report.files[0].problems;
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].rfind(server_.Url("/evil/file.tar") + ": sha256 is " + Sha("tampered contents\n") +
                                  ", expected " + Sha(kBody), 0), 0u) << problems[0];
  EXPECT_EQ(problems[1], server_.Url("/missing/file.tar") + ": HTTP 404");
  EXPECT_EQ(Slurp(root_ / "inst" / "file.tar"), kBody);
  // Mirrors were tried in the listed order.
  auto req = server_.Requests();
  ASSERT_EQ(req.size(), 3u);
  EXPECT_EQ(req[0], "/evil/file.tar");
  EXPECT_EQ(req[2], "/good/file.tar");
}

TEST_F(DownloadsTest, OnlyWrongMirrorsFailAndLeaveNoFile) {
  auto report = AcquireFiles({Item({server_.Url("/evil/file.tar")})}, (root_ / "inst").string(), options_, *curl_);
  EXPECT_FALSE(report.ok());
  ASSERT_EQ(report.Missing().size(), 1u);
  EXPECT_NE(report.Missing()[0].find("sha256 is"), std::string::npos);
  EXPECT_FALSE(fs::exists(root_ / "inst" / "file.tar"));
  EXPECT_FALSE(fs::exists(root_ / "cache" / "file.tar.part"));
  EXPECT_FALSE(fs::exists(root_ / "cache" / "file.tar"));
}

TEST_F(DownloadsTest, PartialDownloadIsResumedWithARange) {
  fs::create_directories(root_ / "cache");
  std::ofstream(root_ / "cache" / "file.tar.part") << kBody.substr(0, 10);
  auto report = AcquireFiles({Item({server_.Url("/good/file.tar")})}, (root_ / "inst").string(), options_, *curl_);
  ASSERT_TRUE(report.ok()) << ::testing::PrintToString(report.Missing());
  EXPECT_EQ(Slurp(root_ / "inst" / "file.tar"), kBody);
  auto req = server_.Requests();
  ASSERT_EQ(req.size(), 1u);
  EXPECT_EQ(req[0], "/good/file.tar bytes=10-");
}

TEST_F(DownloadsTest, RemoteCacheUrlIsSearchedBeforeMirrors) {
  server_.Serve("/mirror-cache/file.tar", kBody);
  options_.caches.push_back({server_.Url("/mirror-cache")});
  auto report = AcquireFiles({Item({server_.Url("/good/file.tar")})}, (root_ / "inst").string(), options_, *curl_);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report.files[0].source, server_.Url("/mirror-cache/file.tar"));
}

TEST_F(DownloadsTest, OfflineNeverTouchesTheServerAndListsWhatIsMissing) {
  auto offline = MakeOfflineFetcher();
  auto items = std::vector<DownloadItem>{Item({server_.Url("/good/file.tar")})};
  EXPECT_EQ(MissingOffline(items, (root_ / "inst").string(), options_), std::vector<std::string>{"file.tar"});
  auto report = AcquireFiles(items, (root_ / "inst").string(), options_, *offline);
  EXPECT_FALSE(report.ok());
  EXPECT_NE(report.Missing()[0].find("not fetched (offline)"), std::string::npos);
  EXPECT_TRUE(server_.Requests().empty());
  // A PTS-style cache directory satisfies it offline.
  fs::create_directories(root_ / "pts-cache");
  std::ofstream(root_ / "pts-cache" / "file.tar") << kBody;
  options_.caches.push_back({(root_ / "pts-cache").string()});
  EXPECT_TRUE(MissingOffline(items, (root_ / "inst").string(), options_).empty());
  EXPECT_TRUE(AcquireFiles(items, (root_ / "inst").string(), options_, *offline).ok());
  EXPECT_TRUE(server_.Requests().empty());
}

TEST_F(DownloadsTest, BadCacheFileIsSkippedAndReported) {
  fs::create_directories(root_ / "cache");
  std::ofstream(root_ / "cache" / "file.tar") << "stale";
  auto report = AcquireFiles({Item({server_.Url("/good/file.tar")})}, (root_ / "inst").string(), options_, *curl_);
  ASSERT_TRUE(report.ok());
  EXPECT_NE(report.files[0].problems[0].find("cache" + std::string("/file.tar: sha256 is")), std::string::npos);
}

TEST(CacheLocationsTest, KeepsUrlsWholeAndOrder) {
  auto c = CacheLocationsFrom("/ours", "/home/u/.phoronix-test-suite", "/a:http://host:8080/dl:file:///srv/c", "/b");
  std::vector<std::string> locs;
  for (const auto& l : c) locs.push_back(l.location);
  EXPECT_EQ(locs, (std::vector<std::string>{"/ours", "/home/u/.phoronix-test-suite/download-cache", "/a",
                                            "http://host:8080/dl", "file:///srv/c", "/b"}));
}

}  // namespace
}  // namespace ptsn::install
