#include "runner/monitor/proc_parse.h"

#include <charconv>
#include <cstdlib>

namespace ptsn::monitor {

namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

// Next whitespace-separated token of `line` starting at `pos`; empty at the end.
std::string_view NextToken(std::string_view line, size_t* pos) {
  size_t i = *pos;
  while (i < line.size() && IsBlank(line[i])) ++i;
  size_t start = i;
  while (i < line.size() && !IsBlank(line[i]) && line[i] != '\n') ++i;
  *pos = i;
  return line.substr(start, i - start);
}

bool ToU64(std::string_view token, uint64_t* out) {
  if (token.empty()) return false;
  auto [p, ec] = std::from_chars(token.data(), token.data() + token.size(), *out);
  return ec == std::errc() && p == token.data() + token.size();
}

// Calls f(line) for each line until f returns true; returns whether one did.
template <typename F>
bool ForEachLine(std::string_view text, F&& f) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    if (f(text.substr(pos, end - pos))) return true;
    pos = end + 1;
  }
  return false;
}

// "cpu12" -> 12; -1 for the summary "cpu"; -2 for anything else.
int CpuLineNumber(std::string_view name) {
  if (name.substr(0, 3) != "cpu") return -2;
  if (name.size() == 3) return -1;
  int n = 0;
  auto [p, ec] = std::from_chars(name.data() + 3, name.data() + name.size(), n);
  return ec == std::errc() && p == name.data() + name.size() ? n : -2;
}

}  // namespace

bool ParseProcStatCpu(std::string_view stat, int cpu, CpuTimes* out) {
  return ForEachLine(stat, [&](std::string_view line) {
    size_t pos = 0;
    std::string_view name = NextToken(line, &pos);
    if (CpuLineNumber(name) != cpu || (cpu == -1 && name != "cpu")) return false;
    *out = CpuTimes{};
    for (int i = 0; i < kCpuColumns; ++i) {
      uint64_t value;
      if (!ToU64(NextToken(line, &pos), &value)) break;
      out->v[i] = value;
      out->columns = i + 1;
    }
    return out->columns >= 4;  // user nice system idle at least
  });
}

int CountProcStatCpus(std::string_view stat) {
  int count = 0;
  ForEachLine(stat, [&](std::string_view line) {
    size_t pos = 0;
    if (CpuLineNumber(NextToken(line, &pos)) >= 0) ++count;
    return false;
  });
  return count;
}

std::vector<int> ProcStatCpus(std::string_view stat) {
  std::vector<int> cpus;
  ForEachLine(stat, [&](std::string_view line) {
    size_t pos = 0;
    int n = CpuLineNumber(NextToken(line, &pos));
    if (n >= 0) cpus.push_back(n);
    return false;
  });
  return cpus;
}

std::optional<uint64_t> MeminfoKb(std::string_view meminfo, std::string_view key) {
  std::optional<uint64_t> result;
  ForEachLine(meminfo, [&](std::string_view line) {
    if (line.size() <= key.size() || line.substr(0, key.size()) != key || line[key.size()] != ':') return false;
    size_t pos = key.size() + 1;
    uint64_t value;
    if (ToU64(NextToken(line, &pos), &value)) result = value;
    return true;
  });
  return result;
}

bool ParseDiskstats(std::string_view diskstats, std::string_view device, DiskCounters* out) {
  return ForEachLine(diskstats, [&](std::string_view line) {
    size_t pos = 0;
    NextToken(line, &pos);  // major
    NextToken(line, &pos);  // minor
    if (NextToken(line, &pos) != device) return false;
    uint64_t fields[7];
    for (uint64_t& f : fields)
      if (!ToU64(NextToken(line, &pos), &f)) return false;
    out->sectors_read = fields[2];
    out->sectors_written = fields[6];
    return true;
  });
}

std::optional<std::string> DiskstatsName(std::string_view diskstats, unsigned major, unsigned minor) {
  std::optional<std::string> name;
  ForEachLine(diskstats, [&](std::string_view line) {
    size_t pos = 0;
    uint64_t ma, mi;
    if (!ToU64(NextToken(line, &pos), &ma) || !ToU64(NextToken(line, &pos), &mi)) return false;
    if (ma != major || mi != minor) return false;
    name = std::string(NextToken(line, &pos));
    return true;
  });
  return name;
}

namespace {

// mountinfo escapes blanks in paths as octal (\040).
std::string UnescapeMountPath(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    bool octal = s[i] == '\\' && i + 3 < s.size();
    for (size_t k = 1; octal && k <= 3; ++k) octal = s[i + k] >= '0' && s[i + k] <= '7';
    if (octal) {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

bool PathUnder(std::string_view path, std::string_view mount_point) {
  if (mount_point == "/") return true;
  if (path.substr(0, mount_point.size()) != mount_point) return false;
  return path.size() == mount_point.size() || path[mount_point.size()] == '/';
}

// Each mountinfo line: id parent major:minor root mount_point options [optional...] - fstype source superopts
bool ParseMountLine(std::string_view line, MountEntry* out) {
  size_t pos = 0;
  NextToken(line, &pos);
  NextToken(line, &pos);
  std::string_view dev = NextToken(line, &pos);
  NextToken(line, &pos);
  std::string_view mount_point = NextToken(line, &pos);
  size_t colon = dev.find(':');
  uint64_t ma, mi;
  if (colon == std::string_view::npos || !ToU64(dev.substr(0, colon), &ma) || !ToU64(dev.substr(colon + 1), &mi))
    return false;
  for (std::string_view t = NextToken(line, &pos); !t.empty(); t = NextToken(line, &pos)) {
    if (t == "-") {
      out->fs_type = std::string(NextToken(line, &pos));
      out->source = std::string(NextToken(line, &pos));
      out->major = static_cast<unsigned>(ma);
      out->minor = static_cast<unsigned>(mi);
      out->mount_point = UnescapeMountPath(mount_point);
      return true;
    }
  }
  return false;
}

}  // namespace

std::optional<MountEntry> MountOfPath(std::string_view mountinfo, std::string_view absolute_path) {
  std::optional<MountEntry> best;
  ForEachLine(mountinfo, [&](std::string_view line) {
    MountEntry e;
    if (!ParseMountLine(line, &e) || !PathUnder(absolute_path, e.mount_point)) return false;
    // >= : a later mount on the same point shadows the earlier one.
    if (!best || e.mount_point.size() >= best->mount_point.size()) best = e;
    return false;
  });
  return best;
}

std::optional<std::string> Cgroup2MountPoint(std::string_view mountinfo) {
  std::optional<std::string> point;
  ForEachLine(mountinfo, [&](std::string_view line) {
    MountEntry e;
    if (ParseMountLine(line, &e) && e.fs_type == "cgroup2") {
      point = e.mount_point;
      return true;
    }
    return false;
  });
  return point;
}

std::optional<std::string> Cgroup2Path(std::string_view proc_cgroup) {
  std::optional<std::string> path;
  ForEachLine(proc_cgroup, [&](std::string_view line) {
    if (line.substr(0, 3) != "0::") return false;
    path = std::string(line.substr(3));
    return true;
  });
  return path;
}

std::optional<uint64_t> KeyedValue(std::string_view text, std::string_view key) {
  std::optional<uint64_t> result;
  ForEachLine(text, [&](std::string_view line) {
    size_t pos = 0;
    if (NextToken(line, &pos) != key) return false;
    uint64_t value;
    if (ToU64(NextToken(line, &pos), &value)) result = value;
    return true;
  });
  return result;
}

std::optional<double> ParseNumber(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && (IsBlank(text[i]) || text[i] == '\n')) ++i;
  text.remove_prefix(i);
  double value;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || p == text.data()) return std::nullopt;
  return value;
}

std::optional<double> CpuinfoMhz(std::string_view cpuinfo, int cpu) {
  std::optional<double> result;
  int current = -1;
  ForEachLine(cpuinfo, [&](std::string_view line) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) return false;
    std::string_view key = line.substr(0, colon);
    while (!key.empty() && IsBlank(key.back())) key.remove_suffix(1);
    if (key == "processor") {
      current = ParseNumber(line.substr(colon + 1)).value_or(-1);
    } else if (key == "cpu MHz" && current == cpu) {
      result = ParseNumber(line.substr(colon + 1));
      return true;
    }
    return false;
  });
  return result;
}

uint64_t CounterDelta(uint64_t previous, uint64_t current, uint64_t wrap_at) {
  if (current >= previous) return current - previous;
  if (wrap_at > previous) return wrap_at - previous + current;
  if (previous <= 0xffffffffULL) return (0x100000000ULL - previous) + current;
  return current - previous;  // unsigned arithmetic: wrap at 2^64
}

}  // namespace ptsn::monitor
