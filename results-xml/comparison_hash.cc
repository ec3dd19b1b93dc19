#include "results-xml/comparison_hash.h"

#include <cstdint>
#include <cstring>

namespace ptsn::results {

namespace {

// PHP trim(): " \t\n\r\0\x0B" from both ends.
std::string_view PhpTrim(std::string_view s) {
  constexpr std::string_view kWs(" \t\n\r\0\x0B", 6);
  size_t b = s.find_first_not_of(kWs);
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(kWs);
  return s.substr(b, e - b + 1);
}

}  // namespace

std::string ComparisonHashInput(const Result& result) {
  std::string_view tp = result.identifier;
  if (tp.empty()) {
    tp = result.title;
  } else if (size_t dot = tp.rfind('.'); dot != std::string_view::npos) {
    tp = tp.substr(0, dot);
  }
  std::string in;
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

// SHA-1 (FIPS 180-4) of a short message. Written out because a result's hash input is ~100
// bytes: OpenSSL 3's EVP path spends several times the compression's cost on provider and
// context bookkeeping per message, once per result of every JSON export.
void Sha1(std::string_view data, unsigned char digest[20]) {
  uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
  auto block = [&h](const unsigned char* p) {
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
  };
  const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
  size_t full = data.size() / 64 * 64;
  for (size_t i = 0; i < full; i += 64) block(bytes + i);
  // The tail, 0x80, zeros and the bit length (big-endian) in one or two last blocks.
  unsigned char last[128] = {};
  const size_t rest = data.size() - full;
  std::memcpy(last, bytes + full, rest);
  last[rest] = 0x80;
  const size_t end = rest + 1 + 8 <= 64 ? 64 : 128;
  const uint64_t bits = static_cast<uint64_t>(data.size()) * 8;
  for (int i = 0; i < 8; ++i) last[end - 1 - i] = static_cast<unsigned char>(bits >> (8 * i));
  block(last);
  if (end == 128) block(last + 64);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 4; ++j) digest[4 * i + j] = static_cast<unsigned char>(h[i] >> (24 - 8 * j));
}

}  // namespace

std::string Sha1Hex(std::string_view data) {
  unsigned char digest[20];
  Sha1(data, digest);
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
