// What every run sets up the same way before the run loop, whether the tests come from the
// command line (`run`, `batch-run`) or from a published result being reproduced (`run <ID>`):
// the test directory, this machine's facts and System description, the RunConfig from the
// settings and the PTS environment variables, the install context, installing a profile with
// its <Extends> parents, and the monitor session's hook into the loop. One place, so a setting
// or variable honoured by one is honoured by both.
#pragma once

#include <ctime>
#include <functional>
#include <set>
#include <map>
#include <string>

#include "runner/common/settings.h"
#include "runner/exec/process.h"
#include "runner/install/profile_install.h"
#include "runner/monitor/monitor_session.h"
#include "runner/profile/profile_repository.h"
#include "runner/run/run_loop.h"
#include "runner/sysinfo/system_reader.h"

namespace ptsn::run {

// The directory disk tests run in: run.test_dir, created when missing, canonical. Each test gets
// a private directory inside it (PTS_NATIVE_TEST_DIR in the profile's environment) and the
// System notes describe its file system. Throws Error when it cannot be made or written.
std::string TestDirectory(const Settings& s);

// NUM_CPU_CORES, SYS_MEMORY, OS_*... of this machine, THIS_RUN_TIME = `now`.
exec::HostFacts LiveFacts(const sysinfo::SystemReader& r, const EnvLookup& env, std::time_t now);

struct RunSetup {
  std::string identifier;        // System/Identifier of this run
  std::string test_dir;          // TestDirectory()
  bool disk_notes = false;       // a Disk test runs: note the disk's scheduler and mount options
  std::time_t now = 0;
};

// A RunConfig with everything but result_dir/title/description/warmup_runs filled: this system
// (Hardware, Software, notes, user), install root, environment, facts, FORCE_TIMES_TO_RUN & co.,
// the dynamic run-count limits, settle time, timeouts and TEST_EXEC_PREPEND.
RunConfig BaseRunConfig(const Settings& s, const sysinfo::SystemReader& reader, const RunSetup& setup,
                        const EnvLookup& env);

// The System of one storage target (runner/targets) in a run across targets: `base` (this
// machine) with the target's identifier, the Software string's File-System and the disk notes
// of the target's directory, and its set-up as the Notes text.
results::System TargetSystem(const results::System& base, const sysinfo::SystemReader& reader,
                             const std::string& identifier, const std::string& test_dir, const std::string& notes);

// Where moved downloads are looked up (install.fallbacks, install.download_servers or else
// server.url, install.debian_*), the download-cache directories among `caches`.
install::FallbackSources FallbackSourcesFrom(const Settings& s, const std::vector<install::CacheLocation>& caches);

// The install context `install` and `run` use: install root, our and PTS's download caches
// (PTS_DOWNLOAD_CACHE, NO_FILE_HASH_CHECKS), `fetcher` (the caller picks the offline one when
// offline), progress lines to stderr.
install::InstallContext MakeInstallContext(const Settings& s, install::Fetcher& fetcher, bool offline, bool force,
                                           const exec::HostFacts& facts, const EnvLookup& env);

// Installs `p`'s <Extends> parents, oldest first, then `p`, each at most once per `done`.
// `report(identifier, already_installed)` after each; throws ptsn::Error on the first failure.
// Returns the notes of files that came from a download fallback ("<identifier>: <note>").
std::vector<std::string> InstallWithParents(const profile::ProfileRepository& repo, const profile::TestProfile& p,
                                            const install::InstallContext& ctx, exec::ProcessRunner& runner,
                                            std::set<std::string>& done,
                                            const std::function<void(const std::string&, bool)>& report);

// Adds "Test downloads not at their URLs: <notes>" to a System's notes (nothing when empty).
void NoteDownloadFallbacks(std::optional<std::string>& system_notes, const std::vector<std::string>& notes);

// Adapts runner/monitor's session to the run loop's hook: sampling around each test, its
// monitor results after it, the MONITOR variables into the file at the end.
// On targets, each trial is sampled on its own and its samples go to its target's System: every
// target gets monitor results of its own trials.
class MonitorHook : public TestHook {
 public:
  explicit MonitorHook(monitor::MonitorSession& s) : session_(s) {}
  void BeforeTest(const results::Result&) override;
  void AfterTest(const results::Result&) override { session_.EndTest(); }
  void BeforeTrial(const results::Result& test, const std::string& id) override;
  void AfterTrial(const results::Result& test, const std::string& id) override;
  std::vector<std::string> Record(results::ResultFile& file, const results::Result& test,
                                  const std::string& id) override;
  void Finish(results::ResultFile& file, const std::string& id) override;

 private:
  monitor::MonitorSession& session_;
  std::string trials_of_;  // the comparison hash of the test whose trials `by_system_` holds
  std::map<std::string, std::vector<monitor::SensorSeries>> by_system_;  // that test's samples per System
};

}  // namespace ptsn::run
