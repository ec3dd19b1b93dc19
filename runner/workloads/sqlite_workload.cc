#include "runner/workloads/sqlite_workload.h"

#include <sqlite3.h>
#include <sys/resource.h>

#include <chrono>
#include <set>

#include "runner/common/error.h"
#include "runner/workloads/disk.h"
#include "runner/workloads/clocks.h"
#include "runner/workloads/scratch.h"

namespace ptsn::workloads {
namespace {

using Clock = std::chrono::steady_clock;


class Db {
 public:
  explicit Db(const std::string& path) : path_(path) {
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) Fail("cannot open");
  }
  ~Db() {
    sqlite3_finalize(insert_);
    sqlite3_close(db_);
  }
  void Exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = err ? err : "unknown error";
      sqlite3_free(err);
      throw FileError(path_, "SQLite: " + sql + ": " + msg);
    }
  }
  void Insert(int64_t n, const std::string& payload) {
    if (!insert_ && sqlite3_prepare_v2(db_, "INSERT INTO pts(n, payload) VALUES(?, ?)", -1, &insert_, nullptr) != SQLITE_OK)
      Fail("prepare");
    sqlite3_bind_int64(insert_, 1, n);
    sqlite3_bind_text(insert_, 2, payload.data(), static_cast<int>(payload.size()), SQLITE_STATIC);
    if (sqlite3_step(insert_) != SQLITE_DONE) Fail("insert");
    sqlite3_reset(insert_);
  }
  uint64_t Count() {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, "SELECT COUNT(*) FROM pts", -1, &st, nullptr) != SQLITE_OK) Fail("prepare");
    uint64_t n = sqlite3_step(st) == SQLITE_ROW ? static_cast<uint64_t>(sqlite3_column_int64(st, 0)) : 0;
    sqlite3_finalize(st);
    return n;
  }

 private:
  [[noreturn]] void Fail(const std::string& what) { throw FileError(path_, "SQLite " + what + ": " + sqlite3_errmsg(db_)); }
  std::string path_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* insert_ = nullptr;
};

}  // namespace

SqliteStats RunSqliteInserts(const SqliteOptions& o) {
  static const std::set<std::string> journals = {"delete", "wal", "truncate", "persist", "memory", "off"};
  static const std::set<std::string> syncs = {"full", "normal", "off", "extra"};
  if (!journals.count(o.journal)) throw Error("--journal: '" + o.journal + "' is not one of delete, wal, truncate, persist, memory, off");
  if (!syncs.count(o.synchronous)) throw Error("--synchronous: '" + o.synchronous + "' is not one of full, normal, off, extra");
  if (o.rows < 1 || o.rows_per_transaction < 1) throw Error("--rows and --rows-per-transaction must be at least 1");
  InterruptGuard guard;
  ScratchDir scratch(o.dir, o.rows * (o.payload_bytes + 64) * 2, "sqlite");
  SqliteStats s;
  {
    Db db(scratch.File("bench.db"));
    db.Exec("PRAGMA journal_mode=" + o.journal);
    db.Exec("PRAGMA synchronous=" + o.synchronous);
    db.Exec("CREATE TABLE pts(id INTEGER PRIMARY KEY, n INTEGER, payload TEXT)");
    Rng rng(7);
    std::string payload(o.payload_bytes, 'x');
    static const char kAlphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    double cpu0 = ProcessCpuSeconds();
    auto start = Clock::now();
    for (uint64_t row = 0; row < o.rows && !Interrupted();) {
      auto t0 = Clock::now();
      db.Exec("BEGIN");
      for (uint64_t k = 0; k < o.rows_per_transaction && row < o.rows; ++k, ++row) {
        for (auto& c : payload) c = kAlphabet[rng.Below(sizeof kAlphabet - 1)];
        db.Insert(static_cast<int64_t>(row), payload);
        ++s.rows_inserted;
      }
      db.Exec("COMMIT");
      ++s.transactions;
      s.latency.Record(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count()));
    }
    s.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    s.cpu_seconds = ProcessCpuSeconds() - cpu0;
    ThrowIfInterrupted();
    s.rows_in_table = db.Count();
  }
  return s;
}

Report SqliteReport(const SqliteOptions& o, const SqliteStats& s) {
  Report r;
  double secs = s.seconds > 0 ? s.seconds : 1e-9;
  r.Text("workload", "Workload", "sqlite");
  r.Integer("rows", "Rows", static_cast<int64_t>(s.rows_inserted));
  r.Integer("rows_per_transaction", "Rows per transaction", static_cast<int64_t>(o.rows_per_transaction));
  r.Text("journal", "Journal", o.journal);
  r.Text("synchronous", "Synchronous", o.synchronous);
  r.Integer("transactions", "Transactions", static_cast<int64_t>(s.transactions));
  r.Integer("rows_in_table", "", static_cast<int64_t>(s.rows_in_table));
  r.Number("seconds", "Time", s.seconds, "s");
  r.Number("tps", "Transactions per second", static_cast<double>(s.transactions) / secs, "TPS");
  r.Number("rows_per_s", "Inserts", static_cast<double>(s.rows_inserted) / secs, "rows/s");
  r.Number("cpu_percent", "CPU", 100.0 * s.cpu_seconds / secs, "%");
  AddLatencyFields(r, s.latency);
  return r;
}

}  // namespace ptsn::workloads
