#include "runner/targets/proc_files.h"

#include <algorithm>

#include "runner/common/strings.h"

namespace ptsn::targets {

namespace {

// mountinfo escapes ' ', '\t', '\n' and '\\' as three octal digits.
std::string Unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() &&
        std::all_of(s.begin() + i + 1, s.begin() + i + 4, [](char c) { return c >= '0' && c <= '7'; })) {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

std::vector<MountEntry> ParseMountInfo(std::string_view text) {
  std::vector<MountEntry> out;
  for (const auto& line : Split(text, '\n')) {
    // id parent major:minor root mount-point options [optional...] - fstype source super-options
    auto f = Split(line, ' ');
    auto dash = std::find(f.begin(), f.end(), "-");
    if (f.size() < 6 || dash == f.end() || f.end() - dash < 3) continue;
    MountEntry m;
    m.mount_point = Unescape(f[4]);
    m.fstype = dash[1];
    m.source = Unescape(dash[2]);
    // Per-mount options, then the super block's that are not already there ("rw" is in both).
    std::vector<std::string> options = Split(f[5], ',');
    if (f.end() - dash >= 4)
      for (const auto& o : Split(dash[3], ','))
        if (!o.empty() && std::find(options.begin(), options.end(), o) == options.end()) options.push_back(o);
    m.options = Join(options, ",");
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<std::string> MountPointsUnder(const std::vector<MountEntry>& mounts, const std::string& dir) {
  std::vector<std::string> out;
  std::string prefix = dir.empty() || dir.back() != '/' ? dir + "/" : dir;
  for (const auto& m : mounts)
    if (m.mount_point == dir || StartsWith(m.mount_point, prefix)) out.push_back(m.mount_point);
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string StartTimeFromStat(std::string_view stat) {
  size_t close = stat.rfind(')');
  if (close == std::string_view::npos) return "";
  auto fields = Split(Trim(stat.substr(close + 1)), ' ');
  // After ')': field 3 (state) is fields[0], so field 22 is fields[19].
  return fields.size() > 19 ? fields[19] : "";
}

}  // namespace ptsn::targets
