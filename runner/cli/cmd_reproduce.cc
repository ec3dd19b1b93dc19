// Reproducing a published result (runner/reproduce/): `reproduce <ID>`, and `run|benchmark <ID>`
// when the argument names a saved result or a result ID rather than a profile or suite.
#include <iostream>

#include "results-xml/result_store.h"
#include "runner/cli/command.h"
#include "runner/common/args.h"
#include "runner/common/error.h"
#include "runner/common/settings.h"
#include "runner/common/strings.h"
#include "runner/profile/profile_repository.h"
#include "runner/reproduce/result_id.h"
#include "runner/reproduce/session.h"

namespace ptsn::cli {

namespace {

const ArgSpec kSpec{{"--server", "--token"}, {"--dry-run", "--skip-unavailable", "--upload", "--non-interactive", "--offline", "--yes"}};

int Reproduce(const std::vector<std::string>& argv) {
  Args a = Args::Parse(argv, kSpec);
  if (a.positional().size() != 1) throw Error("reproduce: give exactly one result ID or saved result name");
  reproduce::SessionOptions o;
  o.name = a.positional()[0];
  o.servers = a.Values("--server");
  o.token = a.ValueOr("--token", "");
  o.dry_run = a.Has("--dry-run");
  o.skip_unavailable = a.Has("--skip-unavailable");
  o.upload = a.Has("--upload");
  o.non_interactive = a.Has("--non-interactive");
  o.offline = a.Has("--offline");
  o.yes = a.Has("--yes");
  if (const char* w = std::getenv("TERMINAL_WIDTH")) o.width = std::max(40, std::atoi(w));
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

std::vector<Command> ReproduceCommands() {
  const std::string usage =
      "ID|SAVED-NAME [--server URL] [--offline] [--dry-run] [--skip-unavailable] [--non-interactive] [--yes] [--upload "
      "[--token T]]";
  return {
      {"reproduce", {}, "Running", usage,
       "run a published result's tests here (stand-ins where the original cannot run) and compare side by side",
       Reproduce},
  };
}

}  // namespace ptsn::cli
