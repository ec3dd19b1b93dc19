// The steps of `pts-native run <ID>` (session.cc) that decide or print without running anything,
// kept apart so each is tested on its own. The session takes them in this order:
//
//   PlanTargets       --targets LIST|auto: the targets, printed as part of the plan
//   OfferTargets      neither --targets nor --no-targets: the published set-ups offered once as
//                     targets when this machine can build them
//   NameOurSystems    the identifiers our results go under: the system being finished, this
//                     machine (asked), or one per target; never a published system's name
//   ItemsToRun        what is still to run for any of our systems, in file order
//   PrintOutcome      the comparison for each of our systems, the targets side by side, each
//                     set-up's cost beside the published (setup_cost.h), and where the result
//                     was saved
//
// The others (resolve, fetch the profiles, plan, consent, install, run, upload) are glue over
// resolve.h, originals.h, plan.h, consent.h and the runner, and live in session.cc.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "results-xml/model/result_file.h"
#include "runner/reproduce/consent.h"
#include "runner/reproduce/plan.h"
#include "runner/reproduce/setup_cost.h"
#include "runner/run/run_place.h"
#include "runner/targets/target_spec.h"
#include "runner/targets/system.h"

namespace ptsn::reproduce {

// The targets of `--targets LIST|auto` (`targets` not empty): the list parsed, or the published
// systems of `file` mapped to what `sys` can make (target_map.h). Prints the choice; throws
// ptsn::Error when "auto" finds nothing that can be made here.
std::vector<targets::TargetSpec> PlanTargets(const std::string& targets, const results::ResultFile& file,
                                             targets::TargetSystem& sys, std::ostream& out);

// Neither --targets nor --no-targets. When the published systems are set-ups targets can build
// here (the mapping of --targets auto has a target other than plain that `why_unavailable`
// allows), the mapping is shown (what can be built, what cannot and why) and building them is
// asked once, default yes; a run that cannot ask (`--non-interactive`, no terminal, `dry_run`)
// prints one line saying how to choose and runs on this system as it is. Returns the targets to
// build: none when nothing is offered, declined, or not asked.
std::vector<targets::TargetSpec> OfferTargets(const results::ResultFile& file,
                                              const std::function<std::string(const targets::TargetSpec&)>& why_unavailable,
                                              Prompter& prompter, bool dry_run, std::ostream& out);

// Who is asking for which name, for NameOurSystems.
struct Naming {
  std::string resume_identifier;               // finish-run: the saved system being finished
  std::optional<std::string> from_environment;  // TEST_RESULTS_IDENTIFIER
  std::map<std::string, std::string> variables;  // what an asked identifier may refer to
};

// The identifiers of our systems, in run order: `naming.resume_identifier` when set; else this
// machine's (ChooseIdentifier: from the environment or asked) when there are no targets; else one
// per target, prefixed with the environment's identifier when there is one (renaming the specs).
// Throws ptsn::Error when a target has the name of a published (not reproduction) system.
std::vector<std::string> NameOurSystems(const results::ResultFile& file, std::vector<targets::TargetSpec>& targets,
                                        const Naming& naming, Prompter& prompter);

// The items still to run for any of `identifiers` (RemainingItems of each), each once, in file order.
std::vector<PlanItem> ItemsToRun(const results::ResultFile& file, const ReproducePlan& plan,
                                 const std::vector<std::string>& identifiers);

// How the session ended, for PrintOutcome.
struct SessionEnd {
  std::string path;                    // the result file read and appended to
  bool saved = false;                  // the run loop saved a result
  std::vector<std::string> identifiers;  // our systems
  std::vector<run::TestPlace> places;  // the storage targets run on (side by side when several)
  int width = 79;
  std::vector<TargetOrigin> origins;    // our targets and the published systems each stands for
  results::VerdictSettings verdicts;    // run.same_within
};

// `file` is the result as saved at the end (read from end.path).
void PrintOutcome(const results::ResultFile& file, const SessionEnd& end, std::ostream& out);

}  // namespace ptsn::reproduce
