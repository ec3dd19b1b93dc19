// One thread samples every monitored sensor on absolute deadlines (start + k x interval, so
// no drift accumulates and a late tick does not shift the later ones). Per sample it does one
// pread of a kept-open file and a parse into fixed buffers; the series vectors are reserved up
// front, so the steady state allocates nothing.
//
// Runner use: Start() at a test's pre-script, Stop() after its post-script, then series().
#pragma once

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "runner/monitor/selection.h"

namespace ptsn::monitor {

struct SensorSeries {
  std::string identifier;  // PTS's sensor_object_identifier: "cpu.usage"
  std::string sensor;      // "cpu.usage" or "cpu.usage.cpu1" (as selected)
  std::string type_sensor; // "cpu.usage" (the kind, for PERFORMANCE_PER_SENSOR)
  std::string name;        // "CPU Usage (Summary)"
  std::string base_name;   // "CPU Usage" (without the device)
  std::string readable_device;  // "Summary", "CPU1", "vda", ""
  std::string unit;        // "Percent"
  int decimals = 2;        // how PTS formats a sample
  MonitorMode mode = MonitorMode::kPts;
  std::vector<double> values;
  std::vector<double> times;  // seconds since Start() of each value
};

// Time for the sampler; a fake one drives the schedule in tests without sleeping.
class MonitorClock {
 public:
  virtual ~MonitorClock() = default;
  virtual double Now() = 0;  // monotonic seconds
  // Waits until `deadline` (absolute, Now()'s scale); false when Wake() asked to stop.
  virtual bool SleepUntil(double deadline) = 0;
  virtual void Wake() = 0;
  virtual void Reset() {}  // before a new Start()
};
std::unique_ptr<MonitorClock> SteadyMonitorClock();

// Which sensor primes or reads when. Native mode: every sensor on start + k*T (windowed sensors
// prime at k = 0, then each read closes one window and opens the next). PTS mode: instant
// sensors on start + k*T; each windowed sensor loops "first reading, wait its window, second
// reading, sleep T" as PTS's per-sensor process does, i.e. cycles of (window + T).
class SampleSchedule {
 public:
  struct Slot {
    bool windowed = false;
    double window = 0;  // PTS window (seconds)
  };
  SampleSchedule(std::vector<Slot> slots, double interval, MonitorMode mode, double start);
  double NextDeadline() const;
  // Calls action(index, read) once for each sensor due at `now` (read = false: prime), then
  // moves its deadline on; missed ticks are skipped, not caught up.
  template <typename F>
  void RunDue(double now, F&& action) {
    for (size_t i = 0; i < state_.size(); ++i) {
      if (state_[i].deadline > now) continue;
      bool read = state_[i].read_next;
      action(i, read);
      Advance(i, now);
    }
  }

 private:
  struct State {
    double deadline = 0;
    long cycle = 0;
    bool read_next = true;
  };
  void Advance(size_t i, double now);
  std::vector<Slot> slots_;
  std::vector<State> state_;
  double interval_;
  MonitorMode mode_;
  double start_;
};

struct SamplerOptions {
  double interval = 1.0;  // seconds (MONITOR_INTERVAL)
  MonitorMode mode = MonitorMode::kPts;
  size_t reserve = 4096;  // samples per sensor reserved at construction
};

class Sampler {
 public:
  Sampler(std::vector<MonitoredSensor> sensors, SamplerOptions options, std::unique_ptr<MonitorClock> clock = nullptr);
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  void Start();  // clears the previous series; starts the thread
  void Stop();   // wakes and joins the thread; no sample is taken at stop
  bool running() const { return thread_.joinable(); }
  // Valid after Stop(); one entry per sensor, in the sensors' order.
  const std::vector<SensorSeries>& series() const { return series_; }
  const std::vector<MonitoredSensor>& sensors() const { return sensors_; }
  const SamplerOptions& options() const { return options_; }
  // CPU time the sampler thread used during the last Start()..Stop(), in seconds.
  double thread_cpu_seconds() const { return thread_cpu_seconds_; }
  // Runs the loop on the calling thread until the clock says stop (tests with a fake clock).
  void RunOnThisThread();

 private:
  void Loop();
  std::vector<MonitoredSensor> sensors_;
  SamplerOptions options_;
  std::unique_ptr<MonitorClock> clock_;
  std::vector<SensorSeries> series_;
  std::thread thread_;
  double thread_cpu_seconds_ = 0;
};

}  // namespace ptsn::monitor
