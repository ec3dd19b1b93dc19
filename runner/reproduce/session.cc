#include "runner/reproduce/session.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

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
#include "runner/install/installer.h"
#include "runner/profile/profile_repository.h"
#include "runner/reproduce/append.h"
#include "runner/reproduce/catalog.h"
#include "runner/reproduce/compare.h"
#include "runner/reproduce/consent.h"
#include "runner/reproduce/plan.h"
#include "runner/reproduce/resolve.h"
#include "runner/run/test_runner.h"
#include "runner/sysinfo/sysinfo.h"

namespace ptsn::reproduce {

namespace {

namespace fs = std::filesystem;

std::optional<std::string> Env(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  return v ? std::optional<std::string>(v) : std::nullopt;
}

std::string InstallDir(const Settings& s, const std::string& identifier) {
  return s.Get("install.directory") + "/" + identifier;
}

bool ProfileInstalled(const Settings& s, const profile::TestProfile& p) {
  return install::IsInstalled(InstallDir(s, p.identifier), p.identifier, install::InstallChecksum(p.ScriptPath("install")));
}

// What keeps a profile from running here that the plan should know before anything starts.
std::string RunnableProblem(const Settings& s, const profile::TestProfile& p) {
  auto deps = install::CheckDependencies(p.external_dependencies, p.system_dependencies, install::DpkgProbe(),
                                         install::CommandExists);
  if (!deps.missing_packages.empty())
    return "needs Debian packages " + Join(deps.missing_packages, " ") + " (" +
           install::AptGetCommand(deps.missing_packages, geteuid() == 0) + ")";
  if (!deps.missing_commands.empty()) return "needs " + Join(deps.missing_commands, ", ") + " (not found)";
  if (!p.downloads.empty() && !ProfileInstalled(s, p))
    return "not installed and needs " + std::to_string(p.downloads.size()) + " downloads (pts-native install " +
           p.identifier + ")";
  return "";
}

// Installs a profile that needs no downloads (install.sh only) when it is not installed yet.
// Profiles with downloads were reported by the plan unless already installed.
std::string EnsureInstalled(const Settings& s, const profile::TestProfile& p, const exec::Environment& host,
                            const exec::HostFacts& facts, exec::ProcessRunner& runner) {
  if (ProfileInstalled(s, p)) return "";
  std::string dir = InstallDir(s, p.identifier);
  install::InstallRequest req;
  req.identifier = p.identifier;
  req.install_script = p.ScriptPath("install");
  req.install_dir = dir;
  req.env = exec::PtsEnvironment(host, facts, dir, {});
  req.timeout_seconds = 600;
  auto outcome = install::RunInstallScript(req, runner);
  if (!outcome.ok) return p.identifier + ": install failed: " + outcome.failure + (outcome.last_lines.empty() ? "" : "\n" + outcome.last_lines);
  install::WriteInstallMarker(dir, p.identifier, install::InstallChecksum(req.install_script), outcome.seconds);
  return "";
}

results::System ThisSystem(const std::string& identifier, const std::string& test_dir, exec::HostFacts* facts) {
  auto reader = sysinfo::MakeRootedReader("/");
  results::System sys;
  sys.identifier = identifier;
  sys.hardware = sysinfo::JoinComponents(sysinfo::HardwareComponents(*reader));
  sys.software = sysinfo::JoinComponents(sysinfo::SoftwareComponents(*reader, test_dir));
  std::string json = sysinfo::SystemNotesJson(*reader, test_dir, true);
  if (!json.empty()) sys.json = json;
  const char* user = std::getenv("USER");
  sys.user = user ? user : "";
  sys.test_client_version = "pts-native";
  auto cpu = sysinfo::ReadCpu(*reader);
  auto os = sysinfo::ReadOsRelease(*reader);
  facts->logical_cores = std::max(1, cpu.logical);
  facts->physical_cores = std::max(1, cpu.physical);
  facts->memory_mb = sysinfo::MemoryMegabytes(*reader);
  facts->os_id = os.id;
  facts->os_version = os.version_id;
  facts->arch = sysinfo::Architecture(*reader);
  facts->real_home = Env("HOME").value_or("");
  facts->run_start_time = static_cast<long>(std::time(nullptr));
  return sys;
}

// After every save of the run loop: stand-in results go under the published ones.
class StandInFolder : public run::RunObserver {
 public:
  StandInFolder(const ReproducePlan& plan, std::string identifier) : plan_(plan), identifier_(std::move(identifier)) {}
  void Saved(const std::string& path) override { Fold(path); }
  void Fold(const std::string& path) {
    if (!fs::exists(path)) return;
    auto file = results::ReadResultFile(path);
    if (FoldStandIns(file, plan_, identifier_) > 0) results::WriteResultFile(path, file);
  }

 private:
  const ReproducePlan& plan_;
  std::string identifier_;
};

}  // namespace

int RunSession(const SessionOptions& o, std::ostream& out) {
  const Settings& s = GlobalSettings();
  ResolveOptions ro;
  ro.result_dirs = results::ResultDirectories(s);
  ro.save_dir = s.ResultsDirectory();
  ro.servers = o.servers.empty() ? std::vector<std::string>{s.Get("server.url")} : o.servers;
  ro.offline = s.GetBool("network.offline");
  auto resolved = ResolveResult(o.name, ro, [](const std::string& url, const std::string& id) {
    return client::CloneResult(url, id);
  });
  results::ResultFile& file = resolved.file;
  out << "Reproducing \"" << file.generated.title << "\" (" << o.name << ", " << file.systems.size() << " systems, "
      << file.results.size() << " results): " << resolved.origin << "\n";

  profile::ProfileRepository repo = profile::ProfileRepository::FromSettings(s);
  RepositoryCatalog catalog(
      repo, [&](const profile::TestProfile& p) { return RunnableProblem(s, p); },
      [&](const profile::TestProfile& p) { return ProfileInstalled(s, p); });
  ReproducePlan plan = BuildPlan(file, catalog, LoadStandIns(repo.roots()));
  out << FormatPlan(file, plan);
  auto env_vars = ParsePresetEnvironment(file.generated.preset_environment_variables.value_or(""));
  for (const auto& v : env_vars) out << "Environment from the published result: " << v.name << "=" << v.value << "\n";
  if (o.dry_run) return 0;

  auto prompter = TerminalPrompter(o.non_interactive);
  RequireConsentToSkip(file, plan, o.skip_unavailable, *prompter);
  std::string identifier = ChooseIdentifier(file, Env("TEST_RESULTS_IDENTIFIER"), *prompter);
  // PTS applies the stored variables with putenv(), over whatever the caller had.
  for (const auto& v : env_vars) setenv(v.name.c_str(), v.value.c_str(), 1);

  std::vector<PlanItem> todo = RemainingItems(file, plan, identifier);
  std::string test_dir = s.Get("run.test_dir");
  exec::HostFacts facts;
  run::RunConfig cfg;
  cfg.system = ThisSystem(identifier, test_dir, &facts);
  NoteReproduction(cfg.system, o.name, plan);
  cfg.result_dir = fs::path(resolved.path).parent_path().string();
  cfg.title = file.generated.title;
  cfg.description = file.generated.description;
  cfg.install_root = s.Get("install.directory");
  cfg.host_env = exec::CurrentEnvironment();
  cfg.facts = facts;
  cfg.overrides = run::ReadRunCountOverrides(Env);
  cfg.limits.enabled = s.GetBool("run.dynamic_run_count") && !cfg.overrides.force_times_to_run;
  cfg.limits.sd_threshold_percent = s.GetDouble("run.sd_threshold");
  cfg.limits.max_runs = static_cast<int>(s.GetInt("run.max_runs"));
  cfg.limits.time_budget_seconds = s.GetDouble("run.time_budget");
  cfg.settle_seconds = s.GetDouble("run.settle_seconds");
  cfg.trial_timeout = s.GetDouble("run.trial_timeout");
  cfg.timeout_factor = s.GetDouble("run.timeout_factor");
  cfg.exec_prepend = Env("TEST_EXEC_PREPEND").value_or("");

  exec::PosixProcessRunner processes;
  std::vector<run::PlannedTest> tests;
  for (const auto& item : todo) {
    profile::TestProfile p = repo.LoadProfile(item.profile);
    if (std::string err = EnsureInstalled(s, p, cfg.host_env, facts, processes); !err.empty()) throw Error(err);
    tests.push_back(run::MakePlannedTest(p, {item.arguments, item.description}));
  }
  if (tests.empty()) out << "Nothing left to run for " << identifier << ".\n";

  run::ObserverList observers;
  auto printer = run::MakePrinter(isatty(1) ? run::PrinterKind::kTty : run::PrinterKind::kPlain, out);
  StandInFolder folder(plan, identifier);
  observers.Add(printer.get());
  observers.Add(&folder);
  int code = 0;
  if (!tests.empty()) {
    run::TestRunner runner(cfg, processes, observers);
    run::RunSummary summary = runner.Run(tests);
    folder.Fold(summary.composite_path);
    if (summary.interrupted) code = 130;
    else if (summary.failed() > 0) code = 1;
  }

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
