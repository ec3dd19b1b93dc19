#include "runner/exec/pts_environment.h"

#include <gtest/gtest.h>

namespace ptsn::exec {
namespace {

TEST(PtsEnvironmentTest, ExportsWhatPtsExports) {
  HostFacts f;
  f.logical_cores = 12;
  f.physical_cores = 6;
  f.memory_mb = 15931;
  f.os_id = "debian";
  f.os_version = "12";
  f.arch = "x86_64";
  f.real_home = "/home/me";
  Environment host = {{"PATH", "/usr/bin:/bin"}, {"LC_ALL", "C"}, {"KEEP", "1"}, {"EMPTY", ""}};
  auto env = PtsEnvironment(host, f, "/inst/local/x-1.0", {{"base", "/inst/pts/base-1.0"}, {"other", ""}});
  EXPECT_EQ(env["HOME"], "/inst/local/x-1.0/");
  EXPECT_EQ(env["NUM_CPU_CORES"], "12");
  EXPECT_EQ(env["NUM_CPU_PHYSICAL_CORES"], "6");
  EXPECT_EQ(env["NUM_CPU_PHYSICAL_CORES_CUBE"], "1");
  EXPECT_EQ(env["CPU_THREADS_PER_CORE"], "2");
  EXPECT_EQ(env["NUM_CPU_JOBS"], "24");
  EXPECT_EQ(env["SYS_MEMORY"], "15931");
  EXPECT_EQ(env["OS_ARCH"], "x86_64");
  EXPECT_EQ(env["DEBUG_REAL_HOME"], "/home/me/");
  EXPECT_EQ(env["TEST_EXTENDS"], "/inst/pts/base-1.0/");
  EXPECT_EQ(env["TEST_BASE"], "/inst/pts/base-1.0/");
  EXPECT_EQ(env["PATH"], "/inst/pts/base-1.0/:/usr/bin:/bin");
  EXPECT_EQ(env["KEEP"], "1");
  EXPECT_FALSE(env.count("LC_ALL"));  // PTS sets it to "" and empty values are not passed
  EXPECT_FALSE(env.count("EMPTY"));
  EXPECT_FALSE(env.count("TEST_OTHER"));
  EXPECT_GT(std::stoi(env["RANDOM_AVAILABLE_PORT"]), 0);
}

TEST(PtsEnvironmentTest, CubeRoot) {
  EXPECT_EQ(CubeRoot(1), 1);
  EXPECT_EQ(CubeRoot(7), 1);
  EXPECT_EQ(CubeRoot(8), 2);
  EXPECT_EQ(CubeRoot(64), 4);
}

}  // namespace
}  // namespace ptsn::exec
