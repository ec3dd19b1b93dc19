#include "server/fleet/fleet_store.h"

#include <algorithm>
#include <set>

#include "runner/common/strings.h"
#include "server/fleet/fleet_sql.h"
#include "server/results/pages.h"

namespace ptsn::server {

namespace {

using Args = std::vector<SqlArg>;

SqlResult Q(SqlTx& tx, const std::string& sql, const Args& args = {}) { return tx.Exec(ForDialect(sql, tx.dialect()), args); }

std::vector<std::int64_t> Ints(const SqlResult& r, size_t col = 0) {
  std::vector<std::int64_t> out;
  for (const auto& row : r.rows) out.push_back(row.Int(col));
  return out;
}

void Append(std::vector<std::int64_t>& to, const std::vector<std::int64_t>& from) { to.insert(to.end(), from.begin(), from.end()); }

std::vector<std::int64_t> Unique(std::vector<std::int64_t> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// Whether every task of `job` is over.
bool JobOver(SqlTx& tx, std::int64_t job) {
  return Q(tx, "SELECT 1 FROM fleet_tasks WHERE job_id = $1 AND state IN ('queued', 'running') LIMIT 1", {job}).rows.empty();
}

// A running task's attempt was lost (lease expired, agent restarted, agent stopped): a first
// attempt goes back to the queue for one retry on the same machine, a second fails the task.
// `where` selects the running tasks (its parameters start at $3). Returns jobs that finished.
std::vector<std::int64_t> LoseAttempts(SqlTx& tx, const std::string& where, const Args& args, std::int64_t now,
                                       const std::string& why) {
  auto with = [&](std::string reason) {
    Args a{now, std::move(reason)};
    a.insert(a.end(), args.begin(), args.end());
    return a;
  };
  Q(tx, "UPDATE fleet_tasks SET state = 'queued', lost_at = $1, lease_expires = 0, progress = '', reason = $2"
        " WHERE state = 'running' AND attempts < 2 AND " + where,
    with(why + "; retrying once when the machine is back"));
  auto failed = Ints(Q(tx, "UPDATE fleet_tasks SET state = 'failed', finished_at = $1, lease_expires = 0, reason = $2"
                           " WHERE state = 'running' AND attempts >= 2 AND " + where + " RETURNING job_id",
                       with(why + " again on the retry; giving up")));
  std::vector<std::int64_t> over;
  for (auto job : Unique(failed))
    if (JobOver(tx, job)) over.push_back(job);
  return over;
}

TaskRow TaskOf(const SqlRow& r) {
  TaskRow t;
  t.id = r.Int(0);
  t.job_id = r.Int(1);
  t.machine = r.Text(2);
  t.state = r.Text(3);
  t.attempts = static_cast<int>(r.Int(4));
  t.lease_expires = r.Int(5);
  t.lost_at = r.Int(6);
  t.created_at = r.Int(7);
  t.started_at = r.Int(8);
  t.finished_at = r.Int(9);
  t.progress = r.Text(10);
  t.reason = r.Text(11);
  return t;
}
constexpr const char* kTaskColumns =
    "id, job_id, machine, state, attempts, lease_expires, lost_at, created_at, started_at, finished_at, progress, reason";

JobRow JobOf(const SqlRow& r) {
  JobRow j;
  j.id = r.Int(0);
  if (!r.Null(1)) j.schedule_id = r.Int(1);
  j.owner = r.Text(2);
  j.title = r.Text(3);
  j.spec = r.Text(4);
  j.created_at = r.Int(5);
  j.merge_state = r.Text(6);
  j.result_id = r.Text(7);
  j.note = r.Text(8);
  return j;
}
constexpr const char* kJobColumns = "id, schedule_id, owner, title, spec, created_at, merge_state, result_id, note";

ScheduleRow ScheduleOf(const SqlRow& r) {
  return {r.Int(0), r.Text(1), r.Text(2), r.Text(3), r.Text(4), r.Text(5), r.Int(6), r.Int(7)};
}
constexpr const char* kScheduleColumns = "id, name, owner, spec, machines, cron, next_fire, created_at";

HistoryRow HistoryOf(const SqlRow& r) {
  HistoryRow h;
  h.id = r.Int(0);
  h.machine = r.Text(1);
  h.test_key = r.Text(2);
  h.label = r.Text(3);
  h.scale = r.Text(4);
  h.proportion = r.Text(5);
  h.job_id = r.Int(6);
  h.task_id = r.Int(7);
  h.measured_at = r.Int(8);
  h.m = {static_cast<size_t>(r.Int(9)), r.Real(10), r.Real(11), r.Real(12)};
  h.trials = r.Text(13);
  if (!r.Null(14)) h.verdict = static_cast<int>(r.Int(14));
  h.change_pct = r.Real(15);
  h.baseline_mean = r.Real(16);
  h.ratio_low = r.Real(17);
  h.ratio_high = r.Real(18);
  h.p_value = r.Real(19);
  return h;
}
constexpr const char* kHistoryColumns =
    "id, machine, test_key, label, scale, proportion, job_id, task_id, measured_at, n, mean, ci_low, ci_high, trials,"
    " verdict, change_pct, baseline_mean, ratio_low, ratio_high, p_value";

bool HasColumn(SqlTx& tx, const std::string& table, const std::string& column) {
  // PostgreSQL: only the schema we write to; a same-named table in another schema of the
  // database (another deployment, or a parallel test) must not answer for ours.
  const char* sql = tx.dialect() == SqlDialect::kPostgres
                        ? "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()"
                          " AND table_name = $1 AND column_name = $2"
                        : "SELECT 1 FROM pragma_table_info($1) WHERE name = $2";
  return !Q(tx, sql, {table, column}).rows.empty();
}

// Doubles as text that both databases read back exactly.
std::string Num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// Judges the machine's history of one test again (its newest `policy.window` results), stores
// the verdicts that changed, and returns the change points found for the first time.
std::vector<HistoryRow> Rejudge(SqlTx& tx, const std::string& machine, const std::string& test_key,
                                const std::string& proportion, const RegressionPolicy& policy) {
  auto rows = Q(tx, "SELECT id, mean, verdict FROM fleet_history WHERE machine = $1 AND test_key = $2"
                    " ORDER BY measured_at DESC, id DESC LIMIT $3",
                {machine, test_key, static_cast<std::int64_t>(policy.window)}).rows;
  std::reverse(rows.begin(), rows.end());
  std::vector<double> means;
  std::vector<std::optional<int>> before;
  for (const auto& r : rows) {
    means.push_back(r.Real(1));
    before.push_back(r.Null(2) ? std::nullopt : std::optional<int>(static_cast<int>(r.Int(2))));
  }
  const std::vector<ResultJudgement> now = JudgeHistory(means, proportion, policy);
  for (size_t i = 0; i < rows.size(); ++i) {
    const ResultJudgement& j = now[i];
    // A result that stays "no change starts here" keeps the level it was first judged against.
    if (j.verdict == before[i] && j.verdict.value_or(0) == 0) continue;
    auto value = [&](double v) { return j.verdict ? SqlArg(Num(v)) : SqlArg(nullptr); };
    auto step = [&](double v) { return j.verdict.value_or(0) != 0 ? SqlArg(Num(v)) : SqlArg(nullptr); };
    Q(tx, "UPDATE fleet_history SET verdict = CAST($2 AS INTEGER), change_pct = CAST($3 AS DOUBLE PRECISION),"
          " baseline_mean = CAST($4 AS DOUBLE PRECISION), ratio_low = CAST($5 AS DOUBLE PRECISION),"
          " ratio_high = CAST($6 AS DOUBLE PRECISION), p_value = CAST($7 AS DOUBLE PRECISION) WHERE id = $1",
      {rows[i].Int(0), j.verdict ? SqlArg(static_cast<std::int64_t>(*j.verdict)) : SqlArg(nullptr), value(j.change_pct),
       value(j.baseline_mean), step(j.ratio_low), step(j.ratio_high), step(j.p_value)});
  }
  std::vector<HistoryRow> news;
  for (size_t i : NewChangePoints(before, now, policy.same_change_within))
    news.push_back(HistoryOf(Q(tx, std::string("SELECT ") + kHistoryColumns + " FROM fleet_history WHERE id = $1",
                               {rows[i].Int(0)}).rows.at(0)));
  return news;
}

}  // namespace

bool JobRow::Finished() const {
  return std::all_of(tasks.begin(), tasks.end(), [](const TaskRow& t) { return t.state == "done" || t.state == "failed"; });
}

FleetStore::FleetStore(Storage& storage) : storage_(storage) {
  storage_.Transact([](SqlTx& tx) {
    // Two processes creating the tables at once would race; the advisory lock orders them.
    if (tx.dialect() == SqlDialect::kPostgres) tx.Exec("SELECT pg_advisory_xact_lock(7077025)");
    for (const char* ddl : fleet_sql::kSchema) Q(tx, ddl);
    for (const auto& added : fleet_sql::kFleetMigrations)
      if (!HasColumn(tx, added.table, added.column))
        Q(tx, std::string("ALTER TABLE ") + added.table + " ADD COLUMN " + added.column + " " + added.type);
    Q(tx, "CREATE INDEX IF NOT EXISTS fleet_jobs_by_merge ON fleet_jobs (merge_state)");
  });
}

void FleetStore::SetAgentToken(const std::string& machine, const std::string& token_sha256, std::int64_t now) {
  storage_.Transact([&](SqlTx& tx) {
    Q(tx, "INSERT INTO fleet_machines (name, token_sha256, created_at) VALUES ($1, $2, $3)"
          " ON CONFLICT (name) DO UPDATE SET token_sha256 = $2",
      {machine, token_sha256, now});
  });
}

std::optional<std::string> FleetStore::MachineForToken(const std::string& token_sha256) {
  std::optional<std::string> out;
  storage_.Transact([&](SqlTx& tx) {
    auto r = Q(tx, "SELECT name FROM fleet_machines WHERE token_sha256 = $1", {token_sha256});
    out = r.rows.empty() ? std::nullopt : std::optional<std::string>(r.rows[0].Text(0));
  });
  return out;
}

std::vector<std::int64_t> FleetStore::Hello(const std::string& machine, const std::string& session,
                                            const MachineInfo& info, std::int64_t now) {
  std::vector<std::int64_t> over;
  storage_.Transact([&](SqlTx& tx) {
    std::string tags = info.tags.empty() ? "" : "," + Join(info.tags, ",") + ",";
    Q(tx, "UPDATE fleet_machines SET session = $2, last_seen = $3, hardware = $4, software = $5, tags = $6,"
          " agent_version = $7 WHERE name = $1",
      {machine, session, now, info.hardware, info.software, tags, info.agent_version});
    over = LoseAttempts(tx, "machine = $3 AND session <> $4", {machine, session}, now,
                        "the agent restarted at " + FormatUtc(now, true) + " while running it");
  });
  return over;
}

void FleetStore::Touch(const std::map<std::string, std::int64_t>& last_seen) {
  if (last_seen.empty()) return;
  storage_.Transact([&](SqlTx& tx) {
    for (const auto& [machine, t] : last_seen)
      Q(tx, "UPDATE fleet_machines SET last_seen = $2 WHERE name = $1 AND last_seen < $2", {machine, t});
  });
}

std::vector<std::string> FleetStore::SelectMachines(const std::string& selector) {
  std::vector<std::string> out;
  storage_.Transact([&](SqlTx& tx) {
    out.clear();
    if (selector == "all") {
      for (const auto& r : Q(tx, "SELECT name FROM fleet_machines ORDER BY name").rows) out.push_back(r.Text(0));
      if (out.empty()) throw FleetError{400, "no machines: create agent tokens with pts-native-server token create --agent NAME"};
      return;
    }
    if (StartsWith(selector, "tag:")) {
      for (const auto& r : Q(tx, "SELECT name FROM fleet_machines WHERE tags LIKE $1 ORDER BY name",
                             {"%," + selector.substr(4) + ",%"}).rows)
        out.push_back(r.Text(0));
      if (out.empty()) throw FleetError{400, "no machine has the tag '" + selector.substr(4) + "'"};
      return;
    }
    std::set<std::string> seen;
    for (const auto& part : Split(selector, ',')) {
      std::string name = Trim(part);
      if (name.empty() || !seen.insert(name).second) continue;
      if (Q(tx, "SELECT 1 FROM fleet_machines WHERE name = $1", {name}).rows.empty())
        throw FleetError{400, "no machine named '" + name + "' (it needs an agent token: pts-native-server token create --agent " + name + ")"};
      out.push_back(name);
    }
    if (out.empty()) throw FleetError{400, "no machines selected"};
  });
  return out;
}

std::int64_t FleetStore::CreateJob(const std::string& owner, std::optional<std::int64_t> schedule_id,
                                   std::int64_t fired_for, const std::string& title, const std::string& spec_json,
                                   const std::vector<std::string>& machines, std::int64_t now) {
  std::int64_t id = 0;
  storage_.Transact([&](SqlTx& tx) {
    SqlArg schedule = schedule_id ? SqlArg(*schedule_id) : SqlArg(nullptr);
    auto r = Q(tx, "INSERT INTO fleet_jobs (schedule_id, fired_for, owner, title, spec, created_at)"
                   " VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING id",
               {schedule, fired_for, owner, title, spec_json, now});
    id = r.rows.empty() ? 0 : r.rows[0].Int(0);
    if (!id) return;
    for (const auto& m : machines)
      Q(tx, "INSERT INTO fleet_tasks (job_id, machine, state, created_at) VALUES ($1, $2, 'queued', $3)", {id, m, now});
    // Other server processes wake their waiting agents (server/fleet/fleet_service.cc listens).
    if (tx.dialect() == SqlDialect::kPostgres) tx.Exec("SELECT pg_notify('ptsn_fleet', $1)", {Join(machines, ",")});
  });
  return id;
}

std::optional<ClaimedTask> FleetStore::Claim(const std::string& machine, const std::string& session, std::int64_t now,
                                             const TimeLimits& limits) {
  std::optional<ClaimedTask> out;
  storage_.Transact([&](SqlTx& tx) {
    out.reset();
    auto r = Q(tx,
               "UPDATE fleet_tasks SET state = 'running', session = $2, attempts = attempts + 1, lease_expires = $3,"
               " started_at = $4, progress = '',"
               " reason = CASE WHEN lost_at > 0 THEN 'retry: ' || reason ELSE '' END, lost_at = 0"
               " WHERE id = (SELECT id FROM fleet_tasks WHERE machine = $1 AND state = 'queued' AND attempts < 2"
               " ORDER BY id LIMIT 1{skip_locked}) RETURNING id, job_id, attempts",
               {machine, session, now + limits.lease_seconds, now});
    if (r.rows.empty()) return;
    ClaimedTask c;
    c.task_id = r.rows[0].Int(0);
    c.job_id = r.rows[0].Int(1);
    c.attempt = static_cast<int>(r.rows[0].Int(2));
    auto job = Q(tx, "SELECT spec, title FROM fleet_jobs WHERE id = $1", {c.job_id});
    if (job.rows.empty()) throw StorageError{"fleet: task " + std::to_string(c.task_id) + " has no job"};
    c.spec = job.rows[0].Text(0);
    c.title = job.rows[0].Text(1);
    out = c;
  });
  return out;
}

bool FleetStore::Renew(std::int64_t task, const std::string& machine, const std::string& session,
                       const std::string& progress, std::int64_t now, const TimeLimits& limits) {
  bool held = false;
  storage_.Transact([&](SqlTx& tx) {
    auto r = Q(tx,
               "UPDATE fleet_tasks SET lease_expires = $4, progress = $5,"
               " reason = CASE WHEN state = 'queued' THEN 'lease renewed after it had expired (server away?)' ELSE reason END,"
               " state = 'running', lost_at = 0"
               " WHERE id = $1 AND machine = $2 AND session = $3 AND (state = 'running' OR (state = 'queued' AND lost_at > 0))",
               {task, machine, session, now + limits.lease_seconds, progress.substr(0, 200)});
    held = r.affected > 0;
  });
  return held;
}

FleetStore::Completion FleetStore::Complete(std::int64_t task, const std::string& machine, const std::string& xml,
                                            const std::string& xml_sha1, const std::vector<TestMeasurement>& tests,
                                            std::int64_t now, const RegressionPolicy& policy) {
  Completion c;
  storage_.Transact([&](SqlTx& tx) {
    c = Completion{};
    const std::string lock = tx.dialect() == SqlDialect::kPostgres ? " FOR UPDATE" : "";
    auto r = Q(tx, "SELECT state, result_sha1, job_id, reason FROM fleet_tasks WHERE id = $1 AND machine = $2" + lock,
               {task, machine});
    if (r.rows.empty()) throw FleetError{404, "machine " + machine + " has no task " + std::to_string(task)};
    const std::string state = r.rows[0].Text(0);
    c.job_id = r.rows[0].Int(2);
    if (state == "done") {
      if (r.rows[0].Text(1) != xml_sha1)
        throw FleetError{409, "task " + std::to_string(task) + " already has another result"};
      c.duplicate = true;
      return;
    }
    if (state == "failed")
      throw FleetError{409, "task " + std::to_string(task) + " failed earlier (" + r.rows[0].Text(3) + "); result not taken"};
    Q(tx, "UPDATE fleet_tasks SET state = 'done', result_xml = $2, result_sha1 = $3, finished_at = $4, progress = '',"
          " lease_expires = 0, lost_at = 0 WHERE id = $1",
      {task, xml, xml_sha1, now});
    for (const auto& t : tests) {
      Q(tx, "INSERT INTO fleet_history (machine, test_key, label, scale, proportion, job_id, task_id, measured_at,"
            " n, mean, ci_low, ci_high, trials) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, CAST($10 AS DOUBLE PRECISION),"
            " CAST($11 AS DOUBLE PRECISION), CAST($12 AS DOUBLE PRECISION), $13)",
        {machine, t.test_key, t.label, t.scale, t.proportion, c.job_id, task, now, static_cast<std::int64_t>(t.m.n),
         Num(t.m.mean), Num(t.m.ci_low), Num(t.m.ci_high), t.trials});
      for (auto& h : Rejudge(tx, machine, t.test_key, t.proportion, policy)) c.flagged.push_back(std::move(h));
    }
    c.job_finished = JobOver(tx, c.job_id);
  });
  return c;
}

FleetStore::Completion FleetStore::Fail(std::int64_t task, const std::string& machine, const std::string& reason,
                                        std::int64_t now) {
  Completion c;
  storage_.Transact([&](SqlTx& tx) {
    c = Completion{};
    auto r = Q(tx, "UPDATE fleet_tasks SET state = 'failed', reason = $3, finished_at = $4, lease_expires = 0, progress = ''"
                   " WHERE id = $1 AND machine = $2 AND state IN ('queued', 'running') RETURNING job_id",
               {task, machine, reason.substr(0, 2000), now});
    if (r.rows.empty()) {
      auto known = Q(tx, "SELECT state FROM fleet_tasks WHERE id = $1 AND machine = $2", {task, machine});
      if (known.rows.empty()) throw FleetError{404, "machine " + machine + " has no task " + std::to_string(task)};
      c.duplicate = true;  // already over: reporting it again changes nothing
      return;
    }
    c.job_id = r.rows[0].Int(0);
    c.job_finished = JobOver(tx, c.job_id);
  });
  return c;
}

std::vector<std::int64_t> FleetStore::Release(std::int64_t task, const std::string& machine, const std::string& session,
                                              const std::string& reason, std::int64_t now) {
  std::vector<std::int64_t> over;
  storage_.Transact([&](SqlTx& tx) {
    over = LoseAttempts(tx, "id = $3 AND machine = $4 AND session = $5", {task, machine, session}, now,
                        "the agent gave it up (" + reason.substr(0, 200) + ")");
  });
  return over;
}

std::vector<std::int64_t> FleetStore::Expire(std::int64_t now, const TimeLimits& limits) {
  std::vector<std::int64_t> over;
  storage_.Transact([&](SqlTx& tx) {
    over = LoseAttempts(tx, "lease_expires < $1", {}, now,
                        "its lease expired at " + FormatUtc(now, true) + " (the agent stopped renewing it: machine down?)");
    std::vector<std::int64_t> failed;
    Append(failed, Ints(Q(tx, "UPDATE fleet_tasks SET state = 'failed', finished_at = $1,"
                              " reason = reason || '; the machine did not come back within ' || $3 || ' s'"
                              " WHERE state = 'queued' AND lost_at > 0 AND lost_at < $2 RETURNING job_id",
                          {now, now - limits.return_seconds, std::to_string(limits.return_seconds)})));
    Append(failed, Ints(Q(tx, "UPDATE fleet_tasks SET state = 'failed', finished_at = $1, reason = $3"
                              " WHERE state = 'queued' AND lost_at = 0 AND created_at < $2 RETURNING job_id",
                          {now, now - limits.queue_seconds,
                           "the machine did not take it within " + std::to_string(limits.queue_seconds) + " s (offline?)"})));
    for (auto job : Unique(failed))
      if (JobOver(tx, job)) over.push_back(job);
  });
  return Unique(over);
}

std::vector<std::int64_t> FleetStore::JobsToMerge(std::int64_t now, std::int64_t stale_seconds) {
  std::vector<std::int64_t> out;
  storage_.Transact([&](SqlTx& tx) {
    out = Ints(Q(tx, "SELECT j.id FROM fleet_jobs j WHERE (j.merge_state = 'open' OR (j.merge_state = 'merging'"
                     " AND j.merge_claimed_at < $1)) AND NOT EXISTS (SELECT 1 FROM fleet_tasks t WHERE t.job_id = j.id"
                     " AND t.state IN ('queued', 'running')) ORDER BY j.id",
                 {now - stale_seconds}));
  });
  return out;
}

bool FleetStore::ClaimMerge(std::int64_t job, std::int64_t now, std::int64_t stale_seconds) {
  bool claimed = false;
  storage_.Transact([&](SqlTx& tx) {
    auto r = Q(tx, "UPDATE fleet_jobs SET merge_state = 'merging', merge_claimed_at = $2 WHERE id = $1"
                   " AND (merge_state = 'open' OR (merge_state = 'merging' AND merge_claimed_at < $3))"
                   " AND NOT EXISTS (SELECT 1 FROM fleet_tasks t WHERE t.job_id = $1 AND t.state IN ('queued', 'running'))",
               {job, now, now - stale_seconds});
    claimed = r.affected > 0;
  });
  return claimed;
}

std::vector<std::pair<std::string, std::string>> FleetStore::DoneResults(std::int64_t job) {
  std::vector<std::pair<std::string, std::string>> out;
  storage_.Transact([&](SqlTx& tx) {
    out.clear();
    for (const auto& r : Q(tx, "SELECT machine, result_xml FROM fleet_tasks WHERE job_id = $1 AND state = 'done'"
                               " ORDER BY machine, id", {job}).rows)
      out.emplace_back(r.Text(0), r.Text(1));
  });
  return out;
}

void FleetStore::FinishMerge(std::int64_t job, const std::string& result_id, const std::string& note) {
  storage_.Transact([&](SqlTx& tx) {
    Q(tx, "UPDATE fleet_jobs SET merge_state = $2, result_id = $3, note = $4 WHERE id = $1",
      {job, result_id.empty() ? "failed" : "merged", result_id, note.substr(0, 2000)});
  });
}

std::optional<JobRow> FleetStore::Job(std::int64_t id) {
  std::optional<JobRow> out;
  storage_.Transact([&](SqlTx& tx) {
    out.reset();
    auto r = Q(tx, std::string("SELECT ") + kJobColumns + " FROM fleet_jobs WHERE id = $1", {id});
    if (r.rows.empty()) return;
    JobRow j = JobOf(r.rows[0]);
    for (const auto& t : Q(tx, std::string("SELECT ") + kTaskColumns + " FROM fleet_tasks WHERE job_id = $1 ORDER BY machine, id",
                           {id}).rows)
      j.tasks.push_back(TaskOf(t));
    out = std::move(j);
  });
  return out;
}

std::vector<JobRow> FleetStore::RecentJobs(int limit) {
  std::vector<JobRow> out;
  storage_.Transact([&](SqlTx& tx) {
    out.clear();
    for (const auto& r : Q(tx, std::string("SELECT ") + kJobColumns + " FROM fleet_jobs ORDER BY id DESC LIMIT $1",
                           {static_cast<std::int64_t>(limit)}).rows)
      out.push_back(JobOf(r));
    for (auto& j : out)
      for (const auto& t : Q(tx, std::string("SELECT ") + kTaskColumns + " FROM fleet_tasks WHERE job_id = $1 ORDER BY machine, id",
                             {j.id}).rows)
        j.tasks.push_back(TaskOf(t));
  });
  return out;
}

std::vector<MachineRow> FleetStore::Machines() {
  std::vector<MachineRow> out;
  storage_.Transact([&](SqlTx& tx) {
    out.clear();
    for (const auto& r : Q(tx, "SELECT m.name, m.created_at, m.last_seen, m.hardware, m.software, m.tags, m.agent_version,"
                               " t.id, t.job_id, t.progress FROM fleet_machines m LEFT JOIN fleet_tasks t"
                               " ON t.machine = m.name AND t.state = 'running' ORDER BY m.name, t.id").rows) {
      if (!out.empty() && out.back().name == r.Text(0)) continue;
      MachineRow m;
      m.name = r.Text(0);
      m.created_at = r.Int(1);
      m.last_seen = r.Int(2);
      m.hardware = r.Text(3);
      m.software = r.Text(4);
      m.tags = r.Text(5);
      if (m.tags.size() >= 2) m.tags = m.tags.substr(1, m.tags.size() - 2);
      m.agent_version = r.Text(6);
      m.task_id = r.Int(7);
      m.job_id = r.Int(8);
      m.progress = r.Text(9);
      out.push_back(std::move(m));
    }
  });
  return out;
}

std::int64_t FleetStore::CreateSchedule(const ScheduleRow& s) {
  std::int64_t id = 0;
  storage_.Transact([&](SqlTx& tx) {
    auto r = Q(tx, "INSERT INTO fleet_schedules (name, owner, spec, machines, cron, next_fire, created_at)"
                   " VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (name) DO NOTHING RETURNING id",
               {s.name, s.owner, s.spec, s.machines, s.cron, s.next_fire, s.created_at});
    if (r.rows.empty()) throw FleetError{409, "a schedule named '" + s.name + "' exists already"};
    id = r.rows[0].Int(0);
  });
  return id;
}

std::vector<ScheduleRow> FleetStore::Schedules() {
  std::vector<ScheduleRow> out;
  storage_.Transact([&](SqlTx& tx) {
    out.clear();
    for (const auto& r : Q(tx, std::string("SELECT ") + kScheduleColumns + " FROM fleet_schedules ORDER BY name").rows)
      out.push_back(ScheduleOf(r));
  });
  return out;
}

std::optional<ScheduleRow> FleetStore::Schedule(const std::string& name) {
  std::optional<ScheduleRow> out;
  storage_.Transact([&](SqlTx& tx) {
    auto r = Q(tx, std::string("SELECT ") + kScheduleColumns + " FROM fleet_schedules WHERE name = $1", {name});
    out = r.rows.empty() ? std::nullopt : std::optional<ScheduleRow>(ScheduleOf(r.rows[0]));
  });
  return out;
}

bool FleetStore::DeleteSchedule(const std::string& name) {
  bool deleted = false;
  storage_.Transact([&](SqlTx& tx) { deleted = Q(tx, "DELETE FROM fleet_schedules WHERE name = $1", {name}).affected > 0; });
  return deleted;
}

std::vector<ScheduleRow> FleetStore::DueSchedules(std::int64_t now) {
  std::vector<ScheduleRow> out;
  storage_.Transact([&](SqlTx& tx) {
    out.clear();
    for (const auto& r : Q(tx, std::string("SELECT ") + kScheduleColumns +
                                   " FROM fleet_schedules WHERE cron <> '' AND next_fire > 0 AND next_fire <= $1",
                           {now}).rows)
      out.push_back(ScheduleOf(r));
  });
  return out;
}

std::int64_t FleetStore::FireSchedule(const ScheduleRow& s, const std::vector<std::string>& machines,
                                      const std::string& title, std::int64_t next_fire, std::int64_t now) {
  std::int64_t job = CreateJob(s.owner, s.id, s.next_fire, title, s.spec, machines, now);
  storage_.Transact([&](SqlTx& tx) {
    Q(tx, "UPDATE fleet_schedules SET next_fire = $3 WHERE id = $1 AND next_fire = $2", {s.id, s.next_fire, next_fire});
  });
  return job;
}

void FleetStore::SetNextFire(std::int64_t schedule, std::int64_t next_fire) {
  storage_.Transact([&](SqlTx& tx) { Q(tx, "UPDATE fleet_schedules SET next_fire = $2 WHERE id = $1", {schedule, next_fire}); });
}

std::vector<HistoryRow> FleetStore::History(const std::string& machine, bool flagged_only, int limit) {
  std::vector<HistoryRow> out;
  storage_.Transact([&](SqlTx& tx) {
    out.clear();
    for (const auto& r : Q(tx, std::string("SELECT ") + kHistoryColumns + " FROM fleet_history WHERE machine = $1" +
                                   (flagged_only ? " AND verdict IS NOT NULL AND verdict <> 0" : "") +
                                   " ORDER BY measured_at, id LIMIT $2",
                           {machine, static_cast<std::int64_t>(limit)}).rows)
      out.push_back(HistoryOf(r));
  });
  return out;
}

std::vector<HistoryRow> FleetStore::Flags(int limit) {
  std::vector<HistoryRow> out;
  storage_.Transact([&](SqlTx& tx) {
    out.clear();
    for (const auto& r : Q(tx, std::string("SELECT ") + kHistoryColumns +
                                   " FROM fleet_history WHERE verdict IS NOT NULL AND verdict <> 0"
                                   " ORDER BY measured_at DESC, id DESC LIMIT $1",
                           {static_cast<std::int64_t>(limit)}).rows)
      out.push_back(HistoryOf(r));
  });
  return out;
}

}  // namespace ptsn::server
