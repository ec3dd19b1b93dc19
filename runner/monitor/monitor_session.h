// The runner's view of monitoring: configure once from the settings (MONITOR, MONITOR_INTERVAL,
// PERFORMANCE_PER_WATT, ...), print the sensor status lines, then per test
//   BeginTest()  at the pre-script,  EndTest() after the post-script,
//   RecordTest(file, test_result, identifier) once the test's Result is in the file,
// and at the end FinishSession(file, identifier) and RecordEnvironment(file.generated).
//
//   MonitorSession monitor(MonitorConfig::FromSettings(GlobalSettings(), test_dir));
//   for (auto& line : monitor.StatusLines()) puts(line.c_str());
//   monitor.BeginTest(); ...run the test...; monitor.EndTest();
//   auto outcome = monitor.RecordTest(file, file.results[i], "Baseline");  // print outcome.problems
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "results-xml/model/result_file.h"
#include "runner/common/settings.h"
#include "runner/monitor/record.h"
#include "runner/monitor/sampler.h"
#include "runner/monitor/selection.h"

namespace ptsn::monitor {

struct MonitorConfig {
  std::string sensors;                 // MONITOR
  double interval = 1.0;               // MONITOR_INTERVAL, seconds
  MonitorMode mode = MonitorMode::kPts;
  bool session_summary = false;        // monitor.session_summary
  std::string performance_per_watt;    // PERFORMANCE_PER_WATT (any non-empty value turns it on, as PTS)
  std::string performance_per_sensor;  // PERFORMANCE_PER_SENSOR "type.sensor,..."
  std::string test_dir;                // the disk hdd.*-speed watches by default
  std::string cgroup;                  // cgroup.cpu-usage path ("" = ours)
  std::string root = "/";              // where /proc and /sys are (fixtures in tests)

  // Throws ptsn::Error naming MONITOR_INTERVAL when it is not a number of at least 0.05 s.
  static MonitorConfig FromSettings(const Settings& settings, const std::string& test_dir);
  bool enabled() const { return !sensors.empty() || !performance_per_watt.empty() || !performance_per_sensor.empty(); }
};

// Adds `more` to `into` sensor by sensor (matched by `sensor`; new sensors appended), the times
// of `more` following `into`'s last: one series from several sampled stretches (a target's trials).
void AppendSeries(std::vector<SensorSeries>& into, const std::vector<SensorSeries>& more);

class MonitorSession {
 public:
  explicit MonitorSession(MonitorConfig config, std::unique_ptr<MonitorClock> clock = nullptr);

  bool enabled() const { return config_.enabled(); }
  const MonitorConfig& config() const { return config_; }
  const SensorSelection& selection() const { return selection_; }
  // "Sensors To Be Logged:" and one line per selected sensor (recording or why not), plus the
  // mode and interval. Empty when monitoring is off.
  std::vector<std::string> StatusLines() const;
  bool any_recording() const { return sampler_ != nullptr; }

  void BeginTest();
  void EndTest();
  // Series of the last BeginTest()..EndTest().
  const std::vector<SensorSeries>& last_series() const;

  // Performance-per-sensor results, then one monitor child per sensor, for `test` (already in
  // `file`); also remembers the series for the session summary.
  RecordOutcome RecordTest(results::ResultFile& file, const results::Result& test, const std::string& identifier);
  // The same from `series` gathered otherwise (a target's trials, AppendSeries).
  RecordOutcome RecordTest(results::ResultFile& file, const results::Result& test, const std::string& identifier,
                           const std::vector<SensorSeries>& series);
  // The whole-session results when monitor.session_summary is on (else nothing).
  RecordOutcome FinishSession(results::ResultFile& file, const std::string& identifier);
  // MONITOR / PERFORMANCE_PER_WATT into Generated/PreSetEnvironmentVariables (as PTS), and the
  // native mode marker when that mode was used.
  void RecordEnvironment(results::Generated& generated) const;

  // CPU time the sampler thread has used over all tests, seconds.
  double sampler_cpu_seconds() const { return sampler_cpu_seconds_; }

 private:
  std::vector<std::string> PerformanceSensors() const;
  MonitorConfig config_;
  SensorSelection selection_;
  std::unique_ptr<Sampler> sampler_;
  SessionSeries session_;
  double sampler_cpu_seconds_ = 0;
  std::vector<SensorSeries> empty_;
};

}  // namespace ptsn::monitor
