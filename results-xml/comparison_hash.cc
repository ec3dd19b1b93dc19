#include "results-xml/comparison_hash.h"

#include <openssl/evp.h>
#include <openssl/sha.h>

#include "runner/common/error.h"

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
  // OpenSSL 3's one-shot SHA1() looks the algorithm up (EVP_MD_fetch) and allocates a context
  // on every call, several times the cost of hashing 100 bytes: fetch once, reuse one context.
  struct Sha1 {
    EVP_MD* md = EVP_MD_fetch(nullptr, "SHA1", nullptr);
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    ~Sha1() {
      EVP_MD_CTX_free(ctx);
      EVP_MD_free(md);
    }
  };
  thread_local Sha1 sha1;
  unsigned char digest[SHA_DIGEST_LENGTH];
  unsigned int length = 0;
  if (!sha1.md || !sha1.ctx || !EVP_DigestInit_ex2(sha1.ctx, sha1.md, nullptr) ||
      !EVP_DigestUpdate(sha1.ctx, data.data(), data.size()) || !EVP_DigestFinal_ex(sha1.ctx, digest, &length) ||
      length != SHA_DIGEST_LENGTH)
    throw Error("SHA-1 is not available from OpenSSL (needed for result comparison hashes)");
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
