// How many rounds a test runs on several targets with its trials interleaved (round 1 on every
// target, then round 2 ...). The scheduled count is PTS's (ScheduledRuns); after it, rounds are
// added while some target's paired ratio to the first target is not yet known to the precision
// asked (run.paired_ci_goal: the half-width of its 95 % interval, in percent), within the same
// bounds as PTS's dynamic run count (run.max_runs, run.time_budget; FORCE_TIMES_TO_RUN or
// run.dynamic_run_count=false turn it off). Every target gets the same number of rounds, so every
// trial has its pair.
#pragma once

#include <string>
#include <vector>

#include "runner/run/run_count.h"

namespace ptsn::run {

struct RoundState {
  int scheduled = 0;    // ScheduledRuns()
  int rounds_done = 0;  // rounds run so far (a failed trial still counts its round)
  // Per target (the first is the reference): the first result's trial values, by round; NaN
  // where that round's trial gave no value.
  std::vector<std::vector<double>> values;
  std::vector<std::string> names;  // target identifiers, for the reason
  double extra_seconds = 0;        // time spent on rounds beyond `scheduled`, and on instances added
  // What the next extra is expected to take (FitsTimeBudget): a round, the mean trial on every
  // target; an instance pair, the scheduled rounds on its targets plus the set-up the last pair
  // took (the first pair's set-up is not known before it is made).
  double trials_seconds = 0;        // every trial so far, on all targets
  int trials = 0;                   // how many
  double last_setup_seconds = 0;    // making the last instance pair added; 0 before one
  // With instances: how many of each target there are now, how many there were at the start, and
  // how many there may be (RunConfig::max_instances; equal to `instances`: none are added).
  int instances = 1, start_instances = 1, max_instances = 1;
};

struct RoundDecision {
  bool add = false;           // run one more round on every target
  bool add_instance = false;  // instead: make one more instance of every target, run the scheduled rounds on it
  std::string reason;      // "fscrypt AES-256-XTS ext4: x0.083 +-3.1 % (goal +-2 %)"
  std::string stopped_by;  // a bound that stopped a round that was wanted: "max_runs", "max_target_instances", "time_budget"
};

// With one instance per target, rounds are added while a paired ratio's 95 % interval is wider
// than ±ci_goal_percent. With several (names "NAME #k", run.target_instances), while a kind's
// verdict against the first kind is unknown: neither "different" nor "same within
// ±same_within_percent" (results-xml/stats/verdict.h); then instance pairs are added instead of rounds
// when max_instances allows more (they carry the between-instance variation that rounds cannot
// average away). Either is added only when its expected time fits run.time_budget (FitsTimeBudget).
RoundDecision DecideMoreRounds(const RoundState& s, const DynamicRunLimits& limits, double ci_goal_percent,
                               double same_within_percent = 5);

// With instances, how many looks at the verdicts the bounds allow: one per instance pair that may
// be added (max_instances), else one per round that may be added (run.max_runs, when rounds are
// added at all); 1 without looks to come. Every look, the last included, judges at
// results::PocockConfidence(0.95, looks), and the result records it so that views of the file
// later judge at the same level (a 95 % view of a sequential run would call more "different").
int VerdictLooks(const RoundState& s, const DynamicRunLimits& limits);

}  // namespace ptsn::run
