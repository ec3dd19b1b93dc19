#include "results-xml/store/result_store.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "runner/common/atomic_file.h"
#include "runner/common/error.h"

namespace fs = std::filesystem;

namespace ptsn::results {
namespace {

ResultFile Sample(const std::string& title, std::vector<std::string> systems) {
  ResultFile f;
  f.generated.title = title;
  f.generated.last_modified = "2026-01-01 00:00:00";
  for (const auto& s : systems) {
    System sys;
    sys.identifier = s;
    f.systems.push_back(sys);
  }
  Result r;
  r.title = "XX";
  r.entries.push_back(Entry{systems[0], "1", "", std::nullopt});
  f.results.push_back(r);
  return f;
}

class ResultStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("ptsn_store_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    ours_ = (root_ / "ours").string();
    pts_ = (root_ / "pts").string();
    MakeDirectories(ours_);
    MakeDirectories(pts_);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
  std::string ours_, pts_;
};

TEST_F(ResultStoreTest, SaveFindListRemove) {
  SaveResult(ours_, "alpha", Sample("Alpha Run", {"A", "B"}), {.keep_as_read = true});
  SaveResult(pts_, "beta", Sample("Beta", {"C"}), {.keep_as_read = true});
  SaveResult(pts_, "alpha", Sample("Hidden", {"Z"}), {.keep_as_read = true});
  MakeDirectories(ours_ + "/broken");
  WriteFileAtomically(ours_ + "/broken/composite.xml", "<oops");
  std::vector<std::string> dirs = {ours_, pts_};

  EXPECT_EQ(ResolveResultFile("alpha", dirs), ours_ + "/alpha/composite.xml");
  EXPECT_EQ(ResolveResultFile("beta", dirs), pts_ + "/beta/composite.xml");
  EXPECT_EQ(ResolveResultFile(pts_ + "/alpha", dirs), pts_ + "/alpha/composite.xml");
  EXPECT_EQ(ResolveResultFile(pts_ + "/alpha/composite.xml", dirs), pts_ + "/alpha/composite.xml");
  EXPECT_THROW(ResolveResultFile("gamma", dirs), Error);

  auto list = ListSavedResults(dirs);
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].name, "alpha");
  EXPECT_EQ(list[0].title, "Alpha Run");
  EXPECT_EQ(list[0].systems, (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(list[0].results, 1u);
  EXPECT_EQ(list[1].name, "broken");
  EXPECT_NE(list[1].error.find("malformed XML"), std::string::npos);
  EXPECT_EQ(list[2].name, "beta");

  EXPECT_EQ(RemoveSavedResult("alpha", dirs), ours_ + "/alpha");
  EXPECT_FALSE(fs::exists(ours_ + "/alpha"));
  EXPECT_EQ(ResolveResultFile("alpha", dirs), pts_ + "/alpha/composite.xml");  // PTS's copy is visible now
  EXPECT_THROW(RemoveSavedResult("../pts/beta", dirs), Error);
  EXPECT_THROW(RemoveSavedResult("nothing", dirs), Error);
  EXPECT_TRUE(fs::exists(pts_ + "/beta/composite.xml"));
}

TEST_F(ResultStoreTest, UnusedSaveName) {
  EXPECT_EQ(UnusedSaveName(ours_, "merge"), "merge-1");
  EXPECT_TRUE(fs::is_directory(ours_ + "/merge-1"));  // taken: the next caller gets merge-2
  EXPECT_EQ(UnusedSaveName(ours_, "merge"), "merge-2");
  SaveResult(ours_, "merge-2", Sample("M", {"A"}));
  EXPECT_EQ(UnusedSaveName(ours_, "merge"), "merge-3");
}

// Exports are refused over what they read and over saved results, however the path is spelled;
// beside them, or a composite.xml of no results directory, is fine.
TEST_F(ResultStoreTest, ExportsNeverReplaceAResultFile) {
  SaveResult(ours_, "alpha", Sample("Alpha", {"A"}));
  const std::string saved = ours_ + "/alpha/composite.xml";
  MakeDirectories((root_ / "elsewhere").string());
  fs::create_symlink(ours_ + "/alpha", root_ / "link");
  fs::create_hard_link(saved, root_ / "elsewhere" / "hard.xml");
  const std::vector<std::string> dirs = {ours_, pts_};
  auto refused = [&](const std::string& output, const std::vector<std::string>& inputs) {
    try {
      RefuseExportOverResults(output, inputs, dirs);
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), 2);
      EXPECT_EQ(std::string(e.what()).rfind(output + ": is the ", 0), 0u) << e.what();
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(refused(saved, {saved}).find("is the result file this command reads (" + saved + ")"), std::string::npos);
  EXPECT_NE(refused((root_ / "elsewhere" / "hard.xml").string(), {saved}), "");        // a hard link is the file
  EXPECT_NE(refused(ours_ + "/alpha/../alpha/./composite.xml", {}), "");               // no input: still saved
  EXPECT_NE(refused((root_ / "link" / "composite.xml").string(), {}).find("is the saved result 'alpha'"),
            std::string::npos);
  EXPECT_NE(refused(pts_ + "/gamma/composite.xml", {}), "");  // PTS's folder, a result not there yet
  EXPECT_EQ(refused(ours_ + "/alpha/report.txt", {saved}), "");
  EXPECT_EQ(refused((root_ / "elsewhere" / "composite.xml").string(), {saved}), "");
  EXPECT_EQ(refused((root_ / "elsewhere" / "new.xml").string(), {saved}), "");
}

TEST(ResultStoreNames, CleanSaveNameLikePts) {
  EXPECT_EQ(CleanSaveName("Sample Disk Golden A"), "sample-disk-golden-a");
  EXPECT_EQ(CleanSaveName("  AES-NI  (eCryptfs) vs. dm_crypt! "), "aes-ni-ecryptfs-vs-dmcrypt");
  EXPECT_EQ(CleanSaveName(std::string(200, 'x')).size(), 126u);
  EXPECT_THROW(CleanSaveName("!!!"), Error);
  EXPECT_EQ(SimplifyForFileHandling("Tuned (renamed)/x\\y: z@1"), "Tuned renamed_x_y z@1");
  EXPECT_THROW(SaveResult("/tmp", "../escape", ResultFile{}), Error);
}

}  // namespace
}  // namespace ptsn::results
