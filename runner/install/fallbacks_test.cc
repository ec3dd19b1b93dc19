// Downloads that have moved: every URL fails, and the file is found by its SHA256 in a cache
// directory, on a results server or in a (fake, loopback) Debian archive — used only when the
// SHA256 matches, and never over the network when offline.
#include "runner/install/fallbacks.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "runner/common/error.h"
#include "runner/install/downloads.h"
#include "runner/install/install_test_support.h"

namespace fs = std::filesystem;

namespace ptsn::install {
namespace {

const std::string kBody = "dbench 4.0 upstream tarball bytes\n";

std::string Sha(const std::string& text) {
  auto p = fs::temp_directory_path() / ("ptsn-fbsha-" + std::to_string(getpid()));
  std::ofstream(p) << text;
  auto d = ComputeDigests(p.string());
  fs::remove(p);
  return d.sha256;
}

std::string Slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class FallbacksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("ptsn-fb-" + std::to_string(getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    sha_ = Sha(kBody);
    options_.download_cache = (root_ / "cache").string();
    options_.caches = {{options_.download_cache}};
    sources_.cache_directories = {options_.download_cache, (root_ / "pts-cache").string()};
    sources_.servers = {server_.Url("/server")};
    sources_.debian.mirror = server_.Url("/debian");
    sources_.debian.cache_dir = (root_ / "debian-index").string();
    // The fake archive: a Sources index and the pool file it lists.
    ServeArchive(kBody);
  }
  void TearDown() override { fs::remove_all(root_); }
  void ServeArchive(const std::string& pool_body) {
    server_.Serve("/debian/dists/bookworm/main/source/Sources.xz",
                  test::XzCompress(test::SourcesParagraph("dbench", "pool/main/d/dbench",
                                                          {{"dbench_4.0.orig.tar.gz", sha_, kBody.size()}})));
    server_.Serve("/debian/pool/main/d/dbench/dbench_4.0.orig.tar.gz", pool_body);
  }
  DownloadItem Item() { return {{server_.Url("/moved/dbench-4.0.tar.gz")}, "dbench-4.0.tar.gz", {sha_, "", 0}, false}; }
  DownloadReport Acquire(const std::string& order, Fetcher& fetcher) {
    sources_.order = order;
    options_.fallbacks = MakeFallbacks(sources_);
    return AcquireFiles({Item()}, (root_ / "inst").string(), options_, fetcher);
  }
  std::vector<std::string> Requests(const std::string& containing) {
    std::vector<std::string> out;
    for (const auto& r : server_.Requests())
      if (r.find(containing) != std::string::npos) out.push_back(r);
    return out;
  }

  fs::path root_;
  std::string sha_;
  DownloadOptions options_;
  FallbackSources sources_;
  test::LoopbackServer server_;
  std::unique_ptr<Fetcher> curl_ = MakeCurlFetcher(5);
};

TEST_F(FallbacksTest, FoundInTheDebianArchiveBySha256) {
  auto report = Acquire("debian", *curl_);
  ASSERT_TRUE(report.ok()) << ::testing::PrintToString(report.Missing());
  EXPECT_EQ(Slurp(root_ / "inst" / "dbench-4.0.tar.gz"), kBody);
  const auto& f = report.files[0];
  EXPECT_EQ(f.source, server_.Url("/debian/pool/main/d/dbench/dbench_4.0.orig.tar.gz"));
  EXPECT_EQ(f.fallback, "the Debian archive (bookworm/main)");
  ASSERT_EQ(report.FallbackNotes().size(), 1u);
  EXPECT_EQ(report.FallbackNotes()[0], "dbench-4.0.tar.gz was not at its URLs; it came from the Debian archive "
                                       "(bookworm/main): " + f.source + ", SHA256 verified.");
  EXPECT_NE(f.problems[0].find("/moved/dbench-4.0.tar.gz: HTTP 404"), std::string::npos) << f.problems[0];
  // Kept in our cache under its name and its SHA256, so the next install needs no network.
  EXPECT_EQ(Slurp(root_ / "cache" / "dbench-4.0.tar.gz"), kBody);
  EXPECT_EQ(Slurp(BySha256Path(options_.download_cache, sha_)), kBody);
}

TEST_F(FallbacksTest, ADifferentFileUnderTheSameNameIsRefused) {
  ServeArchive("a rebuilt tarball with other bytes\n");
  auto report = Acquire("debian", *curl_);
  EXPECT_FALSE(report.ok());
  EXPECT_FALSE(fs::exists(root_ / "inst" / "dbench-4.0.tar.gz"));
  EXPECT_FALSE(fs::exists(root_ / "cache" / "dbench-4.0.tar.gz"));
  std::string missing = report.Missing()[0];
  EXPECT_NE(missing.find("dbench_4.0.orig.tar.gz: sha256 is " + Sha("a rebuilt tarball with other bytes\n") +
                         ", expected " + sha_ + " (refused)"),
            std::string::npos)
      << missing;
}

TEST_F(FallbacksTest, NoSha256NoFallback) {
  sources_.order = "cache,server,debian";
  options_.fallbacks = MakeFallbacks(sources_);
  DownloadItem md5_only = Item();
  md5_only.check = {"", "1fe56ff71b9a416f8889d7150ac54da4", 0};
  EXPECT_FALSE(AcquireFiles({md5_only}, (root_ / "inst").string(), options_, *curl_).ok());
  EXPECT_TRUE(Requests("/debian").empty());
  EXPECT_TRUE(Requests("/server").empty());
}

TEST_F(FallbacksTest, ResultsServerBySha256) {
  server_.Serve("/server/downloads/" + sha_, kBody);
  auto report = Acquire("server,debian", *curl_);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report.files[0].source, server_.Url("/server/downloads/" + sha_));
  EXPECT_EQ(report.files[0].fallback, "the results server " + server_.Url("/server"));
  EXPECT_TRUE(Requests("/debian").empty()) << "the archive is not asked once the server answered";
}

TEST_F(FallbacksTest, TriedInOrderPastTheOnesWithoutTheFile) {
  auto report = Acquire("cache,server,debian", *curl_);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report.files[0].fallback, "the Debian archive (bookworm/main)");
  auto asked = Requests("/server/downloads/");
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_NE(report.files[0].problems[1].find("/server/downloads/" + sha_ + ": HTTP 404"), std::string::npos);
}

TEST_F(FallbacksTest, PtsDownloadCacheIndexAndOursWorkOffline) {
  // PTS's make-download-cache layout: the file under another name, listed with its sha256.
  fs::create_directories(root_ / "pts-cache");
  std::ofstream(root_ / "pts-cache" / "dbench-4.0-renamed.tar.gz") << kBody;
  std::ofstream(root_ / "pts-cache" / "pts-download-cache.json")
      << R"({"phoronix-test-suite":{"download-cache":{"dbench-4.0-renamed.tar.gz":{"file_name":"dbench-4.0-renamed.tar.gz","sha256":")"
      << sha_ << R"(","md5":""},"../evil":{"sha256":")" << sha_ << R"("}}}})";
  auto offline = MakeOfflineFetcher();
  sources_.order = "cache,server,debian";
  options_.fallbacks = MakeFallbacks(sources_);
  EXPECT_TRUE(MissingOffline({Item()}, (root_ / "inst").string(), options_).empty());
  auto report = AcquireFiles({Item()}, (root_ / "inst").string(), options_, *offline);
  ASSERT_TRUE(report.ok()) << ::testing::PrintToString(report.Missing());
  EXPECT_EQ(report.files[0].fallback, "the download cache " + (root_ / "pts-cache").string() +
                                          " (as dbench-4.0-renamed.tar.gz)");
  EXPECT_TRUE(server_.Requests().empty());
  // Now ours holds it by SHA256: found there first next time (as another profile's file name).
  fs::remove_all(root_ / "pts-cache");
  fs::remove_all(root_ / "inst");
  fs::remove(root_ / "cache" / "dbench-4.0.tar.gz");
  report = AcquireFiles({Item()}, (root_ / "inst").string(), options_, *offline);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report.files[0].fallback, "the download cache " + options_.download_cache);
  EXPECT_TRUE(server_.Requests().empty());
}

TEST_F(FallbacksTest, OfflineOpensNoSocket) {
  auto offline = MakeOfflineFetcher();
  auto report = Acquire("cache,server,debian", *offline);
  EXPECT_FALSE(report.ok());
  std::string missing = report.Missing()[0];
  EXPECT_NE(missing.find("/server/downloads/" + sha_ + ": not fetched (offline)"), std::string::npos) << missing;
  EXPECT_NE(missing.find("Sources.xz: not fetched (offline)"), std::string::npos) << missing;
  EXPECT_TRUE(server_.Requests().empty());
}

TEST(MakeFallbacks, OrderAndErrors) {
  FallbackSources s;
  s.servers = {"http://127.0.0.1:1"};
  EXPECT_EQ(MakeFallbacks(s).size(), 3u);
  s.order = "none";
  EXPECT_TRUE(MakeFallbacks(s).empty());
  s.order = "debian cache";
  EXPECT_EQ(MakeFallbacks(s).size(), 2u);
  s.servers.clear();
  s.order = "server";
  EXPECT_TRUE(MakeFallbacks(s).empty()) << "no server configured";
  s.order = "cache,ftp";
  try {
    MakeFallbacks(s);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("install.fallbacks: unknown source 'ftp'"), std::string::npos);
  }
}

}  // namespace
}  // namespace ptsn::install
