#include "results-xml/model/comparison_hash.h"

#include <openssl/sha.h>

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
  std::string_view tp = result.identifier;
  if (tp.empty()) {
    tp = result.title;
  } else if (size_t dot = tp.rfind('.'); dot != std::string_view::npos) {
    tp = tp.substr(0, dot);
  }
  std::string in(tp);
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

std::string Sha1Hex(std::string_view data) {
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
  static const char kHex[] = "0123456789abcdef";
  std::string out(2 * SHA_DIGEST_LENGTH, '0');
  for (int i = 0; i < SHA_DIGEST_LENGTH; ++i) {
    out[2 * i] = kHex[digest[i] >> 4];
    out[2 * i + 1] = kHex[digest[i] & 0xF];
  }
  return out;
}

std::string ComparisonHash(const Result& result) { return Sha1Hex(ComparisonHashInput(result)); }

}  // namespace ptsn::results
