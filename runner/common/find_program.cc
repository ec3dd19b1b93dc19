#include "runner/common/find_program.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "runner/common/strings.h"

namespace ptsn {

namespace {

bool IsExecutableFile(const std::string& path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::optional<std::string> FindProgram(const std::string& name, const std::string& extra_dirs) {
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string::npos) return IsExecutableFile(name) ? std::optional(name) : std::nullopt;
  const char* path = std::getenv("PATH");  // unset: the default a shell takes
  std::string dirs = path ? path : "/usr/bin:/bin";
  if (!extra_dirs.empty()) dirs += ":" + extra_dirs;
  for (const auto& dir : Split(dirs, ':')) {
    if (dir.empty()) continue;
    std::string candidate = dir + "/" + name;
    if (IsExecutableFile(candidate)) return candidate;
  }
  return std::nullopt;
}

}  // namespace ptsn
