// `pts-native encryption-cost`, the parts that are plain data and text: the default workloads
// and set-ups, the plan printed before anything is built, and the answer from the saved result
// (each set-up against plain, workload by workload, with the verdict words of
// results-xml/stats/verdict.h, then the set-up that costs least over all workloads). Pure: the command
// (runner/cli/cmd_encryption_cost.cc) probes, builds and runs through batch-run's session.
#pragma once

#include <string>
#include <vector>

#include "results-xml/model/result_file.h"
#include "results-xml/stats/verdict.h"

namespace ptsn::reproduce {

// A named workload: a bundled profile with its options chosen as PRESET_OPTIONS choices.
struct Workload {
  std::string name;     // "rand-read-4k-qd1"
  std::string profile;  // "native/disk-rand-read"
  std::string presets;  // "block-size=4k;iodepth=1;..." (option=choice, as PRESET_OPTIONS after "test.")
  std::string what;     // for people: "4 KiB random reads, queue depth 1, O_DIRECT"
};

// Every named workload; the first four are the default set (where rankings flip: 4 KiB random
// I/O at depth 1 and 32, 1 MiB sequential, many files).
const std::vector<Workload>& NamedWorkloads();
std::vector<std::string> DefaultWorkloadNames();
const Workload* FindWorkload(const std::string& name);

// The encryption set-ups the target kinds build, as --targets specs (plain, the reference, first).
std::vector<std::string> DefaultSetups();

// One set-up of the plan: its spec and why it cannot be built here ("" = it can).
struct PlannedSetup {
  std::string spec;
  std::string identifier;  // its System identifier
  std::string why_not;
};

struct CostPlan {
  std::vector<std::string> probe;      // targets::ProbeLines
  std::vector<std::string> unoffered;  // targets::UnofferedChoices
  std::vector<PlannedSetup> setups;
  std::vector<std::string> workloads;  // "rand-read-4k-qd1: 4 KiB random reads ..."
  std::string estimate;                // "about 12m" (run::DescribeEstimate)
  std::string instances;               // run::InstancesCostText ("" = none)
  double time_budget_seconds = 0;      // run.time_budget
};

// The probe, what will be built and what cannot (and why), the workloads, how long.
std::string CostPlanText(const CostPlan& plan);

// The answer: one row per set-up and workload (verdict text against `reference`), then the set-up
// that costs least over all workloads (geometric mean of its speed relative to plain, a lower-is-
// better result inverted) and whether that is a verdict or unknown. `workload_names`: a label
// for each result, by "identifier arguments" ("" = the result's title and description).
// A test gives several results (MiB/s, IOPS, p99 latency): each row names its unit, and the
// geometric mean takes the first result of each test and arguments only (the others measure the
// same trials again).
struct WorkloadLabel {
  std::string identifier, arguments, name;
};
std::string CostAnswerText(const results::ResultFile& file, const std::string& reference,
                           const std::vector<std::string>& setups, const std::vector<WorkloadLabel>& labels,
                           const results::VerdictSettings& settings);

}  // namespace ptsn::reproduce
