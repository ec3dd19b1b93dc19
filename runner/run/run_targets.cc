#include "runner/run/run_targets.h"

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
  std::vector<TestPlace> places;
  for (int instance = 1; instance <= instances; ++instance)
    for (auto spec : specs) {
      spec.name = results::InstanceIdentifier(spec.Identifier(), instance);
      targets::Target& t = session_.set().Create(spec);  // throws; the destructor removes the others
      observer_.TargetReady(t.identifier, t.setup_seconds, t.work_dir);
      size_t index = places.size();
      places.push_back({TargetSystem(base, reader, t.identifier, t.work_dir, t.NotesText()), t.work_dir,
                        [this, index] { session_.set().Enter(session_.set().targets().at(index)); }});
    }
  return places;
}

void ApplyTargetSettings(RunConfig& config, const Settings& settings) {
  config.paired_ci_goal = settings.GetDouble("run.paired_ci_goal");
  config.same_within = settings.GetDouble("run.same_within");
  config.shuffle_rounds = settings.GetInt("run.target_instances") > 1;
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
