// Reproducing a published result (runner/reproduce/): `reproduce <ID>`, and `run|benchmark <ID>`
// when the argument names a saved result or a result ID rather than a profile or suite; and
// `finish-run`, which runs what a saved result's own system is missing through the same session.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "results-xml/model/result_xml.h"
#include "results-xml/store/result_store.h"
#include "runner/cli/command.h"
#include "runner/cli/target_flags.h"
#include "runner/common/args.h"
#include "runner/common/error.h"
#include "runner/common/pts_variables.h"
#include "runner/common/settings.h"
#include "runner/common/strings.h"
#include "runner/common/terminal.h"
#include "runner/profile/profile_repository.h"
#include "runner/reproduce/consent.h"
#include "runner/reproduce/result_id.h"
#include "runner/reproduce/session.h"

namespace ptsn::cli {

namespace {

ArgSpec Spec() {
  ArgSpec spec{{"--server", "--token", "--target-order"},
               {"--dry-run", "--skip-unavailable", "--upload", "--non-interactive", "--offline", "--yes", "--no-targets", "--no-monitor"}};
  for (const auto& o : kTargetValueOptions) spec.value_options.insert(o);
  return spec;
}

// The session options `reproduce` and `finish-run` share: the flags, and the text width.
reproduce::SessionOptions CommonOptions(const Args& a, const std::string& name) {
  reproduce::SessionOptions o;
  o.name = name;
  o.dry_run = a.Has("--dry-run");
  o.skip_unavailable = a.Has("--skip-unavailable");
  o.non_interactive = a.Has("--non-interactive");
  o.offline = a.Has("--offline");
  o.yes = a.Has("--yes");
  o.no_monitor = a.Has("--no-monitor");
  o.width = TerminalWidth();
  return o;
}

int Reproduce(const std::vector<std::string>& argv) {
  Args a = Args::Parse(argv, Spec());
  if (a.positional().size() != 1) throw Error("reproduce: give exactly one result ID or saved result name");
  reproduce::SessionOptions o = CommonOptions(a, a.positional()[0]);
  o.servers = a.Values("--server");
  o.token = a.ValueOr("--token", "");
  o.upload = a.Has("--upload");
  TargetFlags targets = ReadTargetFlags(a);
  o.targets = targets.list.value_or("");
  o.no_targets = a.Has("--no-targets");
  if (o.no_targets && targets.list) throw Error("--no-targets and --targets " + *targets.list + ": choose one");
  if (a.Has("--target-size")) o.target_size = targets.size;
  o.device = targets.device;
  std::string order = a.ValueOr("--target-order", "interleaved");
  if (order != "interleaved" && order != "sequential")
    throw Error("--target-order " + order + ": expected interleaved or sequential");
  o.targets_sequential = order == "sequential";
  return reproduce::RunSession(o, std::cout);
}

int FinishRun(const std::vector<std::string>& argv) {
  Args a = Args::Parse(argv, {{}, {"--dry-run", "--skip-unavailable", "--non-interactive", "--offline", "--yes", "--no-monitor"}});
  if (a.positional().size() != 1) throw Error("usage: pts-native finish-run SAVED-NAME", 2);
  const std::string& name = a.positional()[0];
  const auto dirs = results::ResultDirectories(GlobalSettings());
  auto dir = results::FindSavedResultDir(name, dirs);
  if (!dir) throw Error(name + ": no saved result of that name (looked in " + Join(dirs, ", ") + ")", 2);
  auto file = results::ReadResultFile(*dir + "/composite.xml");
  auto incomplete = reproduce::IncompleteSystems(file);
  if (incomplete.empty()) {
    std::cout << "It appears that there are no incomplete test results within this saved file.\n";
    return 0;
  }
  std::string chosen;
  if (auto given = ReadPtsVariables().results_identifier) {
    chosen = Trim(*given);
    if (std::find(incomplete.begin(), incomplete.end(), chosen) == incomplete.end())
      throw Error("TEST_RESULTS_IDENTIFIER '" + chosen + "' is not an incomplete run of " + name + " (incomplete: " +
                  Join(incomplete, ", ") + ")", 2);
  } else if (incomplete.size() == 1) {
    chosen = incomplete[0];
  } else if (!a.Has("--non-interactive") && isatty(STDIN_FILENO)) {
    std::cout << "Select which incomplete test run you would like to finish:\n";
    for (size_t i = 0; i < incomplete.size(); ++i) std::cout << "  " << i + 1 << ": " << incomplete[i] << "\n";
    std::cout << "choice: " << std::flush;
    std::string line;
    std::getline(std::cin, line);
    const size_t n = std::strtoul(Trim(line).c_str(), nullptr, 10);
    if (n < 1 || n > incomplete.size()) throw Error("finish-run: no run chosen", 2);
    chosen = incomplete[n - 1];
  } else {
    throw Error("finish-run: " + name + " has several incomplete runs (" + Join(incomplete, ", ") +
                "); pick one with TEST_RESULTS_IDENTIFIER", 2);
  }
  reproduce::SessionOptions o = CommonOptions(a, name);
  o.resume_identifier = chosen;
  return reproduce::RunSession(o, std::cout);
}

}  // namespace

std::optional<int> RunResultIfNamed(const std::vector<std::string>& args) {
  if (args.empty() || StartsWith(args[0], "-")) return std::nullopt;
  const std::string& name = args[0];
  const auto& s = GlobalSettings();
  // PTS checks for a saved result before anything else (pts_types::identifiers_to_objects).
  if (results::FindSavedResultDir(name, results::ResultDirectories(s))) return Reproduce(args);
  if (!reproduce::IsOpenBenchmarkingId(name)) return std::nullopt;
  auto repo = profile::ProfileRepository::FromSettings(s);
  if (repo.FindProfile(name) || repo.FindSuite(name)) return std::nullopt;
  return Reproduce(args);
}

std::string RunNameNotFound(const std::string& name, const std::vector<std::string>& profile_roots) {
  std::string id = reproduce::IsOpenBenchmarkingId(name)
                       ? ""
                       : "a result ID has 22 characters, 7 digits-2 to 8 letters or digits-letters and digits (as "
                         "1110088-AR-1110066AR56), this has " + std::to_string(name.size()) + "; ";
  return name + ": not a result ID, a saved result, a test profile or a suite: " + id +
         "no saved result of that name in " + Join(results::ResultDirectories(GlobalSettings()), ", ") +
         "; no test profile, suite or profile directory of that name in " + Join(profile_roots, ", ");
}

std::vector<Command> ReproduceCommands() {
  const std::string usage =
      "ID|SAVED-NAME [--server URL] [--offline] [--dry-run] [--skip-unavailable] [--non-interactive] [--yes] [--no-monitor] [--upload "
      "[--token T]] [--targets auto|LIST [--target-size SIZE] [--target-order interleaved|sequential] [--device DEV] | "
      "--no-targets]";
  return {
      {"reproduce", {}, "Running", usage,
       "run a published result's tests here (stand-ins where the original cannot run) and compare side by side",
       Reproduce},
      {"finish-run", {"resume-run"}, "Running", "SAVED-NAME [--dry-run] [--non-interactive] [--offline] [--yes] [--no-monitor]",
       "run the tests a saved result's system is still missing (an interrupted or failed run)", FinishRun,
       "The system to finish: TEST_RESULTS_IDENTIFIER, else the only incomplete one, else asked. Its\n"
       "missing or failed tests run again and are saved into the same file under the same system."},
  };
}

}  // namespace ptsn::cli
