// How long a plan will take, estimated as PTS estimates it (pts_test_result::
// get_estimated_per_run_time): per trial, the mean of this machine's earlier trials of the same
// test and arguments, else of all its earlier trials of that test, else the profile's
// EstimatedTimePerRun; times the trials the run-count policy schedules, plus the settle time
// between them. The trial times are kept beside each installed test in an append-only log, so
// concurrent runs never lose or corrupt a line.
#pragma once

#include <string>
#include <vector>

#include "runner/run/run_count.h"
#include "runner/run/run_plan.h"

namespace ptsn::run {

struct TestEstimate {
  int trials = 0;
  double seconds_per_trial = 0;  // 0 = unknown
  double seconds = 0;            // trials x per trial + settle time; 0 = unknown
  std::string basis;             // "measured here (same options)", "measured here", "profile", "unknown"
};

// <install dir>/pts-native-run-times.log: one "<key> <seconds per trial>" line per finished
// test, appended with one write; the key is the comparison hash of the test's Result (test,
// arguments, description, version, scale), as PTS keys its per-run times.
std::string RunTimesLogPath(const std::string& install_dir);
std::string RunTimeKey(const PlannedTest& t);
// Appends a test's mean trial time (nothing when `seconds_per_trial` <= 0 or the log cannot be
// written: an estimate is never worth failing a run).
void RecordRunTime(const std::string& install_dir, const std::string& key, double seconds_per_trial);

TestEstimate EstimateTest(const PlannedTest& t, const std::string& install_root, const RunCountOverrides& overrides,
                          double settle_seconds);
// The estimate of a test run on `places` storage targets (docs/targets.md): a disk test runs its
// trials on every target (round by round, settling once per round), any other test runs once.
// Each target's trials are recorded as an ordinary run's (one mean per target), so the time per
// trial is the same whether it was measured with targets or without.
TestEstimate OnPlaces(TestEstimate e, size_t places, bool disk, double settle_seconds);

std::vector<TestEstimate> EstimatePlan(const std::vector<PlannedTest>& plan, const std::string& install_root,
                                       const RunCountOverrides& overrides, double settle_seconds);

// The total of a plan's estimates (seconds per test, 0 = unknown): "about 4m 10s", "about 4m 10s,
// plus 2 test(s) with no estimate", or "unknown".
std::string DescribeEstimate(const std::vector<double>& seconds_per_test);

}  // namespace ptsn::run
