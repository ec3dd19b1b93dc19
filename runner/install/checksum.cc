#include "runner/install/checksum.h"

#include <openssl/evp.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <vector>

#include "runner/common/error.h"
#include "runner/common/strings.h"

namespace ptsn::install {
namespace {

std::string Hex(const unsigned char* data, unsigned len) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < len; ++i) {
    out += digits[data[i] >> 4];
    out += digits[data[i] & 15];
  }
  return out;
}

using Ctx = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

}  // namespace

Digests ComputeDigests(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError(path, std::string("cannot read: ") + std::strerror(errno));
  Ctx sha(EVP_MD_CTX_new(), EVP_MD_CTX_free), md5(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_DigestInit_ex(sha.get(), EVP_sha256(), nullptr);
  EVP_DigestInit_ex(md5.get(), EVP_md5(), nullptr);
  Digests d;
  std::vector<char> buf(1 << 16);
  while (in) {
    in.read(buf.data(), buf.size());
    std::streamsize n = in.gcount();
    if (n <= 0) break;
    EVP_DigestUpdate(sha.get(), buf.data(), n);
    EVP_DigestUpdate(md5.get(), buf.data(), n);
    d.size += n;
  }
  if (in.bad()) throw FileError(path, "read error");
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  EVP_DigestFinal_ex(sha.get(), out, &len);
  d.sha256 = Hex(out, len);
  EVP_DigestFinal_ex(md5.get(), out, &len);
  d.md5 = Hex(out, len);
  return d;
}

std::optional<std::string> CheckFile(const std::string& path, const FileCheck& expected, bool skip_hashes) {
  Digests d;
  try {
    d = ComputeDigests(path);
  } catch (const Error& e) {
    return std::string(e.what());
  }
  if (expected.size > 0 && d.size != expected.size)
    return "size is " + std::to_string(d.size) + " bytes, expected " + std::to_string(expected.size);
  if (skip_hashes) return std::nullopt;
  if (!expected.sha256.empty()) {
    if (d.sha256 != ToLower(Trim(expected.sha256))) return "sha256 is " + d.sha256 + ", expected " + ToLower(expected.sha256);
  } else if (!expected.md5.empty()) {
    if (d.md5 != ToLower(Trim(expected.md5))) return "md5 is " + d.md5 + ", expected " + ToLower(expected.md5);
  } else if (d.size == 0) {
    return std::string("file is empty");
  }
  return std::nullopt;
}

}  // namespace ptsn::install
