// How many times a test runs, as PTS decides it (spec pts-results.md b.4 / pts-profiles.md 4.7),
// plus what PTS lacks: the dynamic extra runs are bounded by a cap and a time budget, and every
// decision carries its reason so the result can record why runs were added.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ptsn::run {

// The FORCE_* / IGNORE_RUNS environment variables, parsed once.
struct RunCountOverrides {
  std::optional<int> force_times_to_run;           // FORCE_TIMES_TO_RUN (replaces; disables dynamic runs)
  std::optional<int> force_times_to_run_multiple;  // FORCE_TIMES_TO_RUN_MULTIPLE
  std::optional<int> force_min_times_to_run;       // FORCE_MIN_TIMES_TO_RUN
  std::optional<int> force_min_cutoff_minutes;     // FORCE_MIN_TIMES_TO_RUN_CUTOFF
  std::optional<int> force_absolute_min;           // FORCE_ABSOLUTE_MIN_TIMES_TO_RUN
  std::optional<double> force_min_duration_minutes;  // FORCE_MIN_DURATION_PER_TEST
  std::set<int> ignore_runs;                       // IGNORE_RUNS, 1-based
  std::vector<std::string> notices;                // what the run should say about them (a count capped)
};

// A test runs at most this many times (PTS's cap on one test's trials).
constexpr int kMaxTimesToRun = 256;

// Reads the variables through an environment lookup. Malformed numbers are an error naming the
// variable (PTS silently ignores them; a typo should not change a benchmark unnoticed), and so is
// a FORCE_TIMES_TO_RUN that is set but empty (through a lookup that keeps empty values:
// ProcessEnvironment), 0 or negative (PTS runs the profile's count then);
// one over kMaxTimesToRun is kept, with a notice that the test runs kMaxTimesToRun times.
RunCountOverrides ReadRunCountOverrides(const std::function<std::optional<std::string>(const std::string&)>& env);

// Scheduled runs: TimesToRun (default 3) -> x MULTIPLE (if estimate < 2 h) -> FORCE replaces ->
// raised to FORCE_MIN (unless a cutoff is set and the estimate is unknown or >= the cutoff) ->
// raised to ABSOLUTE_MIN; 1 for MULTI_* / IMAGE_* display formats; at most 256.
int ScheduledRuns(int times_to_run, double estimated_seconds, const std::string& display_format,
                  const RunCountOverrides& o);

struct DynamicRunLimits {
  bool enabled = true;             // run.dynamic_run_count (and no FORCE_TIMES_TO_RUN)
  double sd_threshold_percent = 2.5;
  int max_runs = 20;               // run.max_runs: total trials of one test, extra runs included
  double time_budget_seconds = 600;  // run.time_budget: time one test may spend on extra runs (FitsTimeBudget)
};

// run.time_budget, one meaning for extra runs, added rounds and added instance pairs: something
// extra starts only when the time the extras took so far plus what it is expected to take stays
// within the budget. What is expected never crosses it; only an extra that runs longer than
// expected can (as a fixed time limit in hyperfine or fio --runtime is never planned past).
bool FitsTimeBudget(double spent_seconds, double expected_seconds, double budget_seconds);

// What the loop knows when the scheduled runs are exhausted.
struct RunState {
  int scheduled = 0;                  // ScheduledRuns()
  int runs_done = 0;                  // trials executed so far (failed ones included)
  std::vector<double> values;         // successful trial values, in order
  int value_precision = 2;            // most decimals among the trial strings (PTS rounds 3-sigma limits to it)
  std::vector<double> run_seconds;    // duration of every executed trial
  double extra_seconds = 0;           // time spent on runs beyond `scheduled`
  double elapsed_seconds = 0;         // since the first trial
  std::vector<double> sd_history;     // sd% after each evaluation (PTS compares first and last)
  bool failures_retried = false;      // the one-time "retry failed runs" already happened
};

struct ExtraRunDecision {
  int add = 0;          // runs to add now (0 = stop)
  std::string reason;   // "failed runs retried", "sd 5.95% >= 2.5%", "outside 3 sigma", ...
  double sd_percent = 0;   // sd% of the values evaluated
  bool noisy = false;      // sd% over the threshold or a value outside 3 sigma: append sd_percent to sd_history
  std::string stopped_by;  // when a run would have been added but a bound stopped it: "max_runs", "time_budget"
};

// Decides at the current last scheduled run, PTS's increase_run_count_check() with our bounds.
// Mutates nothing; when the decision is `noisy` the caller appends its sd_percent to sd_history.
ExtraRunDecision DecideExtraRuns(const RunState& s, const DynamicRunLimits& limits,
                                 const RunCountOverrides& o);

// Percent (sample) standard deviation as PTS computes it; 0 for < 2 values.
double SdPercent(const std::vector<double>& v);

}  // namespace ptsn::run
