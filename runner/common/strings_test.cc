#include "runner/common/strings.h"

#include <gtest/gtest.h>

TEST(Strings, TrimSplitJoin) {
  EXPECT_EQ(ptsn::Trim("  a b \n"), "a b");
  EXPECT_EQ(ptsn::Split("a:b::c", ':'), (std::vector<std::string>{"a", "b", "", "c"}));
  EXPECT_EQ(ptsn::Join({"a", "b"}, " - "), "a - b");
}

TEST(Strings, CommandNamesIgnoreCaseAndDashes) {
  EXPECT_TRUE(ptsn::SameCommandName("result-file-to-text", "Result_File_To_Text"));
  EXPECT_FALSE(ptsn::SameCommandName("merge-results", "merge-result"));
}
