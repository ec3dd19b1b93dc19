// libFuzzer target: JoinBelow (runner/common/path_below.h) on any name, as a profile's FileName,
// a zip entry, a result name or a server's answer may spell it. The first byte picks one name or
// a relative path. Oracle: a path JoinBelow gives is inside its folder — below it once normalised
// and not the folder itself, with no '..' and no NUL; one name sits directly in the folder — and
// the names it refuses are those with a component that is empty, '.' or '..', a '/' in one name,
// an absolute path, a control character or a backslash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include "runner/common/path_below.h"

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto depth = (data[0] & 1) ? ptsn::NameDepth::kRelativePath : ptsn::NameDepth::kOneName;
  const std::string_view name(reinterpret_cast<const char*>(data + 1), size - 1);
  const std::string folder = "/base/dir";
  std::string joined;
  try {
    joined = ptsn::JoinBelow(folder, name, {"fuzzed name", "the folder"}, depth);
  } catch (const ptsn::Error&) {
    if (ptsn::PathNameProblem(name, depth).empty()) std::abort();  // refused without a reason
    return 0;
  }
  if (joined.find('\0') != std::string::npos || joined.compare(0, folder.size() + 1, folder + "/") != 0) std::abort();
  const fs::path rel = fs::path(joined).lexically_normal().lexically_relative(folder);
  if (rel.empty() || rel == "." || *rel.begin() == "..") std::abort();
  for (const auto& part : fs::path(std::string(name)))
    if (part == ".." || part == ".") std::abort();
  for (unsigned char c : name)
    if (c < 0x20 || c == 0x7f || c == '\\') std::abort();
  if (depth == ptsn::NameDepth::kOneName && fs::path(joined).parent_path() != folder) std::abort();
  return 0;
}
