// The CLI's own pieces, without running the binary (tests/cli/ runs it): the command table and
// the storage-target flags every run command shares.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "runner/cli/command.h"
#include "runner/cli/target_flags.h"
#include "runner/common/error.h"
#include "runner/common/strings.h"

namespace ptsn::cli {
namespace {

using ::testing::HasSubstr;

TEST(CommandTable, EveryNameAndAliasIsOneCommandWithAGroupUsageAndSummary) {
  std::set<std::string> seen;
  for (const auto& c : AllCommands()) {
    EXPECT_FALSE(c.group.empty()) << c.name;
    EXPECT_FALSE(c.summary.empty()) << c.name;
    EXPECT_TRUE(c.run) << c.name;
    EXPECT_TRUE(seen.insert(ToLower(c.name)).second) << c.name << " twice";
    for (const auto& a : c.aliases) EXPECT_TRUE(seen.insert(ToLower(a)).second) << a << " names two commands";
  }
  EXPECT_GE(AllCommands().size(), 40u);
}

TEST(CommandTable, TheManualPageHasEveryCommandsHelpUnderItsGroup) {
  const std::string page = ManualPage();
  EXPECT_THAT(page, HasSubstr(".TH PTS\\-NATIVE 1 "));
  for (const auto& c : AllCommands()) {
    EXPECT_THAT(page, HasSubstr(".SS " + c.group + "\n")) << c.name;
    // As roff has it: every '-' a minus sign.
    EXPECT_THAT(page, HasSubstr(ReplaceAll("pts-native " + c.name, "-", "\\-"))) << c.name;
  }
}

TEST(CommandTable, FindsNamesAndAliasesCaseAndDashInsensitively) {
  ASSERT_NE(FindCommand("run"), nullptr);
  EXPECT_EQ(FindCommand("run")->name, "benchmark");
  EXPECT_EQ(FindCommand("Batch_Run")->name, "batch-benchmark");
  EXPECT_EQ(FindCommand("finish-run")->name, "finish-run");
  EXPECT_EQ(FindCommand("encryption_cost")->name, "encryption-cost");
  EXPECT_EQ(FindCommand("no-such-command"), nullptr);
}

TEST(CommandTable, AnUnknownNameSuggestsTheClosestCommands) {
  EXPECT_THAT(UnknownCommandMessage("benchmrk"), HasSubstr("did you mean benchmark"));
  EXPECT_EQ(UnknownCommandMessage("zzzzzzzzzzzz"), "pts-native: unknown command 'zzzzzzzzzzzz' (pts-native help lists them)");
}

TEST(CommandTable, HelpShowsEachUsageLineTheSummaryAndAliases) {
  const std::string help = CommandHelp(*FindCommand("batch-run"));
  EXPECT_EQ(help.rfind("pts-native batch-benchmark PROFILE|SUITE|DIR...", 0), 0u) << help;
  EXPECT_THAT(help, HasSubstr("  aliases: batch-run\n"));
  // One line per form: benchmark takes profiles, and result IDs or saved results.
  const std::string run = CommandHelp(*FindCommand("benchmark"));
  EXPECT_THAT(run, HasSubstr("\npts-native benchmark ID|SAVED-NAME"));
}

Args Parsed(const std::vector<std::string>& argv) {
  ArgSpec spec{{}, {}};
  for (const auto& o : kTargetValueOptions) spec.value_options.insert(o);
  return Args::Parse(argv, spec);
}

TEST(TargetFlags, SizeAndDeviceOptionsNeedTargetsAndASensibleSize) {
  TargetFlags f = ReadTargetFlags(Parsed({"--targets", "plain,fscrypt", "--target-size", "256m"}));
  ASSERT_TRUE(f.list);
  EXPECT_EQ(*f.list, "plain,fscrypt");
  EXPECT_EQ(f.size, 256ull << 20);
  EXPECT_EQ(ReadTargetFlags(Parsed({"--targets", "plain"})).size, 1ull << 30);
  try {
    ReadTargetFlags(Parsed({"--target-size", "256m"}));
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "--target-size needs --targets (e.g. --targets plain,fscrypt)");
  }
  try {
    ReadTargetFlags(Parsed({"--targets", "plain", "--target-size", "1m"}));
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("--target-size 1m: at least 64m"));
  }
}

TEST(TargetFlags, OnlyRunsWithTargetsAndTheTargetsCommandGetAMountNamespace) {
  EXPECT_TRUE(MountsTargets("benchmark", {"local/x", "--targets", "plain"}));
  EXPECT_TRUE(MountsTargets("batch-benchmark", {"--targets=plain", "local/x"}));
  EXPECT_FALSE(MountsTargets("benchmark", {"local/x"}));
  EXPECT_FALSE(MountsTargets("merge-results", {"--targets", "plain"}));
  // run <ID> may be offered the published set-ups as targets, unless --no-targets.
  EXPECT_TRUE(MountsTargets("benchmark", {"1110088-AR-1110066AR56"}));
  EXPECT_TRUE(MountsTargets("reproduce", {"1110088-AR-1110066AR56", "--non-interactive"}));
  EXPECT_FALSE(MountsTargets("benchmark", {"1110088-AR-1110066AR56", "--no-targets"}));
  EXPECT_FALSE(MountsTargets("batch-benchmark", {"1110088-AR-1110066AR56"}));
  EXPECT_TRUE(MountsTargets("encryption-cost", {}));
  EXPECT_FALSE(MountsTargets("encryption-cost", {"--dry-run"}));
}

}  // namespace
}  // namespace ptsn::cli
