#include "results-xml/comparison_hash.h"

#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "runner/common/cpu_features.h"

namespace ptsn::results {

namespace {

// PHP trim(): " \t\n\r\0\x0B" from both ends.
constexpr bool IsPhpTrimmed(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0' || c == '\x0B'; }
std::string_view PhpTrim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && IsPhpTrimmed(s[b])) ++b;
  while (e > b && IsPhpTrimmed(s[e - 1])) --e;
  return s.substr(b, e - b);
}

}  // namespace

std::string ComparisonHashInput(const Result& result) {
  std::string in;
  ComparisonHashInput(result, in);
  return in;
}

const std::string& ComparisonHashInput(const Result& result, std::string& in) {
  std::string_view tp = result.identifier;
  if (tp.empty()) {
    tp = result.title;
  } else if (size_t dot = tp.rfind('.'); dot != std::string_view::npos) {
    tp = tp.substr(0, dot);
  }
  in.clear();
  in.reserve(tp.size() + result.arguments.size() + result.description.size() + result.app_version.size() +
             result.scale.size() + 4);
  in.append(tp);
  in += ',';
  in.append(PhpTrim(result.arguments));
  in += ',';
  in.append(PhpTrim(result.description));
  in += ',';
  in.append(PhpTrim(result.app_version));
  in += ',';
  in.append(PhpTrim(result.scale));
  return in;
}

namespace {

uint32_t Rotl(uint32_t v, int n) { return (v << n) | (v >> (32 - n)); }

// The SHA-1 (FIPS 180-4) compression of each 64-byte block at p into h, portable.
void Sha1BlocksPortable(uint32_t h[5], const unsigned char* p, size_t blocks) {
  for (; blocks > 0; --blocks, p += 64) {
    uint32_t w[80];
    for (int i = 0; i < 16; ++i)
      w[i] = uint32_t{p[4 * i]} << 24 | uint32_t{p[4 * i + 1]} << 16 | uint32_t{p[4 * i + 2]} << 8 | p[4 * i + 3];
    for (int i = 16; i < 80; ++i) w[i] = Rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    // One loop per round function (no per-round choice among four), each unrolled by the compiler.
    auto round = [&](uint32_t f, uint32_t k, uint32_t wi) {
      const uint32_t t = Rotl(a, 5) + f + e + k + wi;
      e = d, d = c, c = Rotl(b, 30), b = a, a = t;
    };
    for (int i = 0; i < 20; ++i) round(d ^ (b & (c ^ d)), 0x5A827999, w[i]);  // (b & c) | (~b & d)
    for (int i = 20; i < 40; ++i) round(b ^ c ^ d, 0x6ED9EBA1, w[i]);
    for (int i = 40; i < 60; ++i) round((b & c) | (d & (b | c)), 0x8F1BBCDC, w[i]);  // majority
    for (int i = 60; i < 80; ++i) round(b ^ c ^ d, 0xCA62C1D6, w[i]);
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
  }
}

#if defined(__x86_64__)
// The same with the x86 SHA extensions (SHA-NI: every AMD Zen, Intel since Ice Lake), about ten
// times the portable speed: a JSON export hashes every Result, ~1 us each the portable way.
// Each sha1rnds4 does four rounds on A..D; sha1nexte derives the E those rounds need from the A
// of four rounds earlier and adds it to the next four words; sha1msg1/sha1msg2 expand the
// message four words at a time. Words go in big-endian, the first in the top lane.
struct ShaBlockState {
  __m128i abcd;
  __m128i group_input;  // A..D as they went into the four rounds before the next ones
  __m128i w[4];         // the words of groups g-4 .. g-1, in a ring
};

// Rounds 4g .. 4g+3 (g >= 1), with round function kFunction (0..3 for rounds 0-19 ... 60-79).
template <int kFunction>
[[gnu::target("sha,sse4.1"), gnu::always_inline]] inline void FourRounds(ShaBlockState& s, int g) {
  __m128i* const w = s.w;
  if (g >= 4)  // W[t] = rotl1(W[t-3] ^ W[t-8] ^ W[t-14] ^ W[t-16]), four at a time
    w[g % 4] = _mm_sha1msg2_epu32(_mm_xor_si128(_mm_sha1msg1_epu32(w[g % 4], w[(g + 1) % 4]), w[(g + 2) % 4]),
                                  w[(g + 3) % 4]);
  const __m128i e_plus_words = _mm_sha1nexte_epu32(s.group_input, w[g % 4]);
  s.group_input = s.abcd;
  s.abcd = _mm_sha1rnds4_epu32(s.abcd, e_plus_words, kFunction);
}

[[gnu::target("sha,sse4.1")]] void Sha1BlocksSha(uint32_t h[5], const unsigned char* p, size_t blocks) {
  const __m128i big_endian = _mm_set_epi64x(0x0001020304050607LL, 0x08090a0b0c0d0e0fLL);
  ShaBlockState s;
  s.abcd = _mm_shuffle_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(h)), 0x1B);  // A on top
  __m128i e = _mm_set_epi32(static_cast<int>(h[4]), 0, 0, 0);
  for (; blocks > 0; --blocks, p += 64) {
    const __m128i abcd_before = s.abcd, e_before = e;
    for (int i = 0; i < 4; ++i)
      s.w[i] = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i)), big_endian);
    s.group_input = s.abcd;
    s.abcd = _mm_sha1rnds4_epu32(s.abcd, _mm_add_epi32(e, s.w[0]), 0);  // rounds 0-3 take E itself
    for (int g = 1; g < 5; ++g) FourRounds<0>(s, g);
    for (int g = 5; g < 10; ++g) FourRounds<1>(s, g);
    for (int g = 10; g < 15; ++g) FourRounds<2>(s, g);
    for (int g = 15; g < 20; ++g) FourRounds<3>(s, g);
    e = _mm_sha1nexte_epu32(s.group_input, e_before);
    s.abcd = _mm_add_epi32(s.abcd, abcd_before);
  }
  _mm_storeu_si128(reinterpret_cast<__m128i*>(h), _mm_shuffle_epi32(s.abcd, 0x1B));
  h[4] = static_cast<uint32_t>(_mm_extract_epi32(e, 3));
}
#endif

bool UseShaInstructions(Sha1Path path) {
#if defined(__x86_64__)
  return path == Sha1Path::kBest && CpuHasShaNi();
#else
  (void)path;
  return false;
#endif
}

// SHA-1 of a short message. Written out because a result's hash input is ~100 bytes: OpenSSL 3's
// EVP path spends several times the compression's cost on provider and context bookkeeping per
// message, once per result of every JSON export.
void Sha1(std::string_view data, unsigned char digest[20], Sha1Path path) {
  uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
  auto blocks = Sha1BlocksPortable;
#if defined(__x86_64__)
  if (UseShaInstructions(path)) blocks = Sha1BlocksSha;
#endif
  const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
  const size_t full = data.size() / 64;
  blocks(h, bytes, full);
  // The tail, 0x80, zeros and the bit length (big-endian) in one or two last blocks.
  unsigned char last[128] = {};
  const size_t rest = data.size() - full * 64;
  std::memcpy(last, bytes + full * 64, rest);
  last[rest] = 0x80;
  const size_t end = rest + 1 + 8 <= 64 ? 64 : 128;
  const uint64_t bits = static_cast<uint64_t>(data.size()) * 8;
  for (int i = 0; i < 8; ++i) last[end - 1 - i] = static_cast<unsigned char>(bits >> (8 * i));
  blocks(h, last, end / 64);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 4; ++j) digest[4 * i + j] = static_cast<unsigned char>(h[i] >> (24 - 8 * j));
}

}  // namespace

bool Sha1UsesCpuInstructions() { return UseShaInstructions(Sha1Path::kBest); }

std::string Sha1Hex(std::string_view data, Sha1Path path) {
  unsigned char digest[20];
  Sha1(data, digest, path);
  static const char kHex[] = "0123456789abcdef";
  std::string out(40, '0');
  for (int i = 0; i < 20; ++i) {
    out[2 * i] = kHex[digest[i] >> 4];
    out[2 * i + 1] = kHex[digest[i] & 0xF];
  }
  return out;
}

std::string ComparisonHash(const Result& result) { return Sha1Hex(ComparisonHashInput(result)); }

}  // namespace ptsn::results
