#include "runner/install/installer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace ptsn::install {
namespace {

class InstallerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("ptsn-inst-" + std::to_string(getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "profile");
  }
  void TearDown() override { fs::remove_all(root_); }
  InstallRequest Request(const std::string& script) {
    std::ofstream(root_ / "profile" / "install.sh") << script;
    InstallRequest r;
    r.identifier = "local/x-1.0.0";
    r.install_script = (root_ / "profile" / "install.sh").string();
    r.install_dir = (root_ / "inst").string();
    r.env = {{"PATH", "/usr/bin:/bin"}, {"HOME", r.install_dir + "/"}};
    return r;
  }
  fs::path root_;
  exec::PosixProcessRunner runner_;
};

TEST_F(InstallerTest, RunsInTheInstallDirWithTheDirAsArgument) {
  auto r = Request("echo \"$1\" > arg.txt; pwd > cwd.txt; echo 0 > ~/install-exit-status\n");
  auto out = RunInstallScript(r, runner_);
  ASSERT_TRUE(out.ok) << out.failure;
  std::ifstream arg(root_ / "inst" / "arg.txt"), cwd(root_ / "inst" / "cwd.txt");
  std::string a, c;
  std::getline(arg, a);
  std::getline(cwd, c);
  EXPECT_EQ(a, r.install_dir + "/");
  EXPECT_EQ(fs::path(c), fs::canonical(root_ / "inst"));
  EXPECT_FALSE(fs::exists(root_ / "inst" / "install-exit-status"));  // read and deleted
}

TEST_F(InstallerTest, NonZeroInstallExitStatusFailsWithTheLogTail) {
  auto out = RunInstallScript(Request("echo compiling; echo 'error: missing foo.h'; echo 2 > ~/install-exit-status\n"), runner_);
  EXPECT_FALSE(out.ok);
  EXPECT_EQ(out.failure, "install-exit-status is 2");
  EXPECT_NE(out.last_lines.find("error: missing foo.h"), std::string::npos);
  EXPECT_TRUE(fs::exists(root_ / "inst" / "install-failed.log"));
}

TEST_F(InstallerTest, MarkerTracksTheScriptChecksum) {
  auto r = Request("true\n");
  std::string sum = InstallChecksum(r.install_script);
  EXPECT_FALSE(IsInstalled(r.install_dir, r.identifier, sum));
  ASSERT_TRUE(RunInstallScript(r, runner_).ok);
  WriteInstallMarker(r.install_dir, r.identifier, sum, 0.1);
  EXPECT_TRUE(IsInstalled(r.install_dir, r.identifier, sum));
  EXPECT_FALSE(IsInstalled(r.install_dir, r.identifier, "other"));
  EXPECT_FALSE(IsInstalled(r.install_dir, "local/x-1.0.1", sum));
}

}  // namespace
}  // namespace ptsn::install
