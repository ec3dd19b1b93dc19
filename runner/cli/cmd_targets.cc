// `pts-native targets`: what storage/encryption targets this machine can create (one line per
// kind), `--check LIST` to create, describe, time and remove them, `--cleanup` to release what
// dead runs left. Thin glue over runner/targets.
#include <unistd.h>

#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "runner/cli/command.h"
#include "runner/cli/target_flags.h"
#include "runner/common/args.h"
#include "runner/common/error.h"
#include "runner/common/settings.h"
#include "runner/exec/process.h"
#include "runner/run/run_setup.h"
#include "runner/targets/session.h"
#include "runner/targets/target_spec.h"

namespace ptsn::cli {

namespace {

std::string Seconds(double s) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(2) << s << " s";
  return out.str();
}

void PrintCleanup(const targets::CleanupReport& report, bool json) {
  std::ostream& out = json ? std::cerr : std::cout;
  for (const auto& line : report.released) out << "cleaned up: " << line << "\n";
  for (const auto& line : report.problems) std::cerr << "could not clean up: " << line << "\n";
}

int List(bool json) {
  auto sys = targets::MakeRealSystem();
  auto kinds = targets::ProbeKinds(*sys);
  if (json) {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (const auto& k : kinds)
      j.push_back({{"kind", targets::KindName(k.kind)}, {"available", k.available}, {"detail", k.detail}});
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  for (const auto& k : kinds) {
    std::cout << targets::KindName(k.kind) << ": ";
    if (k.available) std::cout << "available" << (k.detail.empty() ? "" : " (" + k.detail + ")") << "\n";
    else std::cout << "unavailable: " << k.detail << "\n";
  }
  return 0;
}

int Cleanup() {
  auto sys = targets::MakeRealSystem();
  auto report = targets::CleanupDeadRuns(*sys, targets::LedgerDirectory(GlobalSettings().Home()));
  PrintCleanup(report, false);
  if (report.released.empty() && report.problems.empty()) std::cout << "Nothing left by earlier runs.\n";
  return report.problems.empty() ? 0 : 1;
}

// Creates each target, shows what it is, removes them all: set-up and tear-down timed.
int Check(const Args& args, bool json) {
  TargetFlags flags = ReadTargetFlags(args);
  auto specs = targets::ParseTargetList(*flags.list);
  exec::InstallSignalForwarding();  // Ctrl-C during set-up: finish the step, then release everything
  auto sys = targets::MakeRealSystem();
  targets::TargetOptions options =
      ConfirmTargetOptions(*sys, flags, run::TestDirectory(GlobalSettings()), isatty(0) && isatty(1));
  targets::TargetSession session(std::move(sys), targets::LedgerDirectory(GlobalSettings().Home()), options);
  PrintCleanup(session.cleanup(), json);
  nlohmann::ordered_json report = nlohmann::ordered_json::array();
  int code = 0;
  for (const auto& spec : specs) {
    if (exec::InterruptRequested()) break;
    try {
      targets::Target& t = session.set().Create(spec);
      nlohmann::ordered_json notes = nlohmann::ordered_json::object();
      for (const auto& [k, v] : t.notes) notes[k] = v;
      report.push_back({{"identifier", t.identifier}, {"setup_seconds", t.setup_seconds}, {"work_dir", t.work_dir},
                        {"device", t.device}, {"notes", notes}});
      if (!json) {
        std::cout << t.identifier << ": set up in " << Seconds(t.setup_seconds) << ", tests run in " << t.work_dir << "\n";
        for (const auto& [k, v] : t.notes) std::cout << "  " << k << ": " << v << "\n";
      }
    } catch (const Error& e) {
      std::cerr << e.what() << "\n";
      report.push_back({{"identifier", spec.Identifier()}, {"error", e.what()}});
      code = 1;
    }
  }
  auto problems = session.set().RemoveAll();
  for (const auto& [identifier, seconds] : session.set().teardown_seconds()) {
    for (auto& entry : report)
      if (entry["identifier"] == identifier && !entry.contains("error")) entry["teardown_seconds"] = seconds;
    if (!json) std::cout << identifier << ": removed in " << Seconds(seconds) << "\n";
  }
  for (const auto& p : problems) std::cerr << "not released: " << p << "\n";
  if (json) std::cout << report.dump(2) << "\n";
  if (exec::InterruptRequested()) return 130;
  return problems.empty() ? code : 1;
}

int Targets(const std::vector<std::string>& argv) {
  ArgSpec spec{{}, {"--json", "--cleanup"}};
  for (const auto& o : kTargetValueOptions) spec.value_options.insert(o);
  spec.value_options.insert("--check");
  Args args = Args::Parse(argv, spec);
  if (!args.positional().empty()) throw Error("targets: unexpected '" + args.positional()[0] + "' (see pts-native help targets)");
  if (args.Has("--cleanup")) return Cleanup();
  if (auto list = args.Value("--check")) {
    std::vector<std::string> with_targets = argv;
    with_targets.push_back("--targets");
    with_targets.push_back(*list);
    return Check(Args::Parse(with_targets, spec), args.Has("--json"));
  }
  if (args.Has("--targets")) throw Error("targets: use --check LIST to create and remove targets");
  return List(args.Has("--json"));
}

}  // namespace

std::vector<Command> TargetCommands() {
  return {
      {"targets", {}, "Running",
       "[--json] | --check LIST [--target-size SIZE] [--device DEV|--destroy-data-on DEV] | --cleanup",
       "storage/encryption targets (plain, fscrypt, dm-crypt, ecryptfs): what this machine can create; --check creates, "
       "describes, times and removes them",
       Targets},
  };
}

}  // namespace ptsn::cli
