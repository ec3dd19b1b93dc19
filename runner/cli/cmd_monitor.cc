// monitor, system-sensors: the sensors of runner/monitor by hand.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <thread>

#include "runner/cli/command.h"
#include "runner/common/args.h"
#include "runner/common/error.h"
#include "runner/common/settings.h"
#include "runner/monitor/monitor_session.h"

namespace ptsn::cli {

namespace {

using monitor::MonitorConfig;
using monitor::MonitorSession;

double PositiveSeconds(const std::string& option, const std::string& text, double minimum) {
  try {
    size_t used = 0;
    double v = std::stod(text, &used);
    if (used == text.size() && v >= minimum) return v;
  } catch (...) {
  }
  char min[32];
  std::snprintf(min, sizeof min, "%g", minimum);
  throw Error(option + ": '" + text + "' is not a number of seconds >= " + min);
}

// A request that names sensors explicitly must record; "all" selections only report.
bool Explicit(const std::string& request) {
  return request != "all" && request.rfind("all.", 0) != 0 && (request.size() < 4 || request.substr(request.size() - 4) != ".all");
}

int Monitor(const std::vector<std::string>& argv) {
  Args args = Args::Parse(argv, {{"--sensors", "--interval", "--duration"}, {"--pts", "--native"}});
  if (!args.positional().empty()) throw Error("monitor: unexpected argument '" + args.positional()[0] + "'");
  const Settings& settings = GlobalSettings();
  MonitorConfig config = MonitorConfig::FromSettings(settings, settings.Get("run.test_dir"));
  config.sensors = args.ValueOr("--sensors", config.sensors.empty() ? "cpu.usage,memory.usage" : config.sensors);
  if (auto v = args.Value("--interval")) config.interval = PositiveSeconds("--interval", *v, 0.05);
  double duration = PositiveSeconds("--duration", args.ValueOr("--duration", "5"), 0.1);
  if (args.Has("--pts") && args.Has("--native")) throw Error("monitor: --pts and --native exclude each other");
  if (args.Has("--pts")) config.mode = monitor::MonitorMode::kPts;
  if (args.Has("--native")) config.mode = monitor::MonitorMode::kNative;

  MonitorSession session(config);
  for (const auto& line : session.StatusLines()) std::cout << line << "\n";
  int failures = 0;
  for (const auto& s : session.selection().statuses)
    if (!s.recording && Explicit(s.request)) ++failures;
  if (!session.any_recording()) throw Error("monitor: none of the requested sensors can record (" + config.sensors + ")");
  std::cout << "Monitoring for " << duration << " s...\n" << std::flush;

  auto start = std::chrono::steady_clock::now();
  session.BeginTest();
  std::this_thread::sleep_for(std::chrono::duration<double>(duration));
  session.EndTest();
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::cout << "\n";
  for (const auto& s : session.last_series()) {
    std::vector<double> kept;
    for (double v : s.values)
      if (v >= 0) kept.push_back(v);
    if (kept.empty()) {
      std::cerr << "pts-native: error: " << s.sensor << " (" << s.name << ") produced no sample in " << duration << " s\n";
      ++failures;
      continue;
    }
    double sum = 0;
    for (double v : kept) sum += v;
    std::printf("%s [%s], %s\n    MIN: %.2f  AVG: %.2f  MAX: %.2f  (%zu samples)\n", s.name.c_str(), s.sensor.c_str(),
                s.unit.c_str(), *std::min_element(kept.begin(), kept.end()), sum / static_cast<double>(kept.size()),
                *std::max_element(kept.begin(), kept.end()), kept.size());
  }
  std::printf("sampler CPU time: %.6f s over %.2f s (%.4f %% of one core)\n", session.sampler_cpu_seconds(), wall,
              100.0 * session.sampler_cpu_seconds() / wall);
  return failures == 0 ? 0 : 1;
}

// PTS's system-sensors: every sensor and device this system can monitor.
int SystemSensors(const std::vector<std::string>& argv) {
  Args args = Args::Parse(argv, {{}, {}});
  if (!args.positional().empty()) throw Error("system-sensors: unexpected argument '" + args.positional()[0] + "'");
  MonitorConfig config = MonitorConfig::FromSettings(GlobalSettings(), GlobalSettings().Get("run.test_dir"));
  config.sensors = "all,cgroup.all";
  config.performance_per_watt.clear();
  config.performance_per_sensor.clear();
  for (const auto& kind : monitor::SensorKinds())
    if (kind.has_devices) config.sensors += "," + std::string(kind.type) + "." + std::string(kind.sensor) + ".all";
  MonitorSession session(config);
  std::cout << "Supported sensors (MONITOR=<type>.<sensor>[.<device>]):\n";
  for (const auto& s : session.selection().statuses) std::cout << monitor::FormatStatus(s) << "\n";
  return 0;
}

}  // namespace

std::vector<Command> MonitorCommands() {
  return {
      {"monitor", {}, "Monitoring", "[--sensors LIST] [--interval S] [--duration S] [--pts|--native]",
       "sample sensors (MONITOR syntax) for a while and print each one's MIN/AVG/MAX", Monitor},
      {"system-sensors", {"sensors"}, "Monitoring", "", "list the sensors and devices MONITOR= can record here", SystemSensors},
  };
}

}  // namespace ptsn::cli
