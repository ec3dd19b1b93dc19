#include "runner/reproduce/session_steps.h"

#include <algorithm>

#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/reproduce/append.h"
#include "runner/reproduce/compare.h"
#include "runner/reproduce/target_map.h"
#include "runner/run/naming.h"
#include "runner/run/prompter.h"
#include "runner/run/run_targets.h"
#include "runner/targets/target_set.h"

namespace ptsn::reproduce {

std::vector<targets::TargetSpec> PlanTargets(const std::string& targets, const results::ResultFile& file,
                                             targets::TargetSystem& sys, std::ostream& out) {
  if (targets != "auto") {
    auto specs = targets::ParseTargetList(targets);
    std::vector<std::string> ids;
    for (const auto& t : specs) ids.push_back(t.Identifier());
    out << "Targets: " << Join(ids, ", ") << "\n";
    return specs;
  }
  TargetMapping mapping =
      ProposeTargets(file, [&](const targets::TargetSpec& spec) { return targets::WhyUnavailable(sys, spec); });
  out << FormatTargetMapping(mapping);
  if (mapping.targets.empty())
    throw Error("--targets auto: none of the published set-ups can be made here (" + Join(mapping.unavailable, "; ") + ")");
  return mapping.targets;
}

std::vector<targets::TargetSpec> OfferTargets(const results::ResultFile& file,
                                              const std::function<std::string(const targets::TargetSpec&)>& why_unavailable,
                                              Prompter& prompter, bool dry_run, std::ostream& out) {
  TargetMapping mapping = ProposeTargets(file, why_unavailable);
  const bool buildable = std::any_of(mapping.targets.begin(), mapping.targets.end(),
                                     [](const targets::TargetSpec& t) { return t.kind != targets::Kind::kPlain; });
  if (!buildable) return {};
  std::vector<std::string> ids;
  for (const auto& t : mapping.targets) ids.push_back(t.Identifier());
  if (dry_run || !prompter.Interactive()) {
    out << "The published systems are set-ups this machine can build as targets (" << Join(ids, ", ")
        << (mapping.unavailable.empty() ? "" : "; not here: " + Join(mapping.unavailable, "; "))
        << "): --targets auto builds them and runs the tests on each, --no-targets runs on this system as it is; "
        << (dry_run ? "this dry run plans" : "not asked (this run cannot ask): running") << " on this system as it is\n";
    return {};
  }
  out << FormatTargetMapping(mapping);
  if (run::YesByDefault(prompter.Ask("Build these set-ups as targets and run the tests on each (--targets auto; "
                                     "--no-targets: this system as it is)? [Y/n] ")))
    return mapping.targets;
  out << "Running on this system as it is.\n";
  return {};
}

std::vector<std::string> NameOurSystems(const results::ResultFile& file, std::vector<targets::TargetSpec>& targets,
                                        const Naming& naming, Prompter& prompter) {
  if (!naming.resume_identifier.empty()) return {naming.resume_identifier};
  if (targets.empty()) return {ChooseIdentifier(file, naming.from_environment, prompter, naming.variables)};
  std::vector<std::string> identifiers;
  const std::string prefix = run::CleanResultsIdentifier(naming.from_environment.value_or(""));
  for (auto& t : targets) {
    if (!prefix.empty()) t.name = prefix + ": " + t.Identifier();
    // (A system an earlier reproduction added under this name is ours: the run resumes it.)
    for (const auto& published : file.systems)
      if (published.identifier == t.Identifier() && !IsReproductionSystem(published))
        throw Error("target " + t.Identifier() + " has the name of a published system; name it (NAME=spec) or set "
                    "TEST_RESULTS_IDENTIFIER");
    identifiers.push_back(t.Identifier());
  }
  return identifiers;
}

std::vector<PlanItem> ItemsToRun(const results::ResultFile& file, const ReproducePlan& plan,
                                 const std::vector<std::string>& identifiers) {
  std::vector<PlanItem> todo;
  for (const auto& id : identifiers)
    for (const auto& item : RemainingItems(file, plan, id))
      if (std::none_of(todo.begin(), todo.end(), [&](const PlanItem& i) { return i.result_index == item.result_index; }))
        todo.push_back(item);
  std::sort(todo.begin(), todo.end(), [](const PlanItem& a, const PlanItem& b) { return a.result_index < b.result_index; });
  return todo;
}

void PrintOutcome(const results::ResultFile& file, const SessionEnd& end, std::ostream& out) {
  for (const auto& id : end.identifiers) out << "\n" << ComparisonText(file, id, end.width);
  if (end.places.size() > 1)
    out << "\n" << run::PairedTargetView(file, end.places, end.verdicts) << run::BusyMachineNoteNow();
  if (std::string costs = SetupCostText(file, end.origins, end.verdicts); !costs.empty()) out << "\n" << costs;
  out << (end.saved ? "\nSaved: " : "\nNothing saved (no test produced a result): ") << end.path << "\n";
}

}  // namespace ptsn::reproduce
