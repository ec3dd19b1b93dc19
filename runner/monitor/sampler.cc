#include "runner/monitor/sampler.h"

#include <time.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <mutex>

namespace ptsn::monitor {

namespace {

class SteadyClock : public MonitorClock {
 public:
  double Now() override {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  bool SleepUntil(double deadline) override {
    auto when = std::chrono::steady_clock::time_point(
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(deadline)));
    std::unique_lock<std::mutex> lock(mutex_);
    // wait_until on steady_clock is an absolute CLOCK_MONOTONIC wait (pthread_cond_clockwait).
    cv_.wait_until(lock, when, [&] { return stop_; });
    return !stop_;
  }
  void Wake() override {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    cv_.notify_all();
  }
  void Reset() override {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = false;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false;
};

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

}  // namespace

std::unique_ptr<MonitorClock> SteadyMonitorClock() { return std::make_unique<SteadyClock>(); }

SampleSchedule::SampleSchedule(std::vector<Slot> slots, double interval, MonitorMode mode, double start)
    : slots_(std::move(slots)), state_(slots_.size()), interval_(interval), mode_(mode), start_(start) {
  for (size_t i = 0; i < slots_.size(); ++i) {
    state_[i].deadline = start;
    state_[i].read_next = !slots_[i].windowed;  // a window opens with a first reading
  }
}

double SampleSchedule::NextDeadline() const {
  double next = INFINITY;
  for (const auto& s : state_) next = std::min(next, s.deadline);
  return next;
}

void SampleSchedule::Advance(size_t i, double now) {
  State& s = state_[i];
  const Slot& slot = slots_[i];
  if (mode_ == MonitorMode::kPts && slot.windowed) {
    double period = slot.window + interval_;
    if (!s.read_next) {  // primed: read at the end of this cycle's window
      s.read_next = true;
      s.deadline = start_ + static_cast<double>(s.cycle) * period + slot.window;
      return;
    }
    s.read_next = false;
    s.cycle = std::max(s.cycle + 1, static_cast<long>(std::floor((now - start_) / period)) + 1);
    s.deadline = start_ + static_cast<double>(s.cycle) * period;
    return;
  }
  s.read_next = true;  // native windowed sensors: each read also opens the next window
  s.cycle = std::max(s.cycle + 1, static_cast<long>(std::floor((now - start_) / interval_)) + 1);
  s.deadline = start_ + static_cast<double>(s.cycle) * interval_;
}

Sampler::Sampler(std::vector<MonitoredSensor> sensors, SamplerOptions options, std::unique_ptr<MonitorClock> clock)
    : sensors_(std::move(sensors)), options_(options), clock_(clock ? std::move(clock) : SteadyMonitorClock()) {
  for (const auto& m : sensors_) {
    SensorSeries s;
    s.identifier = m.Identifier();
    s.type_sensor = std::string(m.kind->type) + "." + std::string(m.kind->sensor);
    s.sensor = s.type_sensor + (m.device.empty() ? "" : "." + m.device);
    s.name = m.Name();
    s.base_name = SensorDisplayName(*m.kind);
    s.readable_device = m.readable_device;
    s.unit = m.unit;
    s.decimals = m.kind->decimals;
    s.mode = options_.mode;
    s.values.reserve(options_.reserve);
    s.times.reserve(options_.reserve);
    series_.push_back(std::move(s));
  }
}

Sampler::~Sampler() { Stop(); }

void Sampler::Start() {
  Stop();
  for (auto& s : series_) {
    s.values.clear();  // keeps the capacity
    s.times.clear();
  }
  clock_->Reset();
  thread_ = std::thread([this] { Loop(); });
}

void Sampler::Stop() {
  if (!thread_.joinable()) return;
  clock_->Wake();
  thread_.join();
}

void Sampler::RunOnThisThread() { Loop(); }

void Sampler::Loop() {
  double cpu_start = ThreadCpuSeconds();
  std::vector<SampleSchedule::Slot> slots;
  for (const auto& m : sensors_) slots.push_back({m.kind->windowed, m.kind->pts_window});
  double start = clock_->Now();
  SampleSchedule schedule(std::move(slots), options_.interval, options_.mode, start);
  for (;;) {
    double now = clock_->Now();
    schedule.RunDue(now, [&](size_t i, bool read) {
      SensorReader& reader = *sensors_[i].reader;
      if (!read) {
        reader.Prime(now);
        return;
      }
      double value;
      if (reader.Read(now, &value)) {
        series_[i].values.push_back(value);
        series_[i].times.push_back(now - start);
      }
    });
    if (!clock_->SleepUntil(schedule.NextDeadline())) break;
  }
  thread_cpu_seconds_ = ThreadCpuSeconds() - cpu_start;
}

}  // namespace ptsn::monitor
