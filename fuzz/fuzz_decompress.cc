// The upload decoders on their own: the first byte picks raw DEFLATE (libdeflate), bzip2
// (libbz2) or base64, the rest is the input. Oracles: nothing decodes to more than the bound, and
// what decodes is encoded and decoded back to itself.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "runner/openbenchmarking/wire.h"

namespace {
constexpr size_t kMax = 1 << 20;

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "oracle failed: %s\n", what);
  std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ptsn::wire;
  if (size == 0) return 0;
  const std::string_view in(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 3) {
    case 0:
      if (auto out = RawInflate(in, kMax)) {
        if (out->size() > kMax) Fail("inflated past the bound");
        if (RawInflate(RawDeflate(*out, 1), kMax) != out) Fail("deflate then inflate differs");
      }
      break;
    case 1:
      if (auto out = Bzip2Decompress(in, kMax)) {
        if (out->size() > kMax) Fail("bunzipped past the bound");
        if (Bzip2Decompress(Bzip2Compress(*out, 1), kMax) != out) Fail("bzip2 then bunzip2 differs");
      }
      break;
    case 2:
      if (auto out = Base64Decode(in)) {
        if (Base64Decode(Base64Encode(*out)) != out) Fail("base64 encode then decode differs");
      }
      break;
  }
  return 0;
}
