#include "runner/reproduce/result_id.h"

#include <algorithm>
#include <cctype>

namespace ptsn::reproduce {

namespace {
bool AllOf(std::string_view s, int (*pred)(int)) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [&](char c) { return pred(static_cast<unsigned char>(c)) != 0; });
}
}  // namespace

bool IsOpenBenchmarkingId(std::string_view s) {
  if (s.size() != 22) return false;
  size_t a = s.find('-');
  if (a == std::string_view::npos) return false;
  size_t b = s.find('-', a + 1);
  if (b == std::string_view::npos || s.find('-', b + 1) != std::string_view::npos) return false;
  std::string_view p0 = s.substr(0, a), p1 = s.substr(a + 1, b - a - 1), p2 = s.substr(b + 1);
  return p0.size() == 7 && AllOf(p0, isdigit) && p1.size() >= 2 && p1.size() <= 8 && AllOf(p1, isalnum) &&
         AllOf(p2, isalnum);
}

}  // namespace ptsn::reproduce
