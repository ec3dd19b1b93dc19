#include "runner/common/find_program.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

namespace ptsn {
namespace {

namespace fs = std::filesystem;

struct PathDirs : ::testing::Test {
  std::string dir, saved_path;
  void SetUp() override {
    dir = (fs::temp_directory_path() / ("ptsn_find_" + std::to_string(std::random_device{}()))).string();
    for (const char* d : {"/a", "/b", "/extra"}) fs::create_directories(dir + d);
    saved_path = std::getenv("PATH") ? std::getenv("PATH") : "";
    setenv("PATH", (dir + "/a::" + dir + "/b").c_str(), 1);
  }
  void TearDown() override {
    setenv("PATH", saved_path.c_str(), 1);
    fs::remove_all(dir);
  }
  void Make(const std::string& path, mode_t mode) {
    std::ofstream(path) << "#!/bin/sh\n";
    ::chmod(path.c_str(), mode);
  }
};

TEST_F(PathDirs, FirstExecutableFileInPathOrder) {
  Make(dir + "/a/tool", 0644);  // not executable: skipped
  Make(dir + "/b/tool", 0755);
  fs::create_directories(dir + "/a/dirtool");  // a directory is no program
  Make(dir + "/b/dirtool", 0755);
  EXPECT_EQ(FindProgram("tool"), dir + "/b/tool");
  EXPECT_EQ(FindProgram("dirtool"), dir + "/b/dirtool");
  EXPECT_EQ(FindProgram("missing"), std::nullopt);
  EXPECT_EQ(FindProgram(""), std::nullopt);
}

TEST_F(PathDirs, ExtraDirectoriesComeAfterPath) {
  Make(dir + "/extra/sbintool", 0755);
  EXPECT_EQ(FindProgram("sbintool"), std::nullopt);
  EXPECT_EQ(FindProgram("sbintool", dir + "/extra"), dir + "/extra/sbintool");
}

TEST_F(PathDirs, ANameWithASlashIsAPath) {
  Make(dir + "/extra/x", 0755);
  EXPECT_EQ(FindProgram(dir + "/extra/x"), dir + "/extra/x");
  EXPECT_EQ(FindProgram(dir + "/extra/none"), std::nullopt);
}

}  // namespace
}  // namespace ptsn
