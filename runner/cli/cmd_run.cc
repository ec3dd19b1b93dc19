// install, install-dependencies, run/benchmark, batch-run/batch-benchmark, system-info: thin
// glue over runner/profile (what to run), runner/install, runner/run (the loop), runner/sysinfo
// and runner/monitor.
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "results-xml/export_text.h"
#include "results-xml/result_xml.h"
#include "runner/cli/command.h"
#include "runner/cli/profile_fetch.h"
#include "runner/cli/target_flags.h"
#include "runner/common/args.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/pts_variables.h"
#include "runner/common/settings.h"
#include "runner/common/strings.h"
#include "runner/common/terminal.h"
#include "runner/exec/process.h"
#include "runner/install/installer.h"
#include "runner/install/profile_install.h"
#include "runner/monitor/monitor_session.h"
#include "runner/profile/presets.h"
#include "runner/profile/profile_repository.h"
#include "runner/run/estimate.h"
#include "runner/run/naming.h"
#include "runner/run/run_setup.h"
#include "runner/run/run_targets.h"
#include "runner/run/test_runner.h"
#include "runner/sysinfo/sysinfo.h"

namespace fs = std::filesystem;

namespace ptsn::cli {
namespace {


bool OnTerminal() { return isatty(0) && isatty(1); }

// A test to run: a profile and, for suite entries, the options the suite fixed.
struct Target {
  profile::TestProfile profile;
  std::optional<std::vector<profile::RunOption>> fixed_options;
};

// `not_found` words the error for a name that is nothing here (`run` also takes result IDs and
// saved results, and says so); null: the error of the profile commands.
using NotFoundMessage = std::function<std::string(const std::string& name, const std::vector<std::string>& roots)>;

std::vector<Target> ResolveTargets(profile::ProfileRepository& repo, const std::vector<std::string>& names,
                                   ProfileFetcher& fetcher, const NotFoundMessage& not_found = nullptr) {
  if (names.empty()) throw Error("name a test profile (e.g. local/trivial or a profile directory) or a suite");
  std::vector<Target> out;
  for (const auto& name : names) {
    fetcher.EnsureProfile(name);  // pts/NAME not on disk: from the servers, with its parents
    std::error_code ec;
    bool is_dir = fs::is_directory(name, ec);
    if (is_dir || repo.FindProfile(name)) {
      out.push_back({repo.LoadProfile(is_dir ? fs::absolute(name).lexically_normal().string() : name), std::nullopt});
      continue;
    }
    if (repo.FindSuite(name)) {
      auto suite = repo.LoadSuite(name);
      for (const auto& e : suite.executes) {
        fetcher.EnsureProfile(e.test);
        Target t{repo.LoadProfile(e.test), std::vector<profile::RunOption>{}};
        if (e.mode == "BATCH") *t.fixed_options = profile::BatchOptions(t.profile.options, e.option_select);
        else if (e.mode == "DEFAULTS") *t.fixed_options = profile::DefaultOptions(t.profile.options);
        else t.fixed_options->push_back({e.arguments, e.description.empty() ? t.profile.subtitle : e.description});
        out.push_back(std::move(t));
      }
      continue;
    }
    if (not_found) throw Error(not_found(name, repo.roots()));
    throw Error(name + ": no such test profile, suite or profile directory (searched " + Join(repo.roots(), ", ") + ")");
  }
  return out;
}

struct Context {
  const Settings& settings = GlobalSettings();
  profile::ProfileRepository repo = profile::ProfileRepository::FromSettings(GlobalSettings());
  std::unique_ptr<sysinfo::SystemReader> reader = sysinfo::MakeRootedReader("/", GlobalSettings().Home() + "/cache");
  exec::PosixProcessRunner runner;
  std::unique_ptr<install::Fetcher> fetcher;
  bool offline = false;
  ProfileFetcher profiles;  // pts/NAME on demand

  explicit Context(const Args& args) : profiles(repo, NetworkChoice::From(args)) {
    offline = args.Has("--offline") || settings.GetBool("network.offline");
    fetcher = offline ? install::MakeOfflineFetcher() : install::MakeCurlFetcher();
  }
  std::vector<Target> Targets(const std::vector<std::string>& names, const NotFoundMessage& not_found = nullptr) {
    return ResolveTargets(repo, names, profiles, not_found);
  }
  install::InstallContext InstallCtx(bool force) {
    return run::MakeInstallContext(settings, *fetcher, offline, force, run::LiveFacts(*reader, PtsEnvironment(), std::time(nullptr)),
                                   PtsEnvironment());
  }
};

// Dependencies first (nothing is downloaded for a test that cannot run), then parents, then the test.
// Installs missing Debian packages when allowed: install.dependencies=yes (or --yes, or batch
// mode unless the setting says no), or asked on a terminal; as root and online only.
bool MayInstallPackages(const Context& ctx, bool yes, bool batch, const std::vector<std::string>& packages) {
  const auto policy = install::DecidePackagePolicy(install::ParseDependencyPolicy(ctx.settings.Get("install.dependencies")),
                                                   ctx.offline, yes || batch, OnTerminal());
  if (!policy.ask_first) return policy.may_install;
  std::cout << "Install the Debian packages " << Join(packages, " ") << " (apt-get)? [Y/n] " << std::flush;
  std::string answer;
  std::getline(std::cin, answer);
  answer = ToLower(Trim(answer));
  return answer.empty() || answer == "y" || answer == "yes";
}

// Returns the notes of downloads that came from a fallback (for the System Notes).
std::vector<std::string> InstallTargets(Context& ctx, const std::vector<Target>& targets, bool force,
                                        bool quiet_if_installed, bool yes = false, bool batch = false) {
  auto ictx = ctx.InstallCtx(force);
  std::vector<std::string> missing_packages, missing_commands;
  auto check_all = [&] {
    missing_packages.clear();
    missing_commands.clear();
    for (const auto& t : targets) {
      auto check = install::CheckProfileDependencies(t.profile, install::DpkgProbe(), install::CommandExists);
      for (const auto& p : check.missing_packages)
        if (std::find(missing_packages.begin(), missing_packages.end(), p) == missing_packages.end())
          missing_packages.push_back(p);
      for (const auto& c : check.missing_commands)
        if (install::DebianPackagesFor(c).empty()) missing_commands.push_back(t.profile.identifier + " needs " + c);
      for (const auto& u : check.unknown_names)
        std::cerr << t.profile.identifier << ": dependency '" << u << "' has no Debian mapping; not checked\n";
    }
  };
  check_all();
  if (!missing_packages.empty() && MayInstallPackages(ctx, yes, batch, missing_packages)) {
    std::cout << "Installing Debian packages: " << Join(missing_packages, " ") << "\n" << std::flush;
    auto apt = install::InstallDebianPackages(missing_packages, std::cerr);
    if (!apt.ok) throw Error(apt.failure);
    check_all();
  }
  if (!missing_packages.empty() || !missing_commands.empty()) {
    std::vector<std::string> names;
    for (const auto& t : targets) names.push_back(t.profile.identifier);
    throw Error("missing dependencies: " + Join(missing_packages, " ") +
                (missing_commands.empty() ? "" : " (" + Join(missing_commands, "; ") + ")") +
                "; run: pts-native install-dependencies " + Join(names, " "));
  }
  std::set<std::string> done;
  std::vector<std::string> notes;
  for (const auto& t : targets)
    for (auto& n : run::InstallWithParents(ctx.repo, t.profile, ictx, ctx.runner, done, [&](const std::string& id, bool already) {
           if (!already) std::cout << id << ": installed\n";
           else if (!quiet_if_installed) std::cout << id << ": already installed\n";
         }))
      notes.push_back(std::move(n));
  return notes;
}

int Install(const std::vector<std::string>& argv) {
  Args args = Args::Parse(argv, {{"--server"}, {"--offline", "--force"}});
  Context ctx(args);
  InstallTargets(ctx, ctx.Targets(args.positional()), args.Has("--force"), false);
  return 0;
}

int InstallDependencies(const std::vector<std::string>& argv) {
  Args args = Args::Parse(argv, {{"--server"}, {"--dry-run", "--offline"}});
  Context ctx(args);
  std::vector<std::string> packages;
  bool unmapped_commands = false;
  for (const auto& t : ctx.Targets(args.positional())) {
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

// The interactive option menu for each option that needs an answer and has no pick yet.
void AskOptions(const profile::TestProfile& p, profile::OptionPicks* picks) {
  for (const auto& o : p.options) {
    if (o.entries.size() == 1 || picks->count(o.identifier)) continue;
    std::cout << "\n" << p.title << " — " << (o.display_name.empty() ? o.identifier : o.display_name) << ":\n";
    if (o.entries.empty()) {
      std::cout << "  value: " << std::flush;
      std::string v;
      if (!std::getline(std::cin, v)) throw Error(p.identifier + ": no answer for option " + o.identifier);
      (*picks)[o.identifier].values = {Trim(v)};
      continue;
    }
    for (size_t i = 0; i < o.entries.size(); ++i) std::cout << "  " << i + 1 << ": " << o.entries[i].name << "\n";
    std::cout << "  " << o.entries.size() + 1 << ": Test All Options\n  choice (numbers, comma-separated): " << std::flush;
    std::string line;
    if (!std::getline(std::cin, line)) throw Error(p.identifier + ": no answer for option " + o.identifier);
    std::set<int> chosen;
    for (const auto& part : Split(line, ',')) {
      int n = std::atoi(Trim(part).c_str());
      if (n == static_cast<int>(o.entries.size()) + 1)
        for (int i = 0; i < n - 1; ++i) chosen.insert(i);
      else if (n >= 1 && n <= static_cast<int>(o.entries.size())) chosen.insert(n - 1);
    }
    // No valid answer: the default entry, as PTS takes it.
    if (chosen.empty()) chosen.insert(o.DefaultIndex());
    (*picks)[o.identifier].entries.assign(chosen.begin(), chosen.end());
  }
}

// The presets, checked against the tests of this run before anything is installed or run: a
// mistake is an Error; a preset for no test of this run (or for a suite entry, whose options the
// suite fixes) is ignored with a notice.
std::vector<profile::Preset> CheckedPresets(const std::vector<Target>& targets) {
  const PtsVariables pts = ReadPtsVariables();
  auto presets = profile::ParsePresets(pts.preset_options.value_or(""), pts.preset_options_values.value_or(""));
  for (const auto& preset : presets) {
    bool free = false, fixed = false;
    for (const auto& t : targets) {
      if (!profile::PresetNames(preset, t.profile)) continue;
      (t.fixed_options ? fixed : free) = true;
    }
    if (!free)
      std::cerr << preset.variable << ": " << preset.text << " ignored: "
                << (fixed ? "the suite fixes the options of '" + preset.test + "'"
                          : "no test named '" + preset.test + "' in this run")
                << "\n";
  }
  for (const auto& t : targets)
    if (!t.fixed_options) profile::PicksFromPresets(t.profile, presets);  // throws on a mistake
  return presets;
}

// `unanswered` (a dry run): options that would be asked are listed there and planned at their
// default instead of asked.
std::vector<run::PlannedTest> Plan(const std::vector<Target>& targets, bool batch, bool interactive,
                                   std::vector<std::string>* unanswered = nullptr) {
  auto presets = CheckedPresets(targets);
  std::string skip = ReadPtsVariables().skip_tests.value_or("");
  std::vector<run::PlannedTest> plan;
  for (const auto& t : targets) {
    if (run::IsSkipped(t.profile, skip)) {
      std::cerr << t.profile.identifier << ": skipped (SKIP_TESTS)\n";
      continue;
    }
    std::vector<run::PlannedTest> tests;
    if (t.fixed_options) {
      for (const auto& o : *t.fixed_options) tests.push_back(run::MakePlannedTest(t.profile, o));
    } else {
      auto picks = profile::PicksFromPresets(t.profile, presets);
      // Batch mode runs every entry of an option the presets leave open; other runs ask.
      if (!batch) {
        auto missing = run::UnansweredOptions(t.profile, picks);
        if (!missing.empty() && unanswered) {
          std::vector<std::string> names;
          for (const auto& m : missing) names.push_back(Split(m, ' ')[0]);
          unanswered->push_back(t.profile.identifier + ": option(s) " + Join(names, ", ") +
                                " not chosen: planned at the default here (the run asks on a terminal; PRESET_OPTIONS "
                                "chooses, e.g. PRESET_OPTIONS='" + t.profile.BaseName() + "." + names.front() + "=<choice>')");
        } else if (!missing.empty() && interactive) AskOptions(t.profile, &picks);
        else if (!missing.empty())
          throw Error(t.profile.identifier + ": option " + missing.front() +
                      " needs an answer and this run cannot ask (non-interactive): set PRESET_OPTIONS='" +
                      t.profile.BaseName() + "." + Split(missing.front(), ' ')[0] + "=<choice>' or use batch-run");
      }
      tests = run::PlanPicked(t.profile, picks, batch ? profile::OpenOptions::kEvery : profile::OpenOptions::kDefault);
    }
    for (auto& p : tests) plan.push_back(std::move(p));
  }
  return plan;
}

std::string Prompt(const std::string& question) {
  std::cout << question << std::flush;
  std::string line;
  std::getline(std::cin, line);
  return Trim(line);
}

// A new system named like one already in the result file but for case, spacing or punctuation
// would read as the same machine in every view: refused before anything runs.
void RefuseNearDuplicateIdentifier(const std::string& composite, const std::string& identifier) {
  std::error_code ec;
  if (!fs::exists(composite, ec)) return;
  std::vector<std::string> systems;
  for (const auto& system : results::ReadResultFile(composite).systems) systems.push_back(system.identifier);
  if (auto near = run::NearDuplicateIdentifier(systems, identifier))
    throw Error("TEST_RESULTS_IDENTIFIER '" + identifier + "' differs from the system '" + *near + "' of " + composite +
                " only in case, spacing or punctuation; use exactly '" + *near + "' to add to that system, or another name");
}

// `run|batch-run PROFILE|SUITE --dry-run`: what would run, whether it is installed, and how long
// it would take (as estimate-run-time), without installing, running or writing anything.
int DryRun(Context& ctx, const std::vector<Target>& targets, bool batch, size_t storage_targets) {
  std::vector<std::string> unanswered;
  auto plan = Plan(targets, batch, false, &unanswered);
  const Settings& s = ctx.settings;
  const std::string install_root = s.Get("install.directory");
  const double settle = s.GetDouble("run.settle_seconds");
  auto estimates = run::EstimatePlan(plan, install_root, run::ReadRunCountOverrides(PtsEnvironment()), settle);
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
  bool batch = false, interactive = false, json = false;
  int text_width = 0;
  TargetFlags target_flags;
  std::vector<targets::TargetSpec> target_specs;  // storage targets (none: the test directory)
  bool sequential = false;                        // --target-order sequential
};

RunRequest ReadRunRequest(const std::vector<std::string>& argv, bool batch) {
  ArgSpec spec{{"--warmup", "--target-order", "--server"},
               {"--non-interactive", "--json-events", "--offline", "--force-install", "--yes", "--dry-run"}};
  for (const auto& o : kTargetValueOptions) spec.value_options.insert(o);
  RunRequest r{Args::Parse(argv, spec)};
  r.batch = batch;
  r.interactive = !batch && !r.args.Has("--non-interactive") && OnTerminal();
  r.json = r.args.Has("--json-events");
  r.text_width = TerminalWidth();  // (a bad TERMINAL_WIDTH is refused before anything runs)
  r.target_flags = ReadTargetFlags(r.args);
  if (r.target_flags.list) r.target_specs = targets::ParseTargetList(*r.target_flags.list);
  std::string order = r.args.ValueOr("--target-order", "interleaved");
  if (order != "interleaved" && order != "sequential")
    throw Error("--target-order " + order + ": expected interleaved or sequential");
  if (r.args.Has("--target-order") && !r.target_flags.list) throw Error("--target-order needs --targets");
  r.sequential = order == "sequential";
  return r;
}

// Each profile of the plan installed once; the notes on downloads found elsewhere.
std::vector<std::string> InstallPlan(Context& ctx, const std::vector<run::PlannedTest>& plan, const RunRequest& r) {
  std::vector<Target> to_install;
  std::set<std::string> seen;
  for (const auto& t : plan)
    if (seen.insert(t.profile.identifier).second) to_install.push_back({t.profile, std::nullopt});
  return InstallTargets(ctx, to_install, r.args.Has("--force-install"), true, r.args.Has("--yes"), r.batch);
}

// The result file's name, title and identifier: PTS's variables, else asked, else made up;
// `identifier_given`: the user named this run (else it is named after its components).
run::RunNaming ResolveRunNaming(Context& ctx, const PtsVariables& pts, bool interactive, bool& identifier_given) {
  auto name = pts.results_name, identifier = pts.results_identifier;
  if (interactive && !name) name = Prompt("Enter a name for the result file (empty: the date): ");
  if (interactive && !identifier) identifier = Prompt("Enter a unique name for this test run (empty: automatic): ");
  // "$PROCESSOR"-style tokens in the identifier are filled as PTS fills them (probed only if used).
  std::map<std::string, std::string> variables;
  if (identifier && identifier->find('$') != std::string::npos) variables = run::LiveIdentifierVariables(*ctx.reader);
  identifier_given = !run::CleanResultsIdentifier(identifier.value_or("")).empty();
  return run::ResolveNaming(name, identifier, pts.results_description, std::time(nullptr), variables);
}

// The run's configuration: the system as probed, where results go, the warm-up runs.
run::RunConfig MakeRunConfig(Context& ctx, const RunRequest& r, const std::vector<run::PlannedTest>& plan,
                             const run::RunNaming& naming, const std::string& test_dir,
                             const std::vector<std::string>& download_notes) {
  const Settings& s = ctx.settings;
  bool disk_test = false;
  for (const auto& t : plan) disk_test |= t.profile.test_type == "Disk";
  run::RunConfig config =
      run::BaseRunConfig(s, *ctx.reader, {naming.identifier, test_dir, disk_test, std::time(nullptr)}, PtsEnvironment());
  run::NoteDownloadFallbacks(config.system.notes, download_notes);
  config.result_dir = s.ResultsDirectory() + "/" + naming.save_name;
  config.title = naming.title;
  config.description = naming.description.value_or(run::AutoDescription(config.system.hardware, config.system.software));
  if (auto w = r.args.Value("--warmup")) {
    try {
      config.warmup_runs = std::stoi(*w);
    } catch (...) {
      throw Error("--warmup " + *w + ": not a number");
    }
  }
  return config;
}

// No identifier given and no targets: the run is named after the tested subsystems' components,
// as PTS names it.
void NameAfterComponents(run::RunConfig& config, const std::vector<run::PlannedTest>& plan, bool batch) {
  std::vector<std::string> types;
  for (const auto& t : plan)
    if (std::find(types.begin(), types.end(), t.profile.test_type) == types.end()) types.push_back(t.profile.test_type);
  std::string automatic = run::AutoResultsIdentifier(config.system.hardware, config.system.software, types, batch);
  if (!automatic.empty()) config.system.identifier = automatic;
}

// The storage targets, created before anything is measured (a failure stops the run); they go
// when the returned object does, an exception included.
std::unique_ptr<run::RunTargets> CreateTargets(Context& ctx, RunRequest& r, run::RunConfig& config,
                                               const run::RunNaming& naming, bool named, const std::string& test_dir,
                                               run::RunObserver& printer) {
  const Settings& s = ctx.settings;
  if (named)
    for (auto& t : r.target_specs) t.name = naming.identifier + ": " + t.Identifier();
  auto sys = targets::MakeRealSystem();
  targets::TargetOptions options = ConfirmTargetOptions(*sys, r.target_flags, test_dir, r.interactive);
  auto made = std::make_unique<run::RunTargets>(std::move(sys), targets::LedgerDirectory(s.Home()), options, printer);
  config.places = made->Create(r.target_specs, config.system, *ctx.reader, static_cast<int>(s.GetInt("run.target_instances")));
  config.places_sequential = r.sequential;
  run::ApplyTargetSettings(config, s, *made);
  return made;
}

// The saved result as text (with the paired view across targets), printed and, with
// OUTPUT_DIR, written beside the other results as PTS writes it.
void ShowSavedResult(const run::RunSummary& summary, const std::vector<run::TestPlace>& places, const RunRequest& r,
                     const Settings& s, const PtsVariables& pts, const std::string& save_name) {
  std::error_code ec;
  if (!summary.saved || !fs::exists(summary.composite_path, ec)) return;
  auto file = results::ReadResultFile(summary.composite_path);
  std::string text = results::ResultFileToText(file, r.text_width);
  if (places.size() > 1) text += "\n" + run::PairedTargetView(file, places, {s.GetDouble("run.same_within"), 0.95});
  if (!r.json) std::cout << "\n" << text;
  if (auto out_dir = pts.output_dir) {
    MakeDirectories(*out_dir);
    WriteFileAtomically(*out_dir + "/" + save_name + ".txt", text);
  }
}

int RunTests(const std::vector<std::string>& argv, bool batch) {
  RunRequest r = ReadRunRequest(argv, batch);
  Context ctx(r.args);
  const Settings& s = ctx.settings;
  // `run` also takes result IDs and saved results (RunResultIfNamed): a name that is none of
  // them says so; batch-run takes profiles and suites only.
  auto targets = ctx.Targets(r.args.positional(), batch ? NotFoundMessage() : NotFoundMessage(RunNameNotFound));
  if (r.args.Has("--dry-run")) return DryRun(ctx, targets, batch, r.target_specs.size());
  auto plan = Plan(targets, batch, r.interactive);
  if (plan.empty()) throw Error("nothing to run (every test skipped)");
  const std::vector<std::string> download_notes = InstallPlan(ctx, plan, r);

  const PtsVariables pts = ReadPtsVariables();
  bool named = false;
  const run::RunNaming naming = ResolveRunNaming(ctx, pts, r.interactive, named);
  const std::string test_dir = run::TestDirectory(s);
  run::RunConfig config = MakeRunConfig(ctx, r, plan, naming, test_dir, download_notes);
  auto printer = run::MakePrinter(r.json ? run::PrinterKind::kJson
                                         : OnTerminal() ? run::PrinterKind::kTty : run::PrinterKind::kPlain,
                                  std::cout);
  if (!named && r.target_specs.empty()) NameAfterComponents(config, plan, batch);
  RefuseNearDuplicateIdentifier(config.result_dir + "/composite.xml", config.system.identifier);
  monitor::MonitorSession monitor_session(monitor::MonitorConfig::FromSettings(s, test_dir));
  run::MonitorHook hook(monitor_session);
  if (!r.json)
    for (const auto& line : monitor_session.StatusLines()) std::cout << line << "\n";
  exec::InstallSignalForwarding();
  std::unique_ptr<run::RunTargets> run_targets;
  if (!r.target_specs.empty()) run_targets = CreateTargets(ctx, r, config, naming, named, test_dir, *printer);

  run::TestRunner runner(config, ctx.runner, *printer, monitor_session.enabled() ? &hook : nullptr);
  run::RunSummary summary;
  if (!exec::InterruptRequested()) summary = runner.Run(plan);
  else summary.interrupted = true;
  // Every target the run made, those added while it ran included.
  const std::vector<run::TestPlace> places = run_targets ? run_targets->places() : std::vector<run::TestPlace>{};
  bool released = !run_targets || run_targets->Remove();
  ShowSavedResult(summary, places, r, s, pts, naming.save_name);
  if (summary.interrupted || exec::InterruptRequested()) return 130;
  return summary.failed() > 0 || !released ? 1 : 0;
}

// What `batch-run` with the same arguments and variables would run, and for how long, without
// running or installing anything: one line per profile, then the total.
int EstimateRunTime(const std::vector<std::string>& argv) {
  Args args = Args::Parse(argv, {{"--server"}, {"--offline"}});
  Context ctx(args);
  auto plan = Plan(ctx.Targets(args.positional()), true, false);
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
       "[--targets auto|LIST ...]",
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
