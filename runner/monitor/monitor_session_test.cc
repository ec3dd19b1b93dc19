// The runner-level flow on the real machine: sample a busy child process, then write the monitor
// results into a result file and check them against the structure of PTS's golden output.
#include "runner/monitor/monitor_session.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <numeric>
#include <regex>

#include "results-xml/model/comparison_hash.h"
#include "results-xml/model/result_xml.h"
#include "runner/common/error.h"
#include "runner/common/shared_dir.h"
#include "runner/monitor/test_fixture.h"

namespace ptsn::monitor {
namespace {

using results::Result;
using results::ResultFile;

std::string Reference() { return ::ptsn::SharedDir() + "/reference"; }

Settings SettingsWith(std::map<std::string, std::string> env) {
  return Settings::Load([env](const std::string& name) -> std::optional<std::string> {
    if (name == "PTS_NATIVE_CONFIG") return std::string("/nonexistent/config.yaml");
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  });
}

TEST(MonitorConfig, FromSettingsAndEnvironment) {
  auto c = MonitorConfig::FromSettings(
      SettingsWith({{"MONITOR", "cpu.usage"}, {"MONITOR_INTERVAL", "0.5"}, {"PTS_NATIVE_MONITOR_PTS_MODE", "false"}}), "/tmp");
  EXPECT_EQ(c.sensors, "cpu.usage");
  EXPECT_EQ(c.interval, 0.5);
  EXPECT_EQ(c.mode, MonitorMode::kNative);
  EXPECT_TRUE(c.enabled());
  EXPECT_FALSE(MonitorConfig::FromSettings(SettingsWith({}), "/tmp").enabled());
  try {
    MonitorConfig::FromSettings(SettingsWith({{"MONITOR_INTERVAL", "0.01"}}), "/tmp");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "MONITOR_INTERVAL: '0.01' is not a number of seconds >= 0.05");
  }
}

TEST(MonitorSession, StatusLinesOnAFixture) {
  test::FixtureTree tree("server");
  MonitorConfig c;
  c.sensors = "cpu.usage,cpu.temp";
  c.performance_per_watt = "1";
  c.root = tree.root();
  MonitorSession session(c);
  EXPECT_EQ(session.StatusLines(),
            (std::vector<std::string>{
                "Sensors To Be Logged (every 1 s, pts mode):",
                "   - cpu.temp: NOT recording: no CPU temperature in /sys/class/hwmon (coretemp, k10temp, ...) or /sys/class/thermal",
                "   - CPU Usage (Summary) [cpu.usage]: recording",
                "   - System Power Consumption [sys.power]: recording (/sys/class/hwmon/hwmon0/power1_input)"}));
  EXPECT_TRUE(session.any_recording());
  results::Generated g;
  session.RecordEnvironment(g);
  EXPECT_EQ(g.preset_environment_variables, "MONITOR=cpu.usage,cpu.temp;PERFORMANCE_PER_WATT=1");
}

// Forks a child that keeps one CPU busy for `seconds`.
pid_t BusyChild(double seconds) {
  pid_t pid = fork();
  if (pid == 0) {
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < end) {
    }
    _exit(0);
  }
  return pid;
}

TEST(MonitorSession, BusyChildRecordedLikePtsGoldenRun) {
  if (!std::filesystem::is_directory(Reference() + "/pts-output")) GTEST_SKIP() << "no shared reference tree";
  if (!std::filesystem::exists("/proc/stat")) GTEST_SKIP() << "no /proc/stat";
  ResultFile golden = results::ReadResultFile(Reference() + "/pts-output/result-a/composite.xml");
  ResultFile file = golden;
  std::erase_if(file.results, [](const Result& r) { return r.parent.has_value(); });

  MonitorConfig c;
  c.sensors = "cpu.usage,memory.usage";
  c.interval = 0.1;
  c.mode = MonitorMode::kNative;  // windows tile the run: ~19 samples in 2 s
  c.session_summary = true;
  MonitorSession session(c);
  ASSERT_TRUE(session.any_recording());
  for (size_t t = 0; t < 2; ++t) {
    session.BeginTest();  // the pre-script
    pid_t child = BusyChild(1.0);
    int status = 0;
    waitpid(child, &status, 0);
    session.EndTest();  // after the post-script
    // The test's result is in the file; the monitor results follow it.
    size_t test_index = t == 0 ? 0 : 3;
    auto outcome = session.RecordTest(file, file.results[test_index], "Baseline");
    EXPECT_EQ(outcome.results_written, 2);
    EXPECT_TRUE(outcome.problems.empty()) << outcome.problems[0];
  }
  ASSERT_EQ(session.last_series().size(), 2u);
  const auto& cpu = session.last_series()[0];
  double mean = std::accumulate(cpu.values.begin(), cpu.values.end(), 0.0) / static_cast<double>(cpu.values.size());
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  EXPECT_GE(mean, 50.0 / static_cast<double>(cpus)) << "one busy CPU of " << cpus;

  auto finish = session.FinishSession(file, "Baseline");
  EXPECT_EQ(finish.results_written, 2);
  session.RecordEnvironment(file.generated);
  EXPECT_EQ(file.generated.preset_environment_variables, "MONITOR=cpu.usage,memory.usage;PTS_NATIVE_MONITOR_PTS_MODE=false");

  // Order: test, CPU child, memory child, test, CPU child, memory child, two session results.
  ASSERT_EQ(file.results.size(), 8u);
  for (size_t t = 0; t < 2; ++t) {
    const Result& gold_child = golden.results[2 * t + 1];
    const Result& cpu_child = file.results[3 * t + 1];
    EXPECT_EQ(cpu_child.identifier, gold_child.identifier);
    EXPECT_EQ(cpu_child.title, gold_child.title);
    EXPECT_EQ(cpu_child.app_version, gold_child.app_version);
    EXPECT_EQ(cpu_child.arguments, gold_child.arguments);
    EXPECT_EQ(cpu_child.description, gold_child.description);
    EXPECT_EQ(cpu_child.scale, gold_child.scale);
    EXPECT_EQ(cpu_child.proportion, gold_child.proportion);
    EXPECT_EQ(cpu_child.display_format, gold_child.display_format);
    EXPECT_EQ(cpu_child.parent, gold_child.parent);
    ASSERT_EQ(cpu_child.entries.size(), 1u);
    EXPECT_EQ(cpu_child.entries[0].identifier, "Baseline");
    EXPECT_TRUE(std::regex_match(cpu_child.entries[0].value, std::regex(R"(\d{1,3}\.\d\d(,\d{1,3}\.\d\d){6,})")))
        << cpu_child.entries[0].value;
    EXPECT_EQ(cpu_child.entries[0].raw_string, "");
    const Result& mem = file.results[3 * t + 2];
    EXPECT_EQ(mem.arguments, "Memory Usage " + golden.results[2 * t].arguments);
    EXPECT_EQ(mem.description, "Memory Usage Monitor");
    EXPECT_EQ(mem.scale, "Megabytes");
    EXPECT_EQ(mem.parent, gold_child.parent);
    EXPECT_TRUE(std::regex_match(mem.entries[0].value, std::regex(R"(\d+(,\d+){6,})"))) << mem.entries[0].value;
  }
  EXPECT_EQ(file.results[6].title, "CPU Usage Monitor");
  EXPECT_EQ(file.results[7].title, "Memory Usage Monitor");
  // What we write reads back unchanged.
  std::string xml = results::SerializeResultFile(file);
  EXPECT_EQ(results::SerializeResultFile(results::ParseResultFile(xml, "monitor.xml")), xml);

  // The text view (exports) shows MIN/AVG/MAX of each monitor result, as PTS's does.
  std::string path = std::filesystem::temp_directory_path() / ("ptsn-monitor-" + std::to_string(getpid()) + ".xml");
  results::WriteResultFile(path, file);
  std::string text;
  if (FILE* p = popen((std::string(PTSN_BINARY) + " result-file-to-text " + path + " 2>&1").c_str(), "r")) {
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) text.append(buf, n);
    pclose(p);
  }
  std::filesystem::remove(path);
  EXPECT_NE(text.find("CPU Usage (Summary) Monitor\nPercent < Lower Is Better\nBaseline . MIN: "), std::string::npos) << text;
  EXPECT_NE(text.find("Memory Usage Monitor\nMegabytes < Lower Is Better\nBaseline . MIN: "), std::string::npos) << text;
}

}  // namespace
}  // namespace ptsn::monitor

namespace ptsn::monitor {
namespace {

TEST(MonitorSession, PerformancePerWattOnABatteryFixture) {
  if (!std::filesystem::is_directory(Reference() + "/pts-output")) GTEST_SKIP() << "no shared reference tree";
  test::FixtureTree tree("desktop");
  MonitorConfig c;
  c.sensors = "cpu.usage";
  c.performance_per_watt = "1";
  c.root = tree.root();
  MonitorSession session(c, std::make_unique<test::FakeClock>(100 + 10));
  ResultFile file = results::ReadResultFile(Reference() + "/pts-output/result-a/composite.xml");
  std::erase_if(file.results, [](const Result& r) { return r.parent.has_value(); });
  session.BeginTest();  // the fake clock runs the whole 10 s at once
  session.EndTest();
  auto outcome = session.RecordTest(file, file.results[0], "Baseline");
  // The fixture's counters do not move: cpu.usage is all zeros and dropped, as PTS does.
  ASSERT_EQ(outcome.notes.size(), 1u);
  EXPECT_NE(outcome.notes[0].find("every sample was 0"), std::string::npos);
  EXPECT_EQ(outcome.results_written, 2);
  ASSERT_EQ(file.results.size(), 4u);
  EXPECT_EQ(file.results[1].scale, "MB/s Per Watt");
  EXPECT_EQ(file.results[1].entries[0].value, "9.93");  // 124.13 MB/s at 12.5 W
  EXPECT_EQ(file.results[2].description, "System Power Consumption Monitor");
  EXPECT_EQ(file.results[2].scale, "Milliwatts");
  EXPECT_EQ(file.results[2].entries[0].value,
            "12500.00,12500.00,12500.00,12500.00,12500.00,12500.00,12500.00,12500.00,12500.00,12500.00,12500.00");
}

}  // namespace
}  // namespace ptsn::monitor
