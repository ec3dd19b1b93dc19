// For the profile module's tests: a fresh directory per test, removed afterwards (ctest runs the
// tests of one binary in parallel processes, so the name carries the pid and the test's name).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace ptsn::profile::test {

struct TempDir {
  std::string path;
  TempDir() {
    namespace fs = std::filesystem;
    path = (fs::temp_directory_path() / ("ptsn-profile-" + std::to_string(getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace ptsn::profile::test
