#include "runner/run/run_targets.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "results-xml/stats/verdict.h"
#include "results-xml/views/export_compare.h"
#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/run/estimate.h"
#include "runner/run/run_setup.h"

namespace ptsn::run {

RunTargets::RunTargets(std::unique_ptr<targets::TargetSystem> sys, const std::string& ledger_dir,
                       targets::TargetOptions options, RunObserver& observer)
    : session_(std::move(sys), ledger_dir, std::move(options)), observer_(observer) {
  for (const auto& line : session_.cleanup().released) observer_.Message("Cleaned up: " + line);
  for (const auto& line : session_.cleanup().problems) observer_.Message("Could not clean up: " + line);
}

RunTargets::~RunTargets() {
  if (!removed_) Remove();
}

std::vector<TestPlace> RunTargets::Create(const std::vector<targets::TargetSpec>& specs,
                                          const results::System& base, const sysinfo::SystemReader& reader,
                                          int instances) {
  specs_ = specs;
  base_ = base;
  reader_ = &reader;
  std::vector<TestPlace> made;
  for (int instance = 1; instance <= instances; ++instance) {
    auto more = MakeInstance(instance);
    made.insert(made.end(), more.begin(), more.end());
  }
  return made;
}

std::vector<TestPlace> RunTargets::AddInstance() {
  if (specs_.empty()) throw Error("no targets to add an instance of");
  return MakeInstance(instances_ + 1);
}

// Places join places_ only once the whole instance is made: a part of an instance (one of its
// targets failed) is no instance; its targets are removed with the others at the end.
std::vector<TestPlace> RunTargets::MakeInstance(int instance) {
  std::vector<TestPlace> made;
  for (auto spec : specs_) {
    spec.name = results::InstanceIdentifier(spec.Identifier(), instance);
    targets::Target& t = session_.set().Create(spec);  // throws; the destructor removes the others
    observer_.TargetReady(t.identifier, t.setup_seconds, t.work_dir);
    const size_t index = session_.set().targets().size() - 1;
    made.push_back({TargetSystem(base_, *reader_, t.identifier, t.work_dir, t.NotesText()), t.work_dir,
                    [this, index] { session_.set().Enter(session_.set().targets().at(index)); }});
  }
  places_.insert(places_.end(), made.begin(), made.end());
  instances_ = instance;
  return made;
}

InstancePlan PlanInstances(const Settings& settings, size_t targets) {
  InstancePlan p;
  if (targets < 2) return p;
  p.start = std::max<int>(1, static_cast<int>(settings.GetInt("run.target_instances")));
  p.max = p.start > 1 ? std::max<int>(p.start, static_cast<int>(settings.GetInt("run.max_target_instances"))) : 1;
  return p;
}

void ApplyTargetSettings(RunConfig& config, const Settings& settings, RunTargets& targets) {
  config.paired_ci_goal = settings.GetDouble("run.paired_ci_goal");
  config.same_within = settings.GetDouble("run.same_within");
  const InstancePlan p = PlanInstances(settings, targets.places().size());
  config.shuffle_rounds = p.start > 1;
  config.max_instances = p.max;
  if (p.max > p.start) config.add_instance = [&targets] { return targets.AddInstance(); };
}

std::string InstancesCostText(const std::vector<PlannedTest>& plan, const RunConfig& config, size_t targets,
                              InstancePlan instances) {
  if (targets < 2) return "";
  if (instances.start <= 1)
    return "Targets: one of each (run.target_instances=1): a comparison of one instance pair cannot tell a set-up "
           "from the instance made of it, so no verdict will say \"different\" (docs/verdicts.md)";
  // The trial time one instance of every target adds: each disk test's scheduled trials on each target.
  double per_instance = 0;
  bool known = true;
  for (const auto& t : plan) {
    if (t.profile.test_type != "Disk") continue;
    const TestEstimate e = EstimateTest(t, config.install_root, config.overrides, config.settle_seconds);
    if (e.seconds <= 0) known = false;
    per_instance += e.seconds * static_cast<double>(targets);
  }
  std::string text = "Targets: each made " + std::to_string(instances.start) + " times";
  if (instances.max > instances.start) text += ", up to " + std::to_string(instances.max) + " while undecided";
  if (per_instance > 0) {
    text += ": about " + FormatDuration(per_instance * (instances.start - 1)) + " more than one of each";
    if (instances.max > instances.start)
      text += " (up to " + FormatDuration(per_instance * (instances.max - 1)) + " more)";
    if (!known) text += " for the tests with an estimate";
  } else {
    text += " (no trial time known yet to say what that costs)";
  }
  return text + ", so that a verdict includes the difference each made target carries (docs/verdicts.md; "
                "run.target_instances=1 for one of each)";
}

bool RunTargets::Remove() {
  removed_ = true;
  auto problems = session_.set().RemoveAll();
  for (const auto& [identifier, seconds] : session_.set().teardown_seconds()) observer_.TargetRemoved(identifier, seconds);
  for (const auto& p : problems) observer_.Message("Not released (the next run will try again): " + p);
  return problems.empty();
}

std::string PairedTargetView(const results::ResultFile& file, const std::vector<TestPlace>& places,
                             const results::VerdictSettings& settings) {
  if (places.size() < 2) return "";
  results::ResultFile ours = file;
  ours.systems.clear();
  for (const auto& p : places) ours.systems.push_back(p.system);
  return "Each target against " + places.front().system.identifier + " (paired by round, 95 % interval):\n" +
         results::ComparisonToText(results::CompareResultFiles({ours}, {""}, results::CompareMode::kPaired)) +
         results::VerdictView(ours, settings);
}

std::string BusyMachineNote(double load5, unsigned cores) {
  if (load5 < 0 || cores == 0 || load5 <= 2.0 * cores) return "";
  char load[32];
  std::snprintf(load, sizeof load, "%.1f", load5);
  return "Note: this machine was busy while the targets ran (load average " + std::string(load) +
         " over 5 minutes, " + std::to_string(cores) + (cores == 1 ? " core" : " cores") +
         "): the verdicts' error rates were measured on a quiet machine. In the A/A benchmark "
         "(docs/verdicts.md) identical targets were called different in 8.0 % of runs at load 9-10 on "
         "2 cores, against 3.0 % quiet; run again when the machine is idle before trusting a \"different\".\n";
}

std::string BusyMachineNoteNow() {
  double load[3];
  return BusyMachineNote(getloadavg(load, 3) == 3 ? load[1] : -1, std::thread::hardware_concurrency());
}

}  // namespace ptsn::run
