#include "runner/sysinfo/phodevi_strings.h"

#include <gtest/gtest.h>

namespace ptsn::sysinfo {
namespace {

TEST(StripString, DropsVendorBoilerplateAsPtsDoes) {
  EXPECT_EQ(StripString("Intel Corporation 440FX - 82441FX PMC"), "Intel 440FX 82441FX PMC");
  EXPECT_EQ(StripString("Advanced Micro Devices, Inc. Family 17h (Models 00h-0fh) HD Audio Controller"),
            "AMD 17h (Models 00h-0fh) HD Audio");
  EXPECT_EQ(StripString("Realtek Semiconductor Co., Ltd. RTL8111/8168/8411 PCI Express Gigabit Ethernet Controller"),
            "Realtek RTL8111/8168/8411 PCI Gigabit");
  EXPECT_EQ(StripString("ASUSTeK COMPUTER INC. PRIME B250M-A"), "ASUS PRIME B250M-A");
  EXPECT_EQ(StripString("Intel Intel Xeon"), "Intel Xeon");          // repeated words once
  EXPECT_EQ(StripString("Intel + Intel"), "Intel + Intel");          // ...unless it is a list
  EXPECT_EQ(StripString("Foo Gtk-WARNING **: Unable"), "Foo");
}

TEST(TrimSearchQuery, KeepsTheSearchableHead) {
  EXPECT_EQ(TrimSearchQuery("AMD EPYC (2 Cores)"), "AMD EPYC");
  EXPECT_EQ(TrimSearchQuery("Intel Core i5-7500 @ 3.80GHz (4 Cores)"), "Intel Core i5-7500");
  EXPECT_EQ(TrimSearchQuery("252GB"), "");                         // a size is not a name
  EXPECT_EQ(TrimSearchQuery("512GB Samsung SSD 970 EVO"), "Samsung SSD 970 EVO");
  EXPECT_EQ(TrimSearchQuery("NVIDIA GeForce RTX 3080 10GB"), "NVIDIA GeForce RTX 3080");
  EXPECT_EQ(TrimSearchQuery("16"), "");
  EXPECT_EQ(TrimSearchQuery("Debian 12"), "Debian 12");
  EXPECT_EQ(TrimSearchQuery("Realtek RTL8111/8168/8411"), "Realtek RTL8111");
}

TEST(IsVendorString, AcceptsProductNamesOnly) {
  EXPECT_TRUE(IsVendorString("AMD EPYC"));
  EXPECT_TRUE(IsVendorString("Intel Core i5-7500"));
  EXPECT_TRUE(IsVendorString("Xeon"));
  EXPECT_FALSE(IsVendorString("ab"));
  EXPECT_FALSE(IsVendorString("Unknown Device"));
  EXPECT_FALSE(IsVendorString("System manufacturer"));
  EXPECT_FALSE(IsVendorString("ABCD12345"));  // one long token with digits: a serial, not a name
  EXPECT_FALSE(IsVendorString("1234"));
  EXPECT_FALSE(IsVendorString("A12"));
  EXPECT_FALSE(IsVendorString("Core i5-"));
  EXPECT_FALSE(IsVendorString("6.8.0-45-generic"));
  EXPECT_FALSE(IsVendorString("RTL8111/8168"));
}

TEST(CleansedItemString, CountsRepeats) {
  EXPECT_EQ(CleansedItemString({"DELL U2415", "", "DELL U2415", "LG"}), "2 x DELL U2415 + LG");
  EXPECT_EQ(CleansedItemString({"", ""}), "");
}

TEST(ComponentValue, SplitsLikePts) {
  std::string hw = "Processor: AMD EPYC (2 Cores), Memory: 24GB, Disk: 252GB";
  EXPECT_EQ(ComponentValue(hw, "Processor"), "AMD EPYC (2 Cores)");
  EXPECT_EQ(ComponentValue(hw, "Disk"), "252GB");
  EXPECT_EQ(ComponentValue(hw, "Graphics"), "");
}

TEST(ComponentModel, DropsFrequencyAndDetails) {
  EXPECT_EQ(ComponentModel("Intel Core i5-7500 @ 3.80GHz (4 Cores)"), "Intel Core i5-7500");
  EXPECT_EQ(ComponentModel("Intel HD 630 (1100MHz)"), "Intel HD 630");
  EXPECT_EQ(ComponentModel("AMD EPYC"), "AMD EPYC");
}

}  // namespace
}  // namespace ptsn::sysinfo
