// pts-native monitor / system-sensors end to end.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/cli/run_binary.h"

namespace {

using ptsn::test::RunPtsNative;

const std::string kEnv = "PTS_NATIVE_CONFIG=/nonexistent/config.yaml MONITOR= MONITOR_INTERVAL=";

TEST(MonitorCommand, PrintsStatusAndMinAvgMax) {
  if (!std::filesystem::exists("/proc/stat")) GTEST_SKIP() << "no /proc/stat";
  auto r = RunPtsNative("monitor --sensors cpu.usage,memory.usage --interval 0.1 --duration 1 --native", kEnv);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Sensors To Be Logged (every 0.1 s, native mode):\n"
                          "   - CPU Usage (Summary) [cpu.usage]: recording\n"
                          "   - Memory Usage [memory.usage]: recording\n"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("CPU Usage (Summary) [cpu.usage], Percent\n    MIN: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Memory Usage [memory.usage], Megabytes\n    MIN: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("sampler CPU time: "), std::string::npos);
}

TEST(MonitorCommand, RequestedSensorThatCannotRecordIsAnError) {
  auto none = RunPtsNative("monitor --sensors cpu.nope --duration 0.2", kEnv);
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.output.find("   - cpu.nope: NOT recording: unknown sensor (known: all, cgroup.cpu-usage, cpu.freq"),
            std::string::npos)
      << none.output;
  EXPECT_NE(none.output.find("pts-native: error: monitor: none of the requested sensors can record (cpu.nope)"),
            std::string::npos);
  if (!std::filesystem::exists("/proc/stat")) return;
  auto partly = RunPtsNative("monitor --sensors memory.usage,cpu.usage.cpu999 --duration 0.3 --interval 0.1", kEnv);
  EXPECT_EQ(partly.exit_code, 1) << partly.output;
  EXPECT_NE(partly.output.find("   - cpu.usage.cpu999: NOT recording: no cpu999 line in /proc/stat"), std::string::npos);
  EXPECT_NE(partly.output.find("Memory Usage [memory.usage], Megabytes"), std::string::npos);
}

TEST(MonitorCommand, BadIntervalNamesTheVariable) {
  auto r = RunPtsNative("monitor --duration 0.2", "PTS_NATIVE_CONFIG=/nonexistent/config.yaml MONITOR_INTERVAL=fast");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("pts-native: error: MONITOR_INTERVAL: 'fast' is not a number of seconds >= 0.05"), std::string::npos)
      << r.output;
  auto opt = RunPtsNative("monitor --interval 0 --duration 0.2", kEnv);
  EXPECT_NE(opt.output.find("--interval: '0' is not a number of seconds >= 0.05"), std::string::npos) << opt.output;
}

TEST(SystemSensors, ListsEverySensorWithItsStatus) {
  auto r = RunPtsNative("system-sensors", kEnv);
  EXPECT_EQ(r.exit_code, 0);
  for (const char* id : {"cpu.temp", "sys.power", "memory.usage", "swap.usage", "sys.iowait"})
    EXPECT_NE(r.output.find(id), std::string::npos) << id << "\n" << r.output;
}

}  // namespace
