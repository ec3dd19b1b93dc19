#include "runner/common/path_below.h"

#include <cstdio>

namespace ptsn {

namespace {

constexpr size_t kMaxComponent = 255;   // NAME_MAX
constexpr size_t kMaxRelative = 1024;   // what any of our callers needs below a folder

std::string Shown(std::string_view name) {
  std::string out;
  for (unsigned char c : name.substr(0, 200)) {
    if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (name.size() > 200) out += "...";
  return out;
}

}  // namespace

std::string PathNameProblem(std::string_view name, NameDepth depth) {
  if (name.empty()) return "an empty name";
  if (name.front() == '/') return "an absolute path";
  if (name.size() > kMaxRelative) return "a name over " + std::to_string(kMaxRelative) + " bytes";
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7f) return "a control character in the name";
    if (c == '\\') return "a backslash in the name";
  }
  std::string_view rest = name;
  if (depth == NameDepth::kOneName) {
    if (rest.find('/') != std::string_view::npos) {
      // '..' anywhere says more than the '/' does
      return LeavesFolder(name) ? "a '..' component" : "a '/' in a file name";
    }
  } else if (rest.back() == '/') {
    rest.remove_suffix(1);  // a directory entry ("patches/")
  }
  std::string problem;
  size_t start = 0;
  while (start <= rest.size()) {
    size_t end = rest.find('/', start);
    if (end == std::string_view::npos) end = rest.size();
    std::string_view part = rest.substr(start, end - start);
    if (part == "..") return "a '..' component";
    if (problem.empty()) {
      if (part.empty()) problem = "an empty component ('//')";
      else if (part == ".") problem = "a '.' component";
      else if (part.size() > kMaxComponent) problem = "a component over " + std::to_string(kMaxComponent) + " bytes";
    }
    start = end + 1;
  }
  return problem;
}

bool LeavesFolder(std::string_view name) {
  if (!name.empty() && name.front() == '/') return true;
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find('/', start);
    if (end == std::string_view::npos) end = name.size();
    if (name.substr(start, end - start) == "..") return true;
    start = end + 1;
  }
  return false;
}

std::string PathRefusal(std::string_view name, const std::string& why, const NameOrigin& origin) {
  std::string head = std::string(origin.field) + " '" + Shown(name) + "'";
  if (LeavesFolder(name)) return head + " leaves " + std::string(origin.folder) + " (" + why + ")";
  return head + " cannot name a file in " + std::string(origin.folder) + ": " + why;
}

std::string JoinBelow(std::string_view folder, std::string_view name, const NameOrigin& origin, NameDepth depth) {
  if (std::string why = PathNameProblem(name, depth); !why.empty()) throw Error(PathRefusal(name, why, origin));
  std::string out(folder);
  if (!out.empty() && out.back() != '/') out += '/';
  out += name;
  return out;
}

}  // namespace ptsn
