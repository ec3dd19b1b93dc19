// The fleet's tables (machines, schedules, jobs, tasks, history), portable SQL for both back
// ends (ForDialect fills {serial}/{skip_locked}). Created at start-up with IF NOT EXISTS, as the
// results tables are; a later column is added by an ALTER in kFleetMigrations guarded by a look
// at the table, never by rewriting these.
#pragma once

namespace ptsn::server::fleet_sql {

inline constexpr const char* kSchema[] = {
    // One row per agent: its token (hash), what it last said about itself, when it was last heard.
    "CREATE TABLE IF NOT EXISTS fleet_machines ("
    " name TEXT PRIMARY KEY, token_sha256 TEXT NOT NULL UNIQUE, created_at BIGINT NOT NULL,"
    " last_seen BIGINT NOT NULL DEFAULT 0, session TEXT NOT NULL DEFAULT '', hardware TEXT NOT NULL DEFAULT '',"
    " software TEXT NOT NULL DEFAULT '', tags TEXT NOT NULL DEFAULT '', agent_version TEXT NOT NULL DEFAULT '')",
    // What to run where and when; cron '' = only when fired by hand.
    "CREATE TABLE IF NOT EXISTS fleet_schedules ("
    " id {serial}, name TEXT NOT NULL UNIQUE, owner TEXT NOT NULL, spec TEXT NOT NULL, machines TEXT NOT NULL,"
    " cron TEXT NOT NULL, next_fire BIGINT NOT NULL, created_at BIGINT NOT NULL)",
    // One firing of a schedule (or a run-now): one task per machine, one merged result.
    // (schedule_id, fired_for) is unique so that a cron slot fires once however many server
    // processes see it due; a run-now job has no schedule (NULL never equals NULL in UNIQUE).
    "CREATE TABLE IF NOT EXISTS fleet_jobs ("
    " id {serial}, schedule_id BIGINT, fired_for BIGINT NOT NULL, owner TEXT NOT NULL, title TEXT NOT NULL,"
    " spec TEXT NOT NULL, created_at BIGINT NOT NULL, merge_state TEXT NOT NULL DEFAULT 'open',"
    " merge_claimed_at BIGINT NOT NULL DEFAULT 0, result_id TEXT NOT NULL DEFAULT '', note TEXT NOT NULL DEFAULT '',"
    " UNIQUE (schedule_id, fired_for))",
    // state: queued | running | done | failed. A running task holds a lease (lease_expires) for
    // the agent session that took it; lost_at > 0 marks a queued task whose lease was lost.
    "CREATE TABLE IF NOT EXISTS fleet_tasks ("
    " id {serial}, job_id BIGINT NOT NULL, machine TEXT NOT NULL, state TEXT NOT NULL,"
    " attempts INTEGER NOT NULL DEFAULT 0, session TEXT NOT NULL DEFAULT '', lease_expires BIGINT NOT NULL DEFAULT 0,"
    " lost_at BIGINT NOT NULL DEFAULT 0, progress TEXT NOT NULL DEFAULT '', reason TEXT NOT NULL DEFAULT '',"
    " created_at BIGINT NOT NULL, started_at BIGINT NOT NULL DEFAULT 0, finished_at BIGINT NOT NULL DEFAULT 0,"
    " result_sha1 TEXT NOT NULL DEFAULT '', result_xml TEXT)",
    "CREATE INDEX IF NOT EXISTS fleet_tasks_by_machine ON fleet_tasks (machine, state)",
    "CREATE INDEX IF NOT EXISTS fleet_tasks_by_job ON fleet_tasks (job_id)",
    "CREATE INDEX IF NOT EXISTS fleet_tasks_by_state ON fleet_tasks (state, lease_expires)",
    // One row per machine, test and finished task: the series the regressions are judged on.
    // verdict, as the latest judgement of the series has it: -1 a regression starts at this
    // result (a change point), +1 an improvement, 0 none starts here, NULL not judged (too little
    // history, or too recent to start a change). At a change point change_pct is the step,
    // ratio_low/ratio_high its 95 % interval (after / before) and p_value the permutation test's.
    "CREATE TABLE IF NOT EXISTS fleet_history ("
    " id {serial}, machine TEXT NOT NULL, test_key TEXT NOT NULL, label TEXT NOT NULL, scale TEXT NOT NULL,"
    " proportion TEXT NOT NULL, job_id BIGINT NOT NULL, task_id BIGINT NOT NULL, measured_at BIGINT NOT NULL,"
    " n INTEGER NOT NULL, mean DOUBLE PRECISION NOT NULL, ci_low DOUBLE PRECISION NOT NULL,"
    " ci_high DOUBLE PRECISION NOT NULL, trials TEXT NOT NULL, verdict INTEGER, change_pct DOUBLE PRECISION,"
    " baseline_mean DOUBLE PRECISION, ratio_low DOUBLE PRECISION, ratio_high DOUBLE PRECISION,"
    " p_value DOUBLE PRECISION)",
    "CREATE INDEX IF NOT EXISTS fleet_history_by_test ON fleet_history (machine, test_key, measured_at)",
    "CREATE INDEX IF NOT EXISTS fleet_history_flags ON fleet_history (verdict, measured_at)",
};

// Columns added after a table was first released: (table, column, type), each added by an ALTER
// when the table lacks it.
struct AddedColumn {
  const char* table;
  const char* column;
  const char* type;
};
inline constexpr AddedColumn kFleetMigrations[] = {
    {"fleet_history", "ratio_low", "DOUBLE PRECISION"},
    {"fleet_history", "ratio_high", "DOUBLE PRECISION"},
    {"fleet_history", "p_value", "DOUBLE PRECISION"},
};

}  // namespace ptsn::server::fleet_sql
