#include "runner/run/run_session.h"

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <ostream>
#include <set>

#include "results-xml/model/result_xml.h"
#include "results-xml/store/result_update.h"
#include "results-xml/views/export_text.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/install/dependencies.h"
#include "runner/install/installer.h"
#include "runner/monitor/monitor_session.h"
#include "runner/profile/presets.h"
#include "runner/run/run_setup.h"
#include "runner/run/run_targets.h"
#include "runner/targets/session.h"

namespace fs = std::filesystem;

namespace ptsn::run {

namespace {

// The interactive option menu for each option that needs an answer and has no pick yet.
void AskOptions(Prompter& prompter, const profile::TestProfile& p, profile::OptionPicks* picks) {
  for (const auto& o : p.options) {
    if (o.entries.size() == 1 || picks->count(o.identifier)) continue;
    const std::string heading =
        "\n" + p.title + " — " + (o.display_name.empty() ? o.identifier : o.display_name) + ":\n";
    if (o.entries.empty()) {
      std::string value = Trim(prompter.Ask(heading + "  value: "));
      if (value.empty()) throw Error(p.identifier + ": no answer for option " + o.identifier);
      (*picks)[o.identifier].values = {value};
      continue;
    }
    std::string menu = heading;
    for (size_t i = 0; i < o.entries.size(); ++i) menu += "  " + std::to_string(i + 1) + ": " + o.entries[i].name + "\n";
    menu += "  " + std::to_string(o.entries.size() + 1) + ": Test All Options\n  choice (numbers, comma-separated): ";
    std::set<int> chosen;
    for (const auto& part : Split(prompter.Ask(menu), ',')) {
      int n = std::atoi(Trim(part).c_str());
      if (n == static_cast<int>(o.entries.size()) + 1)
        for (int i = 0; i < n - 1; ++i) chosen.insert(i);
      else if (n >= 1 && n <= static_cast<int>(o.entries.size())) chosen.insert(n - 1);
    }
    // No valid answer (end of input included): the default entry, as PTS takes it.
    if (chosen.empty()) chosen.insert(o.DefaultIndex());
    (*picks)[o.identifier].entries.assign(chosen.begin(), chosen.end());
  }
}

// The presets, checked against the tests of this run before anything is installed or run: a
// mistake is an Error; a preset for no test of this run (or for a suite entry, whose options the
// suite fixes) is ignored with a notice.
std::vector<profile::Preset> CheckedPresets(const std::vector<RunItem>& items, const PtsVariables& pts,
                                            std::ostream& err) {
  auto presets = profile::ParsePresets(pts.preset_options.value_or(""), pts.preset_options_values.value_or(""));
  for (const auto& preset : presets) {
    bool free = false, fixed = false;
    for (const auto& t : items) {
      if (!profile::PresetNames(preset, t.profile)) continue;
      (t.fixed_options ? fixed : free) = true;
    }
    if (!free)
      err << preset.variable << ": " << preset.text << " ignored: "
          << (fixed ? "the suite fixes the options of '" + preset.test + "'"
                    : "no test named '" + preset.test + "' in this run")
          << "\n";
  }
  for (const auto& t : items)
    if (!t.fixed_options) profile::PicksFromPresets(t.profile, presets);  // throws on a mistake
  return presets;
}

// What a test's missing dependencies are, each package once, in the items' order.
struct MissingDependencies {
  std::vector<std::string> packages;
  std::vector<std::string> commands;  // "<identifier> needs <command>": no Debian package known
};

MissingDependencies CheckDependencies(const std::vector<RunItem>& items, std::ostream& err) {
  MissingDependencies missing;
  for (const auto& t : items) {
    auto check = install::CheckProfileDependencies(t.profile, install::DpkgProbe(), install::CommandExists);
    for (const auto& p : check.missing_packages)
      if (std::find(missing.packages.begin(), missing.packages.end(), p) == missing.packages.end())
        missing.packages.push_back(p);
    for (const auto& c : check.missing_commands)
      if (install::DebianPackagesFor(c).empty()) missing.commands.push_back(t.profile.identifier + " needs " + c);
    for (const auto& u : check.unknown_names)
      err << t.profile.identifier << ": dependency '" << u << "' has no Debian mapping; not checked\n";
  }
  return missing;
}

// A new system named like one already in the result file but for case, spacing or punctuation
// would read as the same machine in every view: refused before anything runs.
void RefuseNearDuplicateIdentifier(const std::string& composite, const std::string& identifier) {
  std::error_code ec;
  if (!fs::exists(composite, ec)) return;
  std::vector<std::string> systems;
  for (const auto& system : results::ReadResultFile(composite).systems) systems.push_back(system.identifier);
  if (auto near = NearDuplicateIdentifier(systems, identifier))
    throw Error("TEST_RESULTS_IDENTIFIER '" + identifier + "' differs from the system '" + *near + "' of " + composite +
                " only in case, spacing or punctuation; use exactly '" + *near + "' to add to that system, or another name");
}

// Names that differ in what a folder name drops ("a/b" and "ab") share one result: a run into a
// result saved under another name says so, naming both, instead of adding to it without a word.
std::optional<std::string> OtherNameOfFolder(const std::string& composite, const RunNaming& naming) {
  std::error_code ec;
  if (!fs::exists(composite, ec)) return std::nullopt;
  const std::string saved_as = results::ReadResultFile(composite).generated.title;
  if (saved_as == naming.title) return std::nullopt;
  return "The result name '" + naming.title + "' is saved in " + fs::path(composite).parent_path().string() +
         ", the result '" + saved_as + "' (a folder name keeps letters, digits and '-'): this run is added to it";
}

// No identifier given and no targets: the run is named after the tested subsystems' components,
// as PTS names it.
void NameAfterComponents(RunConfig& config, const std::vector<PlannedTest>& plan, bool batch) {
  std::vector<std::string> types;
  for (const auto& t : plan)
    if (std::find(types.begin(), types.end(), t.profile.test_type) == types.end()) types.push_back(t.profile.test_type);
  std::string automatic = AutoResultsIdentifier(config.system.hardware, config.system.software, types, batch);
  if (!automatic.empty()) config.system.identifier = automatic;
}

// Each profile of the plan once, as items to install.
std::vector<RunItem> ProfilesOf(const std::vector<PlannedTest>& plan) {
  std::vector<RunItem> out;
  std::set<std::string> seen;
  for (const auto& t : plan)
    if (seen.insert(t.profile.identifier).second) out.push_back({t.profile, std::nullopt});
  return out;
}

// The result file's name, title and identifier: PTS's variables, else asked, else made up;
// `identifier_given`: the user named this run (else it is named after its components).
RunNaming ResolveRunNaming(const sysinfo::SystemReader& reader, const PtsVariables& pts, Prompter* ask,
                           bool& identifier_given) {
  auto name = pts.results_name, identifier = pts.results_identifier;
  if (ask && !name) name = Trim(ask->Ask("Enter a name for the result file (empty: the date): "));
  if (ask && !identifier) identifier = Trim(ask->Ask("Enter a unique name for this test run (empty: automatic): "));
  // "$PROCESSOR"-style tokens in the identifier are filled as PTS fills them (probed only if used).
  std::map<std::string, std::string> variables;
  if (identifier && identifier->find('$') != std::string::npos) variables = LiveIdentifierVariables(reader);
  identifier_given = !CleanResultsIdentifier(identifier.value_or("")).empty();
  return ResolveNaming(name, identifier, pts.results_description, std::time(nullptr), variables);
}

// The run's configuration: the system as probed, where results go, the warm-up runs.
RunConfig MakeRunConfig(const Settings& s, const sysinfo::SystemReader& reader, const std::vector<PlannedTest>& plan,
                        const RunNaming& naming, const std::string& test_dir,
                        const std::vector<std::string>& download_notes, std::optional<int> warmup_runs) {
  bool disk_test = false;
  for (const auto& t : plan) disk_test |= t.profile.test_type == "Disk";
  RunConfig config = BaseRunConfig(s, reader, {naming.identifier, test_dir, disk_test, std::time(nullptr)}, PtsEnvironment());
  NoteDownloadFallbacks(config.system.notes, download_notes);
  config.result_dir = s.ResultsDirectory() + "/" + naming.save_name;
  config.title = naming.title;
  config.description = naming.description.value_or(AutoDescription(config.system.hardware, config.system.software));
  if (warmup_runs) config.warmup_runs = *warmup_runs;
  return config;
}

}  // namespace

int SessionOutcome::ExitCode() const {
  if (summary.interrupted || exec::InterruptRequested()) return 130;
  return summary.failed() > 0 || !targets_released ? 1 : 0;
}

RunSession::RunSession(SessionTools tools, Prompter& prompter, std::ostream& out, std::ostream& err, PtsVariables pts)
    : tools_(std::move(tools)), prompter_(prompter), out_(out), err_(err), pts_(std::move(pts)) {}

std::vector<RunItem> RunSession::Resolve(const std::vector<std::string>& names, const NotFoundMessage& not_found) const {
  if (names.empty()) throw Error("name a test profile (e.g. local/trivial or a profile directory) or a suite");
  auto ensure = [&](const std::string& name) {
    if (tools_.ensure_profile) tools_.ensure_profile(name);
  };
  profile::ProfileRepository& repo = tools_.repo;
  std::vector<RunItem> out;
  for (const auto& name : names) {
    ensure(name);
    std::error_code ec;
    bool is_dir = fs::is_directory(name, ec);
    if (is_dir || repo.FindProfile(name)) {
      out.push_back({repo.LoadProfile(is_dir ? fs::absolute(name).lexically_normal().string() : name), std::nullopt});
      continue;
    }
    if (repo.FindSuite(name)) {
      auto suite = repo.LoadSuite(name);
      for (const auto& e : suite.executes) {
        ensure(e.test);
        RunItem t{repo.LoadProfile(e.test), std::vector<profile::RunOption>{}};
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

std::vector<PlannedTest> RunSession::Plan(const std::vector<RunItem>& items, bool batch,
                                          std::vector<std::string>* unanswered) const {
  auto presets = CheckedPresets(items, pts_, err_);
  const std::string skip = pts_.skip_tests.value_or("");
  const bool ask = !batch && !unanswered && prompter_.Interactive();
  std::vector<PlannedTest> plan;
  for (const auto& t : items) {
    if (IsSkipped(t.profile, skip)) {
      err_ << t.profile.identifier << ": skipped (SKIP_TESTS)\n";
      continue;
    }
    std::vector<PlannedTest> tests;
    if (t.fixed_options) {
      for (const auto& o : *t.fixed_options) tests.push_back(MakePlannedTest(t.profile, o));
    } else {
      auto picks = profile::PicksFromPresets(t.profile, presets);
      // Batch mode runs every entry of an option the presets leave open; other runs ask.
      auto missing = batch ? std::vector<std::string>{} : UnansweredOptions(t.profile, picks);
      if (!missing.empty() && unanswered) {
        std::vector<std::string> names;
        for (const auto& m : missing) names.push_back(Split(m, ' ')[0]);
        unanswered->push_back(t.profile.identifier + ": option(s) " + Join(names, ", ") +
                              " not chosen: planned at the default here (the run asks on a terminal; PRESET_OPTIONS "
                              "chooses, e.g. PRESET_OPTIONS='" + t.profile.BaseName() + "." + names.front() + "=<choice>')");
      } else if (!missing.empty() && ask) {
        AskOptions(prompter_, t.profile, &picks);
      } else if (!missing.empty()) {
        throw Error(t.profile.identifier + ": option " + missing.front() +
                    " needs an answer and this run cannot ask (non-interactive): set PRESET_OPTIONS='" +
                    t.profile.BaseName() + "." + Split(missing.front(), ' ')[0] + "=<choice>' or use batch-run");
      }
      tests = PlanPicked(t.profile, picks, batch ? profile::OpenOptions::kEvery : profile::OpenOptions::kDefault);
    }
    for (auto& p : tests) plan.push_back(std::move(p));
  }
  return plan;
}

install::InstallContext RunSession::InstallContext(bool force) const {
  return MakeInstallContext(tools_.settings, tools_.fetcher, tools_.offline, force,
                            LiveFacts(tools_.reader, PtsEnvironment(), std::time(nullptr)), PtsEnvironment());
}

std::vector<std::string> RunSession::Install(const std::vector<RunItem>& items, bool force, bool quiet_if_installed,
                                             bool yes, bool batch) const {
  auto ictx = InstallContext(force);
  MissingDependencies missing = CheckDependencies(items, err_);
  if (!missing.packages.empty()) {
    // The one install policy (install::DecidePackagePolicy), as `run <ID>` decides it too.
    const auto policy = install::DecidePackagePolicy(
        install::ParseDependencyPolicy(tools_.settings.Get("install.dependencies")), tools_.offline, yes || batch,
        prompter_.Interactive());
    const bool install =
        policy.ask_first
            ? YesByDefault(prompter_.Ask("Install the Debian packages " + Join(missing.packages, " ") + " (apt-get)? [Y/n] "))
            : policy.may_install;
    if (install) {
      out_ << "Installing Debian packages: " << Join(missing.packages, " ") << "\n" << std::flush;
      auto apt = install::InstallDebianPackages(missing.packages, err_);
      if (!apt.ok) throw Error(apt.failure);
      missing = CheckDependencies(items, err_);
    }
  }
  if (!missing.packages.empty() || !missing.commands.empty()) {
    std::vector<std::string> names;
    for (const auto& t : items) names.push_back(t.profile.identifier);
    throw Error("missing dependencies: " + Join(missing.packages, " ") +
                (missing.commands.empty() ? "" : " (" + Join(missing.commands, "; ") + ")") +
                "; run: pts-native install-dependencies " + Join(names, " "));
  }
  std::set<std::string> done;
  std::vector<std::string> notes;
  for (const auto& t : items)
    for (auto& n : InstallWithParents(tools_.repo, t.profile, ictx, tools_.processes, done,
                                      [&](const std::string& id, bool already) {
                                        if (!already) out_ << id << ": installed\n";
                                        else if (!quiet_if_installed) out_ << id << ": already installed\n";
                                      }))
      notes.push_back(std::move(n));
  return notes;
}

SessionOutcome RunSession::Run(const std::vector<PlannedTest>& plan, SessionRequest request,
                               RunObserver& observer) const {
  if (plan.empty()) throw Error("nothing to run (every test skipped)");
  const Settings& s = tools_.settings;
  // FORCE_TIMES_TO_RUN & co. checked before anything is installed, in the process's environment
  // as it is (PtsEnvironment takes an empty value for unset: here it is a mistake to name).
  for (const auto& notice : ReadRunCountOverrides(ProcessEnvironment()).notices) err_ << notice << "\n";
  const std::vector<std::string> download_notes =
      Install(ProfilesOf(plan), request.force_install, true, request.yes, request.batch);

  bool named = false;
  const bool ask = !request.batch && prompter_.Interactive();
  const RunNaming naming = ResolveRunNaming(tools_.reader, pts_, ask ? &prompter_ : nullptr, named);
  const std::string test_dir = TestDirectory(s);
  RunConfig config = MakeRunConfig(s, tools_.reader, plan, naming, test_dir, download_notes, request.warmup_runs);
  if (!named && request.targets.specs.empty()) NameAfterComponents(config, plan, request.batch);
  RefuseNearDuplicateIdentifier(config.result_dir + "/composite.xml", config.system.identifier);
  if (auto other = OtherNameOfFolder(config.result_dir + "/composite.xml", naming)) err_ << *other << "\n";
  TargetsToMake targets = std::move(request.targets);
  if (named)
    for (auto& t : targets.specs) t.name = naming.identifier + ": " + t.Identifier();
  SessionOutcome outcome = RunLoop(std::move(config), plan, std::move(targets), s, tools_.reader, tools_.processes,
                                   observer, out_, request.quiet);
  outcome.save_name = naming.save_name;
  return outcome;
}

SessionOutcome RunLoop(RunConfig config, const std::vector<PlannedTest>& plan, TargetsToMake targets,
                       const Settings& s, const sysinfo::SystemReader& reader, exec::ProcessRunner& processes,
                       RunObserver& observer, std::ostream& out, bool quiet) {
  monitor::MonitorSession monitor_session(monitor::MonitorConfig::FromSettings(s, config.test_dir));
  MonitorHook hook(monitor_session);
  if (!quiet)
    for (const auto& line : monitor_session.StatusLines()) out << line << "\n";
  SessionOutcome outcome;
  if (plan.empty()) return outcome;
  // Two runs saving trials as one system of one result would replace each other's: the second
  // is refused here, before anything is made or run.
  std::vector<std::string> systems;
  for (const auto& spec : targets.specs) systems.push_back(spec.Identifier());
  if (systems.empty()) systems.push_back(config.system.identifier);
  results::IdentifierClaim claim(config.result_dir + "/composite.xml", systems,
                                 "a run saving as '" + Join(systems, "', '") + "'");
  exec::InstallSignalForwarding();

  // The storage targets, made before anything is measured (a failure stops the run); they go
  // when `made` does, an exception included.
  std::unique_ptr<RunTargets> made;
  if (!targets.specs.empty()) {
    auto sys = targets.system ? std::move(targets.system) : targets::MakeRealSystem();
    targets::TargetOptions options = targets.options(*sys, config.test_dir);
    made = std::make_unique<RunTargets>(std::move(sys), targets::LedgerDirectory(s.Home()), options, observer);
    const InstancePlan instances = PlanInstances(s, targets.specs.size());
    if (std::string cost = InstancesCostText(plan, config, targets.specs.size(), instances);
        !cost.empty() && !targets.instances_cost_told)
      observer.Message(cost);
    config.places = made->Create(targets.specs, config.system, reader, instances.start);
    config.places_sequential = targets.sequential;
    ApplyTargetSettings(config, s, *made);
  }

  TestRunner runner(config, processes, observer, monitor_session.enabled() ? &hook : nullptr);
  if (!exec::InterruptRequested()) outcome.summary = runner.Run(plan);
  else outcome.summary.interrupted = true;
  if (made) {
    outcome.places = made->places();  // those added while it ran included
    outcome.targets_released = made->Remove();
  }
  return outcome;
}

std::string RunSession::SavedResultText(const SessionOutcome& outcome, int text_width) const {
  std::error_code ec;
  if (!outcome.summary.saved || !fs::exists(outcome.summary.composite_path, ec)) return "";
  auto file = results::ReadResultFile(outcome.summary.composite_path);
  std::string text = results::ResultFileToText(file, text_width);
  if (outcome.places.size() > 1)
    text += "\n" + PairedTargetView(file, outcome.places, {tools_.settings.GetDouble("run.same_within"), 0.95}) +
            BusyMachineNoteNow();
  if (pts_.output_dir) {
    MakeDirectories(*pts_.output_dir);
    WriteFileAtomically(*pts_.output_dir + "/" + outcome.save_name + ".txt", text);
  }
  return text;
}

}  // namespace ptsn::run
