// The session of `pts-native run <ID>` as a short function over named steps (RunSession, at the
// end): set up this machine, resolve the published file, fetch the profiles, plan, ask consent,
// name our systems, install, run, then print the comparison and upload when asked. The steps
// that decide or print without running anything are in session_steps.h, tested there.
#include "runner/reproduce/session.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <memory>
#include <set>
#include <sstream>

#include "results-xml/store/result_store.h"
#include "results-xml/store/result_update.h"
#include "results-xml/model/result_xml.h"
#include "results-xml/stats/verdict.h"
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
#include "runner/reproduce/consent.h"
#include "runner/reproduce/originals.h"
#include "runner/reproduce/plan.h"
#include "runner/reproduce/resolve.h"
#include "runner/reproduce/session_steps.h"
#include "runner/reproduce/target_map.h"
#include "runner/reproduce/target_size.h"
#include "runner/run/naming.h"
#include "runner/run/run_plan.h"
#include "runner/run/run_setup.h"
#include "runner/run/run_session.h"
#include "runner/run/run_targets.h"
#include "runner/run/run_loop.h"
#include "runner/sysinfo/sysinfo.h"
#include "runner/targets/mount_namespace.h"
#include "runner/targets/target_set.h"

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

using install::PackagePolicy;

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
    try {
      if (!install::IsInstalled(dir, p.identifier, install::InstallChecksum(p.ScriptPath("install"))) &&
          !install::MissingOffline(install::DownloadItemsFor(p, ctx.facts.arch), dir, ctx.downloads).empty())
        return "needs download, offline";
    } catch (const Error& e) {  // a FileName that leaves the install folder
      return e.what();
    }
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
  return prompter.Interactive() && run::YesByDefault(prompter.Ask(question));
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
    results::UpdateResultFile(path, [&](results::ResultFile& file, bool) {
      // Every instance of our targets ("NAME #k", including those added while a verdict was
      // unknown) files its own entries.
      for (const auto& system : file.systems) {
        auto ours = [&](const std::string& name) {
          return std::find(identifiers_.begin(), identifiers_.end(), name) != identifiers_.end();
        };
        if (!ours(system.identifier) && !ours(results::ParseInstanceName(system.identifier).kind)) continue;
        FoldStandIns(file, plan_, system.identifier);
        FoldIntoOlderMonitorNames(file, system.identifier);
      }
    });
  }

 private:
  const ReproducePlan& plan_;
  std::vector<std::string> identifiers_;
};

// This machine as the session uses it: its settings and environment, what it is (the reader),
// where downloads come from, and how tests install and run. Made once; not copied or moved
// (the install context holds the fetcher).
struct Machine {
  Settings& settings = MutableGlobalSettings();
  const EnvLookup env = ProcessEnvironment();
  bool offline = false;
  std::vector<std::string> servers;  // --server, else server.url
  std::unique_ptr<sysinfo::SystemReader> reader;
  std::unique_ptr<install::Fetcher> fetcher;
  install::InstallContext install_ctx;
  exec::PosixProcessRunner processes;

  explicit Machine(const SessionOptions& o)
      : offline(o.offline || settings.GetBool("network.offline")),
        servers(client::ServersFrom(settings, o.servers)),
        reader(sysinfo::MakeRootedReader("/", settings.Home() + "/cache")),
        fetcher(offline ? install::MakeOfflineFetcher() : install::MakeCurlFetcher()),
        install_ctx(run::MakeInstallContext(settings, *fetcher, offline, false,
                                            run::LiveFacts(*reader, env, std::time(nullptr)), env)) {
    // A moved download is also asked of the servers named on the command line.
    if (!o.servers.empty() && settings.Get("install.download_servers").empty()) {
      auto sources = run::FallbackSourcesFrom(settings, install_ctx.downloads.caches);
      sources.servers = servers;
      install_ctx.downloads.fallbacks = install::MakeFallbacks(sources);
    }
  }
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;
};

// Uploads go only where the user said (--server, server.upload_url), never to server.url's
// default: checked before anything runs. "" when no upload is asked.
std::string UploadServer(const SessionOptions& o, const Settings& s) {
  if (!o.upload) return "";
  auto named = o.servers.empty() ? client::ParseServerList(s.Get("server.upload_url")) : client::ParseServerList(o.servers.front());
  if (named.empty())
    throw Error("--upload: no server to upload to: pass --server URL or set server.upload_url (to publish on "
                "OpenBenchmarking.org, say so: --server https://openbenchmarking.org)", 2);
  return named.front();
}

// The published result: saved here, else cloned from the servers (not saved by a dry run).
ResolvedResult ResolvePublished(const SessionOptions& o, const Machine& m, std::ostream& out) {
  ResolveOptions ro;
  ro.result_dirs = results::ResultDirectories(m.settings);
  ro.save_dir = m.settings.ResultsDirectory();
  ro.servers = m.servers;
  ro.offline = m.offline;
  ro.save = !o.dry_run;  // a dry run writes nothing, the clone included
  ro.bundled_dirs = BundledResultDirectories();
  auto resolved = ResolveResult(o.name, ro, ServerCloner(m.offline));
  const results::ResultFile& file = resolved.file;
  if (!resolved.notice.empty()) out << resolved.notice << "\n";
  out << (o.resume_identifier.empty() ? "Reproducing \"" : "Finishing \"") << file.generated.title << "\" (" << o.name
      << ", " << file.systems.size() << " systems, " << file.results.size() << " results): " << resolved.origin << "\n";
  return resolved;
}

// The profiles the plan chooses from: those on disk, the originals fetched from the servers
// (pts/NAME on demand), and the stand-in declarations of every profile tree.
struct Profiles {
  profile::ProfileRepository repo;
  std::unique_ptr<DryRunScratch> scratch;  // a dry run's fetched profiles, removed with it
  std::vector<StandInRule> stand_ins;
};

Profiles FetchProfiles(const SessionOptions& o, const Machine& m, const results::ResultFile& file, std::ostream& out) {
  Profiles p{profile::ProfileRepository::FromSettings(m.settings), nullptr, {}};
  client::ObClient ob(m.servers, m.offline);
  client::ProfileSourceOptions source_options = client::ProfileSourceOptions::FromSettings(m.settings);
  // A dry run writes nothing, the profile cache included: what it fetches goes to a scratch
  // directory the plan reads and that is removed on return.
  if (o.dry_run) {
    p.scratch = std::make_unique<DryRunScratch>(source_options);
    auto roots = p.repo.roots();
    roots.push_back(source_options.profiles_dir);
    p.repo = profile::ProfileRepository(roots);
  }
  source_options.on_disk = [&repo = p.repo](const std::string& qualified) {
    auto ref = repo.FindProfile(qualified);
    return ref && ref->identifier == qualified;
  };
  client::ProfileSource source(std::move(source_options), ob);
  OriginalsFetched originals = FetchOriginals(file, p.repo, source);
  if (!originals.fetched.empty())
    out << "Fetched test profiles: " << Join(originals.fetched, ", ") << (o.dry_run ? " (not kept: --dry-run)" : "") << "\n";
  for (const auto& line : originals.missing) out << line << "\n";
  p.stand_ins = LoadStandIns(p.repo.roots());
  return p;
}

constexpr uint64_t kDefaultTargetSize = 1ull << 30;

// The targets' size: --target-size, else sized for the tests that will run on them where the
// folder of their backing files has room (target_size.h); what does not fit is printed.
uint64_t SizeTargetsForPlan(const SessionOptions& o, const Machine& m, const Profiles& profiles,
                            const results::ResultFile& file, const ReproducePlan& plan, size_t target_count,
                            std::ostream& out) {
  if (o.device.device || o.device.destroy_data_on) return o.target_size.value_or(kDefaultTargetSize);
  std::vector<TestNeed> needs;
  for (const auto& item : plan.items) {
    if (item.kind == PlanKind::kUnavailable) continue;
    double testing_mb = 0;
    try {
      testing_mb = profiles.repo.LoadProfile(item.profile).environment_testing_size;
    } catch (const Error&) {
      // (a profile that does not load is reported when it is installed)
    }
    needs.push_back({ItemHeading(file, item), TestSpaceNeed(item.profile, item.arguments, testing_mb)});
  }
  // The backing files go under the test directory (made when the run starts): its nearest folder.
  fs::path folder = run::TestDirectory(m.settings);
  std::error_code ec;
  while (!folder.empty() && !fs::exists(folder, ec) && folder.has_parent_path() && folder != folder.parent_path())
    folder = folder.parent_path();
  // As many instances of each as the run may make (its own plan of them).
  const size_t instances = static_cast<size_t>(run::PlanInstances(m.settings, target_count).max);
  TargetSizing sizing = SizeTargets(needs, o.target_size, FreeBytes(folder.string()), target_count * instances,
                                    kDefaultTargetSize, run::TestDirectory(m.settings));
  out << sizing.text;
  return sizing.size;
}

// The sensors the published result recorded are sampled again (MONITOR=cpu.usage for a result
// with CPU usage monitors), unless its own variables name MONITOR, the user set MONITOR
// (environment, settings), or --no-monitor; printed with how to choose otherwise.
std::optional<EnvVar> MonitorAsPublished(const SessionOptions& o, const Machine& m, const results::ResultFile& file,
                                         const std::vector<EnvVar>& preset, std::ostream& out) {
  if (o.no_monitor) return EnvVar{"MONITOR", ""};  // over the file's own MONITOR too
  if (std::any_of(preset.begin(), preset.end(), [](const EnvVar& v) { return v.name == "MONITOR"; }) ||
      m.env("MONITOR") || m.settings.GetWithOrigin("monitor.sensors").origin != SettingOrigin::kDefault)
    return std::nullopt;
  auto sensors = PublishedSensors(file);
  if (sensors.empty()) return std::nullopt;
  const std::string value = Join(sensors, ",");
  out << "Sampling what the published result recorded: MONITOR=" << value
      << " (set MONITOR to choose, --no-monitor for none)\n";
  return EnvVar{"MONITOR", value};
}

// What the session will do, as printed before anything runs (all a dry run does).
struct Planning {
  std::unique_ptr<Prompter> prompter;
  install::DependencyPolicy dependency_policy = install::DependencyPolicy::kAsk;
  PackagePolicy packages;
  ReproducePlan plan;
  std::vector<EnvVar> env_vars;  // the published result's preset environment
  std::unique_ptr<targets::TargetSystem> target_sys;
  std::vector<targets::TargetSpec> targets;
  uint64_t target_size = kDefaultTargetSize;
  std::vector<std::vector<std::string>> target_origins;  // the published systems each target stands for
};

ReproducePlan MakePlan(const Machine& m, const Profiles& profiles, const PackagePolicy& packages,
                       const results::ResultFile& file) {
  const install::InstallContext& ctx = m.install_ctx;
  RepositoryCatalog catalog(
      profiles.repo, [&](const profile::TestProfile& p) { return RunnableProblem(ctx, packages, p, nullptr); },
      [&](const profile::TestProfile& p) { return ProfileInstalled(ctx, p); },
      [&](const profile::TestProfile& p) {
        std::vector<std::string> needed;
        RunnableProblem(ctx, packages, p, &needed);
        return needed;
      });
  ReproducePlan plan = BuildPlan(file, catalog, profiles.stand_ins);
  // SKIP_TESTS, as for any run (run::IsSkipped): a test named there is left out, whether it is the
  // original or the stand-in that would run.
  std::string skip = m.env("SKIP_TESTS").value_or("");
  auto named = [&](const std::string& identifier) {
    profile::TestProfile p;
    p.identifier = identifier;
    return !identifier.empty() && run::IsSkipped(p, skip);
  };
  if (!skip.empty())
    std::erase_if(plan.items, [&](const PlanItem& item) { return named(item.original) || named(item.profile); });
  return plan;
}

Planning PlanSession(const SessionOptions& o, const Machine& m, const Profiles& profiles,
                     const results::ResultFile& file, std::ostream& out) {
  Planning p;
  p.prompter = TerminalPrompter(o.non_interactive);
  p.dependency_policy =
      o.yes ? install::DependencyPolicy::kYes : install::ParseDependencyPolicy(m.settings.Get("install.dependencies"));
  // --yes is in dependency_policy (kYes).
  p.packages = install::DecidePackagePolicy(p.dependency_policy, m.offline, false, p.prompter->Interactive());
  p.plan = MakePlan(m, profiles, p.packages, file);
  out << FormatPlan(file, p.plan);
  p.env_vars = ParsePresetEnvironment(file.generated.preset_environment_variables.value_or(""));
  for (const auto& v : p.env_vars) out << "Environment from the published result: " << v.name << "=" << v.value << "\n";
  if (auto monitor = MonitorAsPublished(o, m, file, p.env_vars, out)) p.env_vars.push_back(*monitor);
  if (o.targets.empty() && (o.no_targets || !o.resume_identifier.empty())) return p;
  auto sys = targets::MakeRealSystem();
  auto why_unavailable = [sys = sys.get()](const targets::TargetSpec& spec) {
    std::string why = targets::MountNamespaceProblem();
    return why.empty() ? targets::WhyUnavailable(*sys, spec) : why;
  };
  p.targets = o.targets.empty() ? OfferTargets(file, why_unavailable, *p.prompter, o.dry_run, out)
                                : PlanTargets(o.targets, file, *sys, out);
  if (p.targets.empty()) return p;
  p.target_sys = std::move(sys);
  p.target_origins = PublishedSystemsOf(ProposeTargets(file, why_unavailable), p.targets);
  p.target_size = SizeTargetsForPlan(o, m, profiles, file, p.plan, p.targets.size(), out);
  return p;
}

// Everything that must be asked, once, before anything runs (the targets were, by the plan): the packages (the
// plan is made again without them when declined), and leaving out what cannot run.
void AskConsent(const SessionOptions& o, const Machine& m, const Profiles& profiles, const results::ResultFile& file,
                Planning& p, std::ostream& out) {
  Prompter& prompter = *p.prompter;
  std::vector<std::string> needed = PackagesOf(p.plan.items);
  if (!needed.empty() && p.dependency_policy == install::DependencyPolicy::kAsk &&
      !AskYes(prompter, "Install the Debian packages " + Join(needed, " ") + " (apt-get) so the tests above can run? [Y/n] ")) {
    p.packages = {false, false, "declined"};
    p.plan = MakePlan(m, profiles, p.packages, file);
    out << "Without installing packages:\n" << FormatPlan(file, p.plan);
  }
  RequireConsentToSkip(file, p.plan, o.skip_unavailable, prompter);
}

// What installing the items left ready to run, and what it left out.
struct Installed {
  std::vector<run::PlannedTest> tests;
  bool disk_test = false;
  size_t not_installed = 0;
  std::vector<std::string> download_notes;  // files found in a fallback (for the system notes)
};

class ItemInstaller {
 public:
  ItemInstaller(Machine& m, const profile::ProfileRepository& repo, std::ostream& out) : m_(m), repo_(repo), out_(out) {}

  // The Debian packages the items need, installed first; a failure fails the items needing them.
  void InstallPackages(const std::vector<PlanItem>& todo) {
    auto to_install = PackagesOf(todo);
    if (to_install.empty()) return;
    out_ << "Installing Debian packages: " << Join(to_install, " ") << "\n" << std::flush;
    std::ostringstream apt_log;
    auto apt = install::InstallDebianPackages(to_install, apt_log);
    if (!apt.ok) apt_failure_ = apt.failure;
  }

  // Installs `item`'s profile and adds it to `done`; "" when it is ready to run, else why not.
  std::string Install(const PlanItem& item, Installed& done) {
    if (!item.packages.empty() && !apt_failure_.empty()) return item.profile + ": " + apt_failure_;
    try {
      profile::TestProfile p = repo_.LoadProfile(item.profile);
      auto report = [&](const std::string& id, bool already) {
        if (!already) out_ << id << ": installed\n";
      };
      for (auto& n : run::InstallWithParents(repo_, p, m_.install_ctx, m_.processes, installed_, report))
        done.download_notes.push_back(std::move(n));
      done.disk_test |= p.test_type == "Disk";
      done.tests.push_back(run::MakePlannedTest(p, {item.arguments, item.description}));
      return "";
    } catch (const Error& e) {
      return e.what();
    }
  }

 private:
  Machine& m_;
  const profile::ProfileRepository& repo_;
  std::ostream& out_;
  std::string apt_failure_;
  std::set<std::string> installed_;
};

// Installs what `todo` needs. An original that fails to install gives way to its stand-in (and
// `plan` says so); a test that does not install at all is left out, as PTS does (it stays
// without an entry for this system; a later run resumes it), and the others still run.
Installed InstallItems(const std::vector<PlanItem>& todo, ReproducePlan& plan, Machine& m,
                       const profile::ProfileRepository& repo, std::ostream& out) {
  Installed done;
  ItemInstaller installer(m, repo, out);
  installer.InstallPackages(todo);
  for (auto item : todo) {
    std::string failure = installer.Install(item, done);
    if (!failure.empty() && item.kind == PlanKind::kOriginal && !item.alternative.empty()) {
      item = UseAlternative(item, "installing the original failed: " + failure);
      out << "Original not installed (" << failure << "); using the stand-in " << item.stand_in_label << "\n";
      for (auto& planned : plan.items)
        if (planned.result_index == item.result_index) planned = item;
      failure = installer.Install(item, done);
    }
    if (!failure.empty()) {
      out << "Not run, installing failed: " << failure << "\n";
      ++done.not_installed;
    }
  }
  return done;
}

// The run loop's configuration: the first of our systems (noted as a reproduction unless it is
// being finished), saved beside the published file, under its title.
run::RunConfig MakeRunConfig(const SessionOptions& o, const Machine& m, const ResolvedResult& resolved,
                             const ReproducePlan& plan, const std::string& identifier, const Installed& installed) {
  std::string test_dir = run::TestDirectory(m.settings);
  run::RunConfig cfg =
      run::BaseRunConfig(m.settings, *m.reader, {identifier, test_dir, installed.disk_test, std::time(nullptr)}, m.env);
  if (o.resume_identifier.empty()) NoteReproduction(cfg.system, o.name, plan);
  run::NoteDownloadFallbacks(cfg.system.notes, installed.download_notes);
  cfg.result_dir = fs::path(resolved.path).parent_path().string();
  cfg.title = resolved.file.generated.title;
  cfg.description = resolved.file.generated.description;
  return cfg;
}

// Runs `tests` through the loop every run shares (run::RunLoop: its printing, its saving after
// every test, the targets made just before it and removed after it), folding the stand-ins'
// results under the published ones after every save.
run::SessionOutcome RunItems(const SessionOptions& o, Machine& m, Planning& p, run::RunConfig cfg,
                             const std::vector<run::PlannedTest>& tests, const std::vector<std::string>& identifiers,
                             std::ostream& out) {
  run::ObserverList observers;
  auto printer = run::MakePrinter(isatty(1) ? run::PrinterKind::kTty : run::PrinterKind::kPlain, out);
  StandInFolder folder(p.plan, identifiers);
  observers.Add(printer.get());
  observers.Add(&folder);
  run::TargetsToMake targets{p.targets, o.targets_sequential, std::move(p.target_sys),
                             [&](targets::TargetSystem& sys, const std::string& test_dir) {
                               targets::TargetOptions options;
                               options.test_dir = test_dir;
                               options.size = p.target_size;
                               options.device = targets::ConfirmedDevice(
                                   sys, o.device, [&](const std::string& q) -> std::optional<std::string> {
                                     if (!p.prompter->Interactive()) return std::nullopt;
                                     return p.prompter->Ask(q);
                                   });
                               return options;
                             }};
  run::SessionOutcome outcome =
      run::RunLoop(std::move(cfg), tests, std::move(targets), m.settings, *m.reader, m.processes, observers, out);
  if (outcome.summary.saved) folder.Fold(outcome.summary.composite_path);
  return outcome;
}

void Upload(const SessionOptions& o, const Settings& s, const std::string& server, const std::string& path,
            std::ostream& out) {
  std::string token = o.token.empty() ? s.Get("server.token") : o.token;
  wire::Upload up;
  up.xml = ReadFile(path);
  up.local_file_name = o.name;
  auto http = client::CurlTransport();
  auto outcome = client::UploadResult(*http, server, token, wire::EncodeForm(wire::EncodeUpload(up)));
  out << "Results Uploaded To: " << outcome.url << "\n" << outcome.id << "\n";
}

}  // namespace

int RunSession(const SessionOptions& o, std::ostream& out) {
  Machine m(o);
  const std::string upload_server = UploadServer(o, m.settings);
  ResolvedResult resolved = ResolvePublished(o, m, out);
  const results::ResultFile& file = resolved.file;
  Profiles profiles = FetchProfiles(o, m, file, out);
  Planning p = PlanSession(o, m, profiles, file, out);
  if (o.dry_run) return 0;
  AskConsent(o, m, profiles, file, p, out);

  Naming naming{o.resume_identifier, m.env("TEST_RESULTS_IDENTIFIER"), {}};
  if (o.resume_identifier.empty() && p.targets.empty()) naming.variables = run::LiveIdentifierVariables(*m.reader);
  const std::vector<std::string> identifiers = NameOurSystems(file, p.targets, naming, *p.prompter);
  ApplyPresetEnvironment(p.env_vars, m.settings);
  m.install_ctx.host_env = exec::CurrentEnvironment();  // install.sh sees the stored variables too

  Installed installed = InstallItems(ItemsToRun(file, p.plan, identifiers), p.plan, m, profiles.repo, out);
  if (installed.tests.empty()) out << "Nothing left to run for " << identifiers.front() << ".\n";
  run::RunConfig cfg = MakeRunConfig(o, m, resolved, p.plan, identifiers.front(), installed);
  run::SessionOutcome outcome = RunItems(o, m, p, std::move(cfg), installed.tests, identifiers, out);
  int code = outcome.ExitCode();
  if (installed.not_installed > 0 && code == 0) code = 1;

  std::vector<TargetOrigin> origins;
  for (size_t i = 0; i < p.target_origins.size() && i < identifiers.size(); ++i)
    origins.push_back({identifiers[i], p.target_origins[i]});
  PrintOutcome(results::ReadResultFile(resolved.path),
               {resolved.path, outcome.summary.saved, identifiers, outcome.places, o.width, origins,
                {m.settings.GetDouble("run.same_within"), 0.95}},
               out);
  if (o.upload && code == 0) Upload(o, m.settings, upload_server, resolved.path, out);
  return code;
}

}  // namespace ptsn::reproduce
