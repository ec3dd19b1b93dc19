#include "runner/reproduce/target_size.h"

#include <gtest/gtest.h>

namespace ptsn::reproduce {
namespace {

constexpr uint64_t kMiB = 1ull << 20, kGiB = 1ull << 30;

// The seven tests of 1110088-AR-1110066AR56 as this machine runs them (docs/reproduce.md).
std::vector<TestNeed> Headline() {
  return {
      {"2. FS-Mark", TestSpaceNeed("pts/fs-mark-1.0.3", "-s 1048576 -n 1000", 0)},
      {"3. Dbench", TestSpaceNeed("pts/dbench-1.0.2", "12", 0)},
      {"4. Threaded I/O Tester",
       TestSpaceNeed("native/disk-rand-write-1.0.0", "--block-size 4k --size 64m --threads 8 --iodepth 1 --fsync end", 2048)},
      {"5. IOzone", TestSpaceNeed("native/disk-seq-write-1.0.0", "--block-size 64k --size 8192m --fsync end", 8192)},
      {"6. PostMark", TestSpaceNeed("debian/postmark-1.0.0", "", 1024)},
      {"14. Flexible IO Tester", TestSpaceNeed("native/file-server-1.0.0", "--size 4g --iodepth 64 --direct", 4096)},
      {"15. SQLite", TestSpaceNeed("native/sqlite-inserts-1.0.0", "--rows-per-transaction 1 --journal delete", 64)},
  };
}

}  // namespace

TEST(TargetSize, WhatEachTestWritesComesFromItsArgumentsElseItsProfile) {
  auto needs = Headline();
  EXPECT_EQ(needs[0].need.bytes, 1000 * (kMiB + 4096));
  EXPECT_EQ(needs[0].need.from, "1000 files of 1 MiB");
  EXPECT_EQ(needs[1].need.bytes, 0u) << "dbench: nothing known";
  EXPECT_EQ(needs[2].need.bytes, 8 * 64 * kMiB);
  EXPECT_EQ(needs[2].need.from, "8 files of 64 MiB");
  EXPECT_EQ(needs[3].need.bytes, 8192 * kMiB) << "the argument, not the profile's largest option";
  EXPECT_EQ(needs[4].need.bytes, 1024 * kMiB);
  EXPECT_EQ(needs[4].need.from, "its profile's EnvironmentTestingSize");
  EXPECT_EQ(needs[5].need.bytes, 4 * kGiB);
  EXPECT_EQ(TestSpaceNeed("native/fs-files-1.0.0", "--files 1000 --file-size 1m", 5000).bytes, 1000 * (kMiB + 4096));
  EXPECT_EQ(TestSpaceNeed("native/disk-seq-read-1.0.0", "", 8192).bytes, 256 * kMiB) << "the engine's default --size";
}

TEST(TargetSize, ATargetLeavesTheNeedFreeAfterItsFileSystem) {
  // Measured here: an ext4 target of 8,960 MiB leaves 8,256 MiB free (statvfs f_bavail).
  for (uint64_t need : {64 * kMiB, 1000 * kMiB, 4 * kGiB, 8 * kGiB}) {
    uint64_t size = TargetSizeFor(need);
    EXPECT_EQ(size % (256 * kMiB), 0u);
    EXPECT_GE(size * 92 / 100, need + 64 * kMiB) << need;
    EXPECT_LE(size, (need + 64 * kMiB) * 100 / 92 + 64 * kMiB + 256 * kMiB) << "no more than a step over";
  }
  EXPECT_EQ(TargetSizeFor(8 * kGiB), 9 * kGiB);
}

TEST(TargetSize, SizedToFitEveryTestWhenTheFolderHasRoom) {
  auto s = SizeTargets(Headline(), std::nullopt, 100 * kGiB, 2, kGiB, "/var/lib/t");
  EXPECT_EQ(s.size, 9 * kGiB);
  EXPECT_TRUE(s.do_not_fit.empty());
  EXPECT_EQ(s.text,
            "Targets sized 9 GiB each, for 5. IOzone (writes a file of 8 GiB): sparse files in /var/lib/t, 2 targets up "
            "to 18 GiB of the 100 GiB free\n");
}

TEST(TargetSize, WithoutRoomThePlanNamesWhatWillNotFitAndTheSizeThatWould) {
  auto s = SizeTargets(Headline(), std::nullopt, 12 * kGiB, 3, kGiB, "/t");
  EXPECT_EQ(s.size, 4 * kGiB) << "as large as the folder has room for";
  ASSERT_EQ(s.do_not_fit.size(), 2u);
  EXPECT_EQ(s.do_not_fit[0], "5. IOzone needs 8.1 GiB (a file of 8 GiB)");
  EXPECT_EQ(s.do_not_fit[1], "14. Flexible IO Tester needs 4.1 GiB (a file of 4 GiB)");
  EXPECT_EQ(s.text,
            "Targets of 4 GiB (/t has 12 GiB free: not enough for 3 targets of 9 GiB) cannot hold every test; these "
            "will fail:\n"
            "  5. IOzone needs 8.1 GiB (a file of 8 GiB)\n"
            "  14. Flexible IO Tester needs 4.1 GiB (a file of 4 GiB)\n"
            "--target-size 9216m fits every test (3 targets up to 27 GiB on disk)\n");
}

TEST(TargetSize, AGivenSizeIsKeptAndWhatDoesNotFitIsNamed) {
  auto s = SizeTargets(Headline(), kGiB, 100 * kGiB, 2, kGiB, "/t");
  EXPECT_EQ(s.size, kGiB);
  ASSERT_EQ(s.do_not_fit.size(), 4u);
  EXPECT_EQ(s.do_not_fit[0], "2. FS-Mark needs 1.0 GiB (1000 files of 1 MiB)");
  EXPECT_EQ(s.do_not_fit[2], "6. PostMark needs 1.1 GiB (its profile's EnvironmentTestingSize)");
  EXPECT_NE(s.text.find("--target-size 9216m fits every test"), std::string::npos) << s.text;
  // Small tests only: the default, nothing said.
  auto small = SizeTargets({Headline()[6]}, std::nullopt, 100 * kGiB, 2, kGiB, "/t");
  EXPECT_EQ(small.size, kGiB);
  EXPECT_EQ(small.text, "");
}

}  // namespace ptsn::reproduce
