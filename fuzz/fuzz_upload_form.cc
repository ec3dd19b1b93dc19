// An upload request body as the server decodes it: the form (application/x-www-form-urlencoded),
// then the composite_xml / composite_xml_gz (raw DEFLATE) / composite_xml_bz (bzip2) field in
// base64, its sha1 and the system logs, under the server's size bound. Oracle: a form re-encoded
// decodes to the same fields.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "runner/openbenchmarking/wire.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ptsn::wire;
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  FormFields form;
  try {
    form = DecodeForm(body);
  } catch (const WireError&) {
    return 0;
  }
  try {
    if (DecodeForm(EncodeForm(form)) != form) {
      std::fprintf(stderr, "oracle failed: a re-encoded form decodes differently\n");
      std::abort();
    }
  } catch (const WireError& e) {
    std::fprintf(stderr, "oracle failed: a re-encoded form does not decode: %s\n", e.message.c_str());
    std::abort();
  }
  auto field = [&](const std::string& name) -> std::optional<std::string> {
    for (const auto& [k, v] : form)
      if (k == name) return v;
    return std::nullopt;
  };
  constexpr size_t kMaxXml = 1 << 20;
  try {
    const Upload upload = DecodeUpload(field, kMaxXml);
    if (upload.xml.size() > kMaxXml) std::abort();
  } catch (const WireError&) {
  }
  return 0;
}
