// Cron schedules for fleet jobs: the five fields of crontab(5) (minute hour day-of-month month
// day-of-week) with *, lists, ranges, steps, month and day names, 7 = Sunday, the @hourly/
// @daily/@midnight/@weekly/@monthly/@yearly/@annually shorthands, and Vixie cron's rule that when
// both day fields are restricted a day matching either one fires. Times are UTC.
// Debian has no C++ cron library; this is the small part we need.
#pragma once

#include <bitset>
#include <cstdint>
#include <string>

namespace ptsn::server {

struct CronSchedule {
  std::bitset<60> minutes;
  std::bitset<24> hours;
  std::bitset<32> days;      // 1..31
  std::bitset<13> months;    // 1..12
  std::bitset<7> weekdays;   // 0 = Sunday
  bool any_day = true;       // day-of-month was '*'
  bool any_weekday = true;   // day-of-week was '*'
};

// Throws ptsn::Error naming the field and what is wrong ("cron: hour '25' is out of 0-23").
CronSchedule ParseCron(const std::string& text);

// The first whole minute strictly after `after` (Unix seconds) that the schedule fires at;
// -1 when none within five years (e.g. "0 0 31 2 *").
std::int64_t NextFire(const CronSchedule& schedule, std::int64_t after);

}  // namespace ptsn::server
