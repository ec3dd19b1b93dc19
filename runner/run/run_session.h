// The run session of `run` and `batch-run` (and so of the fleet agent, which runs batch-run):
// from the names a user typed to a saved result. It resolves profiles and suites, plans them
// with PTS's variables (PRESET_OPTIONS, SKIP_TESTS), holds the install policy (which Debian
// packages may be installed, asked or not), names the result, sets up the storage targets, runs
// the loop and removes the targets, asking its user only through a Prompter. The commands parse
// arguments and print; everything between is here.
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "runner/common/pts_variables.h"
#include "runner/common/settings.h"
#include "runner/exec/process.h"
#include "runner/install/fetcher.h"
#include "runner/install/profile_install.h"
#include "runner/profile/profile_repository.h"
#include "runner/run/naming.h"
#include "runner/run/observer.h"
#include "runner/run/prompter.h"
#include "runner/run/run_loop.h"
#include "runner/run/run_plan.h"
#include "runner/sysinfo/system_reader.h"
#include "runner/targets/target_set.h"

namespace ptsn::run {

// A test to run: a profile and, for a suite's entries, the options the suite fixed.
struct RunItem {
  profile::TestProfile profile;
  std::optional<std::vector<profile::RunOption>> fixed_options;
};

// What the session works with; the caller owns each and keeps it for the session's life.
struct SessionTools {
  const Settings& settings;
  profile::ProfileRepository& repo;
  const sysinfo::SystemReader& reader;
  exec::ProcessRunner& processes;
  install::Fetcher& fetcher;
  bool offline = false;
  // Brings a pts/NAME profile that is not on disk (runner/client); empty: nothing is fetched.
  std::function<void(const std::string& name)> ensure_profile;
};

// Words the error for a name that is nothing here (`run` also takes result IDs and saved
// results, and says so); null: the profile commands' error.
using NotFoundMessage = std::function<std::string(const std::string& name, const std::vector<std::string>& roots)>;

// The storage targets a run makes just before its loop (after every install) and removes after it.
struct TargetsToMake {
  std::vector<targets::TargetSpec> specs;  // none: the tests run in the test directory
  bool sequential = false;                 // --target-order sequential
  std::unique_ptr<targets::TargetSystem> system;  // null: the real one
  // The targets' options once a device is confirmed (asking, or requiring --destroy-data-on).
  std::function<targets::TargetOptions(targets::TargetSystem&, const std::string& test_dir)> options;
  // The command's plan already said what the instances cost (encryption-cost): not said again.
  bool instances_cost_told = false;
};

// How a run was asked for, checked by the command before the session starts.
struct SessionRequest {
  bool batch = false;          // batch-run: every open option's entries, nothing asked
  bool force_install = false;  // --force-install
  bool yes = false;            // --yes: Debian packages installed without asking
  bool quiet = false;          // --json-events: only the observer writes to the output
  std::optional<int> warmup_runs;
  TargetsToMake targets;
};

// What a run left behind.
struct SessionOutcome {
  RunSummary summary;
  std::vector<TestPlace> places;  // every target the run made, those added while it ran included
  bool targets_released = true;
  std::string save_name;
  // 130 interrupted, 1 a test failed or a target was left, else 0.
  int ExitCode() const;
};

// The end every session shares (run, batch-run, run <ID>, finish-run): the monitor beside each
// test, the targets made, `plan` run by the loop under `config`, the targets removed, an
// exception or an interrupt included. Nothing runs, and no target is made, for an empty plan.
// `quiet`: the monitor's status lines are not printed to `out`.
SessionOutcome RunLoop(RunConfig config, const std::vector<PlannedTest>& plan, TargetsToMake targets,
                       const Settings& s, const sysinfo::SystemReader& reader, exec::ProcessRunner& processes,
                       RunObserver& observer, std::ostream& out, bool quiet = false);

class RunSession {
 public:
  // Progress lines go to `out`, notices (skipped tests, ignored presets) to `err`.
  RunSession(SessionTools tools, Prompter& prompter, std::ostream& out, std::ostream& err,
             PtsVariables pts = ReadPtsVariables());

  // Each name as a profile directory, a profile or a suite (its entries with the options its
  // BATCH, DEFAULTS or fixed arguments give); pts/NAME fetched first when missing.
  std::vector<RunItem> Resolve(const std::vector<std::string>& names, const NotFoundMessage& not_found = nullptr) const;

  // The tests to run: PRESET_OPTIONS checked against the items (a mistake is an Error), SKIP_TESTS
  // left out. Options the presets leave open: every entry in batch mode, else asked; a run that
  // cannot ask fails naming the option. `unanswered` (a dry run): such options are listed there
  // and planned at their default instead.
  std::vector<PlannedTest> Plan(const std::vector<RunItem>& items, bool batch,
                                std::vector<std::string>* unanswered = nullptr) const;

  // Dependencies first (nothing is downloaded for a test that cannot run), then parents, then
  // each profile. Missing Debian packages are installed when install.dependencies allows it
  // (--yes, or batch mode unless the setting says no, or asked), as root and online only.
  // Returns the notes of downloads that came from a fallback (for the System Notes).
  std::vector<std::string> Install(const std::vector<RunItem>& items, bool force, bool quiet_if_installed,
                                   bool yes = false, bool batch = false) const;

  // The whole run of `plan`: installed, named (PTS's variables, else asked, else made up), its
  // targets made, the loop run and the targets removed, an exception or an interrupt included.
  SessionOutcome Run(const std::vector<PlannedTest>& plan, SessionRequest request, RunObserver& observer) const;

  // The saved result as text, with the paired view when it ran on several targets ("" when
  // nothing was saved); with OUTPUT_DIR, also written there as PTS writes it.
  std::string SavedResultText(const SessionOutcome& outcome, int text_width) const;

  const PtsVariables& pts() const { return pts_; }

 private:
  install::InstallContext InstallContext(bool force) const;

  SessionTools tools_;
  Prompter& prompter_;
  std::ostream& out_;
  std::ostream& err_;
  PtsVariables pts_;
};

}  // namespace ptsn::run
