#include "runner/run/prompter.h"

#include <gtest/gtest.h>

#include <sstream>

namespace ptsn::run {
namespace {

TEST(Prompter, AsksOnItsOutputAndReadsALinePerQuestion) {
  std::istringstream in("first answer\nsecond\n");
  std::ostringstream out;
  auto p = StreamPrompter(true, in, out);
  EXPECT_TRUE(p->Interactive());
  EXPECT_EQ(p->Ask("Q1? "), "first answer");
  EXPECT_EQ(p->Ask("Q2? "), "second");
  EXPECT_EQ(p->Ask("Q3? "), "");  // end of input
  EXPECT_EQ(out.str(), "Q1? Q2? Q3? ");
  EXPECT_FALSE(StreamPrompter(false, in, out)->Interactive());
}

TEST(Prompter, YesByDefaultTakesAnEmptyAnswerAsYes) {
  for (const char* yes : {"", "y", "Y", " yes ", "YES"}) EXPECT_TRUE(YesByDefault(yes)) << yes;
  for (const char* no : {"n", "no", "nope", "x"}) EXPECT_FALSE(YesByDefault(no)) << no;
}

}  // namespace
}  // namespace ptsn::run
