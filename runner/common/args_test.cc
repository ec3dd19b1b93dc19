#include "runner/common/args.h"

#include <gtest/gtest.h>

#include "runner/common/error.h"

TEST(Args, ParsesPositionalsValuesAndFlags) {
  ptsn::ArgSpec spec{{"-o", "--on-clash"}, {"--json"}};
  auto a = ptsn::Args::Parse({"a.xml", "-o", "out.xml", "--on-clash=error", "b.xml", "--json"}, spec);
  EXPECT_EQ(a.positional(), (std::vector<std::string>{"a.xml", "b.xml"}));
  EXPECT_EQ(a.Value("-o"), "out.xml");
  EXPECT_EQ(a.Value("--on-clash"), "error");
  EXPECT_TRUE(a.Has("--json"));
  EXPECT_FALSE(a.Has("--dry-run"));
}

TEST(Args, RejectsUnknownAndMissingValues) {
  ptsn::ArgSpec spec{{"-o"}, {}};
  EXPECT_THROW(ptsn::Args::Parse({"--bogus"}, spec), ptsn::Error);
  EXPECT_THROW(ptsn::Args::Parse({"-o"}, spec), ptsn::Error);
}

TEST(Args, DoubleDashEndsOptions) {
  auto a = ptsn::Args::Parse({"--", "-x"}, {});
  EXPECT_EQ(a.positional(), (std::vector<std::string>{"-x"}));
}
