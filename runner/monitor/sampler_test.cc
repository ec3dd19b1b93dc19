#include "runner/monitor/sampler.h"

#include <gtest/gtest.h>

#include <cmath>

#include "runner/monitor/test_fixture.h"

#include "runner/monitor/test_allocations.h"

namespace ptsn::monitor {
namespace {

using test::FakeClock;

// Records when it was primed and read; a windowed reader returns the window length.
class FakeReader : public SensorReader {
 public:
  void Prime(double now) override {
    primes.push_back(now);
    last = now;
  }
  bool Read(double now, double* value) override {
    reads.push_back(now);
    *value = now - last;
    last = now;
    return true;
  }
  std::vector<double> primes, reads;
  double last = 0;
};

struct Fixture {
  std::shared_ptr<FakeReader> cpu = std::make_shared<FakeReader>();     // windowed, 0.5 s PTS window
  std::shared_ptr<FakeReader> iowait = std::make_shared<FakeReader>();  // windowed, 1 s PTS window
  std::shared_ptr<FakeReader> memory = std::make_shared<FakeReader>();  // instant
  std::vector<MonitoredSensor> Sensors() {
    std::vector<MonitoredSensor> s(3);
    s[0].kind = FindSensorKind("cpu", "usage");
    s[0].readable_device = "Summary";
    s[0].unit = "Percent";
    s[0].reader = cpu;
    s[1].kind = FindSensorKind("sys", "iowait");
    s[1].unit = "Percent";
    s[1].reader = iowait;
    s[2].kind = FindSensorKind("memory", "usage");
    s[2].unit = "Megabytes";
    s[2].reader = memory;
    return s;
  }
};

std::vector<double> Relative(const std::vector<double>& v) {
  std::vector<double> out;
  for (double x : v) out.push_back(x - 100);
  return out;
}

TEST(Sampler, PtsModeWindowThenIntervalPerWindowedSensor) {
  Fixture f;
  Sampler sampler(f.Sensors(), {1.0, MonitorMode::kPts, 64}, std::make_unique<FakeClock>(100 + 36));
  sampler.RunOnThisThread();
  // cpu.usage: prime at 0, read at 0.5, sleep 1 s: one sample per 1.5 s, each over 0.5 s
  EXPECT_EQ(Relative(f.cpu->primes).size(), 25u);
  EXPECT_EQ(sampler.series()[0].values.size(), 24u);  // what PTS recorded for ~36 s tests
  EXPECT_EQ(Relative(f.cpu->reads)[1], 2.0);
  EXPECT_EQ(Relative(f.cpu->reads).back(), 35.0);
  for (double w : sampler.series()[0].values) EXPECT_DOUBLE_EQ(w, 0.5);
  // sys.iowait: 1 s window, 2 s period
  EXPECT_EQ(Relative(f.iowait->reads)[0], 1.0);
  EXPECT_EQ(Relative(f.iowait->reads)[1], 3.0);
  // instant sensors: every second from 0
  EXPECT_EQ(sampler.series()[2].values.size(), 37u);
  EXPECT_EQ(sampler.series()[2].times[36], 36.0);
  EXPECT_EQ(sampler.series()[0].name, "CPU Usage (Summary)");
  EXPECT_EQ(sampler.series()[0].mode, MonitorMode::kPts);
}

TEST(Sampler, NativeModeWindowsTileTheRunWithoutGaps) {
  Fixture f;
  Sampler sampler(f.Sensors(), {0.25, MonitorMode::kNative, 64}, std::make_unique<FakeClock>(100 + 10));
  sampler.RunOnThisThread();
  EXPECT_EQ(f.cpu->primes.size(), 1u);
  ASSERT_EQ(sampler.series()[0].values.size(), 40u);
  for (size_t i = 0; i < 40; ++i) {
    EXPECT_DOUBLE_EQ(sampler.series()[0].values[i], 0.25);                          // each window = interval
    EXPECT_DOUBLE_EQ(sampler.series()[0].times[i], 0.25 * static_cast<double>(i + 1));  // absolute grid, no drift
  }
  EXPECT_EQ(sampler.series()[2].values.size(), 41u);
}

TEST(Sampler, LateWakeUpSkipsMissedTicksAndStaysOnTheGrid) {
  Fixture f;
  auto clock = std::make_unique<FakeClock>(100 + 10);
  clock->MakeLate(3, 2.3);  // the third wake-up comes 2.3 s late (suspend, overload)
  Sampler sampler(f.Sensors(), {1.0, MonitorMode::kNative, 64}, std::move(clock));
  sampler.RunOnThisThread();
  auto t = sampler.series()[2].times;
  std::vector<double> expected{0, 1, 2, 5.3, 6, 7, 8, 9, 10};
  ASSERT_EQ(t.size(), expected.size());
  for (size_t i = 0; i < t.size(); ++i) EXPECT_NEAR(t[i], expected[i], 1e-9);
}

TEST(Sampler, RealThreadStartStopAndReuse) {
  Fixture f;
  Sampler sampler(f.Sensors(), {0.02, MonitorMode::kNative, 64});
  for (int run = 0; run < 2; ++run) {
    sampler.Start();
    EXPECT_TRUE(sampler.running());
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    sampler.Stop();
    EXPECT_FALSE(sampler.running());
    const auto& mem = sampler.series()[2];
    EXPECT_GE(mem.values.size(), 5u);   // ~15 on an idle machine; loose for a loaded CI box
    EXPECT_LE(mem.values.size(), 17u);  // never more than the grid allows
    for (size_t i = 1; i < mem.times.size(); ++i) EXPECT_GT(mem.times[i], mem.times[i - 1]);
    EXPECT_GE(sampler.thread_cpu_seconds(), 0);
  }
}

// Every real sensor of the desktop fixture, sampled for 10 s and for 100 s of (fake) time: the
// allocation count must not grow with the number of samples.
TEST(Sampler, NoAllocationPerSampleInSteadyState) {
  test::FixtureTree tree("desktop");
  SensorSelection selection = SelectSensors("all,cgroup.all", SensorEnv{SysRoot(tree.root()), MonitorMode::kNative, "/", ""});
  ASSERT_GE(selection.sensors.size(), 12u);
  auto allocations_for = [&](double seconds) {
    Sampler sampler(selection.sensors, {0.5, MonitorMode::kNative, 1024}, std::make_unique<FakeClock>(100 + seconds));
    sampler.RunOnThisThread();  // warms the read buffers
    long before = test::AllocationCount();
    sampler.RunOnThisThread();
    size_t samples = 0;
    for (const auto& s : sampler.series()) samples += s.values.size();
    EXPECT_GT(samples, seconds);  // it did sample
    return test::AllocationCount() - before;
  };
  EXPECT_EQ(allocations_for(10), allocations_for(100));
}

}  // namespace
}  // namespace ptsn::monitor
