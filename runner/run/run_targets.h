// The storage targets of one run (--targets): created before the run loop starts, each handed to
// the loop as a TestPlace with its own System (identifier, file system, set-up notes), released
// after the loop ends — or when this object is destroyed by an exception or after Ctrl-C. What a
// dead earlier run left is released first. `run`, `batch-run` and `run <ID>` share it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "results-xml/stats/verdict.h"
#include "runner/common/settings.h"
#include "runner/run/observer.h"
#include "runner/run/trial_steps.h"
#include "runner/run/run_place.h"
#include "runner/sysinfo/system_reader.h"
#include "runner/targets/session.h"
#include "runner/targets/target_spec.h"

namespace ptsn::run {

class RunTargets {
 public:
  // Releases what dead runs left (reported through the observer's Message) and prepares the set.
  RunTargets(std::unique_ptr<targets::TargetSystem> sys, const std::string& ledger_dir,
             targets::TargetOptions options, RunObserver& observer);
  ~RunTargets();

  // Creates every target in order, `instances` times (run.target_instances): instance 1 of every
  // spec, then instance 2 ("NAME #2") ..., so the first place is the reference's first instance.
  // The first that cannot be made stops it all (the others are released) with ptsn::Error naming it.
  std::vector<TestPlace> Create(const std::vector<targets::TargetSpec>& specs, const results::System& base,
                                const sysinfo::SystemReader& reader, int instances = 1);
  // One more instance of every spec Create made ("NAME #K+1" ...): a new instance pair for each
  // comparison, while a verdict is unknown (run.max_target_instances). Throws like Create.
  std::vector<TestPlace> AddInstance();
  // Every place made so far, in order.
  const std::vector<TestPlace>& places() const { return places_; }
  // Releases everything; problems (kept in the ledger for the next run) go to the observer.
  // True when everything was released.
  bool Remove();

 private:
  std::vector<TestPlace> MakeInstance(int instance);

  targets::TargetSession session_;
  RunObserver& observer_;
  bool removed_ = false;
  std::vector<targets::TargetSpec> specs_;  // what Create was asked for
  results::System base_;
  const sysinfo::SystemReader* reader_ = nullptr;
  int instances_ = 0;  // made of each spec so far
  std::vector<TestPlace> places_;
};

// The settings of a run across targets: run.paired_ci_goal, run.same_within, and with
// run.target_instances > 1 a random order of the places in every round and, up to
// run.max_target_instances, new instance pairs made by `targets` while a verdict is unknown.
void ApplyTargetSettings(RunConfig& config, const Settings& settings, RunTargets& targets);

// How many instances of each target a run makes to start with (run.target_instances) and at most
// (run.max_target_instances, never fewer than the start): one of each when there is nothing to
// compare (a single target).
struct InstancePlan {
  int start = 1, max = 1;
};
InstancePlan PlanInstances(const Settings& settings, size_t targets);

// What the instances cost, printed before anything is made (issue 50): the trial time of the
// plan's disk tests on the instances beyond the first of each target, from EstimateTest:
//   "Targets: each made 3 times, up to 6 while undecided: about 40s more than one of each (up to
//    1m 40s more) ..."
// With one instance, what that leaves out. "" for a single target.
std::string InstancesCostText(const std::vector<PlannedTest>& plan, const RunConfig& config, size_t targets,
                              InstancePlan instances);

// The paired view of a run across targets: each target against the first, round by round
// (compare-results --paired restricted to the targets' Systems).
// With instances, the verdicts follow (results::VerdictView).
std::string PairedTargetView(const results::ResultFile& file, const std::vector<TestPlace>& places,
                             const results::VerdictSettings& settings = {});

// A busy machine widens what a targets run's verdicts get wrong: in the A/A benchmark
// (docs/verdicts.md, 100 runs each) identical targets were called different in 8.0 % of runs at
// load 9-10 on 2 cores against 3.0 % quiet. So a run whose 5-minute load average stayed above twice
// the cores says so beside its verdicts; "" otherwise (or when the load is unknown: load5 < 0).
std::string BusyMachineNote(double load5, unsigned cores);

// BusyMachineNote for this machine now: its 5-minute load (getloadavg) and online cores.
std::string BusyMachineNoteNow();

}  // namespace ptsn::run
