#include "runner/run/run_loop.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>
#include <thread>

#include "results-xml/model/comparison_hash.h"
#include "results-xml/model/result_xml.h"
#include "results-xml/model/upsert.h"
#include "results-xml/stats/statistics.h"
#include "results-xml/stats/verdict.h"
#include "results-xml/store/result_store.h"
#include "results-xml/store/result_update.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/path_below.h"
#include "runner/common/strings.h"
#include "runner/run/estimate.h"
#include "runner/run/round_count.h"
#include "runner/sysinfo/phodevi_strings.h"
#include "runner/sysinfo/sysinfo.h"

namespace fs = std::filesystem;

namespace ptsn::run {
namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The test's line for the observer: its first result's value, trials and added runs.
TestReport ReportOf(const TestRecord& record) {
  TestReport report;
  if (!record.results.empty() && !record.results.front().entries.empty()) {
    const auto& r = record.results.front();
    report.value = r.entries.back().value;
    report.scale = r.scale;
    report.trials = static_cast<int>(results::EntryTrials(r.entries.back()).size());
    if (r.entries.back().json) {
      auto j = nlohmann::json::parse(*r.entries.back().json, nullptr, false);
      if (j.is_object() && j.contains("runs-added")) report.extra_runs = j["runs-added"].get<int>();
    }
  }
  report.failure = record.failure;
  report.notes = record.notes;
  return report;
}

// Whether a test gave a value for this system (else it is only failures).
bool HasValue(const TestRecord& record) {
  for (const auto& r : record.results)
    for (const auto& e : r.entries)
      if (!e.value.empty()) return true;
  return false;
}

// This run's system, when the file does not have it yet.
void AddSystem(results::ResultFile& file, const results::System& system) {
  for (const auto& s : file.systems)
    if (s.identifier == system.identifier) return;
  results::System s = system;
  if (s.timestamp.empty()) s.timestamp = results::CurrentTimestamp();
  if (!s.notes) s.notes = "";
  file.systems.push_back(s);
}

// Adds `key: true` to the JSON of every entry of `record` (the entries are this system's only).
void MarkEntries(TestRecord& record, const std::string& key) {
  for (auto& r : record.results)
    for (auto& e : r.entries) {
      auto j = nlohmann::ordered_json::parse(e.json.value_or("{}"), nullptr, false);
      if (!j.is_object()) j = nlohmann::ordered_json::object();
      j[key] = true;
      e.json = sysinfo::PhpEscapeSlashes(j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
    }
}

// The mean trial time of a test that gave its result, for the next estimate of it (estimate.h):
// one line per run, or per target in a run across targets.
void RecordTrialTimes(const PlannedTest& t, const TestEnvironment& env, const TrialSeries& series,
                      const TestRecord& record) {
  const auto& times = series.state.run_seconds;
  if (record.failure.empty() && !times.empty())
    RecordRunTime(env.install_dir, RunTimeKey(t), std::accumulate(times.begin(), times.end(), 0.0) / times.size());
}

// A record's results into `file`, each into the Result with its comparison hash and Parent
// (replacing an older entry of the same system) or appended. The hooks that run after it change
// the file by their own index, so each record has its own.
void AddResults(results::ResultFile& file, const std::vector<results::Result>& record_results) {
  results::ResultIndex index(file);
  for (const auto& r : record_results) index.Upsert(r, results::Match::kHashAndParent);
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
    : config_(std::move(config)),
      steps_(config_, runner),
      observer_(observer),
      hook_(hook),
      settle_(std::move(settle)) {}

RunSummary TestRunner::Run(const std::vector<PlannedTest>& plan) {
  RunSummary summary;
  summary.composite_path = config_.result_dir + "/composite.xml";
  std::error_code ec;
  if (fs::exists(summary.composite_path, ec)) known_ = results::ReadResultFile(summary.composite_path);
  std::vector<int> scheduled;
  std::vector<double> estimates;
  for (const auto& t : plan) {
    const auto& p = t.profile;
    scheduled.push_back(ScheduledRuns(p.times_to_run, p.estimated_time_per_run, p.display_format, config_.overrides));
    TestEstimate e = EstimateTest(t, config_.install_root, config_.overrides, config_.settle_seconds);
    estimates.push_back(OnPlaces(e, config_.places.size(), p.test_type == "Disk", config_.settle_seconds).seconds);
  }
  std::vector<std::string> systems;
  for (const auto& place : config_.places) systems.push_back(place.system.identifier);
  observer_.RunStarted(config_.title, systems.empty() ? config_.system.identifier : Join(systems, ", "), estimates);
  for (size_t i = 0; i < plan.size(); ++i) {
    const auto& t = plan[i];
    if (exec::InterruptRequested()) {
      summary.interrupted = true;
      break;
    }
    TestHeader header{static_cast<int>(i + 1), static_cast<int>(plan.size()), t.profile.identifier, t.profile.title,
                      t.option.description, scheduled[i], estimates[i]};
    observer_.TestStarted(header);
    summary.tests.push_back(RunAndSave(t, header));
    if (summary.tests.back().interrupted) {
      summary.interrupted = true;
      break;
    }
    if (!summary.tests.back().skipped && i + 1 < plan.size()) settle_(config_.settle_seconds);
  }
  if (saved_ && hook_)
    known_ = results::UpdateResultFile(summary.composite_path, [&](results::ResultFile& file, bool) {
      hook_->Finish(file, MainSystem());
    });
  if (!saved_ && !unsaved_.empty())
    observer_.Message("Nothing was saved: no test produced a result (" + summary.composite_path +
                      (fs::exists(summary.composite_path, ec) ? " is unchanged)" : " was not written)"));
  summary.saved = saved_;
  observer_.RunFinished(summary.ok(), summary.failed());
  return summary;
}

// This run's systems: each target's, or the one of the run.
std::vector<results::System> TestRunner::Systems() const {
  std::vector<results::System> ours;
  for (const auto& place : config_.places) ours.push_back(place.system);
  if (ours.empty()) ours.push_back(config_.system);
  return ours;
}

std::string TestRunner::TargetOf(const TrialSeries& series) const {
  return config_.places.empty() ? "" : series.system;
}

const std::string& TestRunner::MainSystem() const {
  return config_.places.empty() ? config_.system.identifier : config_.places.front().system.identifier;
}

bool TestRunner::AlreadyDone(const PlannedTest& t, const std::string& system) const {
  for (const auto& r : known_.results) {
    if (r.identifier != t.profile.identifier || r.parent) continue;
    if (!StartsWith(r.arguments, t.option.arguments)) continue;
    for (const auto& e : r.entries)
      if (e.identifier == system && !e.value.empty()) return true;
  }
  return false;
}

TestOutcome TestRunner::RunAndSave(const PlannedTest& t, const TestHeader& header) {
  if (!config_.places.empty()) return RunAndSaveOnPlaces(t, header);
  TestOutcome outcome{t.profile.identifier, t.option.description};
  if (AlreadyDone(t, config_.system.identifier)) {
    outcome.skipped = true;
    outcome.failure = "already in " + config_.result_dir + "/composite.xml for " + config_.system.identifier;
    observer_.TestFinished(header, {"", "", 0, 0, outcome.failure, true});
    return outcome;
  }
  TestRecord record = RunOne(t, header);
  if (record.failure == "interrupted" || exec::InterruptRequested()) {
    // The unfinished test is not saved; everything before it already is.
    outcome.interrupted = true;
    outcome.failure = "interrupted";
    observer_.TestFinished(header, {"", "", 0, 0, "interrupted", false});
    return outcome;
  }
  outcome.ok = record.failure.empty();
  outcome.failure = record.failure;
  TestReport report = ReportOf(record);
  if (!record.results.empty()) {
    if (Hold({std::move(record), config_.system.identifier})) observer_.Saved(config_.result_dir + "/composite.xml");
  }
  observer_.TestFinished(header, report);
  return outcome;
}

TestOutcome TestRunner::RunAndSaveOnPlaces(const PlannedTest& t, const TestHeader& header) {
  TestOutcome outcome{t.profile.identifier, t.option.description};
  // A test that is not a disk test does not depend on the target: once, for the first.
  bool disk = t.profile.test_type == "Disk";
  std::vector<size_t> todo;  // indices into config_.places
  for (size_t i = 0; i < config_.places.size() && (disk || i == 0); ++i)
    if (!AlreadyDone(t, config_.places[i].system.identifier)) todo.push_back(i);
  if (todo.empty()) {
    outcome.skipped = true;
    outcome.failure = "already in " + config_.result_dir + "/composite.xml for every target";
    observer_.TestFinished(header, {"", "", 0, 0, outcome.failure, true});
    return outcome;
  }
  std::vector<TestRecord> records;
  if (!disk) {
    records.push_back(RunOne(t, header, nullptr, config_.places[todo.front()].system.identifier));
    MarkEntries(records.back(), "target-independent");
  } else if (config_.places_sequential) {
    for (size_t i : todo) {
      if (exec::InterruptRequested()) break;
      records.push_back(RunOne(t, header, &config_.places[i]));
    }
  } else {
    records = RunOnPlaces(t, header, todo);  // may add places (instances) to todo
    if (todo.size() > 1)
      for (auto& record : records) MarkEntries(record, "interleaved");
  }
  bool interrupted = exec::InterruptRequested() || records.size() < todo.size();
  for (const auto& record : records) interrupted |= record.failure == "interrupted";
  if (interrupted) {  // the unfinished test is not saved, on any target; everything before it is
    outcome.interrupted = true;
    outcome.failure = "interrupted";
    observer_.TestFinished(header, {"", "", 0, 0, "interrupted", false});
    return outcome;
  }
  outcome.ok = true;
  bool saved = false;
  std::vector<TestReport> reports;
  for (size_t k = 0; k < records.size(); ++k) {
    const std::string& system = config_.places[todo[k]].system.identifier;
    reports.push_back(ReportOf(records[k]));
    reports.back().target = system;
    if (!records[k].failure.empty()) {
      outcome.ok = false;
      if (outcome.failure.empty()) outcome.failure = system + ": " + records[k].failure;
    }
    if (!records[k].results.empty()) saved |= Hold({std::move(records[k]), system});
  }
  if (saved) observer_.Saved(config_.result_dir + "/composite.xml");
  for (const auto& report : reports) observer_.TestFinished(header, report);
  return outcome;
}

// One test, step by step (trial_steps.h). A storage target (issue 22) slots in after
// PrepareEnvironment: each target gets its own environment (its test directory) and series, and
// the targets' series are advanced a trial at a time in turn (NextTrial) instead of RunTrials.
TestRecord TestRunner::RunOne(const PlannedTest& t, const TestHeader& header, const TestPlace* place,
                              const std::string& system) {
  TestEnvironment env = steps_.PrepareEnvironment(t);
  if (!env.failure.empty()) return {{}, "", env.failure};
  if (place) env = steps_.OnPlace(env, *place, static_cast<size_t>(place - config_.places.data()));
  TrialSeries series = steps_.StartSeries(t, env);
  if (place) series.system = place->system.identifier;
  if (!system.empty()) series.system = system;
  if (hook_) hook_->BeforeTest(series.base);
  TestRecord record;
  if (std::string failure = steps_.RunScript(t, "pre", env); !failure.empty()) {
    record.failure = failure;
  } else {
    RunWarmups(t, env, series, header);
    RunTrials(t, env, series, header);
    std::string post_failure = steps_.RunScript(t, "post", env);
    record = steps_.RecordResult(t, env, series, post_failure);
    RecordTrialTimes(t, env, series, record);
  }
  if (hook_) hook_->AfterTest(series.base);
  return record;
}

void TestRunner::RunWarmups(const PlannedTest& t, const TestEnvironment& env, TrialSeries& series,
                            const TestHeader& header) {
  for (int w = 1; w <= config_.warmup_runs && !series.interrupted; ++w) {
    TrialRun run = steps_.RunTrial(t, env, *series.monitor, w, true);
    if (run.interrupted) series.interrupted = true;
    ParsedTrial parsed = ParseTrial(series, run, false);
    observer_.TrialFinished(header, {w, config_.warmup_runs, true, parsed.failure.empty(), "", parsed.failure,
                                     run.seconds, {}, TargetOf(series)});
    settle_(config_.settle_seconds);
  }
}

void TestRunner::RunTrials(const PlannedTest& t, const TestEnvironment& env, TrialSeries& series,
                           const TestHeader& header) {
  series.started = Now();
  while (NeedsMoreTrials(series)) {
    if (exec::InterruptRequested()) {  // Ctrl-C between trials
      series.interrupted = true;
      break;
    }
    NextTrial(t, env, series, header);
  }
  std::error_code ec;
  fs::remove(env.trial_output, ec);
}

// A trial, then at the last planned one the decision on more, then interim.sh and a settle when
// another follows.
void TestRunner::NextTrial(const PlannedTest& t, const TestEnvironment& env, TrialSeries& series,
                           const TestHeader& header) {
  int number = series.state.runs_done + 1;
  TrialRun run = steps_.RunTrial(t, env, *series.monitor, number, false);
  ParsedTrial parsed = ParseTrial(series, run, !series.ignored_runs.count(number));
  CountTrial(series, run, parsed, Now());
  observer_.TrialFinished(header, {number, series.planned, false, parsed.failure.empty(), parsed.value,
                                   parsed.failure, run.seconds, parsed.values, TargetOf(series)});
  if (series.interrupted) return;
  if (series.state.runs_done == series.planned) {
    ExtraRunDecision decision = steps_.DecideMoreTrials(series);
    if (decision.add > 0) observer_.RunsAdded(header, decision.add, decision.reason);
  }
  if (series.state.runs_done < series.planned) {
    if (std::string failure = steps_.RunScript(t, "interim", env); !failure.empty()) series.failures.push_back(failure);
    settle_(config_.settle_seconds);
  }
}

// One disk test on several targets, trials interleaved: every target's environment and series,
// pre.sh and warm-ups on each, the rounds (which may add instances), then post.sh and the result
// of each.
std::vector<TestRecord> TestRunner::RunOnPlaces(const PlannedTest& t, const TestHeader& header,
                                                std::vector<size_t>& places) {
  TestEnvironment prepared = steps_.PrepareEnvironment(t);
  if (!prepared.failure.empty()) return std::vector<TestRecord>(places.size(), TestRecord{{}, "", prepared.failure});
  std::vector<PlaceSeries> on;
  for (size_t place : places) on.push_back(StartOnPlace(t, prepared, place));
  for (auto& p : on) PrepareOnPlace(t, p, header);
  RunRounds(t, prepared, on, places, header);
  std::vector<TestRecord> records;
  for (auto& p : on) {
    if (!p.pre_failure.empty()) {
      records.push_back({{}, "", p.pre_failure});
      continue;
    }
    std::string post_failure = steps_.RunScript(t, "post", p.env);
    records.push_back(steps_.RecordResult(t, p.env, p.series, post_failure));
    RecordTrialTimes(t, p.env, p.series, records.back());
  }
  return records;
}

TestRunner::PlaceSeries TestRunner::StartOnPlace(const PlannedTest& t, const TestEnvironment& prepared, size_t place) {
  PlaceSeries p;
  p.env = steps_.OnPlace(prepared, config_.places[place], place);
  p.series = steps_.StartSeries(t, p.env);
  p.series.system = config_.places[place].system.identifier;
  return p;
}

void TestRunner::PrepareOnPlace(const PlannedTest& t, PlaceSeries& p, const TestHeader& header) {
  p.pre_failure = steps_.RunScript(t, "pre", p.env);
  if (!p.pre_failure.empty()) p.series.planned = 0;  // no trials on this target
  else RunWarmups(t, p.env, p.series, header);
}

// Round after round, one trial on every target that still has trials planned; at the last planned
// round, whether to add one more on all or, with instances, a new instance pair that then runs its
// scheduled rounds (round_count.h); interim.sh and a settle before the next.
void TestRunner::RunRounds(const PlannedTest& t, const TestEnvironment& prepared, std::vector<PlaceSeries>& on,
                           std::vector<size_t>& places, const TestHeader& header) {
  RoundState rounds;
  rounds.scheduled = on.front().series.state.scheduled;
  for (auto& p : on) {
    p.series.started = Now();
    rounds.names.push_back(p.series.system);
    rounds.values.emplace_back();
    rounds.instances = std::max(rounds.instances, results::ParseInstanceName(p.series.system).instance);
  }
  rounds.start_instances = rounds.instances;
  rounds.max_instances = config_.add_instance ? std::max(config_.max_instances, rounds.instances) : rounds.instances;
  DynamicRunLimits limits = config_.limits;
  limits.enabled = limits.enabled && !config_.overrides.force_times_to_run;
  // Views of the file judge the verdicts at the level of the looks this run allowed (VerdictLooks).
  const int looks = rounds.instances > 1 ? VerdictLooks(rounds, limits) : 0;
  auto record_looks = [&] {
    for (auto& p : on) p.series.verdict_looks = looks;
  };
  auto interrupt_all = [&] {
    record_looks();
    for (auto& p : on) p.series.interrupted = true;
  };
  std::mt19937 random(std::random_device{}());
  for (int round = 1;; ++round) {
    bool ran = false;
    // With instances, a random order in every round: no target always runs first or after the
    // same neighbour (Abedi & Brecht's randomized interleaving).
    std::vector<size_t> order(on.size());
    std::iota(order.begin(), order.end(), size_t{0});
    if (config_.shuffle_rounds) std::shuffle(order.begin(), order.end(), random);
    for (size_t k : order) {
      TrialSeries& series = on[k].series;
      if (!NeedsMoreTrials(series)) continue;
      if (exec::InterruptRequested()) return interrupt_all();  // Ctrl-C between trials
      ran = true;
      // A target's own trial number: an instance added later starts at 1.
      const int trial = static_cast<int>(rounds.values[k].size()) + 1;
      // The monitor samples each target's trials as that target's (its System's monitor results).
      if (hook_) hook_->BeforeTrial(series.base, series.system);
      TrialRun run = steps_.RunTrial(t, on[k].env, *series.monitor, trial, false);
      if (hook_) hook_->AfterTrial(series.base, series.system);
      ParsedTrial parsed = ParseTrial(series, run, !series.ignored_runs.count(trial));
      CountTrial(series, run, parsed, Now());
      rounds.values[k].push_back(parsed.first_value ? results::PhpToNumber(*parsed.first_value) : std::nan(""));
      if (trial > rounds.scheduled || rounds.instances > rounds.start_instances) rounds.extra_seconds += run.seconds;
      rounds.trials_seconds += run.seconds;
      ++rounds.trials;
      observer_.TrialFinished(header, {trial, series.planned, false, parsed.failure.empty(), parsed.value,
                                       parsed.failure, run.seconds, parsed.values, series.system});
      if (series.interrupted) return interrupt_all();
    }
    if (!ran) break;
    rounds.rounds_done = round;
    bool more = std::any_of(on.begin(), on.end(), [](const PlaceSeries& p) { return NeedsMoreTrials(p.series); });
    if (!more) {
      RoundDecision d = DecideMoreRounds(rounds, limits, config_.paired_ci_goal, config_.same_within);
      if (d.add_instance) {
        const double started = Now();
        const size_t before = on.size();
        if (std::string why = AddInstance(t, prepared, on, places, header); !why.empty()) {
          d.stopped_by = why;
        } else {
          for (size_t k = before; k < on.size(); ++k) {
            rounds.names.push_back(on[k].series.system);
            rounds.values.emplace_back();
          }
          observer_.InstanceAdded(header, ++rounds.instances, d.reason);
          rounds.last_setup_seconds = Now() - started;
        }
        rounds.extra_seconds += Now() - started;
      }
      for (auto& p : on) {
        if (p.series.planned == 0 || p.series.state.runs_done == 0) continue;  // pre.sh failed, or just added
        if (d.add) {
          p.series.planned++;
          p.series.runs_added++;
          p.series.added_reasons.push_back(d.reason);
        } else if (!d.stopped_by.empty()) {
          p.series.stopped_by = d.stopped_by;
        }
      }
      if (d.add) observer_.RunsAdded(header, 1, d.reason);
      more = std::any_of(on.begin(), on.end(), [](const PlaceSeries& p) { return NeedsMoreTrials(p.series); });
    }
    if (!more) break;
    for (auto& p : on) {
      if (!NeedsMoreTrials(p.series)) continue;
      if (std::string failure = steps_.RunScript(t, "interim", p.env); !failure.empty())
        p.series.failures.push_back(failure);
    }
    settle_(config_.settle_seconds);
  }
  record_looks();
  std::error_code ec;
  for (const auto& p : on) fs::remove(p.env.trial_output, ec);
}

std::string TestRunner::AddInstance(const PlannedTest& t, const TestEnvironment& prepared, std::vector<PlaceSeries>& on,
                                    std::vector<size_t>& places, const TestHeader& header) {
  std::vector<TestPlace> made;
  try {
    made = config_.add_instance();
  } catch (const Error& e) {
    observer_.Message(std::string("No more instances: ") + e.what());
    return "max_target_instances (" + std::string(e.what()) + ")";
  }
  for (auto& place : made) {
    config_.places.push_back(std::move(place));  // later tests run on it too
    places.push_back(config_.places.size() - 1);
    on.push_back(StartOnPlace(t, prepared, places.back()));
    on.back().series.started = Now();
    PrepareOnPlace(t, on.back(), header);
  }
  return "";
}

// A system is added only with a value: tests without one (failed) wait for the first test of this
// run that gives one; after that every test is saved as it finishes. True when saved now.
bool TestRunner::Hold(PendingRecord pending) {
  if (hook_ && !HasValue(pending.record)) {
    // A failed test gets no monitor results (they need its value), but the monitor counts its
    // samples now, while they are this test's; Save() hooks only tests with a value.
    results::ResultFile scratch;
    AddResults(scratch, pending.record.results);
    for (const auto& r : pending.record.results)
      for (const auto& problem : hook_->Record(scratch, r, pending.system)) observer_.Message(problem);
  }
  unsaved_.push_back(std::move(pending));
  if (!saved_ && !HasValue(unsaved_.back().record)) return false;
  Save(unsaved_);
  unsaved_.clear();
  return true;
}

void TestRunner::Save(const std::vector<PendingRecord>& records) {
  MakeDirectories(config_.result_dir);
  for (const auto& [record, system] : records) {
    // The system's logs are named after its identifier, which a fleet server may have chosen: an
    // identifier that names no file ("..") keeps its logs out, said once; the results are saved.
    const std::string log_name = results::SimplifyForFileHandling(system);
    if (std::string why = PathNameProblem(log_name); !why.empty()) {
      if (system_logs_saved_.insert(system).second)
        observer_.Message("logs not kept: " + PathRefusal(log_name, why, {"the system identifier", "the result's log folders"}));
      continue;
    }
    // PTS keeps the build-relevant variables of each system beside the results (SaveSystemLogs).
    if (system_logs_saved_.insert(system).second) {
      std::string dir = JoinBelow(config_.result_dir + "/system-logs", log_name, {"the system identifier", "system-logs"});
      MakeDirectories(dir);
      WriteFileAtomically(dir + "/environment-variables",
                          sysinfo::EnvironmentVariablesLog({config_.host_env.begin(), config_.host_env.end()}));
    }
    // Logs first: a composite.xml that names a test always has its log next to it.
    if (record.log.empty()) continue;
    for (const auto& r : record.results) {
      if (r.identifier.empty()) continue;  // derived (monitor) results have no log
      std::string dir = config_.result_dir + "/test-logs/" + results::ComparisonHash(r);
      MakeDirectories(dir);
      WriteFileAtomically(JoinBelow(dir, log_name + ".log", {"the system identifier", "test-logs"}), record.log);
    }
  }
  // The file as it is on disk now (another run may have saved into it since), with ours added.
  known_ = results::UpdateResultFile(config_.result_dir + "/composite.xml", [&](results::ResultFile& file, bool existed) {
    if (!existed) {
      file.generated.title = config_.title;
      file.generated.description = config_.description;
    }
    for (const auto& s : Systems()) AddSystem(file, s);
    for (const auto& [record, system] : records) {
      AddResults(file, record.results);
      if (hook_ && HasValue(record))
        for (const auto& r : record.results)
          for (const auto& problem : hook_->Record(file, r, system)) observer_.Message(problem);
    }
  });
  saved_ = true;
}

}  // namespace ptsn::run
