#include "results-xml/model/comparison_hash.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <openssl/sha.h>

#include "results-xml/model/result_xml.h"
#include "results-xml/model/test_support.h"

namespace ptsn::results {
namespace {

Result SampleDisk4k() {
  Result r;
  r.identifier = "local/sample-disk-1.0.0";
  r.title = "Sample Disk";
  r.app_version = "1.0";
  r.arguments = "--bs=4k";
  r.description = "Block Size: 4KB";
  r.scale = "MB/s";
  return r;
}

TEST(ComparisonHash, VerifiedValueFromSpec) {
  Result r = SampleDisk4k();
  EXPECT_EQ(ComparisonHashInput(r), "local/sample-disk-1.0,--bs=4k,Block Size: 4KB,1.0,MB/s");
  EXPECT_EQ(ComparisonHash(r), "2deeb28142ce87a23bdae19f6a64aeb25d716585");
}

TEST(ComparisonHash, DerivedResultUsesTitle) {
  Result r = SampleDisk4k();
  r.identifier = "";
  r.arguments = "CPU Usage (Summary) --bs=4k";
  r.description = "CPU Usage (Summary) Monitor";
  r.scale = "Percent";
  EXPECT_EQ(ComparisonHashInput(r), "Sample Disk,CPU Usage (Summary) --bs=4k,CPU Usage (Summary) Monitor,1.0,Percent");
  EXPECT_TRUE(ComparisonHash(r).starts_with("52300b35"));
}

TEST(ComparisonHash, PatchLevelIgnoredMinorNotAndFieldsTrimmed) {
  Result a = SampleDisk4k(), b = SampleDisk4k(), c = SampleDisk4k();
  b.identifier = "local/sample-disk-1.0.7";
  b.arguments = "  --bs=4k\n";
  c.identifier = "local/sample-disk-1.1.0";
  EXPECT_EQ(ComparisonHash(a), ComparisonHash(b));
  EXPECT_NE(ComparisonHash(a), ComparisonHash(c));
  Result d = SampleDisk4k();
  d.scale = "MiB/s";
  EXPECT_NE(ComparisonHash(a), ComparisonHash(d));
}

TEST(ComparisonHash, MonitorChildrenPointAtTheirParentInGoldenFile) {
  PTSN_REQUIRE_REFERENCE();
  ResultFile f = ReadResultFile(test::ReferenceDir() + "/pts-output/result-a/composite.xml");
  ASSERT_EQ(f.results.size(), 4u);
  EXPECT_EQ(f.results[1].parent, ComparisonHash(f.results[0]));
  EXPECT_EQ(f.results[3].parent, ComparisonHash(f.results[2]));
}

TEST(ComparisonHash, Sha1OfTheStandardsVectors) {
  EXPECT_EQ(Sha1Hex(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(Sha1Hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(Sha1Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"), "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
}

}  // namespace
}  // namespace ptsn::results
