#include "runner/targets/proc_files.h"

#include <gtest/gtest.h>

namespace ptsn::targets {
namespace {

const char* kMountInfo =
    "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard\n"
    "120 27 7:3 / /work/scratch/.ptsn-targets-9/t1-plain rw,relatime - ext4 /dev/loop3 rw\n"
    "121 27 7:4 / /work/my\\040dir/t2 rw,relatime shared:5 - ext4 /dev/loop4 rw,errors=remount-ro\n"
    "122 120 0:50 / /work/scratch/.ptsn-targets-9/t1-plain/deeper rw - tmpfs tmpfs rw\n"
    "garbage line\n";

TEST(ProcFiles, MountInfoUnescapesAndJoinsOptions) {
  auto m = ParseMountInfo(kMountInfo);
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[1].mount_point, "/work/scratch/.ptsn-targets-9/t1-plain");
  EXPECT_EQ(m[1].source, "/dev/loop3");
  EXPECT_EQ(m[2].mount_point, "/work/my dir/t2");  // with an optional field before '-'
  EXPECT_EQ(m[2].fstype, "ext4");
  EXPECT_EQ(m[2].options, "rw,relatime,errors=remount-ro");
}

TEST(ProcFiles, MountsUnderDeepestFirstAndNotSiblings) {
  auto m = ParseMountInfo(kMountInfo);
  auto under = MountPointsUnder(m, "/work/scratch/.ptsn-targets-9");
  ASSERT_EQ(under.size(), 2u);
  EXPECT_EQ(under[0], "/work/scratch/.ptsn-targets-9/t1-plain/deeper");
  EXPECT_EQ(under[1], "/work/scratch/.ptsn-targets-9/t1-plain");
  EXPECT_TRUE(MountPointsUnder(m, "/work/scratch/.ptsn-targets").empty());  // a prefix, not a parent
}

TEST(ProcFiles, StartTimeCountsFieldsAfterTheLastParenthesis) {
  EXPECT_EQ(StartTimeFromStat("4242 (a) b (c)) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 "
                              "1000 100 18446744073709551615"),
            "987654");
  EXPECT_EQ(StartTimeFromStat("1 (init) S 0"), "");
  EXPECT_EQ(StartTimeFromStat("garbage"), "");
}

}  // namespace
}  // namespace ptsn::targets
