#include "runner/run/trial_steps.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "results-xml/model/comparison_hash.h"
#include "results-xml/model/result_xml.h"
#include "results-xml/stats/statistics.h"
#include "results-xml/stats/verdict.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/path_below.h"
#include "runner/common/php_number.h"
#include "runner/common/strings.h"
#include "runner/sysinfo/sysinfo.h"

namespace fs = std::filesystem;

namespace ptsn::run {
namespace {

// The target's state set up before one of its scripts or trials: "" or why it could not be.
std::string EnterPlace(const TestEnvironment& env) {
  if (!env.enter_place) return "";
  try {
    env.enter_place();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::optional<std::string> ReadIfExists(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::nullopt;
  try {
    return ReadFile(path);
  } catch (const Error&) {
    return std::nullopt;
  }
}

// Files a run script may leave behind to change the result (pts_test_execution L595): read,
// deleted, ignored when they hold more than one line.
std::optional<std::string> TakeOverrideFile(const std::string& path) {
  auto text = ReadIfExists(path);
  if (!text) return std::nullopt;
  std::error_code ec;
  fs::remove(path, ec);
  std::string t = Trim(*text);
  if (t.empty() || t.find('\n') != std::string::npos) return std::nullopt;
  return t;
}

struct ScriptOverrides {
  std::optional<std::string> scale, proportion, version, description;
};

ScriptOverrides TakeScriptOverrides(const std::string& install_dir) {
  return {TakeOverrideFile(install_dir + "/pts-results-scale"),
          TakeOverrideFile(install_dir + "/pts-results-proportion"),
          TakeOverrideFile(install_dir + "/pts-test-version"),
          TakeOverrideFile(install_dir + "/pts-test-description")};
}

std::string LocalTime(const char* format) {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

// Why a trial's process gives no result, from how it ended and its test-exit-status.
std::string ProcessFailure(const exec::ProcessOutcome& out, std::optional<int> exit_status) {
  switch (out.status) {
    case exec::ProcessStatus::kInterrupted:
    case exec::ProcessStatus::kTimedOut:
    case exec::ProcessStatus::kSpawnFailed:
      return out.Describe();
    case exec::ProcessStatus::kSignaled:
      return "crashed: " + out.Describe();
    case exec::ProcessStatus::kExited:
      if (exit_status && *exit_status != 0)
        return "The test quit with a non-zero exit status (" + std::to_string(*exit_status) + ")";
      break;
  }
  return "";
}

// A secondary result's primary as PTS hashed it for <Parent>: at parse time, before the run
// script's override files (pts-test-version, pts-test-description...) and the SubTitle fill.
results::Result WithPrimaryOf(results::Result base, const profile::ParsedResult& secondary) {
  base.description = secondary.primary_description;
  base.scale = secondary.primary_scale;
  return base;
}

size_t FirstResultTrials(const profile::ParseSession& session) {
  auto results = session.Results();
  return results.empty() ? 0 : results.front().trial_values.size();
}

// Parses the trial's log into the session. Returns why it gave no value ("" = it did); `parsed`
// gets the last trial value of each result, as text and with its unit.
std::string ParseLog(profile::ParseSession& session, const TrialRun& run, ParsedTrial* parsed) {
  std::vector<std::string> trace;
  if (session.ParseLog(run.log, &trace)) {
    std::vector<std::string> values;
    for (const auto& r : session.Results())
      if (!r.trial_values.empty()) {
        values.push_back(r.trial_values.back());
        parsed->values.push_back({r.trial_values.back(), r.scale, r.description});
      }
    parsed->value = Join(values, ", ");
    return "";
  }
  if (!run.monitor_notes.empty())
    return "The test run did not produce a result (" + Join(run.monitor_notes, "; ") + ")";
  if (!run.log) return "The test run did not write $LOG_FILE";
  std::string why = "The test run did not produce a result";
  if (!trace.empty()) why += " (" + trace.back() + ")";
  return why;
}

// The entry's JSON: the trials' durations, min/max, the error, and (ours; PTS records neither)
// how many dynamic runs were added and why, what bounded them, and the looks its verdicts took.
std::string EntryJson(const TrialSeries& s, const profile::FinalValue* fv, const std::string& error) {
  std::string times;
  // pts_math::set_precision($seconds, 2): number_format, so always two decimals ("8.00", "0.01").
  for (double seconds : s.state.run_seconds) times += (times.empty() ? "" : ":") + PhpNumberFormat(seconds, 2);
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  if (!times.empty()) j["test-run-times"] = times;
  if (fv && fv->min) j["min-result"] = *fv->min;
  if (fv && fv->max) j["max-result"] = *fv->max;
  if (!error.empty()) j["error"] = error;
  if (s.runs_added > 0) {
    j["runs-added"] = s.runs_added;
    j["runs-added-reason"] = Join(s.added_reasons, "; ");
  }
  if (!s.stopped_by.empty()) j["runs-stopped-by"] = s.stopped_by;
  if (s.verdict_looks > 1) j["verdict-looks"] = s.verdict_looks;  // views judge at Pocock's level for them
  return sysinfo::PhpEscapeSlashes(j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
}

}  // namespace

results::Result TestResultBase(const PlannedTest& t) {
  const auto& p = t.profile;
  results::Result base;
  base.identifier = p.identifier;
  base.title = p.title;
  base.app_version = p.app_version;
  base.arguments = t.option.arguments;
  base.description = t.option.description;
  base.scale = p.result_scale;
  base.proportion = p.proportion;
  if (!p.display_format.empty()) base.display_format = p.display_format;
  return base;
}

bool NeedsMoreTrials(const TrialSeries& series) {
  int done = series.state.runs_done;
  return !series.interrupted && done < series.planned && done < kMaxTimesToRun;
}

double TestSteps::TrialTimeout(const PlannedTest& t) const {
  if (config_.trial_timeout > 0) return config_.trial_timeout;
  if (t.profile.estimated_time_per_run > 0)
    return std::max(60.0, t.profile.estimated_time_per_run * config_.timeout_factor);
  return config_.default_timeout;
}

TestEnvironment TestSteps::PrepareEnvironment(const PlannedTest& t) const {
  const auto& p = t.profile;
  TestEnvironment e;
  e.install_dir = config_.install_root + "/" + p.identifier;
  std::error_code ec;
  if (!fs::is_directory(e.install_dir, ec)) {
    e.failure = p.identifier + " is not installed (" + e.install_dir + " missing; run pts-native install " +
                p.identifier + ")";
    return e;
  }
  try {
    e.dirs = std::make_shared<TestDirs>(e.install_dir, config_.test_dir);
  } catch (const Error& error) {
    e.failure = error.what();
    return e;
  }
  e.home = e.dirs->home();
  e.scratch = e.dirs->scratch();
  std::vector<exec::ExtendedInstall> extends;
  for (auto it = p.extends_chain.rbegin(); it != p.extends_chain.rend(); ++it) {
    std::string dir = config_.install_root + "/" + *it;
    std::string base = profile::SplitNameVersion(it->substr(it->rfind('/') + 1)).first;
    extends.push_back({base, fs::is_directory(dir, ec) ? dir : ""});
  }
  e.env = exec::PtsEnvironment(config_.host_env, config_.facts, e.home, extends);
  e.env["PTS_NATIVE_TEST_DIR"] = e.scratch;
  e.trial_output = e.dirs->Path("trial-output");
  e.log_base = e.dirs->Path(p.identifier.substr(p.identifier.rfind('/') + 1));
  return e;
}

TestEnvironment TestSteps::OnPlace(const TestEnvironment& env, const TestPlace& place, size_t index) const {
  TestEnvironment e = env;
  e.scratch = place.test_dir;  // the private scratch (e.dirs owns it) stays unused in run.test_dir
  e.env["PTS_NATIVE_TEST_DIR"] = place.test_dir;
  e.log_base += "-target" + std::to_string(index + 1);
  e.enter_place = place.enter;
  return e;
}

TrialSeries TestSteps::StartSeries(const PlannedTest& t, const TestEnvironment& env) const {
  const auto& p = t.profile;
  TrialSeries s;
  s.system = config_.system.identifier;
  s.base = TestResultBase(t);
  s.session.emplace(p.results, profile::ParseContextFor(p, t.option.arguments, t.option.description));
  // The disk sensors (hdd.*-speed) watch the disk holding the directory the test writes in.
  monitor::SensorEnv sensor_env{monitor::SysRoot("/"), monitor::MonitorMode::kPts,
                                env.scratch.empty() ? env.install_dir : env.scratch, ""};
  s.monitor = std::make_unique<ResultMonitor>(p.results.system_monitors, sensor_env, config_.minimal_test_time);
  s.state.scheduled = ScheduledRuns(p.times_to_run, p.estimated_time_per_run, p.display_format, config_.overrides);
  s.state.value_precision = 0;
  s.planned = s.state.scheduled;
  // PTS drops the profile's IgnoreRuns only when more than one run is scheduled; the IGNORE_RUNS
  // variable applies whatever the count (pts_test_execution::run_test()).
  s.ignored_runs = config_.overrides.ignore_runs;
  if (s.state.scheduled > 1) s.ignored_runs.insert(p.ignore_runs.begin(), p.ignore_runs.end());
  // Why a defined <SystemMonitor> does not apply, at the head of the test's log.
  for (const auto& note : s.monitor->setup_notes()) s.log += "pts-native: " + note + "\n";
  return s;
}

std::string TestSteps::RunScript(const PlannedTest& t, const std::string& kind, const TestEnvironment& env) const {
  // This profile's script first, then each parent's (root ancestor first), as PTS does.
  std::vector<std::string> scripts;
  if (auto own = t.profile.ScriptPath(kind); !own.empty()) scripts.push_back(own);
  for (auto it = t.profile.extends_dirs.rbegin(); it != t.profile.extends_dirs.rend(); ++it)
    for (const std::string& name : {kind + "_linux.sh", kind + ".sh"}) {
      std::error_code ec;
      if (fs::exists(*it + "/" + name, ec)) {
        scripts.push_back(*it + "/" + name);
        break;
      }
    }
  if (!scripts.empty())
    if (std::string why = EnterPlace(env); !why.empty()) return kind + ".sh not run: " + why;
  for (const auto& script : scripts) {
    exec::ProcessSpec spec;
    std::error_code ec;
    std::string shell = fs::exists("/bin/bash", ec) ? "/bin/bash" : "/bin/sh";
    // The argument string is word-split like PTS's unquoted command line.
    spec.argv = {"/bin/sh", "-c", shell + " '" + script + "' " + t.pts_arguments};
    spec.env = env.env;
    spec.working_directory = env.home;
    spec.output_path = env.dirs->Path(kind + ".log");
    spec.timeout_seconds = TrialTimeout(t);
    env.dirs->LinkInstall();
    auto out = processes_.Run(spec);
    if (out.status != exec::ProcessStatus::kExited) return kind + ".sh " + out.Describe();
    auto status = exec::TakeExitStatusFile(env.dirs->Path(kind + "-test-exit-status"));
    if (status && *status != 0) {
      std::string failure =
          "The " + kind + " run script quit with a non-zero exit status (" + std::to_string(*status) + ")";
      std::string why = exec::ErrorLine(spec.output_path);
      return why.empty() ? failure : failure + ": " + why;
    }
  }
  return "";
}

std::string DropCaches(const std::string& file) {
  sync();  // dirty pages are written first: only clean ones can be dropped
  const int fd = open(file.c_str(), O_WRONLY | O_CLOEXEC);
  const int open_err = errno;
  if (fd < 0)
    return "run.drop_caches: cannot open " + file + ": " + std::strerror(open_err) +
           (geteuid() != 0 ? " (only root can drop caches; PTS_NATIVE_DROP_CACHES=false runs without)" : "");
  const bool ok = WriteAll(fd, "3");
  const int err = errno;
  close(fd);
  return ok ? "" : "run.drop_caches: cannot write 3 to " + file + ": " + std::strerror(err);
}

TrialRun TestSteps::RunTrial(const PlannedTest& t, const TestEnvironment& env, ResultMonitor& monitor, int number,
                             bool warmup) const {
  TrialRun run;
  if (std::string why = EnterPlace(env); !why.empty()) {
    run.failure = why;
    return run;
  }
  // Asked for and not done is a failed trial: its value would be the cache's, not the disk's.
  if (config_.drop_caches && t.profile.test_type == "Disk")
    if (std::string why = DropCaches(config_.drop_caches_file); !why.empty()) {
      run.failure = why;
      return run;
    }
  std::string log_file = env.log_base + (warmup ? "-warmup-" : "-") + std::to_string(number) + ".log";
  std::string executable = t.profile.executable.empty() ? t.profile.BaseName() : t.profile.executable;
  std::string script;
  try {
    script = JoinBelow(env.install_dir, executable, {"test-definition.xml Executable", "the install folder"});
  } catch (const Error& e) {
    run.failure = t.profile.identifier + ": " + e.what();
    return run;
  }
  std::error_code ec;
  fs::remove(log_file, ec);
  fs::remove(env.dirs->Path("test-exit-status"), ec);
  if (!fs::exists(script, ec)) {
    run.failure = "the run script " + script + " does not exist (install.sh did not create it)";
    return run;
  }
  fs::permissions(script, fs::perms::owner_exec, fs::perm_options::add, ec);
  try {
    env.dirs->LinkInstall();
  } catch (const Error& e) {
    run.failure = e.what();
    return run;
  }
  exec::ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c",
               (config_.exec_prepend.empty() ? "" : config_.exec_prepend + " ") + "exec ./" + executable + " " +
                   t.pts_arguments + " 2>&1"};
  spec.env = env.env;
  spec.env["LOG_FILE"] = log_file;
  spec.working_directory = env.home;
  spec.output_path = env.trial_output;
  spec.timeout_seconds = TrialTimeout(t);
  if (monitor.active()) monitor.BeforeTrial();
  auto out = processes_.Run(spec);
  // Stopped as the process ends: the monitors measure the trial, not our reading of its files.
  if (monitor.active()) run.monitor_values = monitor.AfterTrial(true, &run.monitor_notes);
  run.seconds = out.elapsed_seconds;
  run.interrupted = out.status == exec::ProcessStatus::kInterrupted;
  run.failure = ProcessFailure(out, exec::TakeExitStatusFile(env.dirs->Path("test-exit-status")));
  if (fs::exists(log_file, ec) && fs::file_size(log_file, ec) == 0) fs::remove(log_file, ec);
  run.log = ReadIfExists(log_file);
  if (!warmup)
    run.log_entry = "#####\n" + t.profile.identifier + " - Run " + std::to_string(number) + "\n" +
                    LocalTime("%Y-%m-%d %H:%M:%S") + "\n#####\n" + (run.log ? *run.log : "") + "\n";
  // The line that says why, should the trial turn out to have failed: from its log, else its output.
  run.error_line = exec::ErrorLine(run.log ? log_file : env.trial_output);
  if (run.error_line.empty()) run.error_line = exec::ErrorLine(env.trial_output);
  if (!run.failure.empty() || !run.log) run.full_disk = FullDiskNote({env.scratch, env.home, env.install_dir});
  fs::remove(log_file, ec);
  return run;
}

std::string FullDiskNote(const std::vector<std::string>& dirs) {
  constexpr uint64_t kFullBelow = 1 << 20;
  for (const std::string& dir : dirs) {
    if (dir.empty()) continue;
    try {
      const uint64_t free = FreeBytes(dir);
      if (free < kFullBelow) return "the disk is full: " + std::to_string(free) + " bytes free in " + dir;
    } catch (const Error&) {
      // gone or unreadable: nothing to tell
    }
  }
  return "";
}

ParsedTrial ParseTrial(TrialSeries& series, const TrialRun& run, bool parse) {
  ParsedTrial parsed;
  parsed.failure = run.failure;
  if (parsed.failure.empty() && parse) {
    size_t before = FirstResultTrials(*series.session);
    if (!run.monitor_values.empty()) {
      // PTS does not parse the log of a trial whose monitor produced a value.
      for (const auto& v : run.monitor_values) {
        series.session->AddMonitorValue(v);
        parsed.values.push_back({v, series.base.scale, series.base.description});
      }
      parsed.value = Join(run.monitor_values, ", ");
    } else {
      parsed.failure = ParseLog(*series.session, run, &parsed);
    }
    auto results = series.session->Results();
    if (!results.empty() && results.front().trial_values.size() > before)
      parsed.first_value = results.front().trial_values.back();
  }
  std::vector<std::string> why;
  for (const std::string* w : {&run.full_disk, &run.error_line})
    if (!w->empty()) why.push_back(*w);
  if (!parsed.failure.empty() && !why.empty()) parsed.failure += ": " + Join(why, "; ");
  return parsed;
}

void CountTrial(TrialSeries& series, const TrialRun& run, const ParsedTrial& parsed, double now) {
  RunState& state = series.state;
  state.runs_done++;
  state.run_seconds.push_back(run.seconds);
  state.elapsed_seconds = now - series.started;
  if (state.runs_done > state.scheduled) state.extra_seconds += run.seconds;
  if (parsed.first_value) {
    state.values.push_back(results::PhpToNumber(*parsed.first_value));
    state.value_precision = std::max(state.value_precision, results::PtsPrecision(*parsed.first_value));
  }
  if (!parsed.failure.empty())
    series.failures.push_back("run " + std::to_string(state.runs_done) + ": " + parsed.failure);
  series.log += run.log_entry;
  if (run.interrupted) series.interrupted = true;
}

ExtraRunDecision TestSteps::DecideMoreTrials(TrialSeries& series) const {
  ExtraRunDecision d = DecideExtraRuns(series.state, config_.limits, config_.overrides);
  if (d.noisy) series.state.sd_history.push_back(d.sd_percent);
  if (d.reason.find("failed run") != std::string::npos) series.state.failures_retried = true;
  if (d.add > 0) {
    series.planned += d.add;
    series.runs_added += d.add;
    series.added_reasons.push_back(d.reason);
  }
  if (!d.stopped_by.empty()) series.stopped_by = d.stopped_by;
  return d;
}

TestRecord TestSteps::RecordResult(const PlannedTest& t, const TestEnvironment& env, TrialSeries& series,
                                   const std::string& post_failure) const {
  TestRecord record;
  if (!post_failure.empty()) series.failures.push_back(post_failure);
  record.log = std::move(series.log);
  ScriptOverrides overrides = TakeScriptOverrides(env.home);  // taken even when nothing is kept
  if (series.interrupted) {
    record.failure = "interrupted";
    return record;
  }
  const std::string& system = series.system;
  for (const auto& r : series.session->Results()) {
    results::Result result = series.base;
    result.arguments = r.arguments;
    result.description = overrides.description ? *overrides.description : r.description;
    result.scale = overrides.scale ? *overrides.scale : r.scale;
    result.proportion = overrides.proportion ? *overrides.proportion : r.proportion;
    if (overrides.version) result.app_version = *overrides.version;
    if (!r.display_format.empty()) result.display_format = r.display_format;
    if (r.is_secondary) result.parent = results::ComparisonHash(WithPrimaryOf(series.base, r));
    auto fv = profile::FinalizeResult(r, t.profile.result_quantifier);
    if (post_failure.empty() && fv.saved) {
      results::Entry e = results::MakeEntry(system, fv.value, r.trial_values);
      e.json = EntryJson(series, &fv, "");
      result.entries.push_back(e);
      // Trials too spread to decide even "same within ±X %": said beside the result (the
      // Annotation PTS shows under its graph; merges keep each system's).
      if (auto res = results::TrialResolution(results::NumericTrials(e));
          res && res->resolvable_percent > config_.same_within) {
        const std::string note = system + ": " + results::ResolutionNote(*res, result.scale);
        result.annotation = result.annotation && !result.annotation->empty() ? *result.annotation + " \n" + note : note;
        record.notes.push_back(note);
      }
    } else {
      std::string why = !post_failure.empty() ? post_failure : fv.reason;
      result.entries.push_back({system, "", std::string(), EntryJson(series, nullptr, why)});
      if (record.failure.empty()) record.failure = why;
    }
    record.results.push_back(result);
  }
  if (record.results.empty()) {
    // No trial produced a value: PTS still records the test, with an empty value and the errors.
    results::Result result = series.base;
    if (result.description.empty()) result.description = t.profile.subtitle;
    std::string why = series.failures.empty() ? "The test run did not produce a result" : Join(series.failures, "; ");
    result.entries.push_back({system, "", std::string(), EntryJson(series, nullptr, why)});
    record.results.push_back(result);
    record.failure = why;
  }
  return record;
}

}  // namespace ptsn::run
