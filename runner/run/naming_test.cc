#include "runner/run/naming.h"

#include <gtest/gtest.h>

#include <map>
#include <utility>
#include <vector>

namespace ptsn::run {
namespace {

TEST(NamingTest, GivenNamesAreCleanedAsPts) {
  auto n = ResolveNaming(std::string("Sample Disk Golden A"), std::string("Tuned (v2)  box"), std::nullopt, 0);
  EXPECT_EQ(n.title, "Sample Disk Golden A");
  EXPECT_EQ(n.save_name, "sample-disk-golden-a");
  EXPECT_EQ(n.identifier, "Tuned v2 box");
  EXPECT_FALSE(n.description);
}

TEST(NamingTest, AbsentNamesBecomeDatesAsInPtsBatchMode) {
  setenv("TZ", "UTC", 1);
  tzset();
  std::time_t t = 1796025381;  // 2026-11-30 07:56:21 UTC, the golden auto-naming run
  auto n = ResolveNaming(std::nullopt, std::nullopt, std::string(" Desc "), t);
  EXPECT_EQ(n.title, "2026-11-30-0756");
  EXPECT_EQ(n.save_name, "2026-11-30-0756");
  EXPECT_EQ(n.identifier, "2026-11-30 07:56");
  EXPECT_EQ(n.description.value_or(""), "Desc");
}

// Expected values are what PTS 10.8.6's own pts_test_run_manager::clean_results_identifier()
// returned for these inputs (run with php-cli, phodevi stubbed to the variables below).
TEST(NamingTest, CleanResultsIdentifierMatchesPtsOnAwkwardInput) {
  const std::map<std::string, std::string> vars = {{"HOSTNAME", "buildbox"},
                                                   {"KERNEL_VERSION", "6.1.0-13-amd64"},
                                                   {"PROCESSOR", "AMD EPYC 7B13"},
                                                   {"VIDEO_CARD", ""}};
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"  My Box  ", "My Box"},
      {"Tuned (v2)  box", "Tuned v2 box"},
      {"0", ""},
      {" 0 ", ""},
      {"00", "00"},
      {"a\\\\b", "a\\\\b"},
      {"C:\\\\Temp", "C:\\\\Temp"},
      {"$HOSTNAME", "buildbox"},
      {"$HOSTNAME-x", "HOSTNAME-x"},
      {"on $HOSTNAME with $KERNEL_VERSION", "on buildbox with 6.1.0-13-amd64"},
      {"$PROCESSOR $PROCESSOR", "AMD EPYC 7B13 AMD EPYC 7B13"},
      {"$UNKNOWN box", "UNKNOWN box"},
      {"$ $", ""},
      {"$", ""},
      {"Z\xc3\xbcrich \xe2\x80\x93 Test\xe2\x84\xa2", "Zrich Test"},
      {"tab\there", "tabhere"},
      {"a&b|c<d>e\"f'g", "abcdefg"},
      {"x=1;y=2 @home +more", "x=1;y=2 @home +more"},
      {"100% (!)", "100"},
      {"$VIDEO_CARD", "VIDEO_CARD"},
      {"$HOSTNAME$HOSTNAME", "buildboxbuildbox"},
      {"   ", ""},
      {"((()))", ""},
      {"$PROCESSOR (8 cores)", "AMD EPYC 7B13 8 cores"},
      {"a  $HOSTNAME  b", "a buildbox b"},
  };
  for (const auto& [in, want] : cases) EXPECT_EQ(CleanResultsIdentifier(in, vars), want) << "input: " << in;
  EXPECT_EQ(CleanResultsIdentifier("$HOSTNAME"), "HOSTNAME") << "no variables: the name stays, '$' goes";
}

TEST(NamingTest, NearDuplicateIdentifiersDifferOnlyInCaseSpacingOrPunctuation) {
  const std::vector<std::string> systems = {"Baseline", "Tuned 2", "AMD EPYC"};
  EXPECT_EQ(NearDuplicateIdentifier(systems, "baseline"), "Baseline");
  EXPECT_EQ(NearDuplicateIdentifier(systems, "Tuned-2"), "Tuned 2");
  EXPECT_EQ(NearDuplicateIdentifier(systems, "amd_epyc."), "AMD EPYC");
  EXPECT_EQ(NearDuplicateIdentifier(systems, "Baseline"), std::nullopt);  // the same system
  EXPECT_EQ(NearDuplicateIdentifier(systems, "Tuned 3"), std::nullopt);
  EXPECT_EQ(NearDuplicateIdentifier(systems, "Base line 2"), std::nullopt);
  EXPECT_EQ(NearDuplicateIdentifier(systems, "--"), std::nullopt);
}

TEST(NamingTest, IdentifierVariablesComeFromTheComponents) {
  auto vars = IdentifierVariables({{"Processor", "AMD EPYC 7B13 (8 Cores)"}, {"Memory", "32GB"}},
                                  {{"OS", "Debian 12"}, {"Kernel", "6.1.0-13-amd64 (x86_64)"}}, "buildbox");
  EXPECT_EQ(vars["PROCESSOR"], "AMD EPYC 7B13");
  EXPECT_EQ(vars["OPERATING_SYSTEM"], "Debian 12");
  EXPECT_EQ(vars["KERNEL_VERSION"], "6.1.0-13-amd64");
  EXPECT_EQ(vars["HOSTNAME"], "buildbox");
  EXPECT_EQ(vars.count("MEMORY"), 0u);
  EXPECT_EQ(CleanResultsIdentifier("$PROCESSOR on $KERNEL_VERSION", vars), "AMD EPYC 7B13 on 6.1.0-13-amd64");
}

constexpr const char* kGoldenHw = "Processor: AMD EPYC (2 Cores), Memory: 24GB, Disk: 252GB";
constexpr const char* kGoldenSw =
    "OS: Debian 12, Kernel: 6.18.44-fc-v782 (x86_64), Compiler: GCC 12.2.0 + Clang 14.0.6, File-System: ext4, "
    "System Layer: docker";

TEST(AutoIdentifierTest, DiskTestOnTheGoldenMachineKeepsTheDate) {
  // The golden auto-naming run (TestType Disk, batch) got "2026-11-30 07:56": "252GB" is a size,
  // not a product name.
  EXPECT_EQ(AutoResultsIdentifier(kGoldenHw, kGoldenSw, {"Disk"}, true), "");
}

TEST(AutoIdentifierTest, TestedSubsystemsNameTheRun) {
  EXPECT_EQ(AutoResultsIdentifier(kGoldenHw, kGoldenSw, {"Processor"}, true), "AMD EPYC");
  EXPECT_EQ(AutoResultsIdentifier(kGoldenHw, kGoldenSw, {"System", "Processor", "Disk", "Processor"}, true),
            "AMD EPYC");
  std::string hw = "Processor: Intel Core i5-7500 @ 3.80GHz (4 Cores), Disk: 512GB Samsung SSD 970 EVO, "
                   "Graphics: NVIDIA GeForce RTX 3080 10GB";
  EXPECT_EQ(AutoResultsIdentifier(hw, "", {"Graphics", "Disk"}, true), "NVIDIA GeForce RTX 3080");  // >= 20: stop
  EXPECT_EQ(AutoResultsIdentifier(hw, "", {"Processor", "Disk"}, true), "Intel Core i5-7500 - Samsung SSD 970 EVO");
  EXPECT_EQ(AutoResultsIdentifier("", "OS: Ubuntu 24.04", {"OS"}, true), "Ubuntu 24.04");
}

TEST(AutoIdentifierTest, OutsideBatchModeCpuGpuBoardFallback) {
  EXPECT_EQ(AutoResultsIdentifier(kGoldenHw, kGoldenSw, {"Disk"}, false), "AMD EPYC");
  std::string hw = "Processor: Intel Core i5-7500 @ 3.80GHz (4 Cores), Motherboard: ASUS PRIME B250M-A (1205 BIOS), "
                   "Graphics: Intel HD 630 (1100MHz)";
  EXPECT_EQ(AutoResultsIdentifier(hw, "", {"System"}, false), "Intel Core i5-7500 - Intel HD 630 - ASUS PRIME");
}

}  // namespace
}  // namespace ptsn::run
