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

}  // namespace
}  // namespace ptsn::run
