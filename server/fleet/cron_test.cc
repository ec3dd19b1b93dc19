#include "server/fleet/cron.h"

#include <gtest/gtest.h>

#include "runner/common/error.h"

namespace ptsn::server {
namespace {

// 2026-12-01 16:00:00 UTC, a Tuesday.
constexpr std::int64_t kTue1600 = 1796140800;

TEST(Cron, EveryMinuteIsTheNextWholeMinute) {
  auto s = ParseCron("* * * * *");
  EXPECT_EQ(NextFire(s, kTue1600), kTue1600 + 60);
  EXPECT_EQ(NextFire(s, kTue1600 + 59), kTue1600 + 60);
}

TEST(Cron, DailyAtThreeIsTomorrowAtThree) {
  EXPECT_EQ(NextFire(ParseCron("0 3 * * *"), kTue1600), kTue1600 + 11 * 3600);
  EXPECT_EQ(NextFire(ParseCron("@daily"), kTue1600), kTue1600 + 8 * 3600);
}

TEST(Cron, StepsRangesAndLists) {
  auto s = ParseCron("*/15 9-17 * * mon-fri");
  EXPECT_EQ(NextFire(s, kTue1600), kTue1600 + 15 * 60);
  auto t = ParseCron("5,35 16 * * *");
  EXPECT_EQ(NextFire(t, kTue1600), kTue1600 + 5 * 60);
  EXPECT_EQ(NextFire(t, kTue1600 + 5 * 60), kTue1600 + 35 * 60);
}

TEST(Cron, WeekdaySevenIsSundayAndDayFieldsMatchEither) {
  // Sunday 2026-12-06 00:00.
  EXPECT_EQ(NextFire(ParseCron("0 0 * * 7"), kTue1600), kTue1600 + 8 * 3600 + 4 * 86400);
  EXPECT_EQ(NextFire(ParseCron("0 0 * * sun"), kTue1600), kTue1600 + 8 * 3600 + 4 * 86400);
  // Both restricted: the 3rd (a Thursday) comes before the next Sunday.
  EXPECT_EQ(NextFire(ParseCron("0 0 3 * sun"), kTue1600), kTue1600 + 8 * 3600 + 86400);
}

TEST(Cron, ImpossibleDateNeverFires) { EXPECT_EQ(NextFire(ParseCron("0 0 31 2 *"), kTue1600), -1); }

TEST(Cron, BadInputNamesTheField) {
  auto message = [](const std::string& text) {
    try {
      ParseCron(text);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_NE(message("0 25 * * *").find("hour '25' is out of 0-23"), std::string::npos) << message("0 25 * * *");
  EXPECT_NE(message("* * *").find("five fields"), std::string::npos);
  EXPECT_NE(message("*/0 * * * *").find("step"), std::string::npos);
  EXPECT_NE(message("5-1 * * * *").find("backwards"), std::string::npos);
  EXPECT_NE(message("@sometimes").find("shorthand"), std::string::npos);
  EXPECT_NE(message("x * * * *").find("minute 'x'"), std::string::npos);
}

}  // namespace
}  // namespace ptsn::server
