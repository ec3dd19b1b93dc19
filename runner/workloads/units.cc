#include "runner/workloads/units.h"

#include <cctype>
#include <cmath>
#include <cstdio>

#include "runner/common/error.h"
#include "runner/common/strings.h"

namespace ptsn::workloads {

uint64_t ParseSize(const std::string& text, const std::string& option) {
  std::string t = ToLower(Trim(text));
  size_t i = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  std::string digits = t.substr(0, i), suffix = t.substr(i);
  uint64_t mult = 0;
  if (suffix.empty() || suffix == "b") mult = 1;
  else if (suffix == "k" || suffix == "kb" || suffix == "kib") mult = 1ull << 10;
  else if (suffix == "m" || suffix == "mb" || suffix == "mib") mult = 1ull << 20;
  else if (suffix == "g" || suffix == "gb" || suffix == "gib") mult = 1ull << 30;
  else if (suffix == "t" || suffix == "tb" || suffix == "tib") mult = 1ull << 40;
  if (digits.empty() || mult == 0 || digits.size() > 15)
    throw Error(option + ": '" + text + "' is not a size (examples: 4096, 4k, 1m, 256m, 2g)");
  uint64_t n = std::stoull(digits);
  if (n == 0) throw Error(option + ": the size must be greater than zero");
  return n * mult;
}

long ParseCount(const std::string& text, const std::string& option) {
  try {
    size_t used = 0;
    long n = std::stol(text, &used);
    if (used == text.size() && n > 0) return n;
  } catch (...) {
  }
  throw Error(option + ": '" + text + "' is not a positive whole number");
}

double ParseSeconds(const std::string& text, const std::string& option) {
  std::string t = ToLower(Trim(text));
  double scale = 1;
  if (EndsWith(t, "ms")) {
    scale = 0.001;
    t.resize(t.size() - 2);
  } else if (EndsWith(t, "s")) {
    t.resize(t.size() - 1);
  }
  try {
    size_t used = 0;
    double d = std::stod(t, &used);
    if (used == t.size() && d > 0 && std::isfinite(d)) return d * scale;
  } catch (...) {
  }
  throw Error(option + ": '" + text + "' is not a positive duration in seconds (examples: 3, 0.5, 500ms)");
}

std::string FormatSize(uint64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  double v = static_cast<double>(bytes);
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  if (v == std::floor(v)) std::snprintf(buf, sizeof buf, "%.0f %s", v, units[u]);
  else std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

}  // namespace ptsn::workloads
