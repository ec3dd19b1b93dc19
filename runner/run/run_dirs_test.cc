#include "runner/run/run_dirs.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "runner/common/atomic_file.h"
#include "runner/common/error.h"

namespace fs = std::filesystem;

namespace ptsn::run {
namespace {

class TestDirsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("test-dirs-" + std::to_string(getpid()));
    fs::remove_all(root_);
    install_ = root_ / "installed/local/x-1.0.0";
    scratch_root_ = root_ / "scratch";
    fs::create_directories(install_ / "bin");
    fs::create_directories(scratch_root_);
    WriteFileAtomically((install_ / "run-me").string(), "#!/bin/sh\n");
    WriteFileAtomically((install_ / "bin/tool").string(), "tool\n");
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_, install_, scratch_root_;
};

// What install.sh left is there to read; what the test writes is its own; two runs never share.
TEST_F(TestDirsTest, PrivateHomeSeesTheInstallAndKeepsItsWritesToItself) {
  std::string home_a, scratch_a;
  {
    TestDirs a(install_.string(), scratch_root_.string());
    TestDirs b(install_.string(), scratch_root_.string());
    home_a = a.home();
    scratch_a = a.scratch();
    EXPECT_NE(a.home(), b.home());
    EXPECT_NE(a.scratch(), b.scratch());
    EXPECT_EQ(fs::path(a.scratch()).parent_path(), scratch_root_);
    EXPECT_EQ(ReadFile(a.Path("run-me")), "#!/bin/sh\n");
    EXPECT_EQ(ReadFile(a.Path("bin/tool")), "tool\n");
    WriteFileAtomically(a.Path("test-exit-status"), "0\n");
    EXPECT_FALSE(fs::exists(b.Path("test-exit-status")));
    EXPECT_FALSE(fs::exists(install_ / "test-exit-status"));
    EXPECT_TRUE(fs::is_directory(a.scratch()));
  }
  // Gone afterwards; the install directory is as it was.
  EXPECT_FALSE(fs::exists(home_a));
  EXPECT_FALSE(fs::exists(scratch_a));
  EXPECT_EQ(ReadFile((install_ / "bin/tool").string()), "tool\n");
  EXPECT_TRUE(fs::exists(install_ / "run-me"));
}

TEST_F(TestDirsTest, LeftoversOfDeadRunsGoOthersStay) {
  pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);  // a pid that no longer exists
  std::string dead = std::to_string(child) + "-1";
  fs::create_directories(install_ / (std::string(TestDirs::kHomePrefix) + dead));
  fs::create_directories(scratch_root_ / (std::string(TestDirs::kScratchPrefix) + dead));
  fs::create_directories(scratch_root_ / dead);  // not ours: never touched
  std::string alive = std::string(TestDirs::kScratchPrefix) + std::to_string(getppid()) + "-1";
  fs::create_directories(scratch_root_ / alive);
  TestDirs dirs(install_.string(), scratch_root_.string());
  EXPECT_FALSE(fs::exists(install_ / (std::string(TestDirs::kHomePrefix) + dead)));
  EXPECT_FALSE(fs::exists(scratch_root_ / (std::string(TestDirs::kScratchPrefix) + dead)));
  EXPECT_TRUE(fs::exists(scratch_root_ / dead));
  EXPECT_TRUE(fs::exists(scratch_root_ / alive));
}

TEST_F(TestDirsTest, AScratchThatCannotBeMadeIsAnError) {
  WriteFileAtomically((root_ / "file").string(), "x");
  EXPECT_THROW(TestDirs(install_.string(), (root_ / "file").string()), Error);
  for (const auto& e : fs::directory_iterator(install_))
    EXPECT_NE(e.path().filename().string().rfind(TestDirs::kHomePrefix, 0), 0u) << "left behind: " << e.path();
}

}  // namespace
}  // namespace ptsn::run
