// The command table: one row per command with its name, aliases, usage and handler. Help text
// and shell completion come from the same table (ninja's kTools[] idea).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ptsn::cli {

struct Command {
  std::string name;                  // PTS's name where PTS has one, e.g. "merge-results"
  std::vector<std::string> aliases;  // our own short names, e.g. "merge"
  std::string group;                 // "Results", "Profiles", "Running", ...
  std::string usage;                 // arguments after the name, e.g. "FILE [-o PATH]"; one line per form
  std::string summary;               // one line
  std::function<int(const std::vector<std::string>& args)> run;  // returns the exit code
  std::string details;               // more lines for `help NAME` / `NAME --help` ("" = none)
};

// Each area contributes its rows (cmd_<area>.cc); AllCommands() concatenates them.
std::vector<Command> CoreCommands();
std::vector<Command> ResultCommands();
std::vector<Command> ExportCommands();
std::vector<Command> WorkloadCommands();
std::vector<Command> ProfileCommands();
std::vector<Command> MonitorCommands();
std::vector<Command> ClientCommands();
std::vector<Command> RunCommands();
std::vector<Command> EncryptionCostCommands();
std::vector<Command> ReproduceCommands();
std::vector<Command> FleetCommands();
std::vector<Command> TargetCommands();
std::vector<Command> InstalledCommands();
// cmd_reproduce.cc: when args[0] names a saved result or an OpenBenchmarking-style result ID (and
// no profile or suite of that name exists), runs the reproduction and returns its exit code;
// nullopt otherwise. `run`/`benchmark` call this before treating args[0] as a profile or suite.
std::optional<int> RunResultIfNamed(const std::vector<std::string>& args);
// cmd_reproduce.cc: the one-line error of `run NAME` when NAME is none of the things `run` takes:
// what it is not (a result ID, a saved result, a test profile or suite) and where each was looked for.
std::string RunNameNotFound(const std::string& name, const std::vector<std::string>& profile_roots);

const std::vector<Command>& AllCommands();
// Matches names and aliases case-insensitively with '-' and '_' alike; nullptr when unknown.
const Command* FindCommand(const std::string& name);
// For an unknown name: up to three command names it may have meant (by edit distance, or that
// start with it), closest first; empty when none is close.
std::vector<std::string> SimilarCommands(const std::string& name);
// "pts-native: unknown command 'x'" with "did you mean ...?" when there is something close.
std::string UnknownCommandMessage(const std::string& name);
// The help of one command: its usage lines, summary, details and aliases.
std::string CommandHelp(const Command& command);

// What `help` and `version` print first, and the manual page's NAME and title.
inline constexpr const char* kVersion = "0.1.0";
inline constexpr const char* kSummary = "a native backend for Phoronix Test Suite profiles and result files";
inline constexpr const char* kUsage =
    "usage: pts-native COMMAND [ARGS]   (names as in PTS; '-'/'_' and case do not matter;\n"
    "       pts-native COMMAND --help shows one command)\n";
// The manual page (roff): the usage, every command's help by group, the settings' environment
// variables. Printed by the hidden `pts-native --man-page`, which the build turns into pts-native.1.
std::string ManualPage();

}  // namespace ptsn::cli
