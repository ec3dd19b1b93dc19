#include "runner/monitor/record.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>

#include "results-xml/model/comparison_hash.h"
#include "results-xml/model/upsert.h"
#include "runner/common/strings.h"

namespace ptsn::monitor {

using results::Entry;
using results::Result;
using results::ResultFile;

namespace {

// PHP number_format($v, $decimals, '.', ''): rounds half away from zero.
std::string NumberFormat(double value, int decimals) {
  double scale = std::pow(10.0, decimals);
  double rounded = std::round(value * scale) / scale;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, rounded);
  return buf;
}

// PHP's (string) of a float round()ed to 3 places: no trailing zeros ("12.5", "3").
std::string PhpRounded3(double value) {
  double rounded = std::round(value * 1000.0) / 1000.0;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.14G", rounded);
  return buf;
}

bool Kept(double v) { return v >= 0 && std::isfinite(v); }

// Where a new child of `parent_hash` goes: after the parent and the children it already has;
// the end when the parent is not in the file.
size_t ChildInsertPosition(const ResultFile& file, const results::ResultIndex& index, const std::string& parent_hash) {
  std::optional<size_t> parent = index.Find(parent_hash);
  if (!parent) return file.results.size();
  size_t j = *parent + 1;
  while (j < file.results.size() && file.results[j].parent == parent_hash) ++j;
  return j;
}

const Entry* EntryOf(const Result& test, const std::string& system_identifier) {
  for (const auto& e : test.entries)
    if (e.identifier == system_identifier) return &e;
  return nullptr;
}

std::string TestLabel(const Result& test) { return test.title + (test.arguments.empty() ? "" : " (" + test.arguments + ")"); }

Entry SeriesEntry(const std::string& identifier, const std::string& value) {
  Entry e;
  e.identifier = identifier;
  e.value = value;
  e.raw_string = "";  // PTS stores the same string as raw and writes it as empty
  return e;
}

}  // namespace

size_t KeptSampleCount(const SensorSeries& series) {
  return static_cast<size_t>(std::count_if(series.values.begin(), series.values.end(), Kept));
}

std::string FormatSeries(const SensorSeries& series) {
  std::string out;
  bool nonzero = false;
  for (double v : series.values) {
    if (!Kept(v)) continue;
    std::string text = NumberFormat(v, series.decimals);
    nonzero = nonzero || std::strtod(text.c_str(), nullptr) != 0;
    if (!out.empty()) out += ',';
    out += text;
  }
  return nonzero ? out : std::string();
}

RecordOutcome AppendMonitorResults(ResultFile& file, const Result& test_in_file, const std::string& system_identifier,
                                   const std::vector<SensorSeries>& series) {
  const Result test = test_in_file;  // usually an element of file.results, which inserting moves
  RecordOutcome outcome;
  const Entry* test_entry = EntryOf(test, system_identifier);
  if (!test_entry || test_entry->value.empty()) {
    outcome.notes.push_back("no monitor results for " + TestLabel(test) + ": the test has no result for '" +
                            system_identifier + "'");
    return outcome;
  }
  std::string parent_hash = results::ComparisonHash(test);
  results::ResultIndex index(file);
  for (const auto& s : series) {
    size_t kept = KeptSampleCount(s);
    if (kept == 0) {
      outcome.problems.push_back(s.sensor + " (" + s.name + ") produced no sample during " + TestLabel(test));
      continue;
    }
    if (kept <= 6) {
      outcome.problems.push_back(s.sensor + " (" + s.name + ") produced only " + std::to_string(kept) + " sample(s) during " +
                                 TestLabel(test) + "; a monitor result needs at least 7 (as PTS)");
      continue;
    }
    std::string value = FormatSeries(s);
    if (value.empty()) {
      outcome.notes.push_back(s.sensor + ": every sample was 0 during " + TestLabel(test) + "; no monitor result (as PTS)");
      continue;
    }
    Result child;
    child.identifier = "";
    child.title = test.title;
    child.app_version = test.app_version;
    child.arguments = s.name + " " + test.arguments;
    child.description = s.name + " Monitor";
    child.scale = s.unit;
    std::string unit = ToLower(s.unit);
    child.proportion = unit.find("hz") != std::string::npos || unit.find("hertz") != std::string::npos ? "HIB" : "LIB";
    child.display_format = "LINE_GRAPH";
    child.parent = parent_hash;
    // Into the child of this sensor the file has (replacing this system's entry), else a new one.
    child.entries = {SeriesEntry(system_identifier, value)};
    index.Upsert(std::move(child), results::Match::kHash, ChildInsertPosition(file, index, parent_hash));
    ++outcome.results_written;
  }
  return outcome;
}

RecordOutcome AppendPerformancePerSensor(ResultFile& file, const Result& test_in_file, const std::string& system_identifier,
                                         const SensorSeries& series) {
  const Result test = test_in_file;  // usually an element of file.results, which inserting moves
  RecordOutcome outcome;
  const Entry* test_entry = EntryOf(test, system_identifier);
  if (!test_entry || test_entry->value.empty()) return outcome;
  std::vector<double> kept;
  for (double v : series.values)
    if (Kept(v)) kept.push_back(std::strtod(NumberFormat(v, series.decimals).c_str(), nullptr));
  if (kept.size() <= 2) {
    outcome.problems.push_back("performance per " + series.sensor + ": only " + std::to_string(kept.size()) +
                               " sample(s) during " + TestLabel(test) + "; needs at least 3");
    return outcome;
  }
  double mean = std::accumulate(kept.begin(), kept.end(), 0.0) / static_cast<double>(kept.size());
  std::string unit = series.unit;
  if (unit == "Milliwatts") {
    mean /= 1000;
    unit = "Watt";
  } else if (unit == "Watts") {
    unit = "Watt";
  }
  if (unit.empty() || mean <= 0 || test.display_format != "BAR_GRAPH") return outcome;
  if (test.proportion != "HIB") {
    outcome.notes.push_back("performance per " + unit + " is not written for " + TestLabel(test) +
                            " (lower is better; PTS 10.8.6 skips those)");
    return outcome;
  }
  char* end = nullptr;
  double result = std::strtod(test_entry->value.c_str(), &end);
  if (end == test_entry->value.c_str()) return outcome;
  Result child = test;
  child.identifier = "";
  child.entries.clear();
  child.parent = results::ComparisonHash(test);
  child.scale = test.scale + " Per " + unit;
  // Right after the test, before the monitor children PTS adds later in the same hook.
  results::ResultIndex index(file);
  size_t position = index.After(*child.parent).value_or(file.results.size());
  Entry e;
  e.identifier = system_identifier;
  e.value = PhpRounded3(result / mean);
  e.raw_string = "";
  child.entries = {std::move(e)};
  index.Upsert(std::move(child), results::Match::kHash, position);
  ++outcome.results_written;
  return outcome;
}

void SessionSeries::Add(const std::vector<SensorSeries>& test_series) {
  ++tests_;
  for (const auto& s : test_series) {
    auto it = std::find_if(series_.begin(), series_.end(), [&](const SensorSeries& x) { return x.sensor == s.sensor; });
    if (it == series_.end()) {
      series_.push_back(s);
      continue;
    }
    it->values.insert(it->values.end(), s.values.begin(), s.values.end());
    it->times.insert(it->times.end(), s.times.begin(), s.times.end());
  }
}

RecordOutcome AppendSessionSummary(ResultFile& file, const std::string& system_identifier, const SessionSeries& session) {
  RecordOutcome outcome;
  if (session.tests() <= 1) {
    if (!session.series().empty())
      outcome.notes.push_back("no whole-session monitor result: it needs more than one monitored test (as PTS)");
    return outcome;
  }
  results::ResultIndex index(file);
  for (const auto& s : session.series()) {
    std::string value = FormatSeries(s);
    if (KeptSampleCount(s) <= 2 || value.empty()) {
      outcome.problems.push_back(s.sensor + ": too few samples over the session for a whole-session result");
      continue;
    }
    Result r;
    r.identifier = "";
    bool default_device = s.readable_device.empty() || s.readable_device == "Summary";
    r.title = (default_device ? s.base_name : s.name) + " Monitor";
    r.app_version = "";
    r.arguments = s.identifier;
    r.description = "Phoronix Test Suite System Monitoring";
    r.scale = s.unit;
    r.proportion = "";
    r.display_format = "LINE_GRAPH";
    r.entries = {SeriesEntry(system_identifier, value)};
    index.Upsert(std::move(r));
    ++outcome.results_written;
  }
  return outcome;
}

void AddPresetEnvironmentVariable(results::Generated& generated, const std::string& name, const std::string& value) {
  std::vector<std::string> items;
  if (generated.preset_environment_variables && !generated.preset_environment_variables->empty())
    items = Split(*generated.preset_environment_variables, ';');
  // PTS replaces the whole string with this run's variables; we keep other variables the file
  // had and replace a variable of the same name.
  std::erase_if(items, [&](const std::string& item) { return item.rfind(name + "=", 0) == 0; });
  items.push_back(name + "=" + value);
  generated.preset_environment_variables = Join(items, ";");
}

}  // namespace ptsn::monitor
