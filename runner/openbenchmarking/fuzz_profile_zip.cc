// libFuzzer target: ReadZip on bytes a server sent as a profile zip (acquire_test) or a result's
// system logs. Whatever the bytes, it returns checked entries within the limits or throws
// ZipError; an accepted archive's entries have safe names and fit the limits.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "runner/openbenchmarking/profile_zip.h"

namespace {
// No component may be empty, "." or ".." (a directory's name ends in '/').
bool SafeName(std::string name) {
  if (name.empty() || name.front() == '/' || name.find('\\') != std::string::npos) return false;
  if (name.back() == '/') name.pop_back();
  size_t start = 0;
  for (;;) {
    size_t end = name.find('/', start);
    std::string part = name.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (part.empty() || part == "." || part == "..") return false;
    if (end == std::string::npos) return true;
    start = end + 1;
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ptsn::ob::ZipLimits limits;
  limits.max_entries = 64;
  limits.max_file_bytes = 1 << 20;
  limits.max_total_bytes = 4 << 20;
  try {
    auto entries = ptsn::ob::ReadZip(std::string_view(reinterpret_cast<const char*>(data), size), limits);
    size_t total = 0;
    for (const auto& e : entries) {
      total += e.data.size();
      if (!SafeName(e.name) || e.data.size() > limits.max_file_bytes) std::abort();
    }
    if (total > limits.max_total_bytes || entries.size() > limits.max_entries) std::abort();
  } catch (const ptsn::ob::ZipError&) {
  }
  return 0;
}
