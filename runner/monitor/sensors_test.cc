#include "runner/monitor/sensors.h"

#include <gtest/gtest.h>

#include "runner/monitor/test_fixture.h"

namespace ptsn::monitor {
namespace {

using test::FixtureTree;

OpenedSensor Open(const FixtureTree& tree, std::string_view type, std::string_view sensor, const std::string& device = "",
                  MonitorMode mode = MonitorMode::kPts, const std::string& test_dir = "/") {
  const SensorKind* kind = FindSensorKind(type, sensor);
  EXPECT_NE(kind, nullptr);
  return OpenSensor(*kind, device, SensorEnv{SysRoot(tree.root()), mode, test_dir, ""});
}

double ReadOk(SensorReader& r, double now) {
  double v = -1;
  EXPECT_TRUE(r.Read(now, &v));
  return v;
}

TEST(SensorNames, AsPhodeviNamesThem) {
  auto name = [](std::string_view t, std::string_view s) { return SensorDisplayName(*FindSensorKind(t, s)); };
  EXPECT_EQ(name("cpu", "usage"), "CPU Usage");
  EXPECT_EQ(name("cpu", "freq"), "CPU Frequency");
  EXPECT_EQ(name("memory", "usage"), "Memory Usage");
  EXPECT_EQ(name("sys", "temp"), "System Temperature");
  EXPECT_EQ(name("sys", "iowait"), "System Iowait");
  EXPECT_EQ(name("sys", "power"), "System Power Consumption");
  EXPECT_EQ(name("hdd", "read-speed"), "Drive Read Speed");
  EXPECT_EQ(name("cgroup", "cpu-usage"), "Cgroup Cpu Usage");
}

TEST(CpuUsage, PtsModeCountsIowaitAndGuestAsBusy) {
  FixtureTree tree("desktop");
  auto summary = Open(tree, "cpu", "usage");
  auto cpu0 = Open(tree, "cpu", "usage", "cpu0");
  auto cpu1 = Open(tree, "cpu", "usage", "cpu1");
  ASSERT_TRUE(summary.reader && cpu0.reader && cpu1.reader) << summary.error << cpu0.error;
  EXPECT_EQ(summary.readable_device, "Summary");
  EXPECT_EQ(cpu1.readable_device, "CPU1");
  EXPECT_EQ(summary.unit, "Percent");
  double v;
  EXPECT_FALSE(summary.reader->Read(0, &v));  // the first reading only opens a window
  cpu0.reader->Prime(0);
  cpu1.reader->Prime(0);
  tree.Step(1);
  // summary: 410 ticks counted (guest twice), 100 idle -> 100 - 100*100/410
  EXPECT_NEAR(ReadOk(*summary.reader, 0.5), 100.0 - 10000.0 / 410.0, 1e-9);
  EXPECT_DOUBLE_EQ(ReadOk(*cpu0.reader, 0.5), 50.0);  // iowait 25 of 200 counts as busy
  EXPECT_DOUBLE_EQ(ReadOk(*cpu1.reader, 0.5), 100.0);
}

TEST(CpuUsage, NativeModeCountsIowaitAsIdleAndGuestOnce) {
  FixtureTree tree("desktop");
  auto summary = Open(tree, "cpu", "usage", "summary", MonitorMode::kNative);
  auto cpu0 = Open(tree, "cpu", "usage", "cpu0", MonitorMode::kNative);
  summary.reader->Prime(0);
  cpu0.reader->Prime(0);
  tree.Step(1);
  EXPECT_DOUBLE_EQ(ReadOk(*summary.reader, 1), 100.0 * (400 - 100 - 25) / 400);
  EXPECT_DOUBLE_EQ(ReadOk(*cpu0.reader, 1), 37.5);
}

TEST(CpuUsage, CpuGoingOfflineAndBackSkipsTheBrokenWindows) {
  FixtureTree tree("desktop");
  auto summary = Open(tree, "cpu", "usage");
  auto cpu0 = Open(tree, "cpu", "usage", "cpu0");
  auto cpu1 = Open(tree, "cpu", "usage", "cpu1");
  for (auto* s : {&summary, &cpu0, &cpu1}) s->reader->Prime(0);
  tree.Step(1);
  for (auto* s : {&summary, &cpu0, &cpu1}) ReadOk(*s->reader, 1);
  tree.Step(2);  // cpu1 offline: no line, the summary lost cpu1's counters
  double v;
  EXPECT_FALSE(summary.reader->Read(2, &v));
  EXPECT_FALSE(cpu1.reader->Read(2, &v));
  EXPECT_DOUBLE_EQ(ReadOk(*cpu0.reader, 2), 50.0);
  tree.Step(3);  // cpu1 back: the summary jumps by cpu1's whole history, cpu1 starts afresh
  EXPECT_FALSE(summary.reader->Read(3, &v));
  EXPECT_FALSE(cpu1.reader->Read(3, &v));
  EXPECT_DOUBLE_EQ(ReadOk(*cpu0.reader, 3), 0.0);  // iowait stepped back 2 ticks: clamped, not negative
  tree.Step(3);
  EXPECT_DOUBLE_EQ(ReadOk(*summary.reader, 4), 0.0);  // comparable again (PTS: no ticks -> 0)
  EXPECT_DOUBLE_EQ(ReadOk(*cpu1.reader, 4), 0.0);
  EXPECT_FALSE(Open(tree, "cpu", "usage", "cpu7").reader);
  EXPECT_EQ(Open(tree, "cpu", "usage", "cpu7").error, "no cpu7 line in /proc/stat");
}

TEST(CpuFreq, ScalingCurFreqPerCpuAndOffline) {
  FixtureTree tree("desktop");
  auto cpu0 = Open(tree, "cpu", "freq");
  auto cpu1 = Open(tree, "cpu", "freq", "cpu1");
  ASSERT_TRUE(cpu0.reader && cpu1.reader);
  EXPECT_EQ(cpu0.readable_device, "CPU0");
  EXPECT_EQ(cpu0.unit, "Megahertz");
  EXPECT_DOUBLE_EQ(ReadOk(*cpu0.reader, 0), 2445.404);
  tree.Step(1);
  EXPECT_DOUBLE_EQ(ReadOk(*cpu0.reader, 1), 4200);
  tree.Step(2);
  double v;
  EXPECT_FALSE(cpu1.reader->Read(2, &v));
  tree.Step(3);
  EXPECT_DOUBLE_EQ(ReadOk(*cpu1.reader, 3), 3400);
}

TEST(CpuFreq, FallsBackToCpuinfoWithoutCpufreq) {
  FixtureTree tree("server");
  auto cpu1 = Open(tree, "cpu", "freq", "cpu1");
  ASSERT_TRUE(cpu1.reader) << cpu1.error;
  double v = ReadOk(*cpu1.reader, 0);
  EXPECT_GT(v, 0);
  EXPECT_EQ(v, static_cast<double>(static_cast<long long>(v)));  // PTS: intval() of cpu MHz
}

TEST(Memory, PtsDefinitionsOfUsedMemoryAndSwap) {
  FixtureTree tree("desktop");
  auto mem = Open(tree, "memory", "usage");
  auto swap = Open(tree, "swap", "usage");
  ASSERT_TRUE(mem.reader && swap.reader);
  EXPECT_EQ(mem.unit, "Megabytes");
  // MemTotal - MemFree - Buffers - Cached - Slab, in MB
  EXPECT_DOUBLE_EQ(ReadOk(*mem.reader, 0), (24683656.0 - 22978960 - 8124 - 811988 - 129864) / 1024);
  EXPECT_DOUBLE_EQ(ReadOk(*swap.reader, 0), 1024.0);
  FixtureTree server("server");
  EXPECT_EQ(Open(server, "swap", "usage").error, "no swap configured (SwapTotal is 0)");
}

TEST(Iowait, ShareOfIowaitInTheWindow) {
  FixtureTree tree("desktop");
  auto io = Open(tree, "sys", "iowait");
  ASSERT_TRUE(io.reader);
  io.reader->Prime(0);
  tree.Step(1);
  EXPECT_DOUBLE_EQ(ReadOk(*io.reader, 1), 6.25);  // 25 of 400 ticks
}

TEST(DiskSpeed, DeviceUnderTheTestDirectory) {
  FixtureTree tree("desktop");
  auto root = Open(tree, "hdd", "read-speed");
  EXPECT_EQ(root.readable_device, "vda1");  // "/" is mounted from 254:1, a partition
  EXPECT_EQ(Open(tree, "hdd", "read-speed", "", MonitorMode::kPts, "/mnt/fast disk/work").readable_device, "nvme0n1");
  // btrfs reports an anonymous 0:N device: the mount source names the disk
  EXPECT_EQ(Open(tree, "hdd", "write-speed", "", MonitorMode::kPts, "/mnt/pool").readable_device, "nvme0n1");
  EXPECT_EQ(SupportedDevices(*FindSensorKind("hdd", "read-speed"), SensorEnv{SysRoot(tree.root())}),
            (std::vector<std::string>{"vda", "nvme0n1"}));  // PTS's glob order; loop0 and empty stat left out
}

TEST(DiskSpeed, RateAcrossA32BitCounterWrap) {
  FixtureTree tree("desktop");
  auto read = Open(tree, "hdd", "read-speed", "vda");
  auto write = Open(tree, "hdd", "write-speed", "vda");
  ASSERT_TRUE(read.reader && write.reader);
  EXPECT_EQ(read.unit, "MB/s");
  read.reader->Prime(10);
  write.reader->Prime(10);
  tree.Step(1);
  EXPECT_DOUBLE_EQ(ReadOk(*read.reader, 12), 0.5);  // 2048 sectors across the wrap in 2 s
  EXPECT_DOUBLE_EQ(ReadOk(*write.reader, 12), 5.0);
  EXPECT_EQ(Open(tree, "hdd", "read-speed", "sdz").error, "no device 'sdz' in /proc/diskstats");
}

TEST(DiskSpeed, OverlayTestDirectoryFallsBackToTheFirstDisk) {
  FixtureTree tree("server");
  auto s = Open(tree, "hdd", "read-speed", "", MonitorMode::kPts, "/var/lib/scratch");
  ASSERT_TRUE(s.reader) << s.error;
  EXPECT_EQ(s.readable_device, "vda");
  EXPECT_NE(s.note.find("is on overlay (overlay), not on a block device; using the first disk"), std::string::npos) << s.note;
}

TEST(Temperatures, HwmonSearchOrderAsPts) {
  FixtureTree tree("desktop");
  auto cpu = Open(tree, "cpu", "temp");
  ASSERT_TRUE(cpu.reader) << cpu.error;
  EXPECT_EQ(cpu.note, "/sys/class/hwmon/hwmon1/temp3_input");  // k10temp; Tctl of 0 is skipped
  EXPECT_DOUBLE_EQ(ReadOk(*cpu.reader, 0), 51.25);
  auto sys = Open(tree, "sys", "temp");
  ASSERT_TRUE(sys.reader) << sys.error;
  EXPECT_EQ(sys.note, "/sys/class/hwmon/hwmon2/device/temp2_input");  // nvme excluded, temp3 first, then temp2
  EXPECT_DOUBLE_EQ(ReadOk(*sys.reader, 0), 33.0);
  tree.Remove("sys/class/hwmon/hwmon2/device/name");
  auto zone = Open(tree, "sys", "temp");
  EXPECT_EQ(zone.note, "/sys/class/thermal/thermal_zone0/temp");
  FixtureTree server("server");
  EXPECT_FALSE(Open(server, "cpu", "temp").reader);
  EXPECT_NE(Open(server, "sys", "temp").error.find("no board temperature"), std::string::npos);
}

TEST(Power, DischargingBatteryInMilliwattsAndHwmonInWatts) {
  FixtureTree tree("desktop");
  auto bat = Open(tree, "sys", "power");
  ASSERT_TRUE(bat.reader) << bat.error;
  EXPECT_EQ(bat.unit, "Milliwatts");
  EXPECT_DOUBLE_EQ(ReadOk(*bat.reader, 0), 12500);
  tree.Step(1);
  EXPECT_DOUBLE_EQ(ReadOk(*bat.reader, 1), 17500);
  tree.Write("sys/class/power_supply/BAT0/status", "Charging\n");
  EXPECT_FALSE(Open(tree, "sys", "power").reader);
  FixtureTree server("server");
  auto psu = Open(server, "sys", "power");
  ASSERT_TRUE(psu.reader) << psu.error;
  EXPECT_EQ(psu.unit, "Watts");
  EXPECT_DOUBLE_EQ(ReadOk(*psu.reader, 0), 182);
}

TEST(Power, RaplPackagesAcrossTheEnergyCounterWrap) {
  FixtureTree tree("desktop");
  auto rapl = Open(tree, "cpu", "power");
  ASSERT_TRUE(rapl.reader) << rapl.error;
  EXPECT_EQ(rapl.note, "RAPL intel-rapl:0");  // psys and the core sub-domain are not added
  rapl.reader->Prime(0);
  tree.Step(1);
  EXPECT_NEAR(ReadOk(*rapl.reader, 2), 30.000001 / 2, 1e-9);
}

TEST(Cgroup, CpuStatUsageOverAllCpuTime) {
  FixtureTree tree("desktop");
  auto cg = Open(tree, "cgroup", "cpu-usage");
  ASSERT_TRUE(cg.reader) << cg.error;
  EXPECT_EQ(cg.note, "cgroup /user.slice/bench.scope");
  cg.reader->Prime(0);
  tree.Step(1);
  EXPECT_DOUBLE_EQ(ReadOk(*cg.reader, 1), 37.5);  // 1.5 s of 4 s CPU time
  FixtureTree server("server");
  EXPECT_EQ(Open(server, "cgroup", "cpu-usage").error, "no cgroup2 file system mounted");
}

TEST(Devices, CpuListsAndSensorsWithoutDevices) {
  FixtureTree tree("desktop");
  SensorEnv env{SysRoot(tree.root())};
  EXPECT_EQ(SupportedDevices(*FindSensorKind("cpu", "usage"), env), (std::vector<std::string>{"cpu0", "cpu1", "summary"}));
  EXPECT_EQ(SupportedDevices(*FindSensorKind("cpu", "freq"), env), (std::vector<std::string>{"cpu0", "cpu1"}));
  EXPECT_TRUE(SupportedDevices(*FindSensorKind("memory", "usage"), env).empty());
  EXPECT_EQ(Open(tree, "memory", "usage", "x").error, "takes no device");
}

TEST(RealSystem, CpuUsageAndMemoryWork) {
  SensorEnv env{SysRoot("/")};
  auto cpu = OpenSensor(*FindSensorKind("cpu", "usage"), "", env);
  auto mem = OpenSensor(*FindSensorKind("memory", "usage"), "", env);
  if (!cpu.reader || !mem.reader) GTEST_SKIP() << "no /proc on this system: " << cpu.error;
  double v;
  EXPECT_TRUE(mem.reader->Read(0, &v));
  EXPECT_GT(v, 0);
}

}  // namespace
}  // namespace ptsn::monitor
