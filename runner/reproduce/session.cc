#include "runner/reproduce/session.h"

#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <algorithm>

#include "results-xml/result_store.h"
#include "results-xml/result_xml.h"
#include "runner/client/client.h"
#include "runner/client/wire.h"
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
#include "runner/reproduce/plan.h"
#include "runner/reproduce/resolve.h"
#include "runner/run/naming.h"
#include "runner/run/run_setup.h"
#include "runner/run/test_runner.h"
#include "runner/sysinfo/sysinfo.h"

namespace ptsn::reproduce {

namespace {

namespace fs = std::filesystem;

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
  StandInFolder(const ReproducePlan& plan, std::string identifier) : plan_(plan), identifier_(std::move(identifier)) {}
  void Saved(const std::string& path) override { Fold(path); }
  void Fold(const std::string& path) {
    if (!fs::exists(path)) return;
    auto file = results::ReadResultFile(path);
    size_t moved = FoldStandIns(file, plan_, identifier_);
    moved += FoldIntoOlderMonitorNames(file, identifier_);
    if (moved > 0) results::WriteResultFile(path, file);
  }

 private:
  const ReproducePlan& plan_;
  std::string identifier_;
};

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
    sources.servers = o.servers;
    install_ctx.downloads.fallbacks = install::MakeFallbacks(sources);
  }
  ResolveOptions ro;
  ro.result_dirs = results::ResultDirectories(s);
  ro.save_dir = s.ResultsDirectory();
  ro.servers = o.servers.empty() ? std::vector<std::string>{s.Get("server.url")} : o.servers;
  ro.offline = offline;
  auto resolved = ResolveResult(o.name, ro, [](const std::string& url, const std::string& id) {
    return client::CloneResult(url, id);
  });
  results::ResultFile& file = resolved.file;
  out << (o.resume_identifier.empty() ? "Reproducing \"" : "Finishing \"") << file.generated.title << "\" (" << o.name << ", " << file.systems.size() << " systems, "
      << file.results.size() << " results): " << resolved.origin << "\n";

  profile::ProfileRepository repo = profile::ProfileRepository::FromSettings(s);
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
  if (o.dry_run) return 0;

  // Packages are installed only with consent: asked here, once, before anything runs.
  std::vector<std::string> needed = PackagesOf(plan.items);
  if (!needed.empty() && dependency_policy == install::DependencyPolicy::kAsk &&
      !AskYes(*prompter, "Install the Debian packages " + Join(needed, " ") + " (apt-get) so the tests above can run? [Y/n] ")) {
    packages = {false, "declined"};
    plan = make_plan();
    out << "Without installing packages:\n" << FormatPlan(file, plan);
  }
  RequireConsentToSkip(file, plan, o.skip_unavailable, *prompter);
  std::string identifier =
      !o.resume_identifier.empty()
          ? o.resume_identifier
          : ChooseIdentifier(file, env("TEST_RESULTS_IDENTIFIER"), *prompter, run::LiveIdentifierVariables(*reader));
  ApplyPresetEnvironment(env_vars, s);
  install_ctx.host_env = exec::CurrentEnvironment();  // install.sh sees the stored variables too

  std::vector<PlanItem> todo = RemainingItems(file, plan, identifier);
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
  StandInFolder folder(plan, identifier);
  observers.Add(printer.get());
  observers.Add(&folder);
  monitor::MonitorSession monitor_session(monitor::MonitorConfig::FromSettings(s, test_dir));
  run::MonitorHook hook(monitor_session);
  for (const auto& line : monitor_session.StatusLines()) out << line << "\n";
  int code = 0;
  if (!tests.empty()) {
    run::TestRunner runner(cfg, processes, observers, monitor_session.enabled() ? &hook : nullptr);
    run::RunSummary summary = runner.Run(tests);
    folder.Fold(summary.composite_path);
    if (summary.interrupted) code = 130;
    else if (summary.failed() > 0) code = 1;
  }
  if (not_installed > 0 && code == 0) code = 1;

  auto final_file = results::ReadResultFile(resolved.path);
  out << "\n" << ComparisonText(final_file, identifier, o.width);
  out << "\nSaved: " << resolved.path << "\n";

  if (o.upload && code == 0) {
    std::string server = ro.servers.front();
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
