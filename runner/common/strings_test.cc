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

TEST(Strings, IsValidUtf8TakesWholeStringsOfValidCharacters) {
  EXPECT_TRUE(ptsn::IsValidUtf8(""));
  EXPECT_TRUE(ptsn::IsValidUtf8("plain \xc3\xa9t\xc3\xa9 \xf0\x9f\x98\x80"));
  EXPECT_FALSE(ptsn::IsValidUtf8("cut \xc3"));
  EXPECT_FALSE(ptsn::IsValidUtf8("overlong \xc0\xaf"));
  EXPECT_FALSE(ptsn::IsValidUtf8("surrogate \xed\xa0\x80"));
  EXPECT_FALSE(ptsn::IsValidUtf8("beyond \xf4\x90\x80\x80"));
}

TEST(Strings, DecodeUtf8TakesOnlyValidCharacters) {
  auto length = [](std::string_view s) { return ptsn::DecodeUtf8(s, 0).length; };
  EXPECT_EQ(ptsn::DecodeUtf8("A", 0).code_point, 0x41u);
  EXPECT_EQ(ptsn::DecodeUtf8("\xc3\xa9", 0).code_point, 0xE9u);
  EXPECT_EQ(ptsn::DecodeUtf8("x\xe2\x82\xac", 1).code_point, 0x20ACu);
  EXPECT_EQ(ptsn::DecodeUtf8("\xf0\x9f\x98\x80", 0).code_point, 0x1F600u);
  EXPECT_EQ(length("\xf0\x9f\x98\x80"), 4u);
  for (std::string_view bad : {"\x80", "\xc3", "\xc3(", "\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80",
                               "\xf8\x88\x80\x80\x80"})
    EXPECT_EQ(length(bad), 0u) << bad;
}

TEST(FormatDurationTest, Units) {
  EXPECT_EQ(ptsn::FormatDuration(42.4), "42s");
  EXPECT_EQ(ptsn::FormatDuration(65), "1m 05s");
  EXPECT_EQ(ptsn::FormatDuration(3720), "1h 02m");
  EXPECT_EQ(ptsn::FormatDuration(-3), "0s");
}
