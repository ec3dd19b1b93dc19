#include "runner/fleet/agent_run.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/exec/process.h"
#include "runner/profile/options.h"
#include "runner/profile/presets.h"

namespace ptsn::fleet {

namespace fs = std::filesystem;

namespace {

// Characters a free-text option value may hold: it is pasted into `sh -c "... exec ./test ARGS"`.
bool SafeFreeText(const std::string& v) {
  if (v.empty() || v.size() > 256) return false;
  for (unsigned char c : v)
    if (!(std::isalnum(c) || std::string_view("._,:/+=@%-").find(static_cast<char>(c)) != std::string_view::npos)) return false;
  return true;
}

}  // namespace

std::string CheckAgainstProfiles(const profile::ProfileRepository& repo, const JobSpec& spec) {
  try {
    CheckJobSpec(spec);
    std::vector<profile::TestProfile> profiles;
    for (const auto& t : spec.tests) {
      if (repo.FindProfile(t)) {
        profiles.push_back(repo.LoadProfile(t));
      } else if (repo.FindSuite(t)) {
        for (const auto& e : repo.LoadSuite(t).executes) profiles.push_back(repo.LoadProfile(e.test));
      } else {
        return "'" + t + "' is not a test profile or suite this machine knows";
      }
    }
    // The presets are checked by the rules every run uses (runner/profile/presets.h); a free-text
    // value is also limited to characters that are safe in the test's command line.
    for (const auto& preset : profile::ParsePresets(spec.presets, "presets", false)) {
      const profile::TestProfile* p = nullptr;
      for (const auto& candidate : profiles)
        if (profile::PresetNames(preset, candidate)) p = &candidate;
      if (!p) return "preset for '" + preset.test + "': no such test in this job";
      profile::PicksFromPresets(*p, {preset});  // throws Error naming the option and what it accepts
      for (const auto& o : p->options)
        if (o.identifier == preset.option && o.entries.empty() && !SafeFreeText(preset.choice))
          return "preset " + preset.test + "." + preset.option + ": the value '" + preset.choice.substr(0, 60) +
                 "' may only hold letters, digits and ._,:/+=@%-";
    }
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string ProgressOf(const std::string& line, std::string& last) {
  if (line.empty() || line[0] != '{') return "";
  auto j = nlohmann::json::parse(line, nullptr, false);
  if (!j.is_object()) return "";
  const std::string event = j.value("event", "");
  if (event == "test-started") {
    last = "test " + std::to_string(j.value("test", 0)) + "/" + std::to_string(j.value("of", 0)) + " " +
           j.value("identifier", "") + (j.value("description", "").empty() ? "" : " (" + j.value("description", "") + ")");
    return last + ": starting";
  }
  if (event == "trial-finished")
    return last + ": " + (j.value("warmup", false) ? "warm-up " : "trial ") + std::to_string(j.value("trial", 0)) + "/" +
           std::to_string(j.value("of", 0)) + " done";
  if (event == "test-finished") return last + (j.value("ok", false) ? ": done" : ": failed");
  return "";
}

ChildExecutor::ChildExecutor(ChildOptions options, const profile::ProfileRepository& repo)
    : options_(std::move(options)), repo_(repo) {}

std::string ChildExecutor::Check(const JobSpec& spec) { return CheckAgainstProfiles(repo_, spec); }

TaskExecutor::Outcome ChildExecutor::Execute(const Task& task, const std::function<void(const std::string&)>& progress,
                                             const std::atomic<bool>& cancel) {
  Outcome out;
  const std::string name = "fleet-job" + std::to_string(task.job) + "-task" + std::to_string(task.id);
  MakeDirectories(options_.work_dir);
  const std::string events = options_.work_dir + "/" + name + ".log";

  exec::ProcessSpec spec;
  spec.argv = {options_.binary, "batch-run"};
  for (const auto& t : task.spec.tests) spec.argv.push_back(t);
  spec.argv.push_back("--json-events");
  spec.env = exec::CurrentEnvironment();
  for (const char* k : {"PRESET_OPTIONS", "PRESET_OPTIONS_VALUES", "FORCE_TIMES_TO_RUN", "TEST_RESULTS_NAME",
                        "TEST_RESULTS_IDENTIFIER", "TEST_RESULTS_DESCRIPTION"})
    spec.env.erase(k);
  if (!task.spec.presets.empty()) spec.env["PRESET_OPTIONS"] = task.spec.presets;
  if (task.spec.times > 0) spec.env["FORCE_TIMES_TO_RUN"] = std::to_string(task.spec.times);
  spec.env["TEST_RESULTS_NAME"] = name;
  spec.env["TEST_RESULTS_IDENTIFIER"] = task.machine;
  spec.env["TEST_RESULTS_DESCRIPTION"] = task.title.empty() ? "Fleet job " + std::to_string(task.job) : task.title;
  spec.working_directory = options_.work_dir;  // nothing there a test name could match as a directory
  spec.output_path = events;
  spec.cancel = &cancel;
  spec.die_with_parent = true;

  exec::ProcessOutcome ended;
  std::atomic<bool> done{false};
  std::thread child([&] {
    exec::PosixProcessRunner runner;
    ended = runner.Run(spec);
    done = true;
  });
  // Progress from the run's JSON events as they are written.
  std::ifstream in;
  std::string partial, last, failures;
  auto drain = [&] {
    if (!in.is_open()) in.open(events);
    if (!in.is_open()) return;
    std::string chunk;
    char buf[4096];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) chunk.append(buf, static_cast<size_t>(in.gcount()));
    in.clear();
    partial += chunk;
    for (size_t nl; (nl = partial.find('\n')) != std::string::npos;) {
      std::string line = partial.substr(0, nl);
      partial.erase(0, nl + 1);
      if (std::string p = ProgressOf(line, last); !p.empty()) progress(p);
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_object() && j.value("event", "") == "test-finished" && !j.value("ok", true))
        failures += (failures.empty() ? "" : "; ") + last + ": " + j.value("failure", std::string("failed"));
    }
  };
  while (!done) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    drain();
  }
  child.join();
  drain();

  out.interrupted = ended.status == exec::ProcessStatus::kInterrupted;
  const std::string composite = options_.results_dir + "/" + name + "/composite.xml";
  std::error_code ec;
  if (fs::exists(composite, ec) && !out.interrupted) out.result_xml = ReadFile(composite);
  if (!ended.ok()) {
    std::string tail = exec::LastLines(events, 3);
    out.failure = "pts-native batch-run " + ended.Describe() + (failures.empty() ? "" : ": " + failures);
    if (failures.empty() && !tail.empty()) out.failure += ": " + tail;
  } else if (!failures.empty()) {
    out.failure = failures;
  }
  return out;
}

}  // namespace ptsn::fleet
