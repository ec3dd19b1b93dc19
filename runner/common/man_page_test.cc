#include "runner/common/man_page.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ptsn {
namespace {

using ::testing::HasSubstr;

TEST(ManPage, HelpLinesArePrintedLiterallyWithOptionsAsMinusSigns) {
  EXPECT_EQ(RoffLiteral("  --data DIR  see C:\\x"), "  \\-\\-data DIR  see C:\\ex");
  // A line starting with '.' or '\'' would be a roff request; it is guarded.
  EXPECT_EQ(RoffLiteral(".profile"), "\\&.profile");
  EXPECT_EQ(RoffLiteral("'quoted'"), "\\&'quoted'");
}

TEST(ManPage, HasTitleNameAndEachSectionUnfilledWithBlankLinesAsSpace) {
  std::string page = ManPage("pts-native", "pts-native 1.2", "a tool",
                             {{"SYNOPSIS", "pts-native COMMAND\n"}, {"COMMANDS", "run\n\nmerge\n"},
                              {"Results", "merge-results FILE", true}});
  EXPECT_THAT(page, HasSubstr(".TH PTS\\-NATIVE 1 \"\" \"pts-native 1.2\" \"User Commands\"\n"));
  EXPECT_THAT(page, HasSubstr(".SH NAME\npts\\-native \\- a tool\n"));
  EXPECT_THAT(page, HasSubstr(".SH SYNOPSIS\n.nf\npts\\-native COMMAND\n.fi\n"));
  EXPECT_THAT(page, HasSubstr(".SH COMMANDS\n.nf\nrun\n.sp\nmerge\n.fi\n"));
  EXPECT_THAT(page, HasSubstr(".SS Results\n.nf\nmerge\\-results FILE\n.fi\n"));
}

}  // namespace
}  // namespace ptsn
