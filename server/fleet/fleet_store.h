// The fleet's state in the database (server/fleet/fleet_sql.h), so that any server process can serve
// any agent: machines and their agent tokens, schedules, jobs (one firing of a schedule or a
// run-now) with one task per machine, leases, the merged result of a job, and each machine's
// history of results with the regression verdicts. Every method is one transaction; state
// changes are conditional UPDATEs (a task goes queued -> running only if it is still queued, and
// on PostgreSQL is picked with FOR UPDATE SKIP LOCKED), so no task runs twice however many
// processes serve the same database.
//
// A task's life: queued -> running (the agent's session holds a lease it renews) -> done (its
// result stored) or failed (with the reason). A lease that expires, or an agent that says hello
// with a new session (it restarted), puts a first attempt back to queued for a retry on the
// same machine; a second loss, or a machine that does not come back in time, fails the task.
// An agent whose lease expired while it kept running (the server was away) gets it back when it
// renews, as long as nothing else happened to the task meanwhile.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "server/fleet/fleet_regression.h"
#include "server/store/storage.h"

namespace ptsn::server {

// A refusal the HTTP layer answers with `status` and `message`.
struct FleetError {
  int status;
  std::string message;
};

struct MachineInfo {
  std::string hardware, software, agent_version;
  std::vector<std::string> tags;
};

struct MachineRow {
  std::string name;
  std::int64_t created_at = 0, last_seen = 0;
  std::string hardware, software, tags, agent_version;
  // Its running task, if any.
  std::int64_t task_id = 0, job_id = 0;
  std::string progress;
};

struct TaskRow {
  std::int64_t id = 0, job_id = 0;
  std::string machine, state;  // queued | running | done | failed
  int attempts = 0;
  std::int64_t lease_expires = 0, lost_at = 0, created_at = 0, started_at = 0, finished_at = 0;
  std::string progress, reason;
};

struct JobRow {
  std::int64_t id = 0;
  std::optional<std::int64_t> schedule_id;
  std::string owner, title, spec;  // spec: JobSpec JSON
  std::int64_t created_at = 0;
  std::string merge_state;  // open | merging | merged | failed
  std::string result_id, note;
  std::vector<TaskRow> tasks;
  bool Finished() const;  // every task done or failed
};

struct ScheduleRow {
  std::int64_t id = 0;
  std::string name, owner, spec, machines, cron;
  std::int64_t next_fire = 0, created_at = 0;
};

struct ClaimedTask {
  std::int64_t task_id = 0, job_id = 0;
  int attempt = 0;
  std::string spec, title;
};

struct HistoryRow {
  std::int64_t id = 0;
  std::string machine, test_key, label, scale, proportion;
  std::int64_t job_id = 0, task_id = 0, measured_at = 0;
  Measurement m;
  std::string trials;
  std::optional<int> verdict;  // as ResultJudgement (server/fleet/fleet_regression.h)
  double change_pct = 0, baseline_mean = 0;
  double ratio_low = 0, ratio_high = 0, p_value = 0;  // at a change point
};

struct TimeLimits {
  std::int64_t lease_seconds = 30;
  std::int64_t return_seconds = 3600;  // a machine that lost a lease has this long to come back
  std::int64_t queue_seconds = 86400;  // a task nobody took in this long fails (machine offline)
};

class FleetStore {
 public:
  // Creates the tables when missing.
  explicit FleetStore(Storage& storage);

  // `pts-native-server token create --agent NAME`: the machine, with this token (replacing an
  // earlier one).
  void SetAgentToken(const std::string& machine, const std::string& token_sha256, std::int64_t now);
  std::optional<std::string> MachineForToken(const std::string& token_sha256);

  // An agent (re)started: its description and session. Tasks still running under an older
  // session were lost with it (retried once, or failed). Returns jobs that thereby finished.
  std::vector<std::int64_t> Hello(const std::string& machine, const std::string& session, const MachineInfo& info,
                                  std::int64_t now);
  void Touch(const std::map<std::string, std::int64_t>& last_seen);

  // Machine names for a selector (all | tag:NAME | a,b,c). Throws FleetError 400 for unknown
  // names or when nothing is selected.
  std::vector<std::string> SelectMachines(const std::string& selector);

  // A job with one queued task per machine. With a schedule, (schedule, fired_for) fires once:
  // 0 is returned when it already exists.
  std::int64_t CreateJob(const std::string& owner, std::optional<std::int64_t> schedule_id, std::int64_t fired_for,
                         const std::string& title, const std::string& spec_json, const std::vector<std::string>& machines,
                         std::int64_t now);

  // The machine's oldest queued task, now running under `session`.
  std::optional<ClaimedTask> Claim(const std::string& machine, const std::string& session, std::int64_t now,
                                   const TimeLimits& limits);
  // True while the lease is held (renewed); false when it was lost (the agent should stop).
  bool Renew(std::int64_t task, const std::string& machine, const std::string& session, const std::string& progress,
             std::int64_t now, const TimeLimits& limits);

  struct Completion {
    bool duplicate = false;  // the same result was stored before (a retried upload)
    std::int64_t job_id = 0;
    bool job_finished = false;
    std::vector<HistoryRow> flagged;  // regressions and improvements this result revealed
  };
  // Stores `xml` as the task's result (accepted while the task is not done or failed, whatever
  // session sent it: a finished result is never thrown away) and its tests in the machine's
  // history, each test's history judged again for change points; `flagged` holds the change
  // points found for the first time. Throws FleetError 404/409.
  Completion Complete(std::int64_t task, const std::string& machine, const std::string& xml,
                      const std::string& xml_sha1, const std::vector<TestMeasurement>& tests, std::int64_t now,
                      const RegressionPolicy& policy);
  // The agent could not run it (bad options, install failed, every test failed...).
  Completion Fail(std::int64_t task, const std::string& machine, const std::string& reason, std::int64_t now);
  // The agent gives the task up (it is stopping): as a lost lease.
  std::vector<std::int64_t> Release(std::int64_t task, const std::string& machine, const std::string& session,
                                    const std::string& reason, std::int64_t now);

  // Expired leases, machines that did not return, tasks nobody took. Returns jobs that finished.
  std::vector<std::int64_t> Expire(std::int64_t now, const TimeLimits& limits);

  // Jobs whose tasks are all over and whose result is not merged (or whose merge was claimed
  // longer than `stale_seconds` ago by a process that may have died).
  std::vector<std::int64_t> JobsToMerge(std::int64_t now, std::int64_t stale_seconds);
  bool ClaimMerge(std::int64_t job, std::int64_t now, std::int64_t stale_seconds);
  // (machine, composite.xml) of each done task, in machine order.
  std::vector<std::pair<std::string, std::string>> DoneResults(std::int64_t job);
  void FinishMerge(std::int64_t job, const std::string& result_id, const std::string& note);

  std::optional<JobRow> Job(std::int64_t id);
  std::vector<JobRow> RecentJobs(int limit);
  std::vector<MachineRow> Machines();

  // Throws FleetError 409 when the name is taken.
  std::int64_t CreateSchedule(const ScheduleRow& row);
  std::vector<ScheduleRow> Schedules();
  std::optional<ScheduleRow> Schedule(const std::string& name);
  bool DeleteSchedule(const std::string& name);
  // Schedules whose next firing is due.
  std::vector<ScheduleRow> DueSchedules(std::int64_t now);
  // Creates the firing's job (once per slot) and moves next_fire on; returns the job (0 when
  // another process fired this slot).
  std::int64_t FireSchedule(const ScheduleRow& s, const std::vector<std::string>& machines, const std::string& title,
                            std::int64_t next_fire, std::int64_t now);
  void SetNextFire(std::int64_t schedule, std::int64_t next_fire);

  // A machine's history, oldest first; `flagged_only` keeps regressions and improvements.
  std::vector<HistoryRow> History(const std::string& machine, bool flagged_only = false, int limit = 5000);
  // Regressions and improvements of every machine, newest first.
  std::vector<HistoryRow> Flags(int limit);

 private:
  Storage& storage_;
};

}  // namespace ptsn::server
