#include "runner/reproduce/profile_id.h"

#include <gtest/gtest.h>

namespace ptsn::reproduce {

TEST(ProfileId, SplitsBaseAndVersion) {
  EXPECT_EQ(SplitProfileId("pts/fs-mark-1.0.3").base, "pts/fs-mark");
  EXPECT_EQ(SplitProfileId("pts/fs-mark-1.0.3").version, "1.0.3");
  EXPECT_EQ(SplitProfileId("pts/fs-mark").base, "pts/fs-mark");
  EXPECT_EQ(SplitProfileId("pts/fs-mark").version, "");
  EXPECT_EQ(SplitProfileId("local/x-y-2.10.0").base, "local/x-y");
  EXPECT_EQ(MajorMinor("1.0.3"), "1.0");
}

TEST(ProfileId, ExactInstalledVersionWins) {
  EXPECT_EQ(ChooseProfileVersion("pts/fs-mark-1.0.0", {"pts/fs-mark-1.0.0"}, {"pts/fs-mark-1.0.3"}),
            "pts/fs-mark-1.0.0");
}

TEST(ProfileId, NewestPatchOfTheSameMajorMinorOtherwise) {
  EXPECT_EQ(ChooseProfileVersion("pts/fs-mark-1.0.0", {},
                                 {"pts/fs-mark-1.0.2", "pts/fs-mark-1.0.10", "pts/fs-mark-1.1.0", "pts/fs-mark-1.0.9"}),
            "pts/fs-mark-1.0.10");
  // A newer minor changes the comparison hash, so it is never substituted.
  EXPECT_EQ(ChooseProfileVersion("pts/fs-mark-1.0.0", {}, {"pts/fs-mark-1.1.0", "pts/fs-mark-2.0.0"}), std::nullopt);
  EXPECT_EQ(ChooseProfileVersion("pts/fs-mark-1.0.0", {}, {"pts/other-1.0.0"}), std::nullopt);
}

}  // namespace ptsn::reproduce
