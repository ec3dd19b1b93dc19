#include "runner/monitor/proc_parse.h"

#include <gtest/gtest.h>

namespace ptsn::monitor {
namespace {

const char* kStat =
    "cpu  11429 0 4615 89080 638 0 164 286 0 0\n"
    "cpu0 5337 0 1978 45590 44 0 37 124 0 0\n"
    "cpu1 6091 0 2637 43490 594 0 127 161 0 0\n"
    "cpu10 1 2 3 4 5 6 7 8 9 10\n"
    "intr 214899 0 0\n"
    "ctxt 360660\n";

TEST(ProcStat, SummaryAndPerCpuLines) {
  CpuTimes t;
  ASSERT_TRUE(ParseProcStatCpu(kStat, -1, &t));
  EXPECT_EQ(t.columns, 10);
  EXPECT_EQ(t.v[kUser], 11429u);
  EXPECT_EQ(t.v[kIdle], 89080u);
  EXPECT_EQ(t.v[kSteal], 286u);
  ASSERT_TRUE(ParseProcStatCpu(kStat, 1, &t));
  EXPECT_EQ(t.v[kIowait], 594u);
  ASSERT_TRUE(ParseProcStatCpu(kStat, 10, &t));  // "cpu1" must not match "cpu10"
  EXPECT_EQ(t.v[kUser], 1u);
  EXPECT_FALSE(ParseProcStatCpu(kStat, 2, &t));  // offline CPU: no line
  EXPECT_EQ(ProcStatCpus(kStat), (std::vector<int>{0, 1, 10}));
  EXPECT_EQ(CountProcStatCpus(kStat), 3);
}

TEST(ProcStat, OldKernelsWithFewerColumns) {
  CpuTimes t;
  ASSERT_TRUE(ParseProcStatCpu("cpu  1 2 3 4\n", -1, &t));
  EXPECT_EQ(t.columns, 4);
  EXPECT_EQ(t.v[kIowait], 0u);
  EXPECT_FALSE(ParseProcStatCpu("cpu  1 2\n", -1, &t));
}

TEST(Meminfo, ValuesInKb) {
  const char* m = "MemTotal:       24683656 kB\nMemFree:        22509464 kB\nSwapTotal:             0 kB\n";
  EXPECT_EQ(MeminfoKb(m, "MemTotal"), 24683656u);
  EXPECT_EQ(MeminfoKb(m, "SwapTotal"), 0u);
  EXPECT_FALSE(MeminfoKb(m, "Mem"));  // whole key only
  EXPECT_FALSE(MeminfoKb(m, "Slab"));
}

TEST(Diskstats, ByNameAndByNumber) {
  const char* d =
      "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0\n"
      " 254       0 vda 51929 8851 3338826 15291 7945 17066 1023768 6487 0 10468 23668\n"
      " 254       1 vda1 1 2 3 4 5 6 7 8 9 10 11\n";
  DiskCounters c;
  ASSERT_TRUE(ParseDiskstats(d, "vda", &c));
  EXPECT_EQ(c.sectors_read, 3338826u);
  EXPECT_EQ(c.sectors_written, 1023768u);
  ASSERT_TRUE(ParseDiskstats(d, "vda1", &c));
  EXPECT_EQ(c.sectors_written, 7u);
  EXPECT_FALSE(ParseDiskstats(d, "vd", &c));
  EXPECT_EQ(DiskstatsName(d, 254, 1), "vda1");
  EXPECT_FALSE(DiskstatsName(d, 8, 0));
}

TEST(Mountinfo, LongestPrefixEscapesAndShadowing) {
  const char* m =
      "27 1 254:1 / / rw - ext4 /dev/vda1 rw\n"
      "45 27 259:0 / /mnt/fast\\040disk rw - xfs /dev/nvme0n1 rw\n"
      "46 27 0:40 / /mnt/fastdisk rw - tmpfs tmpfs rw\n"
      "47 27 0:41 / /mnt/fastdisk rw - tmpfs other rw\n"
      "31 23 0:28 / /sys/fs/cgroup rw shared:4 - cgroup2 cgroup2 rw\n";
  auto a = MountOfPath(m, "/mnt/fast disk/x");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->mount_point, "/mnt/fast disk");
  EXPECT_EQ(a->major, 259u);
  EXPECT_EQ(MountOfPath(m, "/mnt/fastdiskette")->mount_point, "/");  // prefix must end at '/'
  EXPECT_EQ(MountOfPath(m, "/mnt/fastdisk")->source, "other");       // the later mount shadows
  EXPECT_EQ(Cgroup2MountPoint(m), "/sys/fs/cgroup");                 // optional fields skipped
  EXPECT_EQ(Cgroup2Path("12:cpu:/x\n0::/user.slice/a.scope\n"), "/user.slice/a.scope");
  EXPECT_FALSE(Cgroup2Path("2:cpu:/docker\n"));
}

TEST(Numbers, KeyedValuesCpuinfoAndPlainNumbers) {
  EXPECT_EQ(KeyedValue("usage_usec 5000\nuser_usec 4000\n", "user_usec"), 4000u);
  EXPECT_FALSE(KeyedValue("usage_usec 5000\n", "usage"));
  EXPECT_EQ(ParseNumber(" 48000\n"), 48000.0);
  EXPECT_FALSE(ParseNumber(""));
  EXPECT_FALSE(ParseNumber("n/a"));
  const char* cpuinfo = "processor\t: 0\ncpu MHz\t\t: 2445.404\n\nprocessor\t: 1\ncpu MHz\t\t: 3100.5\n";
  EXPECT_DOUBLE_EQ(*CpuinfoMhz(cpuinfo, 1), 3100.5);
  EXPECT_FALSE(CpuinfoMhz(cpuinfo, 2));
}

TEST(CounterDelta, WrapsAt32BitsAtAGivenRangeOrAt64Bits) {
  EXPECT_EQ(CounterDelta(10, 25), 15u);
  EXPECT_EQ(CounterDelta(4294966272ULL, 1024), 2048u);                    // 32-bit unsigned long
  EXPECT_EQ(CounterDelta(262140000000ULL, 100, 262143328851ULL), 3328951u);  // RAPL range + 1
  EXPECT_EQ(CounterDelta(0xfffffffffffffff0ULL, 0x10), 0x20u);            // 64-bit
}

}  // namespace
}  // namespace ptsn::monitor
