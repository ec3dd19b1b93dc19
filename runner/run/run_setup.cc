#include "runner/run/run_setup.h"

#include <pwd.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "results-xml/model/comparison_hash.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/install/downloads.h"
#include "runner/sysinfo/sysinfo.h"

namespace fs = std::filesystem;

namespace ptsn::run {

namespace {

std::string UserName(const EnvLookup& env) {
  if (auto u = env("USER"); u && !u->empty()) return *u;
  if (passwd* pw = getpwuid(getuid())) return pw->pw_name;
  return "user";
}

}  // namespace

std::string TestDirectory(const Settings& s) {
  std::string dir = s.Get("run.test_dir");
  if (Trim(dir).empty()) throw Error("run.test_dir is empty: set it (PTS_NATIVE_TEST_DIR) to the directory disk tests run in");
  try {
    MakeDirectories(dir);
  } catch (const Error& e) {
    throw Error("run.test_dir: " + std::string(e.what()));
  }
  std::error_code ec;
  std::string canonical = fs::canonical(dir, ec).string();
  if (ec) throw Error("run.test_dir " + dir + ": " + ec.message());
  if (access(canonical.c_str(), W_OK | X_OK) != 0) throw Error("run.test_dir " + canonical + ": not writable");
  return canonical;
}

exec::HostFacts LiveFacts(const sysinfo::SystemReader& r, const EnvLookup& env, std::time_t now) {
  exec::HostFacts f;
  auto cpu = sysinfo::ReadCpu(r);
  f.logical_cores = std::max(1, cpu.logical);
  f.physical_cores = std::max(1, cpu.physical);
  f.memory_mb = sysinfo::MemoryMegabytes(r);
  auto os = sysinfo::ReadOsRelease(r);
  f.os_id = os.id;
  f.os_version = os.version_id;
  f.arch = sysinfo::Architecture(r);
  f.real_home = env("HOME").value_or("");
  f.run_start_time = static_cast<long>(now);
  return f;
}

RunConfig BaseRunConfig(const Settings& s, const sysinfo::SystemReader& reader, const RunSetup& setup,
                        const EnvLookup& env) {
  RunConfig c;
  c.system.identifier = setup.identifier;
  c.system.hardware = sysinfo::JoinComponents(sysinfo::HardwareComponents(reader));
  c.system.software = sysinfo::JoinComponents(sysinfo::SoftwareComponents(reader, setup.test_dir));
  std::string notes = sysinfo::SystemNotesJson(reader, setup.test_dir, setup.disk_notes);
  if (!notes.empty()) c.system.json = notes;
  c.system.user = UserName(env);
  c.system.test_client_version = "10.8.6";
  c.install_root = s.Get("install.directory");
  c.test_dir = setup.test_dir;
  c.host_env = exec::CurrentEnvironment();
  c.facts = LiveFacts(reader, env, setup.now);
  c.overrides = ReadRunCountOverrides(env);
  c.limits = {s.GetBool("run.dynamic_run_count"), s.GetDouble("run.sd_threshold"),
              static_cast<int>(s.GetInt("run.max_runs")), s.GetDouble("run.time_budget")};
  c.settle_seconds = s.GetDouble("run.settle_seconds");
  c.drop_caches = s.GetBool("run.drop_caches");
  // The result says its disk trials started with cold caches (every target's notes begin with these).
  if (c.drop_caches) c.system.notes = "Caches dropped (sync; echo 3 > /proc/sys/vm/drop_caches) before every disk trial.";
  c.trial_timeout = s.GetDouble("run.trial_timeout");
  c.timeout_factor = s.GetDouble("run.timeout_factor");
  c.minimal_test_time = s.GetDouble("run.minimal_test_time");
  c.exec_prepend = env("TEST_EXEC_PREPEND").value_or("");
  return c;
}

results::System TargetSystem(const results::System& base, const sysinfo::SystemReader& reader,
                             const std::string& identifier, const std::string& test_dir, const std::string& notes) {
  results::System s = base;
  s.identifier = identifier;
  s.software = sysinfo::JoinComponents(sysinfo::SoftwareComponents(reader, test_dir));
  std::string json = sysinfo::SystemNotesJson(reader, test_dir, true);
  if (json.empty()) s.json.reset();
  else s.json = json;
  // This machine's notes (download fallbacks, a reproduction...) first, then the target's set-up.
  std::string own = base.notes.value_or("");
  s.notes = own.empty() ? notes : own + " " + notes;
  return s;
}

install::FallbackSources FallbackSourcesFrom(const Settings& s, const std::vector<install::CacheLocation>& caches) {
  auto words = [](std::string list) {
    for (char& c : list)
      if (c == ',' || c == '\t' || c == '\n') c = ' ';
    std::vector<std::string> out;
    for (const auto& w : Split(list, ' '))
      if (!Trim(w).empty()) out.push_back(Trim(w));
    return out;
  };
  install::FallbackSources f;
  f.order = s.Get("install.fallbacks");
  for (const auto& c : caches)
    if (!c.IsUrl()) f.cache_directories.push_back(c.location);
  f.servers = words(s.Get("install.download_servers"));
  if (f.servers.empty()) f.servers = words(s.Get("server.url"));
  f.debian.mirror = s.Get("install.debian_mirror");
  while (EndsWith(f.debian.mirror, "/")) f.debian.mirror.pop_back();
  f.debian.suites = words(s.Get("install.debian_suites"));
  f.debian.components = words(s.Get("install.debian_components"));
  f.debian.cache_dir = s.Home() + "/cache/debian-sources";
  f.debian.ttl_seconds = s.GetInt("install.debian_index_ttl");
  return f;
}

install::InstallContext MakeInstallContext(const Settings& s, install::Fetcher& fetcher, bool offline, bool force,
                                           const exec::HostFacts& facts, const EnvLookup& env) {
  install::InstallContext c;
  c.install_root = s.Get("install.directory");
  c.downloads.download_cache = s.Get("install.download_cache");
  c.downloads.caches = install::CacheLocationsFrom(c.downloads.download_cache, s.Get("results.pts_home"),
                                                   s.Get("install.extra_caches"),
                                                   env("PTS_DOWNLOAD_CACHE").value_or(""));
  c.downloads.skip_hashes = env("NO_FILE_HASH_CHECKS").has_value();
  c.downloads.fallbacks = install::MakeFallbacks(FallbackSourcesFrom(s, c.downloads.caches));
  c.fetcher = &fetcher;
  c.offline = offline;
  c.force = force;
  c.host_env = exec::CurrentEnvironment();
  c.facts = facts;
  c.progress = [](const std::string& line) { std::cerr << line << "\n"; };
  return c;
}

std::vector<std::string> InstallWithParents(const profile::ProfileRepository& repo, const profile::TestProfile& p,
                                            const install::InstallContext& ctx, exec::ProcessRunner& runner,
                                            std::set<std::string>& done,
                                            const std::function<void(const std::string&, bool)>& report) {
  std::vector<profile::TestProfile> chain;
  for (auto it = p.extends_chain.rbegin(); it != p.extends_chain.rend(); ++it) chain.push_back(repo.LoadProfile(*it));
  chain.push_back(p);
  std::vector<std::string> notes;
  for (const auto& each : chain) {
    if (!done.insert(each.identifier).second) continue;
    auto r = install::InstallProfile(each, ctx, runner);
    if (!r.ok) throw Error(r.failure);
    for (const auto& n : r.download_notes) notes.push_back(each.identifier + ": " + n);
    if (report) report(each.identifier, r.already_installed);
  }
  return notes;
}

void NoteDownloadFallbacks(std::optional<std::string>& system_notes, const std::vector<std::string>& notes) {
  if (notes.empty()) return;
  std::string note = "Test downloads not at their URLs: " + Join(notes, " ");
  std::string current = system_notes.value_or("");
  if (current.find(note) != std::string::npos) return;
  system_notes = current.empty() ? note : current + " " + note;
}

void MonitorHook::BeforeTest(const results::Result&) {
  trials_of_.clear();
  by_system_.clear();
  session_.BeginTest();
}

void MonitorHook::BeforeTrial(const results::Result& test, const std::string&) {
  if (std::string hash = results::ComparisonHash(test); hash != trials_of_) {
    trials_of_ = hash;
    by_system_.clear();
  }
  session_.BeginTest();
}

void MonitorHook::AfterTrial(const results::Result&, const std::string& id) {
  session_.EndTest();
  monitor::AppendSeries(by_system_[id], session_.last_series());
}

std::vector<std::string> MonitorHook::Record(results::ResultFile& file, const results::Result& test,
                                             const std::string& id) {
  auto trials = by_system_.find(id);
  if (trials != by_system_.end()) return session_.RecordTest(file, test, id, trials->second).problems;
  return session_.RecordTest(file, test, id).problems;
}

void MonitorHook::Finish(results::ResultFile& file, const std::string& id) {
  session_.FinishSession(file, id);
  session_.RecordEnvironment(file.generated);
}

}  // namespace ptsn::run
