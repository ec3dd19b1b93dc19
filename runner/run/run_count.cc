#include "runner/run/run_count.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "results-xml/stats/statistics.h"
#include "runner/common/error.h"
#include "runner/common/strings.h"

namespace ptsn::run {
namespace {

std::optional<int> IntVar(const std::function<std::optional<std::string>(const std::string&)>& env,
                          const std::string& name) {
  auto v = env(name);
  if (!v || Trim(*v).empty()) return std::nullopt;
  std::string t = Trim(*v);
  try {
    size_t used = 0;
    int n = std::stoi(t, &used);
    if (used == t.size()) return n;
  } catch (...) {
  }
  throw Error(name + "=" + *v + ": not an integer");
}

std::string Percent(double v) {
  std::ostringstream s;
  s.precision(3);
  s << v << "%";
  return s.str();
}

bool OutsideThreeSigma(const std::vector<double>& v, int precision) {
  if (v.empty()) return false;
  auto [lo, hi] = results::ThreeSigmaLimits(v, precision);
  return std::any_of(v.begin(), v.end(), [&](double x) { return x < lo || x > hi; });
}

}  // namespace

RunCountOverrides ReadRunCountOverrides(
    const std::function<std::optional<std::string>(const std::string&)>& env) {
  RunCountOverrides o;
  if (auto v = env("FORCE_TIMES_TO_RUN"); v && Trim(*v).empty())
    throw Error("FORCE_TIMES_TO_RUN is set but empty: give the number of times each test runs (1-" +
                std::to_string(kMaxTimesToRun) + "), or unset it for each profile's own count");
  o.force_times_to_run = IntVar(env, "FORCE_TIMES_TO_RUN");
  if (o.force_times_to_run && *o.force_times_to_run < 1)
    throw Error("FORCE_TIMES_TO_RUN=" + std::to_string(*o.force_times_to_run) + ": a test runs at least once (1-" +
                std::to_string(kMaxTimesToRun) + "); unset it for each profile's own count");
  if (o.force_times_to_run && *o.force_times_to_run > kMaxTimesToRun)
    o.notices.push_back("FORCE_TIMES_TO_RUN=" + std::to_string(*o.force_times_to_run) + ": a test runs at most " +
                        std::to_string(kMaxTimesToRun) + " times; each runs " + std::to_string(kMaxTimesToRun) +
                        " times");
  o.force_times_to_run_multiple = IntVar(env, "FORCE_TIMES_TO_RUN_MULTIPLE");
  o.force_min_times_to_run = IntVar(env, "FORCE_MIN_TIMES_TO_RUN");
  o.force_min_cutoff_minutes = IntVar(env, "FORCE_MIN_TIMES_TO_RUN_CUTOFF");
  o.force_absolute_min = IntVar(env, "FORCE_ABSOLUTE_MIN_TIMES_TO_RUN");
  if (auto d = env("FORCE_MIN_DURATION_PER_TEST"); d && !Trim(*d).empty()) {
    try {
      o.force_min_duration_minutes = std::stod(*d);
    } catch (...) {
      throw Error("FORCE_MIN_DURATION_PER_TEST=" + *d + ": not a number");
    }
  }
  if (auto ir = env("IGNORE_RUNS"))
    for (const auto& part : Split(*ir, ',')) {
      std::string t = Trim(part);
      if (t.empty()) continue;
      try {
        o.ignore_runs.insert(std::stoi(t));
      } catch (...) {
        throw Error("IGNORE_RUNS=" + *ir + ": '" + t + "' is not a run number");
      }
    }
  return o;
}

int ScheduledRuns(int times_to_run, double estimated_seconds, const std::string& display_format,
                  const RunCountOverrides& o) {
  int n = times_to_run > 0 ? times_to_run : 3;
  if (o.force_times_to_run_multiple && *o.force_times_to_run_multiple > 0 && estimated_seconds < 7200)
    n *= *o.force_times_to_run_multiple;
  if (o.force_times_to_run && *o.force_times_to_run > 0) n = *o.force_times_to_run;
  // PTS applies the minimum when there is no cutoff, or when the profile's estimate is known and
  // below it: a profile without an estimate is not raised once a cutoff is set.
  bool cutoff_set = o.force_min_cutoff_minutes && *o.force_min_cutoff_minutes != 0;
  bool below_cutoff = cutoff_set && estimated_seconds > 0 && estimated_seconds / 60 < *o.force_min_cutoff_minutes;
  if (o.force_min_times_to_run && n < *o.force_min_times_to_run && (!cutoff_set || below_cutoff))
    n = *o.force_min_times_to_run;
  if (o.force_absolute_min && n < *o.force_absolute_min) n = *o.force_absolute_min;
  if (n < 1 || StartsWith(display_format, "MULTI_") || StartsWith(display_format, "IMAGE_")) n = 1;
  return std::min(n, kMaxTimesToRun);
}

bool FitsTimeBudget(double spent_seconds, double expected_seconds, double budget_seconds) {
  return spent_seconds + expected_seconds <= budget_seconds;
}

double SdPercent(const std::vector<double>& v) { return results::PercentStandardDeviation(v); }

ExtraRunDecision DecideExtraRuns(const RunState& s, const DynamicRunLimits& limits, const RunCountOverrides& o) {
  ExtraRunDecision d;
  // PTS: dynamic handling off with the setting or any FORCE_TIMES_TO_RUN PHP reads as true (so
  // "0" keeps it on); only when most runs succeeded.
  if (!limits.enabled || (o.force_times_to_run && *o.force_times_to_run != 0)) return d;
  int i = s.runs_done - 1;  // PTS's 0-based index of the run just finished
  int produced = static_cast<int>(s.values.size());
  if (!(produced > (i - 2) / 2)) return d;

  // Proposed by PTS's rules, then bounded by ours.
  if (!s.failures_retried && s.runs_done == s.scheduled && produced > 0 && produced < s.scheduled && i < 64) {
    d.add = s.scheduled - produced;
    d.reason = std::to_string(d.add) + " failed run(s) retried";
  } else if (produced >= 2) {
    double avg = s.run_seconds.empty() ? 0
                 : std::accumulate(s.run_seconds.begin(), s.run_seconds.end(), 0.0) / s.run_seconds.size();
    if (o.force_min_duration_minutes && *o.force_min_duration_minutes > 0 &&
        s.elapsed_seconds < *o.force_min_duration_minutes * 60) {
      d.add = 1;
      d.reason = "FORCE_MIN_DURATION_PER_TEST not reached";
    } else if (std::floor(avg / 60) > 60) {
      return d;
    } else {
      double sd = SdPercent(s.values);
      bool outside = OutsideThreeSigma(s.values, s.value_precision);
      d.sd_percent = sd;
      if (sd >= limits.sd_threshold_percent || outside) {
        d.noisy = true;
        int max_runs = s.scheduled * (avg < 120 ? 4 : avg < 240 ? 3 : 2);
        std::string why = sd >= limits.sd_threshold_percent
                              ? "sd " + Percent(sd) + " >= " + Percent(limits.sd_threshold_percent)
                              : std::string("a value outside three sigma");
        if (produced < max_runs) {
          d.add = 1;
          d.reason = why;
        } else if (produced < max_runs + s.scheduled) {
          double first = s.sd_history.empty() ? sd : s.sd_history.front(), last = sd;
          if (std::fabs(first - last) < first / 2) {
            d.add = 1;
            d.reason = why + ", and the deviation is still improving";
          }
        }
      }
    }
  }
  if (d.add == 0) return d;
  // Our bounds, which PTS does not have: a cap on total trials and a time budget for extras.
  if (s.runs_done + d.add > limits.max_runs) {
    d.add = std::max(0, limits.max_runs - s.runs_done);
    if (d.add == 0) d.stopped_by = "max_runs";
  }
  double avg = s.run_seconds.empty() ? 0
               : std::accumulate(s.run_seconds.begin(), s.run_seconds.end(), 0.0) / s.run_seconds.size();
  if (d.add > 0 && !FitsTimeBudget(s.extra_seconds, avg * d.add, limits.time_budget_seconds)) {
    d.add = 0;
    d.stopped_by = "time_budget";
  }
  return d;
}

}  // namespace ptsn::run
