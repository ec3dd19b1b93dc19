#include "results-xml/comparison_hash.h"

#include <openssl/sha.h>

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
