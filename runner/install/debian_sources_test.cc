#include "runner/install/debian_sources.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "runner/common/error.h"
#include "runner/install/install_test_support.h"

namespace fs = std::filesystem;

namespace ptsn::install {
namespace {

const std::string kShaA(64, 'a'), kShaB(64, 'b'), kShaC(64, 'c');

TEST(DebianSources, ChecksumsJoinTheParagraphsDirectory) {
  std::string text = test::SourcesParagraph("dbench", "pool/main/d/dbench",
                                            {{"dbench_4.0-2.dsc", kShaA, 10}, {"dbench_4.0.orig.tar.gz", kShaB, 2055359}}) +
                     // Directory before the checksums, upper-case hex, CRLF line ends.
                     "Package: fsmark\r\nDirectory: pool/main/f/fsmark\r\nChecksums-Sha256:\r\n " +
                     std::string(64, 'C') + " 15322 fsmark_3.3.orig.tar.gz\r\n\r\n";
  auto files = ParseDebianSources(text);
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[1].sha256, kShaB);
  EXPECT_EQ(files[1].size, 2055359);
  EXPECT_EQ(files[1].path, "pool/main/d/dbench/dbench_4.0.orig.tar.gz");
  EXPECT_EQ(files[2].sha256, kShaC);
  EXPECT_EQ(files[2].path, "pool/main/f/fsmark/fsmark_3.3.orig.tar.gz");
}

TEST(DebianSources, MalformedOrEscapingEntriesAreSkipped) {
  std::string text =
      "Package: x\nChecksums-Sha256:\n " + kShaA + " 1 x.tar.gz\n\n"  // no Directory
      "Package: y\nDirectory: /etc\nChecksums-Sha256:\n " + kShaA + " 1 passwd\n\n"  // absolute
      "Package: z\nDirectory: pool/../../etc\nChecksums-Sha256:\n " + kShaA + " 1 z\n\n"
      "Package: w\nDirectory: pool/main/w/w\nChecksums-Sha256:\n " + kShaA + " 1 ../w\n abc 1 short\n " + kShaB +
      " 7 w_1.orig.tar.xz\nFiles:\n " + kShaC + " 1 not-a-sha256-field\n";
  auto files = ParseDebianSources(text);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].path, "pool/main/w/w/w_1.orig.tar.xz");
}

class DebianIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("ptsn-deb-" + std::to_string(getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    archive_.mirror = server_.Url("/debian");
    archive_.cache_dir = (root_ / "cache").string();
    server_.Serve("/debian/dists/bookworm/main/source/Sources.xz",
                  test::XzCompress(test::SourcesParagraph("dbench", "pool/main/d/dbench", {{"dbench_4.0.orig.tar.gz", kShaB, 9}})));
  }
  void TearDown() override { fs::remove_all(root_); }
  size_t IndexRequests() {
    size_t n = 0;
    for (const auto& r : server_.Requests()) n += r.find("Sources.xz") != std::string::npos;
    return n;
  }
  fs::path root_;
  DebianArchive archive_;
  test::LoopbackServer server_;
  std::unique_ptr<Fetcher> curl_ = MakeCurlFetcher(5);
};

TEST_F(DebianIndexTest, FetchedOnceThenServedFromTheCacheUntilTheTtl) {
  std::vector<std::string> problems;
  auto index = DebianSourcesIndex::Load(archive_, "bookworm", "main", *curl_, problems);
  EXPECT_TRUE(problems.empty()) << problems[0];
  ASSERT_TRUE(index.Find(kShaB));
  EXPECT_EQ(index.Find(std::string(64, 'B'))->path, "pool/main/d/dbench/dbench_4.0.orig.tar.gz");
  EXPECT_FALSE(index.Find(kShaA));
  EXPECT_TRUE(fs::exists(DebianIndexPath(archive_, "bookworm", "main")));
  EXPECT_EQ(IndexRequests(), 1u);
  // Fresh: read from the cache, even offline.
  auto offline = MakeOfflineFetcher();
  EXPECT_TRUE(DebianSourcesIndex::Load(archive_, "bookworm", "main", *offline, problems).Find(kShaB));
  EXPECT_TRUE(DebianSourcesIndex::Load(archive_, "bookworm", "main", *curl_, problems).Find(kShaB));
  EXPECT_EQ(IndexRequests(), 1u);
  // Expired: fetched again.
  archive_.ttl_seconds = 0;
  EXPECT_TRUE(DebianSourcesIndex::Load(archive_, "bookworm", "main", *curl_, problems).Find(kShaB));
  EXPECT_EQ(IndexRequests(), 2u);
  // Another mirror does not read this mirror's index.
  DebianArchive other = archive_;
  other.mirror = server_.Url("/elsewhere");
  other.ttl_seconds = 3600;
  problems.clear();
  EXPECT_FALSE(DebianSourcesIndex::Load(other, "bookworm", "main", *curl_, problems).Find(kShaB));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("HTTP 404"), std::string::npos) << problems[0];
}

TEST_F(DebianIndexTest, AStaleIndexIsUsedWhenTheArchiveCannotBeReached) {
  std::vector<std::string> problems;
  ASSERT_TRUE(DebianSourcesIndex::Load(archive_, "bookworm", "main", *curl_, problems).Find(kShaB));
  archive_.ttl_seconds = 0;
  server_.Serve("/debian/dists/bookworm/main/source/Sources.xz", "not xz at all");
  auto index = DebianSourcesIndex::Load(archive_, "bookworm", "main", *curl_, problems);
  EXPECT_TRUE(index.Find(kShaB));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("not a valid xz file"), std::string::npos) << problems[0];
  EXPECT_NE(problems[0].find("using the index cached earlier"), std::string::npos) << problems[0];
}

TEST_F(DebianIndexTest, OfflineWithoutACachedIndexOpensNoSocket) {
  std::vector<std::string> problems;
  auto offline = MakeOfflineFetcher();
  auto index = DebianSourcesIndex::Load(archive_, "bookworm", "main", *offline, problems);
  EXPECT_EQ(index.size(), 0u);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("not fetched (offline)"), std::string::npos);
  EXPECT_TRUE(server_.Requests().empty());
}

TEST(DebianSources, NotXzIsAnErrorNamingTheFile) {
  auto p = fs::temp_directory_path() / ("ptsn-notxz-" + std::to_string(getpid()));
  std::ofstream(p) << "plain text";
  try {
    ReadXzFile(p.string());
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(p.string() + ": not a valid xz file"), std::string::npos) << e.what();
  }
  fs::remove(p);
}

}  // namespace
}  // namespace ptsn::install
