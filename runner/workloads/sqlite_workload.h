// SQLite insert transactions through libsqlite3 (what pts/sqlite measures with the sqlite3
// shell): a fresh database in the scratch directory, N rows inserted, K rows per transaction,
// each commit durable per the synchronous/journal settings.
#pragma once

#include <cstdint>
#include <string>

#include "runner/workloads/latency.h"
#include "runner/workloads/report.h"

namespace ptsn::workloads {

struct SqliteOptions {
  std::string dir;
  uint64_t rows = 1000;
  uint64_t rows_per_transaction = 1;
  std::string journal = "delete";      // SQLite's default; or wal, truncate, memory, off
  std::string synchronous = "full";    // full | normal | off
  uint64_t payload_bytes = 100;
};

struct SqliteStats {
  uint64_t rows_inserted = 0, transactions = 0;
  uint64_t rows_in_table = 0;  // SELECT COUNT(*) after the run
  double seconds = 0, cpu_seconds = 0;
  LatencyHistogram latency;    // per transaction (BEGIN .. COMMIT)
};

SqliteStats RunSqliteInserts(const SqliteOptions& options);
Report SqliteReport(const SqliteOptions& options, const SqliteStats& stats);

}  // namespace ptsn::workloads
