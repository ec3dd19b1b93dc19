#include "runner/run/estimate.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "results-xml/model/comparison_hash.h"
#include "runner/common/strings.h"

namespace ptsn::run {

namespace {

// PTS keeps the last 30 per key; so do we when averaging.
constexpr size_t kKeep = 30;

struct History {
  std::vector<double> same, all;
};

History ReadHistory(const std::string& install_dir, const std::string& key) {
  History h;
  std::ifstream in(RunTimesLogPath(install_dir));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string k;
    double seconds = 0;
    if (!(fields >> k >> seconds) || seconds <= 0) continue;  // a torn or foreign line
    h.all.push_back(seconds);
    if (k == key) h.same.push_back(seconds);
  }
  return h;
}

double MeanOfLast(const std::vector<double>& v) {
  size_t from = v.size() > kKeep ? v.size() - kKeep : 0;
  double sum = 0;
  for (size_t i = from; i < v.size(); ++i) sum += v[i];
  return sum / static_cast<double>(v.size() - from);
}

}  // namespace

std::string RunTimesLogPath(const std::string& install_dir) { return install_dir + "/pts-native-run-times.log"; }

std::string RunTimeKey(const PlannedTest& t) {
  results::Result r;
  r.identifier = t.profile.identifier;
  r.title = t.profile.title;
  r.app_version = t.profile.app_version;
  r.arguments = t.option.arguments;
  r.description = t.option.description;
  r.scale = t.profile.result_scale;
  return results::ComparisonHash(r);
}

void RecordRunTime(const std::string& install_dir, const std::string& key, double seconds_per_trial) {
  if (seconds_per_trial <= 0) return;
  char line[128];
  int n = std::snprintf(line, sizeof line, "%s %.3f\n", key.c_str(), seconds_per_trial);
  if (n <= 0 || n >= static_cast<int>(sizeof line)) return;
  int fd = open(RunTimesLogPath(install_dir).c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  // One write with O_APPEND: concurrent runs' lines never interleave.
  [[maybe_unused]] ssize_t written = write(fd, line, static_cast<size_t>(n));
  close(fd);
}

TestEstimate EstimateTest(const PlannedTest& t, const std::string& install_root, const RunCountOverrides& overrides,
                          double settle_seconds) {
  const auto& p = t.profile;
  TestEstimate e;
  e.trials = ScheduledRuns(p.times_to_run, p.estimated_time_per_run, p.display_format, overrides);  // as the loop calls it
  History h = ReadHistory(install_root + "/" + p.identifier, RunTimeKey(t));
  if (!h.same.empty()) {
    e.seconds_per_trial = MeanOfLast(h.same);
    e.basis = "measured here (same options)";
  } else if (!h.all.empty()) {
    e.seconds_per_trial = MeanOfLast(h.all);
    e.basis = "measured here";
  } else if (p.estimated_time_per_run > 0) {
    e.seconds_per_trial = p.estimated_time_per_run;
    e.basis = "profile";
  } else {
    e.basis = "unknown";
    return e;
  }
  e.seconds = e.trials * e.seconds_per_trial + std::max(0, e.trials - 1) * settle_seconds;
  return e;
}

TestEstimate OnPlaces(TestEstimate e, size_t places, bool disk, double settle_seconds) {
  if (!disk || places <= 1 || e.seconds_per_trial <= 0) return e;
  const int rounds = e.trials;
  e.trials = rounds * static_cast<int>(places);
  e.seconds = e.trials * e.seconds_per_trial + std::max(0, rounds - 1) * settle_seconds;
  return e;
}

std::vector<TestEstimate> EstimatePlan(const std::vector<PlannedTest>& plan, const std::string& install_root,
                                       const RunCountOverrides& overrides, double settle_seconds) {
  std::vector<TestEstimate> out;
  out.reserve(plan.size());
  for (const auto& t : plan) out.push_back(EstimateTest(t, install_root, overrides, settle_seconds));
  return out;
}

std::string DescribeEstimate(const std::vector<double>& seconds_per_test) {
  double total = 0;
  int unknown = 0;
  for (double s : seconds_per_test) {
    if (s > 0) total += s;
    else ++unknown;
  }
  if (total <= 0) return "unknown";
  return "about " + FormatDuration(total) +
         (unknown > 0 ? ", plus " + std::to_string(unknown) + " test(s) with no estimate" : "");
}

}  // namespace ptsn::run
