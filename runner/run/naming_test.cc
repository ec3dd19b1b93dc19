#include "runner/run/naming.h"

#include <gtest/gtest.h>

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
