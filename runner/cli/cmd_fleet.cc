// Fleet commands: `agent` (this machine works for a server: runner/fleet/agent.h) and
// `schedule` (create, run-now, status, list, delete, machines: a user's side, over the
// server's /api/v1/fleet).
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "runner/cli/command.h"
#include "runner/client/client.h"
#include "runner/common/args.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/settings.h"
#include "runner/common/strings.h"
#include "runner/exec/process.h"
#include "runner/fleet/agent.h"
#include "runner/fleet/agent_run.h"
#include "runner/profile/profile_repository.h"
#include "runner/sysinfo/sysinfo.h"

namespace ptsn::cli {

namespace {

using nlohmann::json;

std::string ServerOf(const Args& a) {
  std::string s = a.ValueOr("--server", GlobalSettings().Get("server.url"));
  while (!s.empty() && s.back() == '/') s.pop_back();
  if (s.empty()) throw Error("no server: pass --server URL");
  return s;
}

// --token, else the setting server.token (PTS_NATIVE_TOKEN, config.yaml), for every verb: where
// upload-result and run --upload take theirs.
std::string TokenOf(const Args& a) { return a.ValueOr("--token", GlobalSettings().Get("server.token")); }

// `kind`: what `pts-native-server token create` makes it from ("NAME", "--agent MACHINE").
std::string RequireToken(const Args& a, const std::string& what, const std::string& kind) {
  std::string t = TokenOf(a);
  if (t.empty())
    throw Error(what + ": no token (pass --token T or set server.token / PTS_NATIVE_TOKEN; the server's operator makes one with: "
                       "pts-native-server token create " + kind + " --data DIR)");
  return t;
}

std::string SelfBinary() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw Error("agent: cannot find this program's path (/proc/self/exe)");
  return std::string(buf, static_cast<size_t>(n));
}

int AgentCommand(const std::vector<std::string>& argv) {
  auto a = Args::Parse(argv, {{"--server", "--token", "--name", "--tags", "--poll"}, {}});
  const Settings& s = GlobalSettings();
  fleet::AgentOptions o;
  o.server_url = ServerOf(a);
  o.token = RequireToken(a, "agent", "--agent MACHINE");
  o.name = a.ValueOr("--name", "");
  if (!o.name.empty()) fleet::CheckMachineName(o.name);
  for (const auto& t : Split(a.ValueOr("--tags", ""), ','))
    if (!Trim(t).empty()) {
      fleet::CheckMachineName(Trim(t));
      o.tags.push_back(Trim(t));
    }
  if (auto p = a.Value("--poll")) o.poll_seconds = std::max(1, std::atoi(p->c_str()));
  o.state_dir = s.Home() + "/fleet";
  o.version = "pts-native";
  {
    auto reader = sysinfo::MakeRootedReader("/", s.Home() + "/cache");
    o.hardware = sysinfo::JoinComponents(sysinfo::HardwareComponents(*reader));
    o.software = sysinfo::JoinComponents(sysinfo::SoftwareComponents(*reader, "/"));
  }
  MakeDirectories(o.state_dir);
  auto repo = profile::ProfileRepository::FromSettings(s);
  fleet::ChildExecutor executor({SelfBinary(), s.ResultsDirectory(), o.state_dir + "/work"}, repo);
  // A long-poll is held up to poll_seconds: the transport waits longer than that.
  auto http = client::CurlTransport(o.poll_seconds + 30);
  exec::InstallSignalForwarding();  // SIGTERM: the running benchmark is stopped and its task given back
  fleet::Agent agent(o, *http, executor, [] { return exec::InterruptRequested() != 0; }, std::cerr);
  return agent.Run();
}

// ---- schedule -----------------------------------------------------------------------------------

// Every verb sends the user's token when there is one: the fleet's JSON is shown only to a
// user's token unless the server runs with --public-fleet (then reads need none).
struct Api {
  std::string server, token, what;  // what: "schedule status", for messages
  std::unique_ptr<client::HttpTransport> http = client::CurlTransport(30);

  json Call(const std::string& method, const std::string& path, const json& body = nullptr) {
    client::HttpResponse r = method == "GET" ? http->GetAuthorized(server + path, token) : http->Post(server + path, body.is_null() ? "" : body.dump(), token);
    json j = r.body.empty() ? json::object() : json::parse(r.body, nullptr, false);
    if (r.status >= 300) {
      std::string msg = j.is_object() && j.contains("error") && j["error"].is_string() ? j["error"].get<std::string>() : Trim(r.body.substr(0, 200));
      std::string advice = client::TokenAdvice(r.status, !token.empty());
      if (r.status == 403) advice = "only the owner's token may run or delete a schedule";
      throw client::ServerRefusal(what + ": server answered HTTP " + std::to_string(r.status) + ": " + msg +
                                      (advice.empty() ? "" : " (" + advice + ")"),
                                  r.status);
    }
    if (j.is_discarded()) throw Error(what + ": the server's answer is not JSON: " + r.body.substr(0, 120));
    return j;
  }
};

// The job spec from --profile/--suite/--preset/--times, checked against this machine's profiles
// when it has them all (an agent checks again against its own).
fleet::JobSpec SpecOf(const Args& a) {
  fleet::JobSpec spec;
  for (const auto& p : a.Values("--profile")) spec.tests.push_back(p);
  for (const auto& p : a.Values("--suite")) spec.tests.push_back(p);
  spec.presets = a.ValueOr("--preset", "");
  if (auto t = a.Value("--times")) {
    try {
      spec.times = std::stoi(*t);
    } catch (const std::exception&) {
      throw Error("--times: not a number: " + *t);
    }
  }
  fleet::CheckJobSpec(spec);
  auto repo = profile::ProfileRepository::FromSettings(GlobalSettings());
  bool all_known = true;
  for (const auto& t : spec.tests) all_known = all_known && (repo.FindProfile(t) || repo.FindSuite(t));
  if (all_known) {
    if (std::string why = fleet::CheckAgainstProfiles(repo, spec); !why.empty()) throw Error("schedule: " + why);
  } else {
    std::cerr << "schedule: not every test is known here; the agents check the options against their own profiles\n";
  }
  return spec;
}

json SpecJson(const fleet::JobSpec& spec) { return json::parse(fleet::JobSpecToJson(spec)); }

const ArgSpec kScheduleArgs{{"--server", "--token", "--profile", "--suite", "--preset", "--times", "--machines", "--cron",
                             "--title", "--timeout"},
                            {"--run-now", "--wait", "--json"}};

std::string Describe(const json& task) {
  std::string state = task.value("state", "");
  std::string line = task.value("machine", "") + "  " + state;
  if (state == "running" && !task.value("progress", "").empty()) line += "  " + task.value("progress", "");
  if ((state == "failed" || state == "queued") && !task.value("reason", "").empty()) line += "  " + task.value("reason", "");
  if (task.value("attempts", 0) > 1) line += "  (attempt " + std::to_string(task.value("attempts", 0)) + ")";
  return line;
}

int Status(Api& api, const Args& a, const std::string& job) {
  for (char c : job)
    if (!std::isdigit(static_cast<unsigned char>(c))) throw Error("schedule status: '" + job + "' is not a job number");
  const double timeout = std::atof(a.ValueOr("--timeout", "0").c_str());
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    json j = api.Call("GET", "/api/v1/fleet/jobs/" + job);
    const std::string state = j.value("state", "");
    const bool over = state == "done" || state == "partial" || state == "failed";
    const bool waiting = a.Has("--wait") && !over &&
                         (timeout <= 0 || std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < timeout);
    if (waiting) {
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      continue;
    }
    if (a.Has("--json")) {
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << "Job " << j.value("id", 0) << ": " << j.value("title", "") << " (" << state << ")\n";
      for (const auto& t : j["tasks"]) std::cout << "  " << Describe(t) << "\n";
      if (!j.value("note", "").empty()) std::cout << "  " << j.value("note", "") << "\n";
    }
    const std::string id = j.value("result_id", "");
    if (!a.Has("--json") && !id.empty()) std::cout << id << "\n";
    std::cout << std::flush;
    if (state == "done") return 0;
    return over ? 1 : 3;  // 3: not finished yet
  }
}

// `schedule list`: one line per schedule (what, where, when).
int ListSchedules(Api& api) {
  const json list = api.Call("GET", "/api/v1/fleet/schedules")["schedules"];
  for (const auto& s : list)
    std::cout << s.value("name", "") << "  " << s["spec"].dump() << "  on " << s.value("machines", "") << "  "
              << (s.value("cron", "").empty() ? "by hand" : "cron '" + s.value("cron", "") + "'") << "\n";
  return 0;
}

// `schedule machines`: one line per machine (online, its task, its hardware).
int ListMachines(Api& api) {
  const json list = api.Call("GET", "/api/v1/fleet/machines")["machines"];
  for (const auto& m : list)
    std::cout << m.value("name", "") << "  " << (m.value("online", false) ? "online" : "offline") << "  "
              << (m["task"].is_null() ? "idle" : "job " + std::to_string(m["task"].value("job", 0)) + ": " + m["task"].value("progress", ""))
              << "  " << m.value("hardware", "") << "\n";
  return 0;
}

int ScheduleCommand(const std::vector<std::string>& argv) {
  auto a = Args::Parse(argv, kScheduleArgs);
  const auto& pos = a.positional();
  const std::string usage =
      "usage: pts-native schedule create NAME|run-now [NAME]|status JOB|list|delete NAME|machines --server URL --token T\n"
      "  create NAME (--profile P | --suite S)... [--preset 'test.option=choice;...'] [--times N]\n"
      "              [--machines all|tag:TAG|name,name] (--cron 'M H DOM MON DOW' | --run-now)\n"
      "  run-now [NAME] (a schedule by name, or --profile/--suite ... --machines ...): prints the job last\n"
      "  status JOB [--wait [--timeout S]] [--json]: exit 0 done (merged result ID last), 1 failed, 3 running";
  if (pos.empty()) throw Error(usage, 2);
  const std::string& verb = pos[0];
  Api api{ServerOf(a), TokenOf(a), "schedule " + verb};
  if (verb == "status") {
    if (pos.size() != 2) throw Error(usage, 2);
    return Status(api, a, pos[1]);
  }
  if (verb == "list") return ListSchedules(api);
  if (verb == "machines") return ListMachines(api);
  if (verb != "create" && verb != "run-now" && verb != "delete") throw Error(usage, 2);
  RequireToken(a, api.what, "NAME");  // changes are a user's, on any server
  if (verb == "delete") {
    if (pos.size() != 2) throw Error(usage, 2);
    api.Call("POST", "/api/v1/fleet/schedules/" + pos[1] + "/delete", json::object());
    std::cout << "Deleted schedule " << pos[1] << "\n";
    return 0;
  }
  if (verb == "run-now" && pos.size() == 2 && a.Values("--profile").empty() && a.Values("--suite").empty()) {
    json j = api.Call("POST", "/api/v1/fleet/schedules/" + pos[1] + "/run", json::object());
    std::cout << "Job started on the schedule's machines; follow it with: pts-native schedule status " << j.value("job", 0)
              << "\n" << j.value("job", 0) << std::endl;
    return 0;
  }
  const std::string machines = a.ValueOr("--machines", "all");
  fleet::CheckMachineSelector(machines);
  if (verb == "run-now") {
    if (pos.size() != 1) throw Error(usage, 2);
    json body{{"spec", SpecJson(SpecOf(a))}, {"machines", machines}};
    if (auto t = a.Value("--title")) body["title"] = *t;
    json j = api.Call("POST", "/api/v1/fleet/jobs", body);
    std::cout << "Job started; follow it with: pts-native schedule status " << j.value("job", 0) << "\n"
              << j.value("job", 0) << std::endl;
    return 0;
  }
  if (verb == "create") {
    if (pos.size() != 2) throw Error(usage, 2);
    if (!a.Value("--cron") && !a.Has("--run-now")) throw Error("schedule create: give --cron 'M H DOM MON DOW' or --run-now", 2);
    json body{{"name", pos[1]}, {"spec", SpecJson(SpecOf(a))}, {"machines", machines},
              {"cron", a.ValueOr("--cron", "")}, {"run_now", a.Has("--run-now")}};
    json j = api.Call("POST", "/api/v1/fleet/schedules", body);
    std::cout << "Schedule " << pos[1] << " created";
    if (j.value("next_fire", 0) > 0) std::cout << "; next run at Unix time " << j.value("next_fire", 0);
    std::cout << "\n";
    if (j.contains("job")) std::cout << j.value("job", 0) << std::endl;
    return 0;
  }
  throw Error(usage, 2);
}

}  // namespace

std::vector<Command> FleetCommands() {
  return {
      {"agent", {}, "Fleet", "--server URL --token T [--name NAME] [--tags a,b] [--poll S]",
       "work for a results server: run the jobs it schedules for this machine, until SIGTERM", AgentCommand},
      {"schedule", {}, "Fleet", "create NAME|run-now|status JOB|list|delete NAME|machines --server URL --token T ...",
       "schedule benchmarks on a fleet of agents and follow them", ScheduleCommand},
  };
}

}  // namespace ptsn::cli
