// What the run loop tells the outside world, and the three ways it is shown: a live status line
// on a TTY, one plain line per event otherwise, JSON lines (--json-events) for machines.
// Also the hook the monitor module plugs into around each test.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "results-xml/model/result_file.h"

namespace ptsn::run {

struct TestHeader {
  int index = 0;           // 1-based
  int total = 0;
  std::string identifier;  // "local/trivial-1.0.0"
  std::string title;
  std::string description; // option description, "" if none
  int scheduled_trials = 0;
  double estimated_seconds = 0;  // for the ETA: profile estimate, 0 when unknown
};

// One value a trial produced, with what it measures: a test may report several (MiB/s, IOPS and
// a p99 latency from one run).
struct TrialValue {
  std::string value;        // "1237.56"
  std::string scale;        // "MiB/s"
  std::string description;  // the result's description ("Block Size: 4KB - p99 Latency")
  bool operator==(const TrialValue&) const = default;
};

struct TrialReport {
  int trial = 0;         // 1-based
  int of = 0;            // current planned trials (grows when runs are added)
  bool warmup = false;
  bool ok = false;
  std::string value;     // the parsed trial value(s), "" when failed
  std::string failure;   // why it failed
  double seconds = 0;
  std::vector<TrialValue> values;  // the same values with their units (empty: only `value` is known)
  std::string target;    // the storage target it ran on ("" = no targets)
};

// "1237.56 MiB/s, 19800.89 IOPS, 442.37 Microseconds (p99 Latency)": each value with its unit and,
// where its description says more than the test's (`test_description`), what it is. `value`
// when the report has no `values`.
std::string LabelledTrialValues(const TrialReport& trial, const std::string& test_description);

struct TestReport {
  std::string value;      // entry value, "" when failed
  std::string scale;
  int trials = 0;
  int extra_runs = 0;
  std::string failure;    // "" when a value was produced
  bool skipped = false;
  std::string target;     // the storage target this report is for ("" = no targets)
  std::vector<std::string> notes;  // "System: differences under ±Y % cannot be resolved ..."
};

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void RunStarted(const std::string& /*name*/, const std::string& /*identifier*/,
                          const std::vector<double>& /*estimated_seconds_per_test*/) {}
  virtual void TestStarted(const TestHeader&) {}
  virtual void TrialFinished(const TestHeader&, const TrialReport&) {}
  virtual void RunsAdded(const TestHeader&, int /*count*/, const std::string& /*reason*/) {}
  // With instances: instance `instance` of every target was made, to run this test's scheduled rounds.
  virtual void InstanceAdded(const TestHeader&, int /*instance*/, const std::string& /*reason*/) {}
  virtual void TestFinished(const TestHeader&, const TestReport&) {}
  virtual void Saved(const std::string& /*path*/) {}
  virtual void Message(const std::string& /*text*/) {}
  virtual void RunFinished(int /*tests_ok*/, int /*tests_failed*/) {}
  // Storage targets (runner/targets): created before the first test, removed after the last.
  virtual void TargetReady(const std::string& /*identifier*/, double /*setup_seconds*/, const std::string& /*work_dir*/) {}
  virtual void TargetRemoved(const std::string& /*identifier*/, double /*teardown_seconds*/) {}
};

// Fans out to several observers (printer + monitor, ...).
class ObserverList : public RunObserver {
 public:
  void Add(RunObserver* o) { list_.push_back(o); }
  void RunStarted(const std::string& n, const std::string& i, const std::vector<double>& e) override;
  void TestStarted(const TestHeader& h) override;
  void TrialFinished(const TestHeader& h, const TrialReport& t) override;
  void RunsAdded(const TestHeader& h, int c, const std::string& r) override;
  void InstanceAdded(const TestHeader& h, int i, const std::string& r) override;
  void TestFinished(const TestHeader& h, const TestReport& r) override;
  void Saved(const std::string& p) override;
  void Message(const std::string& t) override;
  void RunFinished(int ok, int failed) override;
  void TargetReady(const std::string& id, double seconds, const std::string& dir) override;
  void TargetRemoved(const std::string& id, double seconds) override;

 private:
  std::vector<RunObserver*> list_;
};

// The monitor's hook (runner/monitor MonitorSession): BeforeTest just before pre.sh starts,
// AfterTest right after post.sh ended, Record once the test's Results are in the file and before
// it is saved (the monitor appends its children with Parent = the test's comparison hash),
// Finish at the end of the run. Record returns problems to show the user.
class TestHook {
 public:
  virtual ~TestHook() = default;
  virtual void BeforeTest(const results::Result& /*test*/) {}
  virtual void AfterTest(const results::Result& /*test*/) {}
  // A test run on several targets (places): around each of its trials, with the target's System
  // identifier, instead of BeforeTest/AfterTest around the whole test.
  virtual void BeforeTrial(const results::Result& /*test*/, const std::string& /*system_identifier*/) {}
  virtual void AfterTrial(const results::Result& /*test*/, const std::string& /*system_identifier*/) {}
  virtual std::vector<std::string> Record(results::ResultFile& /*file*/, const results::Result& /*test*/,
                                          const std::string& /*system_identifier*/) {
    return {};
  }
  virtual void Finish(results::ResultFile& /*file*/, const std::string& /*system_identifier*/) {}
};

using Clock = std::function<double()>;  // seconds, monotonic; injectable for tests
Clock SteadyClock();

enum class PrinterKind { kTty, kPlain, kJson };
std::unique_ptr<RunObserver> MakePrinter(PrinterKind kind, std::ostream& out, Clock clock = SteadyClock());

}  // namespace ptsn::run
