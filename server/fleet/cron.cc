#include "server/fleet/cron.h"

#include <cctype>
#include <ctime>
#include <vector>

#include "runner/common/error.h"
#include "runner/common/strings.h"

namespace ptsn::server {

namespace {

struct Field {
  const char* name;
  int lo, hi;
  std::vector<std::string> names;  // names[i] means lo + i
};

int ParseNumber(const std::string& s, const Field& f) {
  std::string lower = ToLower(s);
  for (size_t i = 0; i < f.names.size(); ++i)
    if (lower == f.names[i]) return f.lo + static_cast<int>(i);
  if (s.empty() || s.size() > 4) throw Error(std::string("cron: ") + f.name + " '" + s + "' is not a number");
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) throw Error(std::string("cron: ") + f.name + " '" + s + "' is not a number");
  int n = std::stoi(s);
  int hi = f.hi + (std::string(f.name) == "day-of-week" ? 1 : 0);  // 7 = Sunday too
  if (n < f.lo || n > hi)
    throw Error(std::string("cron: ") + f.name + " '" + s + "' is out of " + std::to_string(f.lo) + "-" + std::to_string(f.hi));
  return n;
}

// Sets the bits of one field; returns whether it was '*' (unrestricted).
template <size_t N>
bool ParseField(const std::string& text, const Field& f, std::bitset<N>& bits) {
  bool star = false;
  for (const auto& item : Split(text, ',')) {
    if (item.empty()) throw Error(std::string("cron: ") + f.name + " '" + text + "' has an empty list item");
    std::string range = item;
    int step = 1;
    if (auto slash = item.find('/'); slash != std::string::npos) {
      range = item.substr(0, slash);
      std::string s = item.substr(slash + 1);
      bool digits = !s.empty() && s.size() <= 3;
      for (char c : s) digits = digits && std::isdigit(static_cast<unsigned char>(c));
      if (!digits || std::stoi(s) == 0) throw Error(std::string("cron: ") + f.name + " step '" + s + "' is not a positive number");
      step = std::stoi(s);
    }
    int lo, hi;
    if (range == "*") {
      lo = f.lo, hi = f.hi;
      star = step == 1 && item == "*";
    } else if (auto dash = range.find('-'); dash != std::string::npos) {
      lo = ParseNumber(range.substr(0, dash), f);
      hi = ParseNumber(range.substr(dash + 1), f);
      if (hi < lo) throw Error(std::string("cron: ") + f.name + " range '" + range + "' runs backwards");
    } else {
      lo = ParseNumber(range, f);
      hi = item.find('/') != std::string::npos ? f.hi : lo;  // "5/15" = from 5 every 15
    }
    for (int v = lo; v <= hi; v += step) bits.set(static_cast<size_t>(N == 7 ? v % 7 : v));  // day-of-week 7 = 0
  }
  return star;
}

}  // namespace

CronSchedule ParseCron(const std::string& text) {
  std::string t = Trim(text);
  static const std::pair<const char*, const char*> kShort[] = {
      {"@yearly", "0 0 1 1 *"}, {"@annually", "0 0 1 1 *"}, {"@monthly", "0 0 1 * *"},
      {"@weekly", "0 0 * * 0"}, {"@daily", "0 0 * * *"},    {"@midnight", "0 0 * * *"},
      {"@hourly", "0 * * * *"}};
  if (!t.empty() && t[0] == '@') {
    bool known = false;
    for (const auto& [name, expansion] : kShort)
      if (ToLower(t) == name) t = expansion, known = true;
    if (!known) throw Error("cron: unknown shorthand '" + t + "' (@hourly, @daily, @weekly, @monthly, @yearly)");
  }
  std::vector<std::string> fields;
  for (const auto& part : Split(t, ' '))
    if (!Trim(part).empty()) fields.push_back(Trim(part));
  if (fields.size() != 5)
    throw Error("cron: '" + text + "' needs five fields: minute hour day-of-month month day-of-week");
  static const Field kMinute{"minute", 0, 59, {}}, kHour{"hour", 0, 23, {}}, kDay{"day-of-month", 1, 31, {}},
      kMonth{"month", 1, 12, {"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}},
      kWeekday{"day-of-week", 0, 6, {"sun", "mon", "tue", "wed", "thu", "fri", "sat"}};
  CronSchedule s;
  ParseField(fields[0], kMinute, s.minutes);
  ParseField(fields[1], kHour, s.hours);
  s.any_day = ParseField(fields[2], kDay, s.days);
  ParseField(fields[3], kMonth, s.months);
  s.any_weekday = ParseField(fields[4], kWeekday, s.weekdays);
  return s;
}

std::int64_t NextFire(const CronSchedule& s, std::int64_t after) {
  std::int64_t t = (after / 60 + 1) * 60;
  const std::int64_t limit = after + 5LL * 366 * 24 * 3600;
  while (t <= limit) {
    std::time_t tt = static_cast<std::time_t>(t);
    std::tm tm{};
    gmtime_r(&tt, &tm);
    const bool day_ok = s.any_day && s.any_weekday ? true
                        : s.any_day               ? s.weekdays.test(tm.tm_wday)
                        : s.any_weekday           ? s.days.test(tm.tm_mday)
                                                  : (s.days.test(tm.tm_mday) || s.weekdays.test(tm.tm_wday));
    if (!s.months.test(tm.tm_mon + 1) || !day_ok) {
      t += (24 * 60 - tm.tm_hour * 60 - tm.tm_min) * 60LL;  // next midnight
      continue;
    }
    if (!s.hours.test(tm.tm_hour)) {
      t += (60 - tm.tm_min) * 60LL;  // next hour
      continue;
    }
    if (!s.minutes.test(tm.tm_min)) {
      t += 60;
      continue;
    }
    return t;
  }
  return -1;
}

}  // namespace ptsn::server
