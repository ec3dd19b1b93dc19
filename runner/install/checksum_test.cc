#include "runner/install/checksum.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace ptsn::install {
namespace {

TEST(ChecksumTest, KnownDigestsAndPtsOrder) {
  auto p = std::filesystem::temp_directory_path() / ("ptsn-sum-" + std::to_string(getpid()));
  std::ofstream(p) << "abc";
  auto d = ComputeDigests(p.string());
  EXPECT_EQ(d.sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(d.md5, "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(d.size, 3);
  EXPECT_FALSE(CheckFile(p.string(), {d.sha256, "", 0}));
  EXPECT_FALSE(CheckFile(p.string(), {"BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD", "", 0}));
  // SHA-256 given: the (wrong) MD5 is not looked at, as in PTS.
  EXPECT_FALSE(CheckFile(p.string(), {d.sha256, "00000000000000000000000000000000", 0}));
  auto bad = CheckFile(p.string(), {"", "00000000000000000000000000000000", 0});
  ASSERT_TRUE(bad);
  EXPECT_EQ(*bad, "md5 is 900150983cd24fb0d6963f7d28e17f72, expected 00000000000000000000000000000000");
  EXPECT_TRUE(CheckFile(p.string(), {d.sha256, "", 4}));  // size wrong
  EXPECT_FALSE(CheckFile(p.string(), {"", "", 0}));        // nothing to check but non-empty
  EXPECT_FALSE(CheckFile(p.string(), {"ff", "", 0}, /*skip_hashes=*/true));
  std::ofstream(p, std::ios::trunc);
  EXPECT_EQ(*CheckFile(p.string(), {"", "", 0}), "file is empty");
  std::filesystem::remove(p);
  EXPECT_TRUE(CheckFile(p.string(), {"", "", 0}));
}

}  // namespace
}  // namespace ptsn::install
