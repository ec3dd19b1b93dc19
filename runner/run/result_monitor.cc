#include "runner/run/result_monitor.h"

#include <chrono>
#include <cstdlib>

#include "runner/common/php_number.h"
#include "runner/common/strings.h"
#include "runner/profile/php_compat.h"
#include "runner/monitor/selection.h"

namespace ptsn::run {

namespace {

double SteadyNow() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

std::string ReduceSamples(const std::vector<std::string>& samples, const std::string& report) {
  if (samples.empty()) return "";
  if (report == "ALL") return Join(samples, ",");
  if (report == "MAX" || report == "MIN") {
    // max()/min() keep the first of equal values: replace only on a strict improvement.
    const std::string* best = &samples.front();
    for (const auto& s : samples) {
      int c = php::Compare(php::Value::Str(s), php::Value::Str(*best));
      if (report == "MAX" ? c > 0 : c < 0) best = &s;
    }
    return *best;
  }
  if (report == "AVG") {
    // pts_math::arithmetic_mean: array_sum() / count(), with PHP's int/float arithmetic.
    php::Value sum = php::Value::Int(0);
    for (const auto& s : samples) sum = php::Add(sum, php::Value::Str(s));
    return php::Div(sum, php::Value::Int(static_cast<int64_t>(samples.size()))).ToString();
  }
  return "";
}

bool PhpPositive(const std::string& value) {
  // "" == null; otherwise PHP 8's $value > 0 (a non-numeric string compares with "0" as a string).
  return !value.empty() && php::Compare(php::Value::Str(value), php::Value::Int(0)) > 0;
}

ResultMonitor::ResultMonitor(const std::vector<profile::SystemMonitorDef>& definitions,
                             const monitor::SensorEnv& env, double minimal_test_time, Clock clock)
    : minimal_test_time_(minimal_test_time), clock_(clock ? std::move(clock) : Clock(SteadyNow)) {
  for (const auto& d : definitions) {
    auto parts = Split(d.sensor, '.');
    Monitor m;
    m.sensor = d.sensor;
    if (parts.size() == 2 && parts[0] == "sys" && parts[1] == "time") {
      m.time = true;
      monitors_.push_back(std::move(m));
      continue;
    }
    if (parts.size() != 2 || !monitor::FindSensorKind(parts[0], parts[1])) {
      setup_notes_.push_back("SystemMonitor sensor '" + d.sensor + "' is not a sensor pts-native knows: ignored");
      continue;
    }
    double every = std::strtod(d.polling_frequency.c_str(), nullptr);
    if (!PhpIsNumeric(d.polling_frequency) || every < 0.5) every = 2;  // PhpIsNumeric("") is false
    if (d.report != "ALL" && d.report != "MAX" && d.report != "MIN" && d.report != "AVG") {
      setup_notes_.push_back("SystemMonitor " + d.sensor + ": Report '" + d.report +
                             "' is not ALL, MAX, MIN or AVG: ignored");
      continue;
    }
    auto selection = monitor::SelectSensors(d.sensor, env);
    if (selection.sensors.empty()) {
      std::string why = selection.statuses.empty() ? "no such sensor" : selection.statuses.front().detail;
      setup_notes_.push_back("SystemMonitor " + d.sensor + " cannot record on this system (" + why + "): ignored");
      continue;
    }
    selection.sensors.resize(1);  // <type>.<sensor> names one sensor: its default device
    monitor::SamplerOptions options;
    options.interval = every;
    options.mode = monitor::MonitorMode::kPts;
    m.report = d.report;
    m.sampler = std::make_unique<monitor::Sampler>(std::move(selection.sensors), options);
    monitors_.push_back(std::move(m));
  }
}

ResultMonitor::~ResultMonitor() {
  for (auto& m : monitors_)
    if (m.sampler && m.sampler->running()) m.sampler->Stop();
}

void ResultMonitor::BeforeTrial() {
  start_ = clock_();
  for (auto& m : monitors_)
    if (m.sampler) m.sampler->Start();
}

std::vector<std::string> ResultMonitor::AfterTrial(bool pass, std::vector<std::string>* why_none) {
  double end = clock_();
  std::vector<std::string> values;
  auto none = [&](const std::string& why) {
    if (why_none) why_none->push_back(why);
  };
  for (auto& m : monitors_) {
    std::string value;
    if (m.time) {
      double seconds = PhpRound(end - start_, 3);
      if (seconds < minimal_test_time_) {
        none("sys.time: the run took " + PhpFloatToString(seconds) + " s, less than the minimal test time of " +
             PhpFloatToString(minimal_test_time_) + " s");
        continue;
      }
      value = PhpFloatToString(seconds);
    } else {
      m.sampler->Stop();
      std::vector<std::string> samples;
      for (const auto& series : m.sampler->series())
        for (double v : series.values) samples.push_back(PhpNumberFormat(v, series.decimals));
      if (samples.empty()) {
        none(m.sensor + ": no sample was taken during the run");
        continue;
      }
      value = ReduceSamples(samples, m.report);
    }
    if (!PhpPositive(value)) {
      none(m.sensor + ": the value " + (value.empty() ? "\"\"" : value) + " is not above 0");
      continue;
    }
    if (!pass) continue;
    values.push_back(value);
  }
  return values;
}

}  // namespace ptsn::run
