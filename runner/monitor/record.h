// Writing monitor series into a result file as PTS 10.8.6's system_monitor module does
// (modules/system_monitor.php, spec: shared/reference/spec/pts-results.md section c).
//
// After each monitored test, one child Result per sensor, inserted right after the test (and
// after children it already has):
//   Identifier ""            Title, AppVersion  = the test's
//   Arguments  "<sensor name> <test Arguments>"   e.g. "CPU Usage (Summary) --bs=4k"
//   Description "<sensor name> Monitor"          Scale = sensor unit ("Percent")
//   Proportion LIB (HIB when the unit is a frequency)   DisplayFormat LINE_GRAPH
//   Parent = the test's comparison hash
//   Entry: Identifier = the system, Value = samples comma-joined in the sensor's format
//          ("84.21,77.27,100.00"), RawString "" (PTS stores it equal to Value, then empties it)
// PTS writes it only when the test succeeded and the series has more than 6 samples after
// dropping negative values; a series that is all zeros is dropped. When a child with the same
// comparison hash already exists (a second system), the entry is added to it.
#pragma once

#include <string>
#include <vector>

#include "results-xml/model/result_file.h"
#include "runner/monitor/sampler.h"

namespace ptsn::monitor {

// The series as PTS stores it: each sample number_format()ed with the sensor's decimals,
// negative samples dropped, comma-joined; "" when nothing is left or every sample is 0.
std::string FormatSeries(const SensorSeries& series);
// Number of samples FormatSeries keeps.
size_t KeptSampleCount(const SensorSeries& series);

// What happened for each sensor; `problems` are meant to be printed as errors ("a requested
// sensor that produced no sample is an error in the output, not silence").
struct RecordOutcome {
  int results_written = 0;
  std::vector<std::string> problems;
  std::vector<std::string> notes;
};

// Appends (or merges) one child Result per series after `test` (which should already be in
// `file` and may be a reference into file.results, compared by comparison hash; if it is not, children go to the end). `test` must carry
// the Entry of `system_identifier`: a test without a value for it (failed) gets no children.
RecordOutcome AppendMonitorResults(results::ResultFile& file, const results::Result& test,
                                   const std::string& system_identifier, const std::vector<SensorSeries>& series);

// PERFORMANCE_PER_WATT / PERFORMANCE_PER_SENSOR (process_perf_per_sensor): for a BAR_GRAPH test
// whose Proportion is HIB and a sensor series with more than 2 samples and a positive mean, a
// child Result with the test's Title/AppVersion/Arguments/Description, Identifier "", Parent =
// the test's hash, Scale "<test scale> Per <unit>" (unit "Watt" for Watts and Milliwatts — the
// mean of milliwatts is divided by 1000 — else the sensor unit) and Value round(value / mean, 3).
// LIB tests get nothing (PTS 10.8.6 returns early for them). Inserted right after the test,
// before its monitor children, as PTS processes it first.
RecordOutcome AppendPerformancePerSensor(results::ResultFile& file, const results::Result& test,
                                         const std::string& system_identifier, const SensorSeries& series);

// The whole-session result PTS 3.x/4.x appended at the end of the file (process_summary_
// results; PTS 10.8.6 still has it but never calls it). Collect every test's series with Add().
class SessionSeries {
 public:
  void Add(const std::vector<SensorSeries>& test_series);
  int tests() const { return tests_; }
  const std::vector<SensorSeries>& series() const { return series_; }

 private:
  int tests_ = 0;
  std::vector<SensorSeries> series_;  // one per sensor identifier, samples of all tests in order
};
// Per sensor with more than 2 samples when more than one test was monitored: Identifier "",
// Title "<sensor name> Monitor" (the name without "(Summary)" for the default cpu.usage, as in
// those files: "CPU Usage Monitor"), AppVersion "", Arguments = sensor identifier ("cpu.usage"),
// Description "Phoronix Test Suite System Monitoring", Scale = unit, Proportion "",
// LINE_GRAPH, no Parent, appended at the end (entries merge by comparison hash).
RecordOutcome AppendSessionSummary(results::ResultFile& file, const std::string& system_identifier,
                                   const SessionSeries& session);

// Generated/PreSetEnvironmentVariables as PTS keeps it: "VAR=value" items joined by ';'; a
// variable already there is replaced. PTS stores MONITOR and PERFORMANCE_PER_WATT; we add
// PTS_NATIVE_MONITOR_PTS_MODE=false when native-mode series were recorded, so a reader (and a
// re-run) knows which cpu.usage definition the file holds.
void AddPresetEnvironmentVariable(results::Generated& generated, const std::string& name, const std::string& value);

}  // namespace ptsn::monitor
