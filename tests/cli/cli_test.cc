// The binary's contract: unknown commands fail with exit 2, names are case/dash-insensitive,
// `config` shows where each value came from.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>

#include "tests/cli/run_binary.h"

TEST(Cli, UnknownCommandExitsTwo) {
  auto r = ptsn::test::RunPtsNative("no-such-command");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("unknown command"), std::string::npos);
}

TEST(Cli, NamesIgnoreCaseAndUnderscores) {
  auto r = ptsn::test::RunPtsNative("LIST_COMMANDS");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("config"), std::string::npos);
}

TEST(Cli, ConfigShowsOrigin) {
  auto r = ptsn::test::RunPtsNative("config", "PTS_NATIVE_HOME=/tmp/ptsn-cli-home PTS_NATIVE_MAX_RUNS=7");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("/tmp/ptsn-cli-home/test-results"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("environment PTS_NATIVE_MAX_RUNS"), std::string::npos) << r.output;
}
