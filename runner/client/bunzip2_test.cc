// Bunzip2 against libbz2: the same output for valid streams, and the same verdict (accept with
// the same bytes, or refuse) for corrupt, cut and hostile ones.
#include "runner/client/bunzip2.h"

#include <bzlib.h>
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "runner/client/wire.h"
#include "runner/common/shared_dir.h"
#include "server/testing/sample_result.h"

namespace ptsn::wire {
namespace {

std::string Compress(std::string_view bytes, int level) {
  unsigned len = static_cast<unsigned>(bytes.size() + bytes.size() / 100 + 600);
  std::string out(len, '\0');
  EXPECT_EQ(BZ2_bzBuffToBuffCompress(out.data(), &len, const_cast<char*>(bytes.data()), static_cast<unsigned>(bytes.size()),
                                     level, 0, 0),
            BZ_OK);
  out.resize(len);
  return out;
}

// Both accept with the same bytes or both refuse; true if they accepted.
bool ExpectAgree(std::string_view stream, size_t max_output, const std::string& what) {
  const auto ours = Bunzip2(stream, max_output), theirs = Libbz2Bunzip2(stream, max_output);
  EXPECT_EQ(ours.has_value(), theirs.has_value()) << what;
  if (ours && theirs) {
    EXPECT_TRUE(*ours == *theirs) << what << ": outputs differ (" << ours->size() << " vs " << theirs->size() << " bytes)";
  }
  return theirs.has_value();
}

std::string RandomBytes(std::mt19937& rng, size_t n, int alphabet = 256) {
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng() % alphabet);
  return s;
}

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

std::string Repeat(char c, size_t n) { return std::string(n, c); }

std::vector<std::pair<std::string, std::string>> EdgeInputs() {
  std::vector<std::pair<std::string, std::string>> in;
  in.emplace_back("empty", "");
  in.emplace_back("one byte", "x");
  in.emplace_back("zero byte", std::string(1, '\0'));
  for (size_t n : {1, 2, 3, 4, 5, 6, 7, 8, 9, 254, 255, 256, 257, 258, 259, 260, 261, 262, 263, 264, 1000, 100000})
    in.emplace_back("run of " + std::to_string(n), Repeat('a', n));
  in.emplace_back("runs 4 5 4", Repeat('a', 4) + Repeat('b', 5) + Repeat('a', 4));
  std::string alternating;
  for (int i = 0; i < 300; ++i) alternating += Repeat(static_cast<char>('a' + i % 3), 1 + i % 9);
  in.emplace_back("alternating runs", alternating);
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  in.emplace_back("all bytes", all);
  std::string all_runs;
  for (int i = 0; i < 256; ++i) all_runs += Repeat(static_cast<char>(i), 1 + i % 7);
  in.emplace_back("all bytes in runs", all_runs);
  std::string offsets;  // runs of 3..6 starting at every offset of an 8-byte word, and at the end
  for (int off = 0; off < 24; ++off)
    for (int len = 3; len <= 6; ++len) offsets += std::string("abcdefghijklmnopqrstuvwx").substr(0, off) + Repeat('#', len);
  in.emplace_back("runs at every offset", offsets);
  for (int tail = 0; tail < 10; ++tail) in.emplace_back("run then " + std::to_string(tail), Repeat('r', 4) + Repeat('s', tail));
  in.emplace_back("ends with 4", "hello" + Repeat('z', 4));
  in.emplace_back("ends with 259", "hello" + Repeat('z', 259));
  in.emplace_back("ab", "ab");
  in.emplace_back("abab", "abababababababababab");
  std::mt19937 rng(7);
  in.emplace_back("random 1000", RandomBytes(rng, 1000));
  in.emplace_back("random 4 symbols", RandomBytes(rng, 5000, 4));
  in.emplace_back("text", RandomText(rng, 20000));
  in.emplace_back("sample xml", server::testing::SampleCompositeXml("Bunzip2 Test", 100, 2, 3));
  std::ifstream seed(::ptsn::SharedDir() + "/reference/seed-results/ubuntu-1304-disk-encryption.xml");
  if (seed) {
    std::stringstream ss;
    ss << seed.rdbuf();
    in.emplace_back("seed xml", ss.str());
  }
  return in;
}

TEST(Bunzip2, MatchesLibbz2OnEdgeCasesAtEveryLevel) {
  for (const auto& [name, data] : EdgeInputs())
    for (int level = 1; level <= 9; level += (data.size() > 10000 ? 4 : 1)) {
      const std::string z = Compress(data, level);
      const auto ours = Bunzip2(z, 8 << 20);
      ASSERT_TRUE(ours) << name << " level " << level;
      EXPECT_TRUE(*ours == data) << name << " level " << level;
      EXPECT_TRUE(ExpectAgree(z, 8 << 20, name));
    }
}

TEST(Bunzip2, MatchesLibbz2AcrossBlockBoundaries) {
  std::mt19937 rng(11);
  const std::string text = RandomText(rng, 1 << 20);
  // Level 1 blocks hold up to 100000 bytes (less after the first run-length stage).
  for (size_t n : {99000, 99999, 100000, 100001, 101000, 250000}) {
    const std::string data = text.substr(0, n);
    EXPECT_TRUE(Bunzip2(Compress(data, 1), n) == data) << n;
  }
  const std::string big = text + RandomBytes(rng, 100000);  // > 900 KB: two level-9 blocks
  EXPECT_TRUE(Bunzip2(Compress(big, 9), big.size()) == big);
  std::string several;  // several MB, mixed
  while (several.size() < (3u << 20)) several += RandomText(rng, 300000) + Repeat('q', 70000) + RandomBytes(rng, 20000, 16);
  const std::string z = Compress(several, 9);
  EXPECT_TRUE(ExpectAgree(z, several.size(), "3 MB"));
  EXPECT_TRUE(Bunzip2(z, several.size()) == several);
  EXPECT_TRUE(Bunzip2(Compress(several, 2), several.size()) == several);
}

TEST(Bunzip2, EnforcesMaxOutputToTheByte) {
  for (const auto& [name, data] : EdgeInputs()) {
    const std::string z = Compress(data, 9);
    EXPECT_TRUE(Bunzip2(z, data.size()) == data) << name;
    if (!data.empty()) {
      EXPECT_FALSE(Bunzip2(z, data.size() - 1)) << name;
    }
    EXPECT_FALSE(Bunzip2(z, 0).has_value() != data.empty()) << name;
  }
  std::mt19937 rng(5);
  const std::string two_blocks = RandomText(rng, 150000);
  const std::string z = Compress(two_blocks, 1);
  for (size_t max : {0, 1, 99999, 100000, 149999}) EXPECT_FALSE(ExpectAgree(z, max, std::to_string(max)));
  EXPECT_TRUE(Bunzip2(z, 150000) == two_blocks);
}

TEST(Bunzip2, IgnoresBytesAfterTheEndAndRefusesCutStreams) {
  const std::string data = server::testing::SampleCompositeXml("Cut", 5, 1, 1);
  const std::string z = Compress(data, 8);
  EXPECT_EQ(Bunzip2(z + "trailing garbage", 1 << 20), data);
  EXPECT_EQ(Bunzip2(z + Compress("second stream", 9), 1 << 20), data);  // one stream, as before
  for (size_t n = 0; n < z.size(); ++n) EXPECT_FALSE(Bunzip2(z.substr(0, n), 1 << 20)) << n;
  EXPECT_FALSE(Bunzip2("BZh9", 1 << 20));
  EXPECT_FALSE(Bunzip2("BZh0" + z.substr(4), 1 << 20));
  EXPECT_FALSE(Bunzip2("BZ", 1 << 20));
}

TEST(Bunzip2, ChecksBlockAndStreamCrcs) {
  const std::string data = "a small block of text, checked by its CRC";
  const std::string z = Compress(data, 9);
  // The block CRC is bytes 10..13; the stream CRC the last 32 bits before the padding.
  for (size_t byte : {10, 11, 12, 13}) {
    std::string bad = z;
    bad[byte] ^= 0x10;
    EXPECT_FALSE(Bunzip2(bad, 1 << 20)) << byte;
  }
  // The stream CRC: the 32 bits after the end marker, which is not byte-aligned; the bits after
  // it pad the last byte and are ignored.
  size_t marker = 0;
  for (size_t bit = z.size() * 8 - 87; bit + 48 <= z.size() * 8; ++bit) {
    uint64_t v = 0;
    for (size_t i = 0; i < 48; ++i) v = v << 1 | ((static_cast<uint8_t>(z[(bit + i) / 8]) >> (7 - (bit + i) % 8)) & 1);
    if (v == 0x177245385090) marker = bit;
  }
  ASSERT_NE(marker, 0u);
  auto flip = [&](size_t bit) {
    std::string bad = z;
    bad[bit / 8] ^= static_cast<char>(0x80 >> (bit % 8));
    return bad;
  };
  for (size_t bit = marker + 48; bit < marker + 80; ++bit) EXPECT_FALSE(ExpectAgree(flip(bit), 1 << 20, "stream crc"));
  for (size_t bit = marker + 80; bit < z.size() * 8; ++bit) EXPECT_TRUE(ExpectAgree(flip(bit), 1 << 20, "padding"));
}

// Every single-bit flip of small streams: the header, each table field, code lengths,
// selectors, symbols, origin pointer and both CRCs are all hit.
TEST(Bunzip2, AgreesWithLibbz2OnEveryBitFlip) {
  int accepted = 0, total = 0;
  for (const std::string& data : {std::string("hello, hello, hello world"), Repeat('a', 300) + "b" + Repeat('c', 4),
                                  server::testing::SampleCompositeXml("Flip", 1, 1, 2)}) {
    const std::string z = Compress(data, 9);
    for (size_t bit = 0; bit < z.size() * 8; ++bit) {
      std::string bad = z;
      bad[bit / 8] ^= static_cast<char>(0x80 >> (bit % 8));
      accepted += ExpectAgree(bad, 1 << 20, "flip bit " + std::to_string(bit));
      ++total;
    }
  }
  std::printf("bit flips: %d streams, libbz2 and Bunzip2 both accepted %d\n", total, accepted);
}

// Random damage: flips, cuts, inserted and deleted bytes, overwritten fields (origin pointer,
// level, table and selector counts), on several streams. Agreement with libbz2 on every one.
TEST(Bunzip2, AgreesWithLibbz2OnMutatedStreams) {
  std::mt19937 rng(1234);
  std::vector<std::string> streams;
  for (const std::string& data : {server::testing::SampleCompositeXml("Mutate", 20, 2, 9), RandomText(rng, 3000),
                                  Repeat('x', 5000) + RandomBytes(rng, 200, 3), RandomBytes(rng, 300)})
    for (int level : {1, 9}) streams.push_back(Compress(data, level));
  auto set_bits = [](std::string& s, size_t at, int n, uint32_t v) {  // at: bit offset, most significant first
    for (int i = 0; i < n; ++i) {
      const size_t b = at + i;
      if (b / 8 >= s.size()) return;
      const char mask = static_cast<char>(0x80 >> (b % 8));
      if ((v >> (n - 1 - i)) & 1) {
        s[b / 8] |= mask;
      } else {
        s[b / 8] &= ~mask;
      }
    }
  };
  int accepted = 0, total = 0;
  for (int round = 0; round < 6000; ++round) {
    std::string s = streams[rng() % streams.size()];
    const int kind = static_cast<int>(rng() % 8);
    switch (kind) {
      case 0:  // a few bit flips anywhere
        for (int k = 1 + rng() % 3; k > 0; --k) s[rng() % s.size()] ^= static_cast<char>(1 << (rng() % 8));
        break;
      case 1:  // bit flips in the tables at the block's start
        for (int k = 1 + rng() % 2; k > 0; --k) s[14 + rng() % std::min<size_t>(80, s.size() - 14)] ^= static_cast<char>(1 << (rng() % 8));
        break;
      case 2:  // cut
        s.resize(rng() % s.size());
        break;
      case 3:  // inserted bytes
        s.insert(rng() % s.size(), RandomBytes(rng, 1 + rng() % 4));
        break;
      case 4:  // deleted bytes
        s.erase(rng() % s.size(), 1 + rng() % 3);
        break;
      case 5:  // origin pointer (bits 32+81 .. +105): small values, near the block's length, anything
        set_bits(s, 32 + 81, 24, rng() % 3 == 0 ? rng() % 16 : rng() % 3 == 0 ? rng() % (1 << 24) : rng() % 6000);
        break;
      case 6:  // level digit
        s[3] = static_cast<char>('0' + rng() % 11);
        break;
      case 7: {  // table and selector counts, right after the symbol map
        // Find where the map ends: 16 bits, then 16 per set bit.
        const size_t map = 32 + 105;
        uint32_t used16 = (static_cast<uint8_t>(s[map / 8]) << 16 | static_cast<uint8_t>(s[map / 8 + 1]) << 8 |
                           static_cast<uint8_t>(s[map / 8 + 2])) >> (8 - map % 8) & 0xffff;
        const size_t groups_at = map + 16 + 16 * static_cast<size_t>(__builtin_popcount(used16));
        if (rng() % 2) {
          set_bits(s, groups_at, 3, rng() % 8);
        } else {
          set_bits(s, groups_at + 3, 15, rng() % 3 == 0 ? rng() % 4 : rng() % 32768);
        }
        break;
      }
    }
    accepted += ExpectAgree(s, 1 << 20, "round " + std::to_string(round) + " kind " + std::to_string(kind));
    ++total;
    if (HasFailure()) break;
  }
  std::printf("mutations: %d streams, both accepted %d\n", total, accepted);
}

// What libbz2 writes before it stops, at the end of the stream or at an error (it checks a
// block's CRC only after writing the block).
std::string Libbz2Partial(std::string_view bytes) {
  bz_stream bs{};
  BZ2_bzDecompressInit(&bs, 0, 0);
  bs.next_in = const_cast<char*>(bytes.data());
  bs.avail_in = static_cast<unsigned>(bytes.size());
  std::string out(1 << 20, '\0');
  bs.next_out = out.data();
  bs.avail_out = static_cast<unsigned>(out.size());
  while (BZ2_bzDecompress(&bs) == BZ_OK && bs.avail_in != 0 && bs.avail_out != 0) {
  }
  out.resize(out.size() - bs.avail_out);
  BZ2_bzDecompressEnd(&bs);
  return out;
}

uint32_t Crc(std::string_view bytes) {  // bzip2's CRC, bit by bit
  uint32_t crc = 0xffffffff;
  for (unsigned char c : bytes) {
    crc ^= static_cast<uint32_t>(c) << 24;
    for (int k = 0; k < 8; ++k) crc = (crc & 0x80000000u) ? (crc << 1) ^ 0x04c11db7u : crc << 1;
  }
  return ~crc;
}

void SetBits(std::string& s, size_t at, int n, uint64_t v) {  // at: bit offset, most significant first
  for (int i = 0; i < n; ++i) {
    const size_t b = at + i;
    const char mask = static_cast<char>(0x80 >> (b % 8));
    if ((v >> (n - 1 - i)) & 1) {
      s[b / 8] |= mask;
    } else {
      s[b / 8] &= ~mask;
    }
  }
}

size_t EndMarkerBit(const std::string& z) {
  size_t marker = 0;
  for (size_t bit = z.size() * 8 - 87; bit + 48 <= z.size() * 8; ++bit) {
    uint64_t v = 0;
    for (size_t i = 0; i < 48; ++i) v = v << 1 | ((static_cast<uint8_t>(z[(bit + i) / 8]) >> (7 - (bit + i) % 8)) & 1);
    if (v == 0x177245385090) marker = bit;
  }
  return marker;
}

// A CRC only catches damage; with the CRCs rewritten to match what libbz2 decodes, damaged
// blocks reach every later stage: codes that are not prefix codes, permutations that are not
// one cycle, moved origin pointers, blocks that end where a run count is due.
TEST(Bunzip2, AgreesWithLibbz2OnDamagedBlocksWithMatchingCrcs) {
  std::mt19937 rng(99);
  std::vector<std::string> streams;
  for (const std::string& data : {server::testing::SampleCompositeXml("Damage", 3, 1, 9), RandomText(rng, 2000),
                                  Repeat('x', 3000) + RandomBytes(rng, 100, 3) + Repeat('y', 4), RandomBytes(rng, 200),
                                  std::string("abracadabra abracadabra")})
    streams.push_back(Compress(data, 9));
  int accepted = 0, total = 0;
  for (int round = 0; round < 4000; ++round) {
    const std::string& z = streams[rng() % streams.size()];
    const size_t marker = EndMarkerBit(z);
    ASSERT_NE(marker, 0u);
    std::string s = z;
    if (rng() % 4 == 0) {
      SetBits(s, 32 + 81, 24, rng() % 3 == 0 ? rng() % 4000 : rng() % 40);  // origin pointer
    } else {
      for (int k = 1 + rng() % 2; k > 0; --k) {  // bits of the tables or symbols
        const size_t bit = 32 + 105 + rng() % (marker - 32 - 105);
        s[bit / 8] ^= static_cast<char>(0x80 >> (bit % 8));
      }
    }
    const uint32_t crc = Crc(Libbz2Partial(s));
    SetBits(s, 32 + 48, 32, crc);
    SetBits(s, marker + 48, 32, crc);  // one block: the stream CRC is the block's
    accepted += ExpectAgree(s, 1 << 20, "round " + std::to_string(round));
    ++total;
    if (HasFailure()) break;
  }
  std::printf("damaged blocks with matching CRCs: %d streams, both accepted %d\n", total, accepted);
  EXPECT_GT(accepted, total / 10);
}

// Streams written to be expensive: long runs, many selectors, lengths that make no prefix code.
TEST(Bunzip2, HostileStreamsStayWithinMaxOutput) {
  const std::string big_run = Compress(Repeat('a', 4 << 20), 9);  // ~4 MB from a few hundred bytes
  EXPECT_FALSE(ExpectAgree(big_run, 1000, "bomb, small limit"));
  EXPECT_FALSE(Bunzip2(big_run, (4 << 20) - 1));
  EXPECT_EQ(Bunzip2(big_run, 4 << 20)->size(), 4u << 20);
}

}  // namespace
}  // namespace ptsn::wire
