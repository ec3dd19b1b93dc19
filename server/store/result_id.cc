#include "server/store/result_id.h"

#include <cctype>
#include <cstdio>
#include <stdexcept>

#include "runner/common/strings.h"

namespace ptsn::server {

namespace {

std::tm UtcTime(std::time_t when) {
  std::tm tm{};
  gmtime_r(&when, &tm);
  return tm;
}

std::string UpperLetters(std::string_view s, size_t max) {
  std::string out;
  for (unsigned char c : s) {
    if (out.size() >= max) break;
    if (std::isalpha(c)) out += char(std::toupper(c));
  }
  return out;
}

}  // namespace

std::string DayKey(std::time_t when) {
  std::tm tm = UtcTime(when);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%02d%02d%02d", (tm.tm_year % 100 + 100) % 100, (tm.tm_mon + 1) % 100, tm.tm_mday % 100);
  return buf;
}

std::string FormatResultId(std::time_t when, int64_t sequence, std::string_view user, std::string_view title) {
  constexpr size_t kStemAndDigits = 22 - 7 - 1 - 2 - 1;  // 11
  if (sequence < 1) throw std::invalid_argument("result sequence number must be positive");
  std::string digits = std::to_string(sequence);
  if (digits.size() > kStemAndDigits) throw std::invalid_argument("result sequence number too large for an ID");
  std::tm tm = UtcTime(when);
  std::string tag = UpperLetters(user, 2);
  while (tag.size() < 2) tag += 'X';
  // At least two digits, as in every published ID ("CPUGOVERN32").
  size_t stem_len = std::min(kStemAndDigits - std::max<size_t>(digits.size(), 2), size_t{9});
  std::string stem = UpperLetters(title, stem_len);
  std::string tail = stem + std::string(kStemAndDigits - stem.size() - digits.size(), '0') + digits;
  return DayKey(when) + char('0' + tm.tm_hour * 10 / 24) + '-' + tag + '-' + tail;
}

}  // namespace ptsn::server
