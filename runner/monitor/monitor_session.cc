#include "runner/monitor/monitor_session.h"

#include <algorithm>
#include <cstdio>

#include "runner/common/error.h"
#include "runner/common/strings.h"

namespace ptsn::monitor {

MonitorConfig MonitorConfig::FromSettings(const Settings& settings, const std::string& test_dir) {
  MonitorConfig c;
  c.sensors = Trim(settings.Get("monitor.sensors"));
  double interval = 0;
  try {
    interval = settings.GetDouble("monitor.interval");
  } catch (const Error&) {
    interval = -1;
  }
  // PTS ignores values below 0.5 s (its floor for a process per sensor); one thread can go
  // lower, but not below what still leaves the system alone.
  if (!(interval >= 0.05))
    throw Error("MONITOR_INTERVAL: '" + settings.Get("monitor.interval") + "' is not a number of seconds >= 0.05");
  c.interval = interval;
  c.mode = settings.GetBool("monitor.pts_compatible") ? MonitorMode::kPts : MonitorMode::kNative;
  c.session_summary = settings.GetBool("monitor.session_summary");
  c.performance_per_watt = Trim(settings.Get("monitor.performance_per_watt"));
  c.performance_per_sensor = Trim(settings.Get("monitor.performance_per_sensor"));
  c.cgroup = settings.Get("monitor.cgroup");
  c.test_dir = test_dir;
  return c;
}

std::vector<std::string> MonitorSession::PerformanceSensors() const {
  std::vector<std::string> out;
  if (!config_.performance_per_watt.empty()) out.push_back("sys.power");
  for (const auto& s : Split(config_.performance_per_sensor, ',')) {
    std::string name = Trim(s);
    if (Split(name, '.').size() == 2) out.push_back(name);  // PTS takes exactly type.sensor
  }
  return out;
}

MonitorSession::MonitorSession(MonitorConfig config, std::unique_ptr<MonitorClock> clock) : config_(std::move(config)) {
  if (!enabled()) return;
  SensorEnv env{SysRoot(config_.root), config_.mode, config_.test_dir, config_.cgroup};
  selection_ = SelectSensors(config_.sensors, env, PerformanceSensors());
  if (selection_.sensors.empty()) return;
  SamplerOptions options;
  options.interval = config_.interval;
  options.mode = config_.mode;
  sampler_ = std::make_unique<Sampler>(selection_.sensors, options, std::move(clock));
}

std::vector<std::string> MonitorSession::StatusLines() const {
  std::vector<std::string> lines;
  if (!enabled()) return lines;
  char interval[32];
  std::snprintf(interval, sizeof interval, "%g", config_.interval);
  lines.push_back(std::string("Sensors To Be Logged (every ") + interval + " s, " + MonitorModeName(config_.mode) +
                  " mode):");
  for (const auto& s : selection_.statuses) lines.push_back(FormatStatus(s));
  if (selection_.sensors.empty()) lines.push_back("   no requested sensor can record; monitoring is off");
  return lines;
}

void MonitorSession::BeginTest() {
  if (sampler_) sampler_->Start();
}

void MonitorSession::EndTest() {
  if (!sampler_ || !sampler_->running()) return;
  sampler_->Stop();
  sampler_cpu_seconds_ += sampler_->thread_cpu_seconds();
}

const std::vector<SensorSeries>& MonitorSession::last_series() const { return sampler_ ? sampler_->series() : empty_; }

void AppendSeries(std::vector<SensorSeries>& into, const std::vector<SensorSeries>& more) {
  for (const auto& m : more) {
    auto same = std::find_if(into.begin(), into.end(), [&](const SensorSeries& s) { return s.sensor == m.sensor; });
    if (same == into.end()) {
      into.push_back(m);
      continue;
    }
    const double offset = same->times.empty() ? 0 : same->times.back();
    same->values.insert(same->values.end(), m.values.begin(), m.values.end());
    for (double t : m.times) same->times.push_back(offset + t);
  }
}

RecordOutcome MonitorSession::RecordTest(results::ResultFile& file, const results::Result& test,
                                         const std::string& identifier) {
  if (!sampler_) return {};
  return RecordTest(file, test, identifier, sampler_->series());
}

RecordOutcome MonitorSession::RecordTest(results::ResultFile& file, const results::Result& test_in_file,
                                         const std::string& identifier, const std::vector<SensorSeries>& series_in) {
  const results::Result test = test_in_file;  // may point into file.results, which grows below
  RecordOutcome outcome;
  if (!sampler_) return outcome;
  const std::vector<SensorSeries> series = series_in;  // may be the sampler's
  auto merge = [&](const RecordOutcome& o) {
    outcome.results_written += o.results_written;
    outcome.problems.insert(outcome.problems.end(), o.problems.begin(), o.problems.end());
    outcome.notes.insert(outcome.notes.end(), o.notes.begin(), o.notes.end());
  };
  // PTS reads the log of instance 0 of each performance sensor (logs/type.sensor).
  for (const auto& name : PerformanceSensors()) {
    const SensorSeries* found = nullptr;
    for (const auto& s : series)
      if (s.type_sensor == name && s.identifier == name) found = &s;
    if (found) merge(AppendPerformancePerSensor(file, test, identifier, *found));
    else outcome.problems.push_back("performance per sensor: " + name + " is not recording");
  }
  merge(AppendMonitorResults(file, test, identifier, series));
  session_.Add(series);
  return outcome;
}

RecordOutcome MonitorSession::FinishSession(results::ResultFile& file, const std::string& identifier) {
  if (!config_.session_summary || !sampler_) return {};
  return AppendSessionSummary(file, identifier, session_);
}

void MonitorSession::RecordEnvironment(results::Generated& generated) const {
  if (!config_.sensors.empty()) AddPresetEnvironmentVariable(generated, "MONITOR", config_.sensors);
  if (!config_.performance_per_watt.empty())
    AddPresetEnvironmentVariable(generated, "PERFORMANCE_PER_WATT", config_.performance_per_watt);
  if (sampler_ && config_.mode == MonitorMode::kNative)
    AddPresetEnvironmentVariable(generated, "PTS_NATIVE_MONITOR_PTS_MODE", "false");
}

}  // namespace ptsn::monitor
