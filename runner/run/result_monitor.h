// Results that come from a sensor instead of the log: a profile's results-definition
// <SystemMonitor> (PTS 10.8.6 pts_test_result_parser::system_monitor_task_check / _post_test).
// 104 public profiles use it (pts/sqlite, pts/gnupg, pts/unpack-linux, ...: their run scripts
// write no $LOG_FILE at all) — the result is how long the run took.
//
//   sys.time                 the trial's wall time, round(end - start, 3) seconds; a trial
//                            shorter than MinimalTestTime (default 2 s) gives no value
//   <type>.<sensor>          sampled every PollingFrequency seconds (non-numeric or < 0.5 -> 2)
//                            while the trial runs, reported as Report = MAX | MIN | AVG | ALL
//                            (ALL: the samples comma-joined); other Report values are ignored
//
// A value is kept only when it is non-empty and > 0 (PHP's comparison), the trial's exit status
// passed and the run is not ignored. When a monitor produced a value, PTS does not parse the log
// for that trial. Every monitor that produced a value adds it (PTS loops over them all).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runner/monitor/sampler.h"
#include "runner/monitor/sensors.h"
#include "runner/profile/test_profile.h"

namespace ptsn::run {

// PHP's max()/min()/arithmetic mean/implode over the sample strings as PTS reads them back from
// its monitor file; "" when there is nothing to report. Report must be MAX, MIN, AVG or ALL.
std::string ReduceSamples(const std::vector<std::string>& samples, const std::string& report);
// PTS's `$result_value != null && $result_value > 0` for a value held as a PHP string or float.
bool PhpPositive(const std::string& value);

class ResultMonitor {
 public:
  using Clock = std::function<double()>;  // monotonic seconds
  ResultMonitor(const std::vector<profile::SystemMonitorDef>& definitions, const monitor::SensorEnv& env,
                double minimal_test_time, Clock clock = nullptr);
  ~ResultMonitor();
  ResultMonitor(const ResultMonitor&) = delete;
  ResultMonitor& operator=(const ResultMonitor&) = delete;

  // Whether any monitor applies (PTS's $is_monitoring).
  bool active() const { return !monitors_.empty(); }
  // Why a defined monitor does not apply (unknown sensor, bad Report...), for the run's log.
  const std::vector<std::string>& setup_notes() const { return setup_notes_; }

  void BeforeTrial();
  // Stops the samplers and returns the values PTS would add for this trial (none when `pass`
  // is false). `why_none` gets a reason for each monitor that gave no value.
  std::vector<std::string> AfterTrial(bool pass, std::vector<std::string>* why_none = nullptr);

 private:
  struct Monitor {
    std::string sensor;  // as defined, e.g. "sys.time"
    bool time = false;
    std::string report;
    std::unique_ptr<monitor::Sampler> sampler;
  };
  std::vector<Monitor> monitors_;
  std::vector<std::string> setup_notes_;
  double minimal_test_time_;
  Clock clock_;
  double start_ = 0;
};

}  // namespace ptsn::run
