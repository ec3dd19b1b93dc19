#include "runner/run/run_targets.h"

#include <algorithm>

#include "results-xml/export_compare.h"
#include "results-xml/verdict.h"
#include "runner/common/error.h"
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

void ApplyTargetSettings(RunConfig& config, const Settings& settings, RunTargets& targets) {
  config.paired_ci_goal = settings.GetDouble("run.paired_ci_goal");
  config.same_within = settings.GetDouble("run.same_within");
  const int instances = static_cast<int>(settings.GetInt("run.target_instances"));
  config.shuffle_rounds = instances > 1;
  config.max_instances = instances > 1 ? std::max<int>(instances, settings.GetInt("run.max_target_instances")) : 1;
  if (config.max_instances > instances) config.add_instance = [&targets] { return targets.AddInstance(); };
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

}  // namespace ptsn::run
