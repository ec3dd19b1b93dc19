#include "runner/run/test_runner.h"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "results-xml/comparison_hash.h"
#include "results-xml/result_store.h"
#include "results-xml/result_xml.h"
#include "results-xml/statistics.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/php_number.h"
#include "runner/common/strings.h"
#include "runner/profile/results_parser.h"
#include "runner/run/result_monitor.h"
#include "runner/sysinfo/phodevi_strings.h"
#include "runner/sysinfo/sysinfo.h"

namespace fs = std::filesystem;

namespace ptsn::run {
namespace {

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

std::string LocalTime(const char* format) {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

// A secondary result's primary as PTS hashed it for <Parent>: at parse time, before the run
// script's override files (pts-test-version, pts-test-description...) and the SubTitle fill.
results::Result WithPrimaryOf(results::Result base, const profile::ParsedResult& secondary) {
  base.description = secondary.primary_description;
  base.scale = secondary.primary_scale;
  return base;
}

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int RunSummary::ok() const {
  int n = 0;
  for (const auto& t : tests) n += t.ok || t.skipped;
  return n;
}
int RunSummary::failed() const {
  int n = 0;
  for (const auto& t : tests) n += !t.ok && !t.skipped;
  return n;
}

Settler SyncAndSleep() {
  return [](double seconds) {
    if (seconds <= 0) return;
    sync();
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  };
}

void AddResult(results::ResultFile& file, const results::Result& result) {
  std::string hash = results::ComparisonHash(result);
  for (auto& existing : file.results) {
    if (results::ComparisonHash(existing) != hash || existing.parent != result.parent) continue;
    for (const auto& entry : result.entries) {
      auto it = std::find_if(existing.entries.begin(), existing.entries.end(),
                             [&](const results::Entry& e) { return e.identifier == entry.identifier; });
      if (it != existing.entries.end()) *it = entry;
      else existing.entries.push_back(entry);
    }
    return;
  }
  file.results.push_back(result);
}

std::string AutoDescription(const std::string& hardware, const std::string& software) {
  std::string os = sysinfo::ComponentValue(software, "OS"), layer = sysinfo::ComponentValue(software, "System Layer");
  std::string cpu = sysinfo::ComponentModel(sysinfo::ComponentValue(hardware, "Processor"));
  std::string board = sysinfo::ComponentValue(hardware, "Motherboard");
  std::string gpu = sysinfo::ComponentModel(sysinfo::ComponentValue(hardware, "Graphics"));
  std::string on = os.empty() ? "" : " on " + os;
  // pts_test_run_manager::auto_generate_description(), whose subsystem switch always takes its
  // default branch; PTS ends with " via the Phoronix Test Suite." and we name ourselves there.
  std::string text;
  if (!layer.empty()) text = layer + " testing" + on;
  else if (!board.empty() && !gpu.empty()) text = cpu + " testing with a " + board + " and " + gpu + on;
  else if (!cpu.empty()) text = cpu + " testing" + on;
  else text = "Testing" + on;
  return text + " via pts-native (Phoronix Test Suite compatible).";
}

TestRunner::TestRunner(RunConfig config, exec::ProcessRunner& runner, RunObserver& observer, TestHook* hook,
                       Settler settle)
    : config_(std::move(config)), runner_(runner), observer_(observer), hook_(hook), settle_(std::move(settle)) {}

double TestRunner::TrialTimeout(const PlannedTest& t) const {
  if (config_.trial_timeout > 0) return config_.trial_timeout;
  if (t.profile.estimated_time_per_run > 0)
    return std::max(60.0, t.profile.estimated_time_per_run * config_.timeout_factor);
  return config_.default_timeout;
}

bool TestRunner::AlreadyDone(const results::ResultFile& file, const PlannedTest& t) const {
  for (const auto& r : file.results) {
    if (r.identifier != t.profile.identifier || r.parent) continue;
    if (!StartsWith(r.arguments, t.option.arguments)) continue;
    for (const auto& e : r.entries)
      if (e.identifier == config_.system.identifier && !e.value.empty()) return true;
  }
  return false;
}

bool TestRunner::RunHook(const PlannedTest& t, const std::string& kind, const exec::Environment& env,
                         const std::string& install_dir, std::string* failure) {
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
  for (const auto& script : scripts) {
    exec::ProcessSpec spec;
    std::error_code ec;
    std::string shell = fs::exists("/bin/bash", ec) ? "/bin/bash" : "/bin/sh";
    // The argument string is word-split like PTS's unquoted command line.
    spec.argv = {"/bin/sh", "-c", shell + " '" + script + "' " + t.pts_arguments};
    spec.env = env;
    spec.working_directory = install_dir;
    spec.output_path = install_dir + "/" + kind + ".log";
    spec.timeout_seconds = TrialTimeout(t);
    auto out = runner_.Run(spec);
    if (out.status != exec::ProcessStatus::kExited) {
      *failure = kind + ".sh " + out.Describe();
      return false;
    }
    auto status = exec::TakeExitStatusFile(install_dir + "/" + kind + "-test-exit-status");
    if (status && *status != 0) {
      *failure = "The " + kind + " run script quit with a non-zero exit status (" + std::to_string(*status) + ")";
      std::string tail = exec::LastLines(spec.output_path, 1);
      if (!tail.empty()) *failure += ": " + tail;
      return false;
    }
  }
  return true;
}

TestRunner::Produced TestRunner::RunOne(const PlannedTest& t, const TestHeader& header) {
  Produced produced;
  const auto& p = t.profile;
  std::string install_dir = config_.install_root + "/" + p.identifier;
  std::error_code ec;
  if (!fs::is_directory(install_dir, ec)) {
    produced.failure = p.identifier + " is not installed (" + install_dir + " missing; run pts-native install " +
                       p.identifier + ")";
    return produced;
  }
  std::vector<exec::ExtendedInstall> extends;
  for (auto it = p.extends_chain.rbegin(); it != p.extends_chain.rend(); ++it) {
    std::string dir = config_.install_root + "/" + *it;
    std::string base = it->substr(it->rfind('/') + 1);
    base = profile::SplitNameVersion(base).first;
    extends.push_back({base, fs::is_directory(dir, ec) ? dir : ""});
  }
  exec::Environment env = exec::PtsEnvironment(config_.host_env, config_.facts, install_dir, extends);

  results::Result base;
  base.identifier = p.identifier;
  base.title = p.title;
  base.app_version = p.app_version;
  base.arguments = t.option.arguments;
  base.description = t.option.description;
  base.scale = p.result_scale;
  base.proportion = p.proportion;
  if (!p.display_format.empty()) base.display_format = p.display_format;
  if (hook_) hook_->BeforeTest(base);

  std::vector<std::string> failures;
  auto finish_hook = [&] {
    if (hook_) hook_->AfterTest(base);
  };

  std::string failure;
  if (!RunHook(t, "pre", env, install_dir, &failure)) {
    produced.failure = failure;
    finish_hook();
    return produced;
  }

  profile::ParseSession session(p.results, profile::ParseContextFor(p, t.option.arguments, t.option.description));
  // <SystemMonitor> results (sys.time...): the sensor's value is the trial's result.
  monitor::SensorEnv sensor_env{monitor::SysRoot("/"), monitor::MonitorMode::kPts, install_dir, ""};
  ResultMonitor result_monitor(p.results.system_monitors, sensor_env, config_.minimal_test_time);
  std::string executable = p.executable.empty() ? p.BaseName() : p.executable;
  int scheduled = ScheduledRuns(p.times_to_run, p.estimated_time_per_run, p.display_format, config_.overrides);
  // PTS drops the profile's IgnoreRuns only when more than one run is scheduled; the IGNORE_RUNS
  // variable applies whatever the count (pts_test_execution::run_test()).
  std::set<int> profile_ignore(p.ignore_runs.begin(), p.ignore_runs.end());
  auto ignored = [&](int run) {
    return (scheduled > 1 && profile_ignore.count(run)) || config_.overrides.ignore_runs.count(run);
  };
  std::string log_base = install_dir + "/" + p.identifier.substr(p.identifier.rfind('/') + 1) + "-" +
                         std::to_string(std::time(nullptr));
  std::string trial_output = install_dir + "/.ptsn-trial-output";
  double timeout = TrialTimeout(t);

  // One trial: run the script, read test-exit-status, parse LOG_FILE. Returns the failure text
  // ("" = ok); `value` gets the parsed trial value(s) for display, `trial_values` the same with units.
  std::vector<TrialValue> trial_values;
  auto run_trial = [&](const std::string& log_file, bool parse, int run_number, double* seconds,
                       std::string* value, bool* interrupted) -> std::string {
    fs::remove(log_file, ec);
    fs::remove(install_dir + "/test-exit-status", ec);
    trial_values.clear();
    if (!fs::exists(install_dir + "/" + executable, ec))
      return "the run script " + install_dir + "/" + executable + " does not exist (install.sh did not create it)";
    fs::permissions(install_dir + "/" + executable, fs::perms::owner_exec, fs::perm_options::add, ec);
    exec::ProcessSpec spec;
    spec.argv = {"/bin/sh", "-c",
                 (config_.exec_prepend.empty() ? "" : config_.exec_prepend + " ") + "exec ./" + executable + " " +
                     t.pts_arguments + " 2>&1"};
    spec.env = env;
    spec.env["LOG_FILE"] = log_file;
    spec.working_directory = install_dir;
    spec.output_path = trial_output;
    spec.timeout_seconds = timeout;
    if (result_monitor.active()) result_monitor.BeforeTrial();
    auto out = runner_.Run(spec);
    *seconds = out.elapsed_seconds;
    auto status = exec::TakeExitStatusFile(install_dir + "/test-exit-status");
    if (fs::exists(log_file, ec) && fs::file_size(log_file, ec) == 0) fs::remove(log_file, ec);
    auto log = ReadIfExists(log_file);
    produced.log += "#####\n" + p.identifier + " - Run " + std::to_string(run_number) + "\n" +
                    LocalTime("%Y-%m-%d %H:%M:%S") + "\n#####\n" + (log ? *log : "") + "\n";
    std::string tail = exec::LastLines(log ? log_file : trial_output, 3);
    if (tail.empty()) tail = exec::LastLines(trial_output, 3);
    fs::remove(log_file, ec);
    std::string why;
    switch (out.status) {
      case exec::ProcessStatus::kInterrupted:
        *interrupted = true;
        why = out.Describe();
        break;
      case exec::ProcessStatus::kTimedOut:
      case exec::ProcessStatus::kSpawnFailed:
        why = out.Describe();
        break;
      case exec::ProcessStatus::kSignaled:
        why = "crashed: " + out.Describe();
        break;
      case exec::ProcessStatus::kExited:
        if (status && *status != 0) why = "The test quit with a non-zero exit status (" + std::to_string(*status) + ")";
        break;
    }
    std::vector<std::string> monitor_values, monitor_why;
    if (result_monitor.active()) monitor_values = result_monitor.AfterTrial(why.empty() && parse, &monitor_why);
    if (why.empty() && parse && !monitor_values.empty()) {
      // PTS does not parse the log of a trial whose monitor produced a value.
      for (const auto& v : monitor_values) {
        session.AddMonitorValue(v);
        trial_values.push_back({v, p.result_scale, t.option.description});
      }
      *value = Join(monitor_values, ", ");
    } else if (why.empty() && parse) {
      std::vector<std::string> trace;
      if (!session.ParseLog(log, &trace)) {
        why = log ? "The test run did not produce a result" : "The test run did not write $LOG_FILE";
        if (!monitor_why.empty()) why = "The test run did not produce a result (" + Join(monitor_why, "; ") + ")";
        else if (log && !trace.empty()) why += " (" + trace.back() + ")";
      }
      else {
        std::vector<std::string> values;
        for (const auto& r : session.Results())
          if (!r.trial_values.empty()) {
            values.push_back(r.trial_values.back());
            trial_values.push_back({r.trial_values.back(), r.scale, r.description});
          }
        *value = Join(values, ", ");
      }
    }
    if (!why.empty() && !tail.empty()) why += ": " + Join(Split(tail, '\n'), " | ");
    return why;
  };

  bool interrupted = false;
  for (int w = 1; w <= config_.warmup_runs && !interrupted; ++w) {
    double seconds = 0;
    std::string value;
    std::string why = run_trial(log_base + "-warmup-" + std::to_string(w) + ".log", false, 0, &seconds, &value,
                                &interrupted);
    produced.log.clear();  // warm-ups are not part of the result's logs
    observer_.TrialFinished(header, {w, config_.warmup_runs, true, why.empty(), "", why, seconds});
    settle_(config_.settle_seconds);
  }

  // After the warm-ups, which clear the log: why a defined <SystemMonitor> does not apply.
  for (const auto& note : result_monitor.setup_notes()) produced.log += "pts-native: " + note + "\n";
  RunState state;
  state.scheduled = scheduled;
  state.value_precision = 0;
  int target = scheduled, runs_added = 0;
  std::vector<std::string> added_reasons;
  std::string stopped_by;
  std::vector<double> run_times;
  double start = Now();
  for (int i = 1; i <= target && i <= 256 && !interrupted; ++i) {
    if (exec::InterruptRequested()) {  // Ctrl-C between trials
      interrupted = true;
      break;
    }
    double seconds = 0;
    std::string value;
    bool parse = !ignored(i);
    size_t before = session.Results().empty() ? 0 : session.Results().front().trial_values.size();
    std::string why = run_trial(log_base + "-" + std::to_string(i) + ".log", parse, i, &seconds, &value, &interrupted);
    run_times.push_back(seconds);
    state.runs_done = i;
    state.run_seconds.push_back(seconds);
    state.elapsed_seconds = Now() - start;
    if (i > scheduled) state.extra_seconds += seconds;
    if (!why.empty()) failures.push_back("run " + std::to_string(i) + ": " + why);
    auto results_now = session.Results();
    if (!results_now.empty() && results_now.front().trial_values.size() > before) {
      const std::string& v = results_now.front().trial_values.back();
      state.values.push_back(results::PhpToNumber(v));
      state.value_precision = std::max(state.value_precision, results::PtsPrecision(v));
    }
    observer_.TrialFinished(header, {i, target, false, why.empty(), value, why, seconds, trial_values});
    if (interrupted) break;
    if (i == target) {
      auto d = DecideExtraRuns(state, config_.limits, config_.overrides);
      if (d.noisy) state.sd_history.push_back(d.sd_percent);
      if (d.reason.find("failed run") != std::string::npos) state.failures_retried = true;
      if (d.add > 0) {
        target += d.add;
        runs_added += d.add;
        added_reasons.push_back(d.reason);
        observer_.RunsAdded(header, d.add, d.reason);
      }
      if (!d.stopped_by.empty()) stopped_by = d.stopped_by;
    }
    if (i < target) {
      std::string interim_failure;
      if (!RunHook(t, "interim", env, install_dir, &interim_failure)) failures.push_back(interim_failure);
      settle_(config_.settle_seconds);
    }
  }
  fs::remove(trial_output, ec);

  bool post_ok = RunHook(t, "post", env, install_dir, &failure);
  if (!post_ok) failures.push_back(failure);

  // Files the scripts may leave to change the result.
  auto scale = TakeOverrideFile(install_dir + "/pts-results-scale");
  auto proportion = TakeOverrideFile(install_dir + "/pts-results-proportion");
  auto version = TakeOverrideFile(install_dir + "/pts-test-version");
  auto description = TakeOverrideFile(install_dir + "/pts-test-description");

  std::string times;
  // pts_math::set_precision($seconds, 2): number_format, so always two decimals ("8.00", "0.01").
  for (double s : run_times) times += (times.empty() ? "" : ":") + PhpNumberFormat(s, 2);
  auto entry_json = [&](const profile::FinalValue* fv, const std::string& error) {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    if (!times.empty()) j["test-run-times"] = times;
    if (fv && fv->min) j["min-result"] = *fv->min;
    if (fv && fv->max) j["max-result"] = *fv->max;
    if (!error.empty()) j["error"] = error;
    // Ours (PTS records neither): how many dynamic runs were added and why, and what bounded them.
    if (runs_added > 0) {
      j["runs-added"] = runs_added;
      j["runs-added-reason"] = Join(added_reasons, "; ");
    }
    if (!stopped_by.empty()) j["runs-stopped-by"] = stopped_by;
    return sysinfo::PhpEscapeSlashes(j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
  };

  std::string error_text = Join(failures, "; ");
  if (interrupted) produced.failure = "interrupted";
  auto parsed = session.Results();
  for (const auto& r : parsed) {
    if (interrupted) break;
    results::Result result = base;
    result.arguments = r.arguments;
    result.description = description ? *description : r.description;
    result.scale = scale ? *scale : r.scale;
    result.proportion = proportion ? *proportion : r.proportion;
    if (version) result.app_version = *version;
    if (!r.display_format.empty()) result.display_format = r.display_format;
    if (r.is_secondary) result.parent = results::ComparisonHash(WithPrimaryOf(base, r));
    auto fv = profile::FinalizeResult(r, p.result_quantifier);
    if (post_ok && fv.saved) {
      results::Entry e = results::MakeEntry(config_.system.identifier, fv.value, r.trial_values);
      e.json = entry_json(&fv, "");
      result.entries.push_back(e);
    } else {
      std::string why = !post_ok ? failure : fv.reason;
      result.entries.push_back({config_.system.identifier, "", std::string(), entry_json(nullptr, why)});
      if (produced.failure.empty()) produced.failure = why;
    }
    produced.results.push_back(result);
  }
  if (parsed.empty() && !interrupted) {
    // No trial produced a value: PTS still records the test, with an empty value and the errors.
    results::Result result = base;
    if (result.description.empty()) result.description = p.subtitle;
    std::string why = error_text.empty() ? "The test run did not produce a result" : error_text;
    result.entries.push_back({config_.system.identifier, "", std::string(), entry_json(nullptr, why)});
    produced.results.push_back(result);
    produced.failure = why;
  }
  finish_hook();
  return produced;
}

void TestRunner::Save(results::ResultFile& file, const Produced& produced) {
  for (const auto& r : produced.results) AddResult(file, r);
  if (hook_) {
    for (const auto& r : produced.results)
      for (const auto& problem : hook_->Record(file, r, config_.system.identifier)) observer_.Message(problem);
  }
  MakeDirectories(config_.result_dir);
  // PTS keeps the build-relevant variables of each system beside the results (SaveSystemLogs).
  std::string env_log =
      system_logs_saved_ ? std::string() : sysinfo::EnvironmentVariablesLog({config_.host_env.begin(), config_.host_env.end()});
  system_logs_saved_ = true;
  if (!env_log.empty()) {
    std::string dir = config_.result_dir + "/system-logs/" + results::SimplifyForFileHandling(config_.system.identifier);
    MakeDirectories(dir);
    WriteFileAtomically(dir + "/environment-variables", env_log);
  }
  // Logs first: a composite.xml that names a test always has its log next to it.
  if (!produced.log.empty()) {
    for (const auto& r : produced.results) {
      if (r.identifier.empty()) continue;  // derived (monitor) results have no log
      std::string dir = config_.result_dir + "/test-logs/" + results::ComparisonHash(r);
      MakeDirectories(dir);
      WriteFileAtomically(dir + "/" + results::SimplifyForFileHandling(config_.system.identifier) + ".log", produced.log);
    }
  }
  results::WriteResultFile(config_.result_dir + "/composite.xml", file);
}

RunSummary TestRunner::Run(const std::vector<PlannedTest>& plan) {
  RunSummary summary;
  summary.composite_path = config_.result_dir + "/composite.xml";
  results::ResultFile file;
  std::error_code ec;
  if (fs::exists(summary.composite_path, ec)) {
    file = results::ReadResultFile(summary.composite_path);
  } else {
    file.generated.title = config_.title;
    file.generated.description = config_.description;
  }
  auto sys = std::find_if(file.systems.begin(), file.systems.end(),
                          [&](const results::System& s) { return s.identifier == config_.system.identifier; });
  if (sys == file.systems.end()) {
    results::System s = config_.system;
    if (s.timestamp.empty()) s.timestamp = results::CurrentTimestamp();
    if (!s.notes) s.notes = "";
    file.systems.push_back(s);
  }

  std::vector<double> estimates;
  for (const auto& t : plan)
    estimates.push_back(t.profile.estimated_time_per_run *
                        ScheduledRuns(t.profile.times_to_run, t.profile.estimated_time_per_run,
                                      t.profile.display_format, config_.overrides));
  observer_.RunStarted(config_.title, config_.system.identifier, estimates);
  for (size_t i = 0; i < plan.size(); ++i) {
    const auto& t = plan[i];
    TestHeader header{static_cast<int>(i + 1), static_cast<int>(plan.size()), t.profile.identifier, t.profile.title,
                      t.option.description,
                      ScheduledRuns(t.profile.times_to_run, t.profile.estimated_time_per_run,
                                    t.profile.display_format, config_.overrides),
                      estimates[i]};
    TestOutcome outcome{t.profile.identifier, t.option.description};
    if (exec::InterruptRequested()) {
      summary.interrupted = true;
      break;
    }
    observer_.TestStarted(header);
    if (AlreadyDone(file, t)) {
      outcome.skipped = true;
      outcome.failure = "already in " + summary.composite_path + " for " + config_.system.identifier;
      observer_.TestFinished(header, {"", "", 0, 0, outcome.failure, true});
      summary.tests.push_back(outcome);
      continue;
    }
    Produced produced = RunOne(t, header);
    if (produced.failure == "interrupted" || exec::InterruptRequested()) {
      // The unfinished test is not saved; everything before it already is.
      summary.interrupted = true;
      outcome.failure = "interrupted";
      summary.tests.push_back(outcome);
      observer_.TestFinished(header, {"", "", 0, 0, "interrupted", false});
      break;
    }
    outcome.ok = produced.failure.empty();
    outcome.failure = produced.failure;
    TestReport report;
    if (!produced.results.empty() && !produced.results.front().entries.empty()) {
      const auto& r = produced.results.front();
      report.value = r.entries.back().value;
      report.scale = r.scale;
      report.trials = static_cast<int>(results::EntryTrials(r.entries.back()).size());
      if (r.entries.back().json) {
        auto j = nlohmann::json::parse(*r.entries.back().json, nullptr, false);
        if (j.is_object() && j.contains("runs-added")) report.extra_runs = j["runs-added"].get<int>();
      }
    }
    report.failure = produced.failure;
    if (!produced.results.empty()) {
      Save(file, produced);
      observer_.Saved(summary.composite_path);
    }
    observer_.TestFinished(header, report);
    summary.tests.push_back(outcome);
    if (i + 1 < plan.size()) settle_(config_.settle_seconds);
  }
  if (hook_ && !file.results.empty()) {
    hook_->Finish(file, config_.system.identifier);
    results::WriteResultFile(summary.composite_path, file);
  }
  observer_.RunFinished(summary.ok(), summary.failed());
  return summary;
}

}  // namespace ptsn::run
