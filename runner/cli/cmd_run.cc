// install, install-dependencies, run/benchmark, batch-run/batch-benchmark, estimate-run-time,
// system-info: their arguments and what they print, over runner/run's RunSession (which plans,
// installs, names, sets up the targets and runs) and runner/sysinfo.
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "runner/cli/command.h"
#include "runner/cli/profile_fetch.h"
#include "runner/cli/run_context.h"
#include "runner/cli/target_flags.h"
#include "runner/common/args.h"
#include "runner/common/error.h"
#include "runner/common/pts_variables.h"
#include "runner/common/settings.h"
#include "runner/common/strings.h"
#include "runner/common/terminal.h"
#include "runner/exec/process.h"
#include "runner/install/dependencies.h"
#include "runner/install/installer.h"
#include "runner/install/profile_install.h"
#include "runner/profile/profile_repository.h"
#include "runner/run/estimate.h"
#include "runner/run/observer.h"
#include "runner/run/prompter.h"
#include "runner/run/run_session.h"
#include "runner/sysinfo/sysinfo.h"

namespace fs = std::filesystem;

namespace ptsn::cli {
namespace {

int Install(const std::vector<std::string>& argv) {
  Args args = Args::Parse(argv, {{"--server"}, {"--offline", "--force"}});
  Context ctx(args, OnTerminal());
  ctx.session->Install(ctx.session->Resolve(args.positional()), args.Has("--force"), false);
  return 0;
}

int InstallDependencies(const std::vector<std::string>& argv) {
  Args args = Args::Parse(argv, {{"--server"}, {"--dry-run", "--offline"}});
  Context ctx(args);
  std::vector<std::string> packages;
  bool unmapped_commands = false;
  for (const auto& t : ctx.session->Resolve(args.positional())) {
    auto check = install::CheckProfileDependencies(t.profile, install::DpkgProbe(), install::CommandExists);
    for (const auto& c : check.missing_commands)
      if (install::DebianPackagesFor(c).empty()) {
        std::cerr << t.profile.identifier << ": needs the command or file '" << c << "' (no Debian package known)\n";
        unmapped_commands = true;
      }
    for (const auto& p : check.missing_packages)
      if (std::find(packages.begin(), packages.end(), p) == packages.end()) packages.push_back(p);
    for (const auto& u : check.unknown_names)
      std::cerr << t.profile.identifier << ": dependency '" << u << "' has no Debian mapping\n";
  }
  if (packages.empty()) {
    if (unmapped_commands) return 1;
    std::cout << "All dependencies are installed.\n";
    return 0;
  }
  bool root = geteuid() == 0;
  std::string cmd = install::AptGetCommand(packages, root);
  if (!root || args.Has("--dry-run")) {
    std::cout << (root ? "" : "Not root; run: ") << cmd << "\n";
    return 0;
  }
  std::cout << cmd << "\n" << std::flush;
  auto apt = install::InstallDebianPackages(packages, std::cout);
  if (!apt.ok) throw Error(apt.failure);
  return 0;
}

// `run|batch-run PROFILE|SUITE --dry-run`: what would run, whether it is installed, and how long
// it would take (as estimate-run-time), without installing, running or writing anything.
int DryRun(Context& ctx, const std::vector<run::RunItem>& items, bool batch, size_t storage_targets) {
  std::vector<std::string> unanswered;
  auto plan = ctx.session->Plan(items, batch, &unanswered);
  const Settings& s = ctx.settings;
  const std::string install_root = s.Get("install.directory");
  const double settle = s.GetDouble("run.settle_seconds");
  const auto overrides = run::ReadRunCountOverrides(ProcessEnvironment());  // an empty FORCE_TIMES_TO_RUN named
  for (const auto& notice : overrides.notices) std::cerr << notice << "\n";
  auto estimates = run::EstimatePlan(plan, install_root, overrides, settle);
  std::vector<double> seconds;
  std::cout << "Dry run: " << plan.size() << " test(s) would run"
            << (storage_targets > 0 ? " on " + std::to_string(storage_targets) + " target(s)" : "")
            << "; nothing is installed, run or saved.\n";
  for (size_t i = 0; i < plan.size(); ++i) {
    const auto& t = plan[i];
    estimates[i] = run::OnPlaces(estimates[i], storage_targets, t.profile.test_type == "Disk", settle);
    const bool installed = install::IsInstalled(install::InstallDirectory(install_root, t.profile.identifier),
                                                t.profile.identifier, install::InstallChecksum(t.profile.ScriptPath("install")));
    std::cout << "run      " << t.profile.identifier << (t.option.arguments.empty() ? "" : " " + t.option.arguments)
              << (t.option.description.empty() ? "" : "  [" + t.option.description + "]") << "\n         "
              << estimates[i].trials << " trial(s), " << run::DescribeEstimate({estimates[i].seconds}) << " ("
              << estimates[i].basis << ")" << (installed ? "" : "; installed first") << "\n";
    seconds.push_back(estimates[i].seconds);
  }
  for (const auto& u : unanswered) std::cout << u << "\n";
  std::cout << "Estimated run time: " << run::DescribeEstimate(seconds) << "\n";
  return 0;
}

// What `run`/`batch-run` were asked for, checked before anything is installed or created.
struct RunRequest {
  Args args;
  bool interactive = false, json = false;
  int text_width = 0;
  run::SessionRequest session;
};

RunRequest ReadRunRequest(const std::vector<std::string>& argv, bool batch) {
  ArgSpec spec{{"--warmup", "--target-order", "--server"},
               {"--non-interactive", "--json-events", "--offline", "--force-install", "--yes", "--dry-run"}};
  for (const auto& o : kTargetValueOptions) spec.value_options.insert(o);
  RunRequest r{Args::Parse(argv, spec)};
  r.interactive = !batch && !r.args.Has("--non-interactive") && OnTerminal();
  r.json = r.args.Has("--json-events");
  r.text_width = TerminalWidth();  // (a bad TERMINAL_WIDTH is refused before anything runs)
  run::SessionRequest& s = r.session;
  s.batch = batch;
  s.force_install = r.args.Has("--force-install");
  s.yes = r.args.Has("--yes");
  s.quiet = r.json;
  if (auto w = r.args.Value("--warmup")) {
    try {
      s.warmup_runs = std::stoi(*w);
    } catch (...) {
      throw Error("--warmup " + *w + ": not a number");
    }
  }
  TargetFlags flags = ReadTargetFlags(r.args);
  if (flags.list) s.targets.specs = targets::ParseTargetList(*flags.list);
  std::string order = r.args.ValueOr("--target-order", "interleaved");
  if (order != "interleaved" && order != "sequential")
    throw Error("--target-order " + order + ": expected interleaved or sequential");
  if (r.args.Has("--target-order") && !flags.list) throw Error("--target-order needs --targets");
  s.targets.sequential = order == "sequential";
  s.targets.options = [flags, ask = r.interactive](targets::TargetSystem& sys, const std::string& test_dir) {
    return ConfirmTargetOptions(sys, flags, test_dir, ask);
  };
  return r;
}

int RunTests(const std::vector<std::string>& argv, bool batch) {
  RunRequest r = ReadRunRequest(argv, batch);
  Context ctx(r.args, r.interactive);
  // `run` also takes result IDs and saved results (RunResultIfNamed): a name that is none of
  // them says so; batch-run takes profiles and suites only.
  auto items = ctx.session->Resolve(r.args.positional(), batch ? run::NotFoundMessage() : run::NotFoundMessage(RunNameNotFound));
  if (r.args.Has("--dry-run")) return DryRun(ctx, items, batch, r.session.targets.specs.size());
  auto plan = ctx.session->Plan(items, batch);
  auto printer = run::MakePrinter(r.json ? run::PrinterKind::kJson
                                         : OnTerminal() ? run::PrinterKind::kTty : run::PrinterKind::kPlain,
                                  std::cout);
  run::SessionOutcome outcome = ctx.session->Run(plan, std::move(r.session), *printer);
  const std::string text = ctx.session->SavedResultText(outcome, r.text_width);
  if (!r.json && !text.empty()) std::cout << "\n" << text;
  return outcome.ExitCode();
}

// What `batch-run` with the same arguments and variables would run, and for how long, without
// running or installing anything: one line per profile, then the total.
int EstimateRunTime(const std::vector<std::string>& argv) {
  Args args = Args::Parse(argv, {{"--server"}, {"--offline"}});
  Context ctx(args);
  auto plan = ctx.session->Plan(ctx.session->Resolve(args.positional()), true);
  const Settings& s = ctx.settings;
  auto estimates = run::EstimatePlan(plan, s.Get("install.directory"), run::ReadRunCountOverrides(PtsEnvironment()),
                                     s.GetDouble("run.settle_seconds"));
  struct Row {
    std::string identifier;
    int tests = 0, trials = 0;
    std::vector<double> seconds;
    std::set<std::string> bases;
  };
  std::vector<Row> rows;
  std::vector<double> all;
  for (size_t i = 0; i < plan.size(); ++i) {
    const auto& id = plan[i].profile.identifier;
    auto row = std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.identifier == id; });
    if (row == rows.end()) row = rows.insert(rows.end(), Row{id});
    row->tests++;
    row->trials += estimates[i].trials;
    row->seconds.push_back(estimates[i].seconds);
    row->bases.insert(estimates[i].basis);
    all.push_back(estimates[i].seconds);
  }
  size_t width = 0;
  for (const auto& r : rows) width = std::max(width, r.identifier.size());
  for (const auto& r : rows) {
    std::cout << r.identifier << std::string(width + 2 - r.identifier.size(), ' ') << r.tests << " test(s), "
              << r.trials << " trial(s): " << run::DescribeEstimate(r.seconds) << " ("
              << Join(std::vector<std::string>(r.bases.begin(), r.bases.end()), ", ") << ")\n";
  }
  std::cout << "Estimated run time: " << run::DescribeEstimate(all) << " for " << plan.size() << " test(s)\n";
  return 0;
}

int SystemInfo(const std::vector<std::string>& argv) {
  Args args = Args::Parse(argv, {{"--root"}, {"--json"}});
  auto reader = sysinfo::MakeRootedReader(args.ValueOr("--root", "/"), GlobalSettings().Home() + "/cache");
  // The file system disk tests would run on: run.test_dir, or where it would be made.
  fs::path test_dir = fs::absolute(GlobalSettings().Get("run.test_dir"));
  std::error_code ec;
  while (!fs::exists(test_dir, ec) && test_dir.has_relative_path()) test_dir = test_dir.parent_path();
  test_dir = fs::canonical(test_dir, ec);
  auto hw = sysinfo::HardwareComponents(*reader), sw = sysinfo::SoftwareComponents(*reader, test_dir.string());
  std::string notes = sysinfo::SystemNotesJson(*reader, test_dir.string(), true);
  if (args.Has("--json")) {
    nlohmann::ordered_json j;
    j["hardware"] = sysinfo::JoinComponents(hw);
    j["software"] = sysinfo::JoinComponents(sw);
    j["notes"] = notes.empty() ? nlohmann::ordered_json::object() : nlohmann::ordered_json::parse(notes);
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << "Hardware:\n";
  for (const auto& [k, v] : hw) std::cout << "  " << k << ": " << v << "\n";
  std::cout << "Software:\n";
  for (const auto& [k, v] : sw) std::cout << "  " << k << ": " << v << "\n";
  if (!notes.empty()) std::cout << "Notes (System/JSON): " << notes << "\n";
  return 0;
}

}  // namespace

std::vector<Command> RunCommands() {
  return {
      {"install", {"install-test"}, "Running", "PROFILE|SUITE... [--offline] [--force] [--server URL]",
       "download (verified, caches first) and install tests with their install.sh", Install},
      {"install-dependencies", {}, "Running", "PROFILE|SUITE... [--dry-run]",
       "install the Debian packages the tests need (apt-get as root, else prints the command)", InstallDependencies},
      {"benchmark", {"run"}, "Running",
       "PROFILE|SUITE|DIR... [--dry-run] [--non-interactive] [--warmup N] [--json-events] [--offline] [--yes] [--server URL] [--targets LIST "
       "[--target-size SIZE] [--target-order interleaved|sequential] [--device DEV]]\n"
       "ID|SAVED-NAME [--server URL] [--offline] [--dry-run] [--skip-unavailable] [--non-interactive] [--upload] [--yes] "
       "[--targets auto|LIST ... | --no-targets]",
       "install if needed, choose options, run, save test-results/<name>/composite.xml",
       [](const std::vector<std::string>& a) {
         // A saved result or a result ID is re-run by the reproduce module (cmd_reproduce.cc).
         if (auto code = RunResultIfNamed(a)) return *code;
         return RunTests(a, false);
       },
       "With a result ID (from upload-result or a results server) or a saved result's name, runs that\n"
       "result's tests here and adds this system to it (as `reproduce`; stand-ins where the original\n"
       "program cannot run; see docs/reproduce.md). Names: TEST_RESULTS_NAME, TEST_RESULTS_IDENTIFIER,\n"
       "TEST_RESULTS_DESCRIPTION; options: PRESET_OPTIONS='profile.option=value;...'. --dry-run prints what\n"
       "would run (each test, whether it is installed, the estimated time) and installs, runs and saves\n"
       "nothing (a pts/ profile that is not on disk is still fetched into the profile cache, as `info` does)."},
      {"batch-benchmark", {"batch-run"}, "Running",
       "PROFILE|SUITE|DIR... [--dry-run] [--warmup N] [--json-events] [--offline] [--yes] [--server URL] [--targets LIST [--target-size SIZE] "
       "[--target-order interleaved|sequential] [--destroy-data-on DEV]]",
       "non-interactive run of every option combination PRESET_OPTIONS leaves open; names from TEST_RESULTS_*",
       [](const std::vector<std::string>& a) { return RunTests(a, true); }},
      {"estimate-run-time", {}, "Running", "PROFILE|SUITE|DIR... [--offline] [--server URL]",
       "what batch-run would run (PRESET_OPTIONS, FORCE_TIMES_TO_RUN apply) and how long it would take, from this "
       "machine's earlier trials, else the profiles' estimates; runs nothing",
       EstimateRunTime},
      {"system-info", {}, "Running", "[--json] [--root DIR]",
       "the Hardware/Software strings and system notes stored with results", SystemInfo},
  };
}

}  // namespace ptsn::cli
