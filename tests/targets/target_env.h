// What the end-to-end target tests share: whether this machine can run them (root, loop
// devices), a private PTS_NATIVE_HOME, and the check that nothing of ours is left: no loop device
// reading a file under the home, no mount under it, no ledger record.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "runner/targets/proc_files.h"
#include "tests/support/required.h"

namespace ptsn::test {

inline std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// "" when targets can be made here, else why not (the tests skip with it).
inline std::string TargetsUnsupportedHere() {
  if (geteuid() != 0) return "not root: loop devices and mounts need root";
  if (!std::filesystem::exists("/dev/loop-control")) return "no /dev/loop-control (no loop devices)";
  if (access("/usr/sbin/mkfs.ext4", X_OK) != 0 && access("/sbin/mkfs.ext4", X_OK) != 0) return "mkfs.ext4 not installed";
  return "";
}

inline bool DeviceMapperHere() {
  return std::filesystem::exists("/dev/mapper/control") || Slurp("/proc/misc").find("device-mapper") != std::string::npos;
}

// Loop devices whose backing file is under `dir`.
inline std::vector<std::string> LoopsUnder(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/sys/block", ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind("loop", 0) != 0) continue;
    std::string backing = Slurp(e.path().string() + "/loop/backing_file");
    if (backing.rfind(dir, 0) == 0) out.push_back("/dev/" + name + " -> " + backing);
  }
  return out;
}

inline std::vector<std::string> MountsUnder(const std::string& dir) {
  return targets::MountPointsUnder(targets::ParseMountInfo(Slurp("/proc/self/mountinfo")), dir);
}

inline std::vector<std::string> DmMappingsOfOurs() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/dev/mapper", ec))
    if (e.path().filename().string().rfind("ptsn-", 0) == 0) out.push_back(e.path().string());
  return out;
}

// Nothing of ours left under `home` (the test's PTS_NATIVE_HOME, which holds the test directory).
inline void ExpectNothingLeft(const std::string& home) {
  EXPECT_EQ(LoopsUnder(home), std::vector<std::string>{});
  EXPECT_EQ(MountsUnder(home), std::vector<std::string>{});
  EXPECT_EQ(DmMappingsOfOurs(), std::vector<std::string>{});
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(home + "/targets", ec))
    ADD_FAILURE() << "ledger record left: " << e.path() << ": " << Slurp(e.path().string());
  for (const auto& e : std::filesystem::directory_iterator(home, ec))
    if (e.path().filename().string().rfind(".ptsn-targets-", 0) == 0) ADD_FAILURE() << "target directory left: " << e.path();
}

// A fresh PTS_NATIVE_HOME (with scratch/ as the test directory) per test, skipped where targets
// cannot be made, checked for leftovers and removed afterwards.
class TargetsHomeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string why = TargetsUnsupportedHere(); !why.empty()) PTSN_SKIP_UNLESS_REQUIRED("root", why);
    home_ = (std::filesystem::temp_directory_path() /
             ("ptsn-targets-" + std::to_string(getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name()))
                .string();
    std::filesystem::remove_all(home_);
    std::filesystem::create_directories(home_ + "/scratch");
  }
  void TearDown() override {
    if (home_.empty()) return;
    BeforeCheck();
    ExpectNothingLeft(home_);
    std::error_code ec;
    std::filesystem::remove_all(home_, ec);
  }
  virtual void BeforeCheck() {}  // e.g. end a process a failed test left running
  // The variables every command of a test runs with: its home, test directory, no config file.
  std::string HomeEnv() const {
    return "env -u MONITOR -u PRESET_OPTIONS -u TEST_RESULTS_IDENTIFIER PTS_NATIVE_HOME='" + home_ +
           "' PTS_NATIVE_PTS_HOME='" + home_ + "/no-pts' PTS_NATIVE_TEST_DIR='" + home_ + "/scratch' PTS_NATIVE_CONFIG='" +
           home_ + "/none.yaml'";
  }
  std::string home_;
};

}  // namespace ptsn::test
