#include "runner/common/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "runner/common/error.h"

namespace fs = std::filesystem;

namespace {

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ptsn-atomic-" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    fs::permissions(dir_, fs::perms::owner_all);
    fs::remove_all(dir_);
  }
  fs::path dir_;
};

TEST_F(AtomicFileTest, WritesAndReplaces) {
  std::string path = (dir_ / "a.xml").string();
  ptsn::WriteFileAtomically(path, "first");
  EXPECT_EQ(ptsn::ReadFile(path), "first");
  ptsn::WriteFileAtomically(path, "second");
  EXPECT_EQ(ptsn::ReadFile(path), "second");
  // No temporary files are left behind.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(AtomicFileTest, MissingDirectoryNamesThePath) {
  std::string path = (dir_ / "no-such-dir" / "a.xml").string();
  try {
    ptsn::WriteFileAtomically(path, "x");
    FAIL() << "expected an error";
  } catch (const ptsn::Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST_F(AtomicFileTest, ReadOnlyDirectoryKeepsPreviousFile) {
  if (geteuid() == 0) GTEST_SKIP() << "root ignores directory permissions";
  std::string path = (dir_ / "a.xml").string();
  ptsn::WriteFileAtomically(path, "old");
  fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec);
  EXPECT_THROW(ptsn::WriteFileAtomically(path, "new"), ptsn::Error);
  EXPECT_EQ(ptsn::ReadFile(path), "old");
}

// A real full disk (ENOSPC part way through the write) is tested in tests/results/full_disk_test.cc
// on a small private tmpfs; here only a target whose directory cannot exist.
TEST_F(AtomicFileTest, TargetInANonDirectoryFailsAndNamesIt) {
  try {
    ptsn::WriteFileAtomically("/dev/full/x.xml", "new");
    FAIL() << "expected an error";
  } catch (const ptsn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/full/x.xml"), std::string::npos) << e.what();
  }
}

TEST_F(AtomicFileTest, ReadMissingFileNamesIt) {
  try {
    ptsn::ReadFile((dir_ / "missing.xml").string());
    FAIL();
  } catch (const ptsn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("missing.xml"), std::string::npos);
  }
}

// A mapped file holds the bytes ReadFile reads; what cannot be mapped is read, errors are ReadFile's.
// A writer killed between mkstemp and rename leaves its temporary file: removed on request, and
// only the temporaries of that file (another file's, and look-alike names, stay).
TEST_F(AtomicFileTest, LeftoverTemporariesOfOneFileAreRemoved) {
  std::string path = (dir_ / "composite.xml").string();
  ptsn::WriteFileAtomically(path, "saved");
  for (const char* name : {".composite.xml.tmp-AbC123", ".composite.xml.tmp-xyz789", ".other.xml.tmp-AbC123",
                           ".composite.xml.tmp-short", "composite.xml.tmp-AbC123"})
    ptsn::WriteFileAtomically((dir_ / name).string(), "left");
  EXPECT_EQ(ptsn::RemoveLeftoverTemporaries(path), 2u);
  EXPECT_FALSE(fs::exists(dir_ / ".composite.xml.tmp-AbC123"));
  EXPECT_FALSE(fs::exists(dir_ / ".composite.xml.tmp-xyz789"));
  EXPECT_TRUE(fs::exists(dir_ / ".other.xml.tmp-AbC123"));
  EXPECT_TRUE(fs::exists(dir_ / ".composite.xml.tmp-short"));
  EXPECT_TRUE(fs::exists(dir_ / "composite.xml.tmp-AbC123"));
  EXPECT_EQ(ptsn::ReadFile(path), "saved");
  EXPECT_EQ(ptsn::RemoveLeftoverTemporaries((dir_ / "none" / "x.xml").string()), 0u);
}

}  // namespace
