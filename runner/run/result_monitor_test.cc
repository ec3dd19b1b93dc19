#include "runner/run/result_monitor.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>

#include "runner/common/strings.h"

namespace ptsn::run {
namespace {

monitor::SensorEnv RealEnv() { return {monitor::SysRoot("/"), monitor::MonitorMode::kPts, "/tmp", ""}; }

TEST(ReduceSamplesTest, AsPhpReducesTheMonitorFile) {
  std::vector<std::string> s = {"9.50", "10.00", "9.75"};
  EXPECT_EQ(ReduceSamples(s, "ALL"), "9.50,10.00,9.75");
  EXPECT_EQ(ReduceSamples(s, "MAX"), "10.00");  // numeric, not byte-wise ("9.50" > "10.00" as bytes)
  EXPECT_EQ(ReduceSamples(s, "MIN"), "9.50");
  EXPECT_EQ(ReduceSamples(s, "AVG"), "9.75");
  EXPECT_EQ(ReduceSamples({"1.00", "2.00"}, "AVG"), "1.5");  // a PHP float, not number_format
  EXPECT_EQ(ReduceSamples({"3", "3.0"}, "MAX"), "3");        // first of equal values kept
  EXPECT_EQ(ReduceSamples({}, "ALL"), "");
  EXPECT_EQ(ReduceSamples(s, "SUM"), "");
}

TEST(PhpPositiveTest, NullAndNotAboveZeroAreNoResult) {
  EXPECT_FALSE(PhpPositive(""));
  EXPECT_FALSE(PhpPositive("0"));
  EXPECT_FALSE(PhpPositive("0.000"));
  EXPECT_FALSE(PhpPositive("-1"));
  EXPECT_TRUE(PhpPositive("0.001"));
  EXPECT_TRUE(PhpPositive("12.50,13.00"));  // a non-numeric string compared with "0" byte-wise
  EXPECT_FALSE(PhpPositive("-1.00,5.00"));
}

TEST(ResultMonitorTest, SysTimeIsTheTrialsWallTimeRoundedToThreePlaces) {
  double now = 100;
  ResultMonitor m({{"sys.time", "", ""}}, RealEnv(), 2, [&] { return now; });
  ASSERT_TRUE(m.active());
  m.BeforeTrial();
  now += 12.34567;
  EXPECT_EQ(m.AfterTrial(true), std::vector<std::string>{"12.346"});
  m.BeforeTrial();
  now += 3;
  EXPECT_EQ(m.AfterTrial(true), std::vector<std::string>{"3"});  // PHP prints 3.0 as "3"
}

TEST(ResultMonitorTest, ShortOrFailedTrialGivesNoValueAndSaysWhy) {
  double now = 0;
  ResultMonitor m({{"sys.time", "", ""}}, RealEnv(), 2, [&] { return now; });
  m.BeforeTrial();
  now += 1.9996;  // rounds to 2.0: long enough, as round() comes before the comparison in PTS
  EXPECT_EQ(m.AfterTrial(true), std::vector<std::string>{"2"});
  m.BeforeTrial();
  now += 1.5;
  std::vector<std::string> why;
  EXPECT_TRUE(m.AfterTrial(true, &why).empty());
  ASSERT_EQ(why.size(), 1u);
  EXPECT_NE(why[0].find("1.5 s, less than the minimal test time of 2 s"), std::string::npos) << why[0];
  m.BeforeTrial();
  now += 30;
  EXPECT_TRUE(m.AfterTrial(false).empty());  // exit status failed or the run is ignored
}

TEST(ResultMonitorTest, UnknownSensorsAndReportsAreIgnoredWithANote) {
  ResultMonitor m({{"foo.bar", "1", "ALL"}, {"cpu.usage", "1", "MEDIAN"}, {"cpu.usage.cpu1", "1", "ALL"}}, RealEnv(), 2);
  EXPECT_FALSE(m.active());
  ASSERT_EQ(m.setup_notes().size(), 3u);
  EXPECT_NE(m.setup_notes()[0].find("'foo.bar' is not a sensor"), std::string::npos);
  EXPECT_NE(m.setup_notes()[1].find("Report 'MEDIAN'"), std::string::npos);
  EXPECT_NE(m.setup_notes()[2].find("'cpu.usage.cpu1' is not a sensor"), std::string::npos);  // PTS wants type.sensor
}

// A real sensor sampled while the "trial" keeps a core busy: ALL gives every sample, each as PTS
// formats cpu.usage (two decimals), at about one per PollingFrequency (0.5 s here).
TEST(ResultMonitorTest, PolledSensorReportsItsSamples) {
  ResultMonitor all({{"cpu.usage", "0.5", "ALL"}}, RealEnv(), 2);
  ASSERT_TRUE(all.active()) << (all.setup_notes().empty() ? "" : all.setup_notes()[0]);
  all.BeforeTrial();
  auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1600);
  volatile unsigned long spin = 0;
  while (std::chrono::steady_clock::now() < until) spin = spin + 1;
  std::vector<std::string> why;
  auto values = all.AfterTrial(true, &why);
  ASSERT_EQ(values.size(), 1u) << (why.empty() ? "" : why[0]);
  auto samples = Split(values[0], ',');
  EXPECT_GE(samples.size(), 1u);
  EXPECT_LE(samples.size(), 4u);
  for (const auto& s : samples) {
    ASSERT_EQ(s.size() - s.find('.'), 3u) << s;
    double v = std::strtod(s.c_str(), nullptr);
    EXPECT_GE(v, 0);
    EXPECT_LE(v, 100);
  }
}

}  // namespace
}  // namespace ptsn::run
