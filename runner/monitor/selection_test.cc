#include "runner/monitor/selection.h"

#include <gtest/gtest.h>

#include "runner/monitor/test_fixture.h"

namespace ptsn::monitor {
namespace {

using test::FixtureTree;

std::vector<std::string> Names(const SensorSelection& s) {
  std::vector<std::string> out;
  for (const auto& m : s.sensors) out.push_back(m.Identifier() + "=" + m.Name());
  return out;
}

TEST(ParseSelection, PtsForms) {
  auto r = ParseSelection(" cpu.usage, all.cpu ,hdd.read-speed.sda,cpu.usage.all,all,all.cpu.freq,,x");
  ASSERT_EQ(r.size(), 7u);
  EXPECT_EQ(r[0].type + "|" + r[0].sensor + "|" + r[0].device, "cpu|usage|");
  EXPECT_EQ(r[1].type + "|" + r[1].sensor + "|" + r[1].device, "cpu|all|");
  EXPECT_EQ(r[2].device, "sda");
  EXPECT_EQ(r[3].device, "all");
  EXPECT_TRUE(r[4].everything);
  EXPECT_EQ(r[5].type + "|" + r[5].sensor + "|" + r[5].device, "cpu|freq|all");
  EXPECT_EQ(r[6].text, "x");
}

TEST(SelectSensors, PtsOrderNamesAndInstances) {
  FixtureTree tree("desktop");
  SensorEnv env{SysRoot(tree.root())};
  // Order follows PTS's sensor order, not the order typed.
  auto s = SelectSensors("memory.usage,cpu.usage", env);
  EXPECT_EQ(Names(s), (std::vector<std::string>{"cpu.usage=CPU Usage (Summary)", "memory.usage=Memory Usage"}));
  ASSERT_EQ(s.statuses.size(), 2u);
  EXPECT_TRUE(s.statuses[0].recording);

  auto all_cpu = SelectSensors("cpu.usage.all", env);
  EXPECT_EQ(Names(all_cpu), (std::vector<std::string>{"cpu.usage=CPU Usage (CPU0)", "cpu.usage.1=CPU Usage (CPU1)",
                                                      "cpu.usage.2=CPU Usage (Summary)"}));
  // "cpu.usage" and "cpu.usage.summary" are one sensor.
  EXPECT_EQ(SelectSensors("cpu.usage,cpu.usage.summary,cpu.usage.cpu1", env).sensors.size(), 2u);
  EXPECT_EQ(Names(SelectSensors("hdd.write-speed.nvme0n1", env)),
            (std::vector<std::string>{"hdd.write-speed=Drive Write Speed (nvme0n1)"}));
}

TEST(SelectSensors, AllLeavesCgroupOutAndReportsWhatCannotRecord) {
  FixtureTree tree("server");
  SensorEnv env{SysRoot(tree.root())};
  auto s = SelectSensors("all", env);
  std::vector<std::string> not_recording;
  for (const auto& st : s.statuses) {
    EXPECT_NE(st.sensor.rfind("cgroup", 0), 0u) << "cgroup is not part of 'all' (as PTS)";
    if (!st.recording) not_recording.push_back(st.sensor);
  }
  EXPECT_EQ(not_recording, (std::vector<std::string>{"cpu.power", "cpu.temp", "swap.usage", "sys.temp"}));
  bool has_psu = false;
  for (const auto& m : s.sensors) has_psu = has_psu || (m.Identifier() == "sys.power" && m.unit == "Watts");
  EXPECT_TRUE(has_psu);
}

TEST(SelectSensors, UnknownNamesDevicesAndTypos) {
  FixtureTree tree("desktop");
  SensorEnv env{SysRoot(tree.root())};
  auto s = SelectSensors("cpu.usge,gpu.temp,cpu,memory.usage.x,cpu.usage.cpu9", env);
  EXPECT_TRUE(s.sensors.empty());
  ASSERT_EQ(s.statuses.size(), 5u);
  EXPECT_EQ(FormatStatus(s.statuses[0]).substr(0, 48), "   - cpu.usge: NOT recording: unknown sensor (kn");
  EXPECT_EQ(s.statuses[1].sensor, "gpu.temp");
  EXPECT_NE(s.statuses[2].detail.find("expected <type>.<sensor>"), std::string::npos);
  // Unknown names first (in the order typed), then per sensor in PTS's order.
  EXPECT_EQ(s.statuses[3].sensor, "cpu.usage.cpu9");
  EXPECT_EQ(s.statuses[3].detail, "no cpu9 line in /proc/stat");
  EXPECT_EQ(s.statuses[4].sensor, "memory.usage.x");
  EXPECT_EQ(s.statuses[4].detail, "this sensor takes no device");
}

TEST(SelectSensors, PerformanceSensorsAreAdded) {
  FixtureTree tree("desktop");
  SensorEnv env{SysRoot(tree.root())};
  auto s = SelectSensors("cpu.usage", env, {"sys.power"});
  EXPECT_EQ(Names(s), (std::vector<std::string>{"cpu.usage=CPU Usage (Summary)", "sys.power=System Power Consumption"}));
  EXPECT_EQ(FormatStatus(s.statuses[1]), "   - System Power Consumption [sys.power]: recording (battery BAT0)");
}

}  // namespace
}  // namespace ptsn::monitor
