// wire::Bzip2Decompress (libbz2, for PTS's composite_xml_bz uploads): every stream PTS's
// bzcompress() writes comes back whole, the size limit holds to the byte (compression bombs
// included), and cut, damaged or trailing bytes are refused or ignored as libbz2 does.
#include <gtest/gtest.h>

#include <random>

#include "runner/openbenchmarking/wire.h"
#include "server/testing/sample_result.h"

namespace ptsn::wire {
namespace {

std::string Repeat(char c, size_t n) { return std::string(n, c); }

std::string RandomText(std::mt19937& rng, size_t n) {
  static const char* kWords[] = {"the", "result", "of", "a", "benchmark", "<Value>", "</Value>", "12.5", "\n    ",
                                 "Phoronix", "Test", "Suite", "    ", "disk", "encryption", "AES-XTS", "1234567"};
  std::string s;
  while (s.size() < n) {
    s += kWords[rng() % std::size(kWords)];
    s += ' ';
  }
  s.resize(n);
  return s;
}

std::vector<std::pair<std::string, std::string>> Inputs() {
  std::vector<std::pair<std::string, std::string>> in;
  in.emplace_back("empty", "");
  in.emplace_back("one byte", "x");
  in.emplace_back("zero byte", std::string(1, '\0'));
  for (size_t n : {4, 5, 255, 256, 259, 100000}) in.emplace_back("run of " + std::to_string(n), Repeat('a', n));
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  in.emplace_back("all bytes", all);
  std::mt19937 rng(7);
  in.emplace_back("text", RandomText(rng, 20000));
  in.emplace_back("sample xml", server::testing::SampleCompositeXml("Bzip2 Test", 100, 2, 3));
  return in;
}

TEST(Bzip2Decompress, RoundTripsAtEveryLevelAndAcrossBlocks) {
  for (const auto& [name, data] : Inputs())
    for (int level = 1; level <= 9; level += 4) EXPECT_EQ(Bzip2Decompress(Bzip2Compress(data, level), 8 << 20), data) << name;
  std::mt19937 rng(11);
  const std::string big = RandomText(rng, 250000);  // level 1 blocks hold up to 100000 bytes
  EXPECT_EQ(Bzip2Decompress(Bzip2Compress(big, 1), big.size()), big);
}

TEST(Bzip2Decompress, EnforcesMaxOutputToTheByte) {
  for (const auto& [name, data] : Inputs()) {
    const std::string z = Bzip2Compress(data, 9);
    EXPECT_EQ(Bzip2Decompress(z, data.size()), data) << name;
    if (!data.empty()) {
      EXPECT_FALSE(Bzip2Decompress(z, data.size() - 1)) << name;
    }
  }
  std::mt19937 rng(5);
  const std::string two_blocks = RandomText(rng, 150000);
  const std::string z = Bzip2Compress(two_blocks, 1);
  for (size_t max : {0, 1, 99999, 100000, 149999}) EXPECT_FALSE(Bzip2Decompress(z, max)) << max;
  EXPECT_EQ(Bzip2Decompress(z, 150000), two_blocks);
}

TEST(Bzip2Decompress, IgnoresBytesAfterTheEndAndRefusesCutStreams) {
  const std::string data = server::testing::SampleCompositeXml("Cut", 5, 1, 1);
  const std::string z = Bzip2Compress(data, 8);
  EXPECT_EQ(Bzip2Decompress(z + "trailing garbage", 1 << 20), data);
  EXPECT_EQ(Bzip2Decompress(z + Bzip2Compress("second stream", 9), 1 << 20), data);  // the first stream only
  for (size_t n = 0; n < z.size(); ++n) EXPECT_FALSE(Bzip2Decompress(z.substr(0, n), 1 << 20)) << n;
  EXPECT_FALSE(Bzip2Decompress("BZh9", 1 << 20));
  EXPECT_FALSE(Bzip2Decompress("BZh0" + z.substr(4), 1 << 20));
  EXPECT_FALSE(Bzip2Decompress("BZh9 garbage", 1 << 20));
}

TEST(Bzip2Decompress, RefusesABlockWhoseCrcDoesNotMatch) {
  const std::string z = Bzip2Compress("a small block of text, checked by its CRC", 9);
  for (size_t byte : {10, 11, 12, 13}) {  // the block CRC
    std::string bad = z;
    bad[byte] ^= 0x10;
    EXPECT_FALSE(Bzip2Decompress(bad, 1 << 20)) << byte;
  }
}

// A compression bomb: 4 MiB from a few hundred bytes is refused under a smaller limit, at once.
TEST(Bzip2Decompress, BombsStayWithinMaxOutput) {
  const std::string bomb = Bzip2Compress(Repeat('a', 4 << 20), 9);
  ASSERT_LT(bomb.size(), 1000u);
  EXPECT_FALSE(Bzip2Decompress(bomb, 1000));
  EXPECT_FALSE(Bzip2Decompress(bomb, (4 << 20) - 1));
  EXPECT_EQ(Bzip2Decompress(bomb, 4 << 20)->size(), 4u << 20);
}

}  // namespace
}  // namespace ptsn::wire
