// Overhead of the monitor sampler on an idle system: CPU time of the sampler thread (and of the
// whole process, to catch anything else) while the main thread sleeps, for each interval,
// median of several runs, as a percentage of one core. The process CPU time of the same sleep
// without a sampler is the "without MONITOR" baseline.
//
//   bench_monitor [--sensors all] [--intervals 1,0.1] [--duration 30] [--runs 3] [--native]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "runner/common/args.h"
#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/monitor/sampler.h"
#include "runner/monitor/selection.h"

using namespace ptsn;
using namespace ptsn::monitor;

namespace {

double ProcessCpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Run {
  double thread_percent, process_percent;
  size_t samples;
};

Run Measure(const std::vector<MonitoredSensor>* sensors, SamplerOptions options, double duration) {
  double cpu0 = ProcessCpuSeconds();
  auto t0 = std::chrono::steady_clock::now();
  double thread_cpu = 0;
  size_t samples = 0;
  if (sensors) {
    Sampler sampler(*sensors, options);
    cpu0 = ProcessCpuSeconds();
    t0 = std::chrono::steady_clock::now();
    sampler.Start();
    std::this_thread::sleep_for(std::chrono::duration<double>(duration));
    sampler.Stop();
    thread_cpu = sampler.thread_cpu_seconds();
    for (const auto& s : sampler.series()) samples += s.values.size();
  } else {
    std::this_thread::sleep_for(std::chrono::duration<double>(duration));
  }
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return {100 * thread_cpu / wall, 100 * (ProcessCpuSeconds() - cpu0) / wall, samples};
}

}  // namespace

int main(int argc, char** argv) try {
  Args args = Args::Parse(std::vector<std::string>(argv + 1, argv + argc),
                          {{"--sensors", "--intervals", "--duration", "--runs"}, {"--native"}});
  std::string sensors = args.ValueOr("--sensors", "all");
  double duration = std::stod(args.ValueOr("--duration", "30"));
  int runs = std::stoi(args.ValueOr("--runs", "3"));
  MonitorMode mode = args.Has("--native") ? MonitorMode::kNative : MonitorMode::kPts;
  SensorSelection selection = SelectSensors(sensors, SensorEnv{SysRoot("/"), mode, "/", ""});
  std::printf("sensors recording (%zu):", selection.sensors.size());
  for (const auto& m : selection.sensors) std::printf(" %s", m.Identifier().c_str());
  std::printf("\nmode %s, %g s idle per run, median of %d runs\n\n", MonitorModeName(mode), duration, runs);
  std::printf("%-38s %14s %16s %10s\n", "case", "thread %core", "process %core", "samples");

  std::vector<double> base;
  for (int r = 0; r < runs; ++r) base.push_back(Measure(nullptr, {}, duration).process_percent);
  std::printf("%-38s %14s %15.4f%% %10s\n", "no MONITOR", "-", Median(base), "-");
  for (const auto& text : Split(args.ValueOr("--intervals", "1,0.1"), ',')) {
    SamplerOptions options;
    options.interval = std::stod(text);
    options.mode = mode;
    std::vector<double> thread, process, samples;
    for (int r = 0; r < runs; ++r) {
      Run run = Measure(&selection.sensors, options, duration);
      thread.push_back(run.thread_percent);
      process.push_back(run.process_percent);
      samples.push_back(static_cast<double>(run.samples));
    }
    std::string label = "MONITOR=" + sensors + " @" + text + "s";
    std::printf("%-38s %13.4f%% %15.4f%% %10.0f\n", label.c_str(), Median(thread), Median(process), Median(samples));
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_monitor: %s\n", e.what());
  return 1;
}
