// The binary's contract: unknown commands fail with exit 2, names are case/dash-insensitive,
// `config` shows where each value came from.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/cli/run_binary.h"

TEST(Cli, UnknownCommandExitsTwo) {
  auto r = ptsn::test::RunPtsNative("no-such-command");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("unknown command"), std::string::npos);
  EXPECT_EQ(r.output.find("did you mean"), std::string::npos) << r.output;  // nothing close
}

TEST(Cli, UnknownCommandSuggestsTheClosestNames) {
  for (const auto& [typed, meant] : std::vector<std::pair<std::string, std::string>>{
           {"merge-result", "merge-results"},
           {"list-instaled-tests", "list-installed-tests"},
           {"bench-mark", "benchmark"},
           {"winners_and_loser", "wins-and-losses"},
           {"result-file-to", "result-file-to-text"}}) {
    auto r = ptsn::test::RunPtsNative(typed);
    EXPECT_EQ(r.exit_code, 2) << typed;
    EXPECT_NE(r.output.find("did you mean"), std::string::npos) << typed << ": " << r.output;
    EXPECT_NE(r.output.find(meant), std::string::npos) << typed << ": " << r.output;
  }
  auto help = ptsn::test::RunPtsNative("help merge-result");
  EXPECT_EQ(help.exit_code, 2);
  EXPECT_NE(help.output.find("did you mean merge-results"), std::string::npos) << help.output;
}

// Every command answers --help (and -h) with its own help and exit 0, before doing anything.
TEST(Cli, EveryCommandTakesHelp) {
  auto list = ptsn::test::RunPtsNative("list-commands", "", false);
  ASSERT_EQ(list.exit_code, 0);
  int commands = 0;
  std::istringstream names(list.output);
  for (std::string name; std::getline(names, name);) {
    if (name.empty() || name[0] == '-') continue;
    for (const char* flag : {"--help", "-h"}) {
      auto r = ptsn::test::RunPtsNative(name + " " + flag + " < /dev/null");
      EXPECT_EQ(r.exit_code, 0) << name << " " << flag << ": " << r.output;
      EXPECT_EQ(r.output.rfind("pts-native ", 0), 0u) << name << " " << flag << ": " << r.output;
    }
    ++commands;
  }
  EXPECT_GT(commands, 40);
  // --help after other arguments is still help (Args::Parse), not an unknown option.
  auto late = ptsn::test::RunPtsNative("merge-results a.xml b.xml --help");
  EXPECT_EQ(late.exit_code, 0) << late.output;
  EXPECT_NE(late.output.find("--on-clash"), std::string::npos) << late.output;
}

TEST(Cli, HelpRunMentionsRunningAResultId) {
  for (const char* how : {"help run", "run --help", "benchmark --help"}) {
    auto r = ptsn::test::RunPtsNative(how);
    EXPECT_EQ(r.exit_code, 0) << how << ": " << r.output;
    EXPECT_NE(r.output.find("pts-native benchmark ID|SAVED-NAME"), std::string::npos) << how << ": " << r.output;
    EXPECT_NE(r.output.find("aliases: run"), std::string::npos) << r.output;
  }
}

TEST(Cli, MergeHelpSaysKeepIsPtsBehaviour) {
  auto r = ptsn::test::RunPtsNative("help merge-results");
  EXPECT_NE(r.output.find("keep    PTS's own merge-results behaviour"), std::string::npos) << r.output;
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
