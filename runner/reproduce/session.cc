#include "runner/reproduce/session.h"

#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <algorithm>

#include "results-xml/result_store.h"
#include "results-xml/result_xml.h"
#include "runner/client/client.h"
#include "runner/client/ob_client.h"
#include "runner/client/profile_source.h"
#include "runner/openbenchmarking/wire.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/settings.h"
#include "runner/common/strings.h"
#include "runner/exec/process.h"
#include "runner/install/dependencies.h"
#include "runner/install/downloads.h"
#include "runner/install/fetcher.h"
#include "runner/install/installer.h"
#include "runner/install/profile_install.h"
#include "runner/monitor/monitor_session.h"
#include "runner/profile/profile_repository.h"
#include "runner/reproduce/append.h"
#include "runner/reproduce/catalog.h"
#include "runner/reproduce/compare.h"
#include "runner/reproduce/consent.h"
#include "runner/reproduce/originals.h"
#include "runner/reproduce/plan.h"
#include "runner/reproduce/resolve.h"
#include "runner/reproduce/target_map.h"
#include "runner/run/naming.h"
#include "runner/run/run_setup.h"
#include "runner/run/run_targets.h"
#include "runner/run/test_runner.h"
#include "runner/sysinfo/sysinfo.h"

namespace ptsn::reproduce {

namespace {

namespace fs = std::filesystem;

// Where a dry run puts the profiles it fetches: a temporary directory the plan reads, removed
// with this object; the cache is read but not written (nothing of a dry run stays on disk).
class DryRunScratch {
 public:
  explicit DryRunScratch(client::ProfileSourceOptions& options) {
    std::string tmpl = (fs::temp_directory_path() / "ptsn-dry-run-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw Error("--dry-run: cannot create a scratch directory in " + fs::temp_directory_path().string());
    root_ = tmpl;
    options.profiles_dir = root_ + "/test-profiles";
    options.keep = false;
  }
  ~DryRunScratch() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  DryRunScratch(const DryRunScratch&) = delete;
  DryRunScratch& operator=(const DryRunScratch&) = delete;

 private:
  std::string root_;
};

// May a missing Debian package be installed for this run, and if not, why not (for the plan).
struct PackagePolicy {
  bool may_install = false;
  std::string why_not;  // "offline", "not root: sudo apt-get install -y X", ...
};

PackagePolicy DecidePackagePolicy(install::DependencyPolicy policy, bool offline, bool interactive) {
  if (offline) return {false, "offline"};
  if (policy == install::DependencyPolicy::kNo) return {false, "install.dependencies is no"};
  if (geteuid() != 0) return {false, "not root"};
  if (!install::CommandExists("apt-get")) return {false, "no apt-get here"};
  if (policy == install::DependencyPolicy::kAsk && !interactive)
    return {false, "--yes or install.dependencies=yes installs them"};
  return {true, ""};
}

// What keeps a profile from running here that the plan should know before anything starts.
// Missing Debian packages are no obstacle when they may be installed and apt has them (they go
// to `packages`); downloads are none either: the install step fetches them (caches, mirrors,
// then the fallbacks), except offline when a file is in no cache.
std::string RunnableProblem(const install::InstallContext& ctx, const PackagePolicy& policy,
                            const profile::TestProfile& p, std::vector<std::string>* packages) {
  auto deps = install::CheckProfileDependencies(p, install::DpkgProbe(), install::CommandExists);
  if (!deps.missing_packages.empty()) {
    const std::string needs = "needs Debian packages " + Join(deps.missing_packages, " ");
    if (!policy.may_install)
      return needs + " (" + policy.why_not + "; " + install::AptGetCommand(deps.missing_packages, geteuid() == 0) + ")";
    auto unavailable = install::UnavailablePackages(deps.missing_packages);
    if (!unavailable.empty()) return needs + "; apt cannot install " + Join(unavailable, " ") + " here";
    if (packages) *packages = deps.missing_packages;
  }
  for (const auto& c : deps.missing_commands)
    if (install::DebianPackagesFor(c).empty()) return "needs " + c + " (not found, no Debian package known)";
  if (ctx.offline) {
    std::string dir = install::InstallDirectory(ctx.install_root, p.identifier);
    if (!install::IsInstalled(dir, p.identifier, install::InstallChecksum(p.ScriptPath("install"))) &&
        !install::MissingOffline(install::DownloadItemsFor(p, ctx.facts.arch), dir, ctx.downloads).empty())
      return "needs download, offline";
  }
  return "";
}

bool ProfileInstalled(const install::InstallContext& ctx, const profile::TestProfile& p) {
  return install::IsInstalled(install::InstallDirectory(ctx.install_root, p.identifier), p.identifier,
                              install::InstallChecksum(p.ScriptPath("install")));
}

// The Debian packages `items` install first, each once, in plan order.
std::vector<std::string> PackagesOf(const std::vector<PlanItem>& items) {
  std::vector<std::string> out;
  for (const auto& it : items)
    for (const auto& p : it.packages)
      if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  return out;
}

bool AskYes(Prompter& prompter, const std::string& question) {
  if (!prompter.Interactive()) return false;
  std::string answer = ToLower(Trim(prompter.Ask(question)));
  return answer.empty() || answer == "y" || answer == "yes";
}

// PTS applies the stored variables with putenv(), over whatever the caller had; the settings
// read from those variables (MONITOR -> monitor.sensors, ...) take the stored value too.
void ApplyPresetEnvironment(const std::vector<EnvVar>& vars, Settings& settings) {
  for (const auto& v : vars) {
    setenv(v.name.c_str(), v.value.c_str(), 1);
    for (const auto& spec : SettingsTable())
      if (v.name == spec.env) settings.SetFromCommandLine(spec.key, v.value);
  }
}


// After every save of the run loop: stand-in results go under the published ones, monitor
// results under the published ones of an older PTS's name.
class StandInFolder : public run::RunObserver {
 public:
  StandInFolder(const ReproducePlan& plan, std::vector<std::string> identifiers)
      : plan_(plan), identifiers_(std::move(identifiers)) {}
  void Saved(const std::string& path) override { Fold(path); }
  void Fold(const std::string& path) {
    if (!fs::exists(path)) return;
    auto file = results::ReadResultFile(path);
    size_t moved = 0;
    for (const auto& identifier : identifiers_) {
      moved += FoldStandIns(file, plan_, identifier);
      moved += FoldIntoOlderMonitorNames(file, identifier);
    }
    if (moved > 0) results::WriteResultFile(path, file);
  }

 private:
  const ReproducePlan& plan_;
  std::vector<std::string> identifiers_;
};

// The targets of `--targets LIST|auto`: the list parsed, or the published systems mapped (the
// mapping printed as part of the plan).
std::vector<targets::TargetSpec> PlanTargets(const SessionOptions& o, const results::ResultFile& file,
                                             targets::TargetSystem& sys, std::ostream& out) {
  if (o.targets != "auto") {
    auto specs = targets::ParseTargetList(o.targets);
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

}  // namespace

int RunSession(const SessionOptions& o, std::ostream& out) {
  Settings& s = MutableGlobalSettings();
  const EnvLookup env = ProcessEnvironment();
  const bool offline = o.offline || s.GetBool("network.offline");
  auto reader = sysinfo::MakeRootedReader("/", s.Home() + "/cache");
  auto fetcher = offline ? install::MakeOfflineFetcher() : install::MakeCurlFetcher();
  install::InstallContext install_ctx =
      run::MakeInstallContext(s, *fetcher, offline, false, run::LiveFacts(*reader, env, std::time(nullptr)), env);
  exec::PosixProcessRunner processes;
  // A moved download is also asked of the servers named on the command line.
  if (!o.servers.empty() && s.Get("install.download_servers").empty()) {
    auto sources = run::FallbackSourcesFrom(s, install_ctx.downloads.caches);
    sources.servers = client::ServersFrom(s, o.servers);
    install_ctx.downloads.fallbacks = install::MakeFallbacks(sources);
  }
  // Uploads go only where the user said (--server, server.upload_url), never to server.url's
  // default: checked before anything runs.
  std::string upload_server;
  if (o.upload) {
    auto named = o.servers.empty() ? client::ParseServerList(s.Get("server.upload_url")) : client::ParseServerList(o.servers.front());
    if (named.empty())
      throw Error("--upload: no server to upload to: pass --server URL or set server.upload_url (to publish on "
                  "OpenBenchmarking.org, say so: --server https://openbenchmarking.org)", 2);
    upload_server = named.front();
  }
  ResolveOptions ro;
  ro.result_dirs = results::ResultDirectories(s);
  ro.save_dir = s.ResultsDirectory();
  ro.servers = client::ServersFrom(s, o.servers);
  ro.offline = offline;
  ro.save = !o.dry_run;  // a dry run writes nothing, the clone included
  ro.bundled_dirs = BundledResultDirectories();
  auto resolved = ResolveResult(o.name, ro, ServerCloner(offline));
  results::ResultFile& file = resolved.file;
  if (!resolved.notice.empty()) out << resolved.notice << "\n";
  out << (o.resume_identifier.empty() ? "Reproducing \"" : "Finishing \"") << file.generated.title << "\" (" << o.name << ", " << file.systems.size() << " systems, "
      << file.results.size() << " results): " << resolved.origin << "\n";

  profile::ProfileRepository repo = profile::ProfileRepository::FromSettings(s);
  // The originals' profiles: from the servers (pts/NAME on demand) when not on disk.
  client::ObClient ob(ro.servers, offline);
  client::ProfileSourceOptions source_options = client::ProfileSourceOptions::FromSettings(s);
  // A dry run writes nothing, the profile cache included: what it fetches goes to a scratch
  // directory the plan reads and that is removed on return.
  std::optional<DryRunScratch> scratch;
  if (o.dry_run) {
    scratch.emplace(source_options);
    auto roots = repo.roots();
    roots.push_back(source_options.profiles_dir);
    repo = profile::ProfileRepository(roots);
  }
  source_options.on_disk = [&repo](const std::string& qualified) {
    auto ref = repo.FindProfile(qualified);
    return ref && ref->identifier == qualified;
  };
  client::ProfileSource source(std::move(source_options), ob);
  OriginalsFetched originals = FetchOriginals(file, repo, source);
  if (!originals.fetched.empty())
    out << "Fetched test profiles: " << Join(originals.fetched, ", ") << (o.dry_run ? " (not kept: --dry-run)" : "") << "\n";
  for (const auto& line : originals.missing) out << line << "\n";
  const auto stand_ins = LoadStandIns(repo.roots());
  auto prompter = TerminalPrompter(o.non_interactive);
  const auto dependency_policy =
      o.yes ? install::DependencyPolicy::kYes : install::ParseDependencyPolicy(s.Get("install.dependencies"));
  PackagePolicy packages = DecidePackagePolicy(dependency_policy, offline, prompter->Interactive());
  auto make_plan = [&] {
    RepositoryCatalog catalog(
        repo, [&](const profile::TestProfile& p) { return RunnableProblem(install_ctx, packages, p, nullptr); },
        [&](const profile::TestProfile& p) { return ProfileInstalled(install_ctx, p); },
        [&](const profile::TestProfile& p) {
          std::vector<std::string> needed;
          RunnableProblem(install_ctx, packages, p, &needed);
          return needed;
        });
    return BuildPlan(file, catalog, stand_ins);
  };
  ReproducePlan plan = make_plan();
  out << FormatPlan(file, plan);
  auto env_vars = ParsePresetEnvironment(file.generated.preset_environment_variables.value_or(""));
  for (const auto& v : env_vars) out << "Environment from the published result: " << v.name << "=" << v.value << "\n";
  std::unique_ptr<targets::TargetSystem> target_sys;
  std::vector<targets::TargetSpec> target_specs;
  if (!o.targets.empty()) {
    target_sys = targets::MakeRealSystem();
    target_specs = PlanTargets(o, file, *target_sys, out);
  }
  if (o.dry_run) return 0;
  if (!target_specs.empty() && !o.yes &&
      !AskYes(*prompter, "Create " + std::to_string(target_specs.size()) +
                             " target(s) in the test directory and run the tests on each? [Y/n] "))
    throw Error("--targets: not confirmed" + std::string(prompter->Interactive() ? "" : " (this run cannot ask: add --yes)"));

  // Packages are installed only with consent: asked here, once, before anything runs.
  std::vector<std::string> needed = PackagesOf(plan.items);
  if (!needed.empty() && dependency_policy == install::DependencyPolicy::kAsk &&
      !AskYes(*prompter, "Install the Debian packages " + Join(needed, " ") + " (apt-get) so the tests above can run? [Y/n] ")) {
    packages = {false, "declined"};
    plan = make_plan();
    out << "Without installing packages:\n" << FormatPlan(file, plan);
  }
  RequireConsentToSkip(file, plan, o.skip_unavailable, *prompter);
  // Our systems: the saved system being finished, this machine as it is, or one per target
  // (named after it, after the given identifier when there is one), never a published system's name.
  std::vector<std::string> identifiers;
  if (!o.resume_identifier.empty()) {
    identifiers.push_back(o.resume_identifier);
  } else if (target_specs.empty()) {
    identifiers.push_back(
        ChooseIdentifier(file, env("TEST_RESULTS_IDENTIFIER"), *prompter, run::LiveIdentifierVariables(*reader)));
  } else {
    std::string prefix = run::CleanResultsIdentifier(env("TEST_RESULTS_IDENTIFIER").value_or(""));
    for (auto& t : target_specs) {
      if (!prefix.empty()) t.name = prefix + ": " + t.Identifier();
      // (A system an earlier reproduction added under this name is ours: the run resumes it.)
      for (const auto& published : file.systems)
        if (published.identifier == t.Identifier() && !IsReproductionSystem(published))
          throw Error("target " + t.Identifier() + " has the name of a published system; name it (NAME=spec) or set "
                      "TEST_RESULTS_IDENTIFIER");
      identifiers.push_back(t.Identifier());
    }
  }
  const std::string& identifier = identifiers.front();
  ApplyPresetEnvironment(env_vars, s);
  install_ctx.host_env = exec::CurrentEnvironment();  // install.sh sees the stored variables too

  // What is still to run for any of our systems (the loop skips, per system, what is done).
  std::vector<PlanItem> todo;
  for (const auto& id : identifiers)
    for (const auto& item : RemainingItems(file, plan, id))
      if (std::none_of(todo.begin(), todo.end(), [&](const PlanItem& i) { return i.result_index == item.result_index; }))
        todo.push_back(item);
  std::sort(todo.begin(), todo.end(), [](const PlanItem& a, const PlanItem& b) { return a.result_index < b.result_index; });
  std::string apt_failure;
  if (auto to_install = PackagesOf(todo); !to_install.empty()) {
    out << "Installing Debian packages: " << Join(to_install, " ") << "\n" << std::flush;
    std::ostringstream apt_log;
    auto apt = install::InstallDebianPackages(to_install, apt_log);
    if (!apt.ok) apt_failure = apt.failure;
  }
  std::vector<run::PlannedTest> tests;
  std::set<std::string> installed;
  bool disk_test = false;
  size_t not_installed = 0;
  std::vector<std::string> download_notes;
  // Installs `item`'s profile; "" when it is ready to run, else why not.
  auto install_item = [&](const PlanItem& item) -> std::string {
    if (!item.packages.empty() && !apt_failure.empty()) return item.profile + ": " + apt_failure;
    try {
      profile::TestProfile p = repo.LoadProfile(item.profile);
      for (auto& n : run::InstallWithParents(repo, p, install_ctx, processes, installed,
                                             [&](const std::string& id, bool already) {
                                               if (!already) out << id << ": installed\n";
                                             }))
        download_notes.push_back(std::move(n));
      disk_test |= p.test_type == "Disk";
      tests.push_back(run::MakePlannedTest(p, {item.arguments, item.description}));
      return "";
    } catch (const Error& e) {
      return e.what();
    }
  };
  for (auto item : todo) {
    std::string failure = install_item(item);
    if (!failure.empty() && item.kind == PlanKind::kOriginal && !item.alternative.empty()) {
      // The original could not be had after all: its stand-in runs, and the plan (so the notes
      // and the folding of results) says so.
      item = UseAlternative(item, "installing the original failed: " + failure);
      out << "Original not installed (" << failure << "); using the stand-in " << item.stand_in_label << "\n";
      for (auto& planned : plan.items)
        if (planned.result_index == item.result_index) planned = item;
      failure = install_item(item);
    }
    if (!failure.empty()) {
      // As PTS: a test that does not install is left out (it stays without an entry for this
      // system; a later run resumes it); the others still run.
      out << "Not run, installing failed: " << failure << "\n";
      ++not_installed;
    }
  }
  if (tests.empty()) out << "Nothing left to run for " << identifier << ".\n";

  std::string test_dir = run::TestDirectory(s);
  run::RunConfig cfg = run::BaseRunConfig(s, *reader, {identifier, test_dir, disk_test, std::time(nullptr)}, env);
  if (o.resume_identifier.empty()) NoteReproduction(cfg.system, o.name, plan);
  run::NoteDownloadFallbacks(cfg.system.notes, download_notes);
  cfg.result_dir = fs::path(resolved.path).parent_path().string();
  cfg.title = file.generated.title;
  cfg.description = file.generated.description;

  run::ObserverList observers;
  auto printer = run::MakePrinter(isatty(1) ? run::PrinterKind::kTty : run::PrinterKind::kPlain, out);
  StandInFolder folder(plan, identifiers);
  observers.Add(printer.get());
  observers.Add(&folder);
  monitor::MonitorSession monitor_session(monitor::MonitorConfig::FromSettings(s, test_dir));
  run::MonitorHook hook(monitor_session);
  for (const auto& line : monitor_session.StatusLines()) out << line << "\n";
  int code = 0;
  // Targets: made just before the loop (after every install), released right after it, and by
  // the destructor when an exception or Ctrl-C ends the session early.
  std::unique_ptr<run::RunTargets> run_targets;
  if (!target_specs.empty() && !tests.empty()) {
    exec::InstallSignalForwarding();
    targets::TargetOptions options;
    options.test_dir = test_dir;
    options.size = o.target_size;
    options.device = targets::ConfirmedDevice(*target_sys, o.device, [&](const std::string& q) -> std::optional<std::string> {
      if (!prompter->Interactive()) return std::nullopt;
      return prompter->Ask(q);
    });
    run_targets = std::make_unique<run::RunTargets>(std::move(target_sys), targets::LedgerDirectory(s.Home()), options,
                                                    observers);
    cfg.places = run_targets->Create(target_specs, cfg.system, *reader);
    cfg.places_sequential = o.targets_sequential;
    cfg.paired_ci_goal = s.GetDouble("run.paired_ci_goal");
  }
  auto places = cfg.places;
  if (!tests.empty() && !exec::InterruptRequested()) {
    run::TestRunner runner(cfg, processes, observers, monitor_session.enabled() ? &hook : nullptr);
    run::RunSummary summary = runner.Run(tests);
    folder.Fold(summary.composite_path);
    if (summary.interrupted) code = 130;
    else if (summary.failed() > 0) code = 1;
  }
  if (run_targets && !run_targets->Remove() && code == 0) code = 1;
  if (exec::InterruptRequested()) code = 130;
  if (not_installed > 0 && code == 0) code = 1;

  auto final_file = results::ReadResultFile(resolved.path);
  for (const auto& id : identifiers) out << "\n" << ComparisonText(final_file, id, o.width);
  if (places.size() > 1) out << "\n" << run::PairedTargetView(final_file, places);
  out << "\nSaved: " << resolved.path << "\n";

  if (o.upload && code == 0) {
    const std::string& server = upload_server;
    std::string token = o.token.empty() ? s.Get("server.token") : o.token;
    wire::Upload up;
    up.xml = ReadFile(resolved.path);
    up.local_file_name = o.name;
    auto http = client::CurlTransport();
    auto outcome = client::UploadResult(*http, server, token, wire::EncodeForm(wire::EncodeUpload(up)));
    out << "Results Uploaded To: " << outcome.url << "\n" << outcome.id << "\n";
  }
  return code;
}

}  // namespace ptsn::reproduce
