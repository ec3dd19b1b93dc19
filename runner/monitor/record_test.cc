#include "runner/monitor/record.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "results-xml/model/comparison_hash.h"
#include "results-xml/model/result_xml.h"
#include "runner/common/shared_dir.h"
#include "runner/common/strings.h"

namespace ptsn::monitor {
namespace {

using results::Result;
using results::ResultFile;

std::string Reference() { return ::ptsn::SharedDir() + "/reference"; }
#define REQUIRE_REFERENCE() \
  if (!std::filesystem::is_directory(Reference() + "/pts-output")) GTEST_SKIP() << "no shared reference tree at " << Reference()

std::string Xml(const ResultFile& f) { return results::SerializeResultFile(f, {.keep_as_read = true}); }

SensorSeries CpuSeries(const std::string& comma_values) {
  SensorSeries s;
  s.identifier = s.sensor = s.type_sensor = "cpu.usage";
  s.name = "CPU Usage (Summary)";
  s.base_name = "CPU Usage";
  s.readable_device = "Summary";
  s.unit = "Percent";
  s.decimals = 2;
  for (const auto& v : Split(comma_values, ',')) s.values.push_back(std::stod(v));
  return s;
}

SensorSeries Series(const std::string& sensor, const std::string& unit, int decimals, std::vector<double> values) {
  SensorSeries s;
  s.identifier = s.sensor = s.type_sensor = sensor;
  s.name = s.base_name = sensor;
  s.unit = unit;
  s.decimals = decimals;
  s.values = std::move(values);
  return s;
}

// The golden file without its monitor children, and the children's values per test index.
ResultFile WithoutChildren(const ResultFile& golden) {
  ResultFile f = golden;
  std::erase_if(f.results, [](const Result& r) { return r.parent.has_value(); });
  return f;
}

TEST(AppendMonitorResults, ReproducesPtsGoldenRunA) {
  REQUIRE_REFERENCE();
  ResultFile golden = results::ReadResultFile(Reference() + "/pts-output/result-a/composite.xml");
  ResultFile file = WithoutChildren(golden);
  ASSERT_EQ(file.results.size(), 2u);
  for (size_t t = 0; t < 2; ++t) {
    const Result& child = golden.results[2 * t + 1];
    // The runner appends the test, then the monitor results.
    auto outcome = AppendMonitorResults(file, file.results[2 * t], "Baseline", {CpuSeries(child.entries[0].value)});
    EXPECT_EQ(outcome.results_written, 1);
    EXPECT_TRUE(outcome.problems.empty());
  }
  EXPECT_EQ(Xml(file), Xml(golden));
}

TEST(AppendMonitorResults, SecondSystemMergesIntoTheExistingChildren) {
  REQUIRE_REFERENCE();
  ResultFile merged = results::ReadResultFile(Reference() + "/pts-output/merged/composite.xml");
  ResultFile run_b = results::ReadResultFile(Reference() + "/pts-output/result-b/composite.xml");
  ResultFile file = merged;
  for (auto& r : file.results)
    if (r.parent) std::erase_if(r.entries, [](const results::Entry& e) { return e.identifier == "Tuned"; });
  for (size_t t = 0; t < 2; ++t) {
    auto outcome = AppendMonitorResults(file, file.results[2 * t], "Tuned", {CpuSeries(run_b.results[2 * t + 1].entries[0].value)});
    EXPECT_EQ(outcome.results_written, 1);
  }
  EXPECT_EQ(Xml(file), Xml(merged));
}

TEST(AppendMonitorResults, PtsRulesForShortFailedAndZeroSeries) {
  REQUIRE_REFERENCE();
  ResultFile golden = results::ReadResultFile(Reference() + "/pts-output/result-a/composite.xml");
  ResultFile file = WithoutChildren(golden);
  const Result test = file.results[0];
  auto seven = Series("memory.usage", "Megabytes", 0, {700.4, 701.6, -1, 702, 703, 704, 705, 706});
  seven.name = "Memory Usage";
  auto six = Series("sys.iowait", "Percent", 2, {1, 2, 3, 4, 5, 6});
  auto none = Series("cpu.temp", "Celsius", 2, {});
  auto zeros = Series("swap.usage", "Megabytes", 0, {0, 0, 0, 0, 0, 0, 0, 0});
  auto freq = Series("cpu.freq", "Megahertz", 2, {3400, 3400, 3400, 3400, 3400, 3400, 3400});
  freq.name = "CPU Frequency (CPU0)";
  auto outcome = AppendMonitorResults(file, test, "Baseline", {seven, six, none, zeros, freq});
  EXPECT_EQ(outcome.results_written, 2);
  ASSERT_EQ(outcome.problems.size(), 2u);
  EXPECT_EQ(outcome.problems[0], "sys.iowait (sys.iowait) produced only 6 sample(s) during Sample Disk (--bs=4k); a monitor result needs at least 7 (as PTS)");
  EXPECT_EQ(outcome.problems[1], "cpu.temp (cpu.temp) produced no sample during Sample Disk (--bs=4k)");
  ASSERT_EQ(outcome.notes.size(), 1u);
  ASSERT_EQ(file.results.size(), 4u);
  const Result& mem = file.results[1];
  EXPECT_EQ(mem.entries[0].value, "700,702,702,703,704,705,706");  // number_format(x, 0), negative dropped
  EXPECT_EQ(mem.arguments, "Memory Usage --bs=4k");
  EXPECT_EQ(mem.description, "Memory Usage Monitor");
  EXPECT_EQ(mem.proportion, "LIB");
  EXPECT_EQ(mem.parent, results::ComparisonHash(test));
  EXPECT_EQ(file.results[2].proportion, "HIB");  // Megahertz
  EXPECT_EQ(file.results[2].entries[0].value, "3400.00,3400.00,3400.00,3400.00,3400.00,3400.00,3400.00");
  EXPECT_EQ(file.results[3].arguments, "--bs=1m");  // the other test stays after the children

  // A failed test (empty value for this system) gets no children.
  ResultFile failed = WithoutChildren(golden);
  failed.results[0].entries[0].value = "";
  auto f = AppendMonitorResults(failed, failed.results[0], "Baseline", {seven});
  EXPECT_EQ(f.results_written, 0);
  EXPECT_EQ(failed.results.size(), 2u);
}

TEST(AppendPerformancePerSensor, PerWattAfterTheTestBeforeItsMonitors) {
  REQUIRE_REFERENCE();
  ResultFile file = WithoutChildren(results::ReadResultFile(Reference() + "/pts-output/result-a/composite.xml"));
  const Result test = file.results[0];  // 124.13 MB/s, HIB
  auto power = Series("sys.power", "Milliwatts", 2, {12000, 13000, 12500});
  auto p = AppendPerformancePerSensor(file, test, "Baseline", power);
  EXPECT_EQ(p.results_written, 1);
  AppendMonitorResults(file, test, "Baseline", {CpuSeries("1,2,3,4,5,6,7")});
  ASSERT_EQ(file.results.size(), 4u);
  const Result& ppw = file.results[1];
  EXPECT_EQ(ppw.scale, "MB/s Per Watt");
  EXPECT_EQ(ppw.entries[0].value, "9.93");  // round(124.13 / 12.5, 3) = 9.930
  EXPECT_EQ(ppw.identifier, "");
  EXPECT_EQ(ppw.arguments, "--bs=4k");
  EXPECT_EQ(ppw.description, "Block Size: 4KB");
  EXPECT_EQ(ppw.proportion, "HIB");
  EXPECT_EQ(ppw.display_format, "BAR_GRAPH");
  EXPECT_EQ(ppw.parent, results::ComparisonHash(test));
  EXPECT_EQ(file.results[2].description, "CPU Usage (Summary) Monitor");

  auto temp = Series("cpu.temp", "Celsius", 2, {40, 40, 41, 41});
  AppendPerformancePerSensor(file, test, "Baseline", temp);
  EXPECT_EQ(file.results[1].scale, "MB/s Per Celsius");
  EXPECT_EQ(file.results[1].entries[0].value, "3.065");  // round(124.13 / 40.5, 3)

  Result lib = test;
  lib.proportion = "LIB";
  EXPECT_EQ(AppendPerformancePerSensor(file, lib, "Baseline", power).results_written, 0);
  auto two = Series("sys.power", "Watts", 2, {10, 11});
  EXPECT_EQ(AppendPerformancePerSensor(file, test, "Baseline", two).problems.size(), 1u);
}

TEST(AppendSessionSummary, ShapeOfTheOldWholeSessionResult) {
  REQUIRE_REFERENCE();
  ResultFile seed = results::ReadResultFile(Reference() + "/seed-results/1110088-AR-1110066AR56/composite.xml");
  const Result& expected = seed.results[0];
  ResultFile file = WithoutChildren(results::ReadResultFile(Reference() + "/pts-output/result-a/composite.xml"));
  SessionSeries session;
  session.Add({CpuSeries("1,2")});
  EXPECT_EQ(AppendSessionSummary(file, "Baseline", session).results_written, 0);  // one test: none
  session.Add({CpuSeries("3,4.5")});
  auto outcome = AppendSessionSummary(file, "Baseline", session);
  EXPECT_EQ(outcome.results_written, 1);
  const Result& r = file.results.back();
  EXPECT_EQ(r.title, expected.title);  // "CPU Usage Monitor"
  EXPECT_EQ(r.identifier, expected.identifier);
  EXPECT_EQ(r.app_version, expected.app_version);
  EXPECT_EQ(r.arguments, expected.arguments);  // "cpu.usage"
  EXPECT_EQ(r.description, expected.description);
  EXPECT_EQ(r.scale, expected.scale);
  EXPECT_EQ(r.proportion, expected.proportion);
  EXPECT_EQ(r.display_format, expected.display_format);
  EXPECT_EQ(r.parent, expected.parent);
  EXPECT_EQ(r.entries[0].value, "1.00,2.00,3.00,4.50");
  EXPECT_EQ(r.entries[0].raw_string, "");
}

TEST(PresetEnvironment, JoinedBySemicolonsSameNameReplaced) {
  results::Generated g;
  AddPresetEnvironmentVariable(g, "MONITOR", "cpu.usage,memory.usage");
  AddPresetEnvironmentVariable(g, "MONITOR", "cpu.usage,memory.usage");
  AddPresetEnvironmentVariable(g, "PERFORMANCE_PER_WATT", "1");
  EXPECT_EQ(g.preset_environment_variables, "MONITOR=cpu.usage,memory.usage;PERFORMANCE_PER_WATT=1");
  AddPresetEnvironmentVariable(g, "MONITOR", "all");
  EXPECT_EQ(g.preset_environment_variables, "PERFORMANCE_PER_WATT=1;MONITOR=all");
}

TEST(FormatSeries, TwoDecimalsAsPtsAndAllZeroDropped) {
  EXPECT_EQ(FormatSeries(CpuSeries("100,99.015,0.004")), "100.00,99.02,0.00");
  EXPECT_EQ(FormatSeries(CpuSeries("0,0")), "");
}

}  // namespace
}  // namespace ptsn::monitor
