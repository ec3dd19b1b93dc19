// SQLite back end: WAL so readers never wait for the writer, synchronous=FULL so an
// acknowledged upload survives a crash of the process or the machine (its cost, one flush per
// commit, is shared by a whole batch of uploads: InsertBatch), one connection per thread at a
// time (a small pool) with its statements prepared once, BEGIN IMMEDIATE for writes with a busy
// timeout.
// Search uses an FTS5 trigram index of the searched columns (substring matches, as LIKE '%x%',
// found from the index instead of a scan of every row); terms under three characters, which a
// trigram cannot index, fall back to LIKE.
// A full disk: a write failing with SQLITE_FULL gives up the disk reserve (disk_reserve.h),
// checkpoints the WAL into the database and truncates it (the WAL holds many copies of the same
// pages and never shrinks by itself), then takes the reserve back; so freeing about what the
// next write needs lets it through, without a restart. Without the reserve that checkpoint had
// no room to grow the database, and recovery needed the whole WAL's size freed.
// Checkpoints (copying the WAL into the database file, with a flush of each) run on a thread of
// their own: SQLite's automatic checkpoint ran in the committing thread and held up one batch
// for ~30 ms every ~1,000 WAL frames. That thread cannot reset the WAL while batches keep coming
// (a reset needs every frame copied when a write begins), so once the WAL is long the next
// batch first copies the few frames left itself, and the WAL then starts over.
#include <sqlite3.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "server/store/disk_reserve.h"
#include "server/store/storage.h"
#include "server/store/storage_sql.h"

namespace ptsn::server {

namespace {

// A failure with SQLite's error code (SQLITE_FULL: the disk is full).
struct SqliteError : StorageError {
  SqliteError(const std::string& what, int code) : StorageError(what), code(code) {}
  int code;
};

// A connection and its prepared statements, keyed by the SQL text's address (the kXxx constants).
struct Db {
  sqlite3* handle = nullptr;
  std::map<const char*, sqlite3_stmt*> prepared;
  std::map<std::string, sqlite3_stmt*> prepared_text;  // SqlTx statements, keyed by their text
  ~Db() {
    for (auto& [sql, stmt] : prepared) sqlite3_finalize(stmt);
    for (auto& [sql, stmt] : prepared_text) sqlite3_finalize(stmt);
    sqlite3_close_v2(handle);
  }
};

// A prepared statement in use; reset (not finalized) when done, so it is ready for the next
// use and never left running (a running statement would block COMMIT).
class Stmt {
 public:
  Stmt(Db& db, const char* sql) : db_(db) {
    auto it = db.prepared.find(sql);
    if (it != db.prepared.end()) {
      stmt_ = it->second;
      return;
    }
    if (sqlite3_prepare_v3(db.handle, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr) != SQLITE_OK) Fail("prepare");
    db.prepared.emplace(sql, stmt_);
  }
  ~Stmt() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  Stmt& Text(int i, const std::string& v) {
    Check(sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
    return *this;
  }
  Stmt& Blob(int i, const std::optional<std::string>& v) {
    Check(v ? sqlite3_bind_blob(stmt_, i, v->data(), static_cast<int>(v->size()), SQLITE_TRANSIENT)
            : sqlite3_bind_null(stmt_, i));
    return *this;
  }
  // Bound without a copy: `v` must outlive the statement's use.
  Stmt& BlobRef(int i, std::string_view v) {
    Check(sqlite3_bind_blob(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC));
    return *this;
  }
  Stmt& Int(int i, int64_t v) {
    Check(sqlite3_bind_int64(stmt_, i, v));
    return *this;
  }
  bool Step() {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    Fail("step");
    return false;
  }
  std::string ColText(int i) {
    auto p = reinterpret_cast<const char*>(sqlite3_column_blob(stmt_, i));
    return p ? std::string(p, sqlite3_column_bytes(stmt_, i)) : std::string();
  }
  std::optional<std::string> ColBlob(int i) {
    if (sqlite3_column_type(stmt_, i) == SQLITE_NULL) return std::nullopt;
    return ColText(i);
  }
  int64_t ColInt(int i) { return sqlite3_column_int64(stmt_, i); }

 private:
  void Check(int rc) {
    if (rc != SQLITE_OK) Fail("bind");
  }
  [[noreturn]] void Fail(const char* what) {
    throw SqliteError(std::string("sqlite ") + what + ": " + sqlite3_errmsg(db_.handle), sqlite3_extended_errcode(db_.handle));
  }
  Db& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

void Exec(Db& db, const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db.handle, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    throw SqliteError("sqlite: " + msg + " (in: " + sql.substr(0, 60) + ")", sqlite3_extended_errcode(db.handle));
  }
}

// Rolls back unless committed, so an exception never leaves a transaction open on a pooled connection.
class Transaction {
 public:
  explicit Transaction(Db& db) : db_(db) { Exec(db_, "BEGIN IMMEDIATE"); }
  ~Transaction() {
    if (!done_) sqlite3_exec(db_.handle, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  void Commit() {
    Exec(db_, "COMMIT");
    done_ = true;
  }

 private:
  Db& db_;
  bool done_ = false;
};

// SqlTx on one pooled connection inside Transact's transaction.
class SqliteTx : public SqlTx {
 public:
  explicit SqliteTx(Db& db) : db_(db) {}
  SqlResult Exec(const std::string& sql, const std::vector<SqlArg>& args) override {
    sqlite3_stmt* stmt = nullptr;
    if (auto it = db_.prepared_text.find(sql); it != db_.prepared_text.end()) {
      stmt = it->second;
    } else {
      if (sqlite3_prepare_v3(db_.handle, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr) != SQLITE_OK)
        Fail("prepare", sql);
      db_.prepared_text.emplace(sql, stmt);
    }
    struct Reset {
      sqlite3_stmt* s;
      ~Reset() {
        sqlite3_reset(s);
        sqlite3_clear_bindings(s);
      }
    } reset{stmt};
    for (size_t i = 0; i < args.size(); ++i) {
      // "$N" is a named parameter to SQLite, numbered by first appearance: bound by its name.
      const int at = sqlite3_bind_parameter_index(stmt, ("$" + std::to_string(i + 1)).c_str());
      if (at == 0) continue;  // not used by this statement
      int rc = SQLITE_OK;
      if (std::holds_alternative<std::int64_t>(args[i])) rc = sqlite3_bind_int64(stmt, at, std::get<std::int64_t>(args[i]));
      else if (std::holds_alternative<std::string>(args[i])) {
        const auto& v = std::get<std::string>(args[i]);
        rc = sqlite3_bind_text(stmt, at, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
      } else rc = sqlite3_bind_null(stmt, at);
      if (rc != SQLITE_OK) Fail("bind", sql);
    }
    SqlResult out;
    for (;;) {
      int rc = sqlite3_step(stmt);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) Fail("step", sql);
      SqlRow row;
      const int n = sqlite3_column_count(stmt);
      row.cols.reserve(n);
      for (int c = 0; c < n; ++c) {
        if (sqlite3_column_type(stmt, c) == SQLITE_NULL) {
          row.cols.emplace_back(std::nullopt);
          continue;
        }
        auto p = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
        row.cols.emplace_back(std::string(p ? p : "", sqlite3_column_bytes(stmt, c)));
      }
      out.rows.push_back(std::move(row));
    }
    out.affected = sqlite3_changes(db_.handle);
    return out;
  }
  SqlDialect dialect() const override { return SqlDialect::kSqlite; }

 private:
  [[noreturn]] void Fail(const char* what, const std::string& sql) {
    throw StorageError{std::string("sqlite ") + what + ": " + sqlite3_errmsg(db_.handle) + " (in: " + sql.substr(0, 80) + ")"};
  }
  Db& db_;
};

// The trigram index of what Search looks in, kept by triggers (external content: the text is
// not stored twice).
constexpr const char* kSearchIndex[] = {
    "CREATE VIRTUAL TABLE IF NOT EXISTS results_fts USING fts5(title, description, tests, systems, hardware,"
    " content='results', content_rowid='rowid', tokenize='trigram')",
    "CREATE TRIGGER IF NOT EXISTS results_fts_insert AFTER INSERT ON results BEGIN"
    " INSERT INTO results_fts (rowid, title, description, tests, systems, hardware)"
    " VALUES (new.rowid, new.title, new.description, new.tests, new.systems, new.hardware); END",
    "CREATE TRIGGER IF NOT EXISTS results_fts_delete AFTER DELETE ON results BEGIN"
    " INSERT INTO results_fts (results_fts, rowid, title, description, tests, systems, hardware)"
    " VALUES ('delete', old.rowid, old.title, old.description, old.tests, old.systems, old.hardware); END",
};

// Newest first is storage order here (rowid; uploaded_at is taken just before the commit, so the
// two agree), which both the index and the table give without a sort: a search stops as soon as
// it has its page, whether its terms match ten rows or most of them.
// Without an index term: the table from its end, the short terms as LIKE patterns ($1..$3),
// $4 limit, $5 offset.
constexpr const char* kScanSearch =
    "SELECT id, owner, title, uploaded_at, system_count, result_count, systems, tests FROM results"
    " WHERE unlisted = 0"
    " AND ($1 = '' OR lower(title) LIKE $1 ESCAPE '!' OR lower(description) LIKE $1 ESCAPE '!')"
    " AND ($2 = '' OR lower(tests) LIKE $2 ESCAPE '!')"
    " AND ($3 = '' OR lower(systems) LIKE $3 ESCAPE '!' OR lower(hardware) LIKE $3 ESCAPE '!')"
    " ORDER BY rowid DESC LIMIT $4 OFFSET $5";
// With one: the index's matches from the newest ($1 the MATCH expression), each row then read
// and checked (listed, short terms $2..$4) by kSearchRow.
constexpr const char* kIndexMatches = "SELECT rowid FROM results_fts WHERE results_fts MATCH $1 ORDER BY rowid DESC";
constexpr const char* kSearchRow =
    "SELECT id, owner, title, uploaded_at, system_count, result_count, systems, tests FROM results"
    " WHERE rowid = $1 AND unlisted = 0"
    " AND ($2 = '' OR lower(title) LIKE $2 ESCAPE '!' OR lower(description) LIKE $2 ESCAPE '!')"
    " AND ($3 = '' OR lower(tests) LIKE $3 ESCAPE '!')"
    " AND ($4 = '' OR lower(systems) LIKE $4 ESCAPE '!' OR lower(hardware) LIKE $4 ESCAPE '!')";

// Characters (UTF-8 code points) in `s`: a trigram is three of them.
size_t CodePoints(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// Prepared once per connection like the other statements (Exec compiled them at every upload).
constexpr const char* kSavepoint = "SAVEPOINT one_insert";
constexpr const char* kRelease = "RELEASE one_insert";

// WAL lengths in frames (pages): a background checkpoint once this many frames were added since
// the last one, and a reset of the WAL (see above) once it is this long.
constexpr int kCheckpointFrames = 1000;  // SQLite's own default for its automatic checkpoint
constexpr int kResetFrames = 4000;

class SqliteStorage : public Storage {
 public:
  SqliteStorage(std::string path, std::uint64_t reserve_bytes)
      : path_(std::move(path)), pool_(8), reserve_(path_ + "-reserve", reserve_bytes) {
    auto db = Open();
    reserve_.Hold();  // when it does not fit, the server runs without one (WritableAgain says so)
    for (const char* ddl : sql::kSchema) Exec(*db, sql::WithBlobType(ddl, "BLOB"));
    bool has_key;
    {
      Stmt q(*db, "SELECT 1 FROM pragma_table_info('results') WHERE name = 'upload_key'");
      has_key = q.Step();
    }
    if (!has_key) Exec(*db, std::string("ALTER TABLE results ADD COLUMN ") + sql::kUploadKeyColumn + " TEXT");
    bool has_index;
    {
      Stmt q(*db, "SELECT 1 FROM sqlite_master WHERE name = 'results_fts'");
      has_index = q.Step();
    }
    for (const char* ddl : kSearchIndex) Exec(*db, ddl);
    if (!has_index) Exec(*db, "INSERT INTO results_fts(results_fts) VALUES ('rebuild')");  // rows stored before it
    checkpointer_ = std::thread([this] { CheckpointLoop(); });
  }
  ~SqliteStorage() override {
    {
      std::lock_guard lock(ck_mu_);
      ck_stop_ = true;
    }
    ck_cv_.notify_one();
    checkpointer_.join();
  }

  void InsertBatch(std::vector<InsertRequest*>& batch) override {
    auto db = Lease();
    const bool behind = wal_frames_.load(std::memory_order_relaxed) >= 2 * kResetFrames;
    if (reset_wanted_.exchange(false) || behind) {
      // Copies what the checkpoint thread left (the batches written while it ran), so that this
      // transaction finds the WAL fully copied and writes it from the start again. Also when the
      // checkpoint thread falls behind (a backstop: the WAL then stays below twice kResetFrames):
      // then RESTART, which waits (busy timeout) for the checkpoint thread and for readers
      // instead of giving up at once as PASSIVE does; under load PASSIVE lost that race and the
      // WAL grew past 41 MB in SqliteCheckpoints.TheWalIsResetUnderBackToBackBatches.
      int log = 0, copied = 0;
      sqlite3_wal_checkpoint_v2(db->handle, "main", behind ? SQLITE_CHECKPOINT_RESTART : SQLITE_CHECKPOINT_PASSIVE, &log,
                                &copied);
    }
    WriteOrRecover(*db, [&] {
      Transaction tx(*db);
      for (InsertRequest* req : batch) {
        req->error.clear();  // from a first attempt the disk was too full for
        Stmt(*db, kSavepoint).Step();
        try {
          req->id = InsertOne(*db, *req->result, req->day_key, req->make_id, req->dedupe);
          Stmt(*db, kRelease).Step();
        } catch (const SqliteError& e) {
          if ((e.code & 0xff) == SQLITE_FULL) throw;  // the whole batch fails: nothing more fits
          req->id.clear();
          req->error = e.what();
          Exec(*db, "ROLLBACK TO one_insert");
          Exec(*db, "RELEASE one_insert");
        }
      }
      tx.Commit();
    });
  }

  // Runs the write `fn` (one transaction). When it fails for lack of space (SQLITE_FULL; the
  // transaction rolled back), the reserve goes, the WAL is copied into the database and cut to
  // nothing, the reserve is taken back, and `fn` runs once more: cutting the WAL often made
  // the room. A second failure is rethrown. The cut fails quietly when even that does not fit;
  // the next failing write tries again.
  template <typename Fn>
  void WriteOrRecover(Db& db, Fn&& fn) {
    {
      std::lock_guard lock(reserve_mu_);
      if (!reserve_.held()) reserve_.Hold();  // room freed since: taken before anything else uses it
    }
    for (int attempt = 1;; ++attempt) {
      try {
        fn();
        // Not cleared by any write that commits: the fleet's sweep commits every second and
        // often writes nothing, which made /healthz say "ok" while uploads still found the disk
        // full (a CI flake of AbuseTest.AFullDiskDegradesAndRecoversWhenSpaceIsFreed).
        if (disk_full_ && !RoomForAWrite()) return;
        disk_full_ = false;
        return;
      } catch (const SqliteError& e) {
        if ((e.code & 0xff) != SQLITE_FULL) throw;
        disk_full_ = true;
        {
          std::lock_guard lock(reserve_mu_);
          reserve_.GiveUp();
          int log = 0, copied = 0;
          sqlite3_wal_checkpoint_v2(db.handle, "main", SQLITE_CHECKPOINT_TRUNCATE, &log, &copied);
          reserve_.Hold();
        }
        if (attempt == 2) throw;
      }
    }
  }

  std::optional<bool> WritableAgain() override {
    if (!disk_full_) return true;
    {
      std::lock_guard lock(reserve_mu_);
      if (!reserve_.held() && !reserve_.Hold()) return false;
    }
    return RoomForAWrite();
  }

  // Room for a write of a typical upload, its copy into the database beside it.
  bool RoomForAWrite() const {
    try {
      return FreeBytes(path_) >= kRoomForAWrite;
    } catch (const Error&) {
      return false;  // cannot tell: degraded until a write finds room
    }
  }

  std::string InsertOne(Db& db, const NewResult& r, const std::string& day_key, const IdMaker& make_id,
                        const Dedupe& dedupe) {
    if (!dedupe.key.empty()) {
      Stmt dup(db, sql::kFindDuplicate);
      dup.Text(1, r.xml_sha1).Text(2, dedupe.key).Int(3, dedupe.since);
      if (dup.Step()) return dup.ColText(0);
    }
    int64_t sequence;
    {
      Stmt seq(db, sql::kNextSequence);
      seq.Text(1, day_key);
      if (!seq.Step()) throw StorageError{"sqlite: the ID counter returned no row"};
      sequence = seq.ColInt(0);
    }
    std::string id = make_id(sequence);
    std::string scratch;
    const std::string_view xml = sql::StoredXml(r, scratch);
    Stmt ins(db, sql::kInsertResult);
    ins.Text(1, id).Text(2, r.owner).Int(3, r.unlisted ? 1 : 0).Text(4, r.summary.title);
    ins.Text(5, r.summary.description).Int(6, r.uploaded_at).BlobRef(7, xml).Text(8, r.xml_sha1);
    if (r.system_logs_zip) ins.BlobRef(9, *r.system_logs_zip); else ins.Blob(9, std::nullopt);
    ins.Text(10, r.local_file_name);
    ins.Int(11, static_cast<int64_t>(r.summary.systems.size())).Int(12, static_cast<int64_t>(r.summary.tests.size()));
    ins.Text(13, sql::JoinSummary(r.summary.systems)).Text(14, sql::JoinSummary(r.summary.hardware));
    ins.Text(15, sql::JoinSummary(r.summary.tests)).Text(16, dedupe.key);
    ins.Step();
    return id;
  }

  std::optional<StoredResult> Get(const std::string& id) override {
    auto db = Lease();
    Stmt q(*db, sql::kGetResult);
    q.Text(1, id);
    if (!q.Step()) return std::nullopt;
    StoredResult r;
    r.id = q.ColText(0);
    r.owner = q.ColText(1);
    r.unlisted = q.ColInt(2) != 0;
    r.xml = sql::XmlFromStored(q.ColText(3));
    r.xml_sha1 = q.ColText(4);
    r.system_logs_zip = q.ColBlob(5);
    r.title = q.ColText(6);
    r.uploaded_at = q.ColInt(7);
    return r;
  }

  std::vector<ListedResult> Search(const SearchQuery& query) override {
    // Terms of three characters or more go to the trigram index (one MATCH for all of them);
    // shorter ones are LIKE patterns on the rows the index (or, without any, the time order) gives.
    std::string match;
    auto indexed = [&](const std::string& term, const char* columns) {
      if (CodePoints(term) < 3) return;
      std::string phrase = "\"";
      for (char c : term) phrase += c == '"' ? std::string("\"\"") : std::string(1, c);
      match += (match.empty() ? "" : " AND ") + std::string(columns) + " : " + phrase + "\"";
    };
    auto like = [](const std::string& term) { return CodePoints(term) < 3 ? sql::ContainsPattern(term) : std::string(); };
    indexed(query.text, "{title description}");
    indexed(query.test, "{tests}");
    indexed(query.system, "{systems hardware}");
    auto db = Lease();
    std::vector<ListedResult> out;
    auto listed = [](Stmt& q) {
      return ListedResult{q.ColText(0), q.ColText(1), q.ColText(2), q.ColInt(3), static_cast<int>(q.ColInt(4)),
                          static_cast<int>(q.ColInt(5)), q.ColText(6), q.ColText(7)};
    };
    if (match.empty()) {
      Stmt q(*db, kScanSearch);
      q.Text(1, like(query.text)).Text(2, like(query.test)).Text(3, like(query.system));
      q.Int(4, query.limit).Int(5, query.offset);
      while (q.Step()) out.push_back(listed(q));
      return out;
    }
    Stmt matches(*db, kIndexMatches);
    matches.Text(1, match);
    const std::string text = like(query.text), test = like(query.test), system = like(query.system);
    for (int skip = query.offset; static_cast<int>(out.size()) < query.limit && matches.Step();) {
      Stmt row(*db, kSearchRow);
      row.Int(1, matches.ColInt(0)).Text(2, text).Text(3, test).Text(4, system);
      if (!row.Step()) continue;
      if (skip > 0) --skip;
      else out.push_back(listed(row));
    }
    return out;
  }

  DeleteOutcome Delete(const std::string& id, const std::string& owner) override {
    auto db = Lease();
    Transaction tx(*db);
    {
      Stmt who(*db, sql::kOwnerOf);
      who.Text(1, id);
      if (!who.Step()) return DeleteOutcome::kNotFound;
      if (who.ColText(0) != owner) return DeleteOutcome::kForbidden;
    }
    Stmt del(*db, sql::kDelete);
    del.Text(1, id).Text(2, owner).Step();
    tx.Commit();
    return DeleteOutcome::kDeleted;
  }

  void AddToken(const std::string& user, const std::string& token_sha256) override {
    auto db = Lease();
    Stmt q(*db, sql::kAddToken);
    q.Text(1, token_sha256).Text(2, user).Int(3, std::time(nullptr)).Step();
  }

  std::optional<std::string> UserForToken(const std::string& token_sha256) override {
    auto db = Lease();
    Stmt q(*db, sql::kUserForToken);
    q.Text(1, token_sha256);
    if (!q.Step()) return std::nullopt;
    return q.ColText(0);
  }

  bool Healthy() override {
    try {
      auto db = Lease();
      Stmt q(*db, "SELECT 1");
      return q.Step();
    } catch (const StorageError&) {
      return false;
    }
  }

  std::string Describe() const override { return "sqlite:" + path_; }

  void Transact(const std::function<void(SqlTx&)>& fn) override {
    auto db = Lease();
    WriteOrRecover(*db, [&] {
      Transaction tx(*db);
      SqliteTx session(*db);
      fn(session);
      tx.Commit();
    });
  }

 private:
  std::unique_ptr<Db> Open() {
    auto db = std::make_unique<Db>();
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(path_.c_str(), &db->handle, flags, nullptr) != SQLITE_OK)
      throw StorageError{path_ + ": cannot open SQLite database: " + sqlite3_errmsg(db->handle)};
    sqlite3_busy_timeout(db->handle, 10000);
    Exec(*db, "PRAGMA journal_mode=WAL");
    Exec(*db, "PRAGMA synchronous=FULL");
    Exec(*db, "PRAGMA foreign_keys=ON");
    // A WAL that started over is cut back to this size (it otherwise keeps its longest length).
    Exec(*db, "PRAGMA journal_size_limit=8388608");
    // Replaces SQLite's automatic checkpoint on this connection (see the top of this file).
    sqlite3_wal_hook(db->handle, &SqliteStorage::OnWalCommit, this);
    return db;
  }
  // After each commit, with the WAL's length in frames.
  static int OnWalCommit(void* self_ptr, sqlite3*, const char*, int frames) {
    auto* self = static_cast<SqliteStorage*>(self_ptr);
    self->wal_frames_.store(frames, std::memory_order_relaxed);
    int copied = self->copied_frames_.load(std::memory_order_relaxed);
    if (frames < copied) copied = 0;  // the WAL started over
    if (frames - copied >= kCheckpointFrames) {
      {
        std::lock_guard lock(self->ck_mu_);
        self->ck_wanted_ = true;
      }
      self->ck_cv_.notify_one();
    }
    return SQLITE_OK;
  }
  void CheckpointLoop() {
    std::unique_ptr<Db> db;
    std::unique_lock lock(ck_mu_);
    for (;;) {
      ck_cv_.wait(lock, [&] { return ck_stop_ || ck_wanted_; });
      if (ck_stop_) return;
      ck_wanted_ = false;
      lock.unlock();
      try {
        if (!db) db = Open();
        int log = 0, copied = 0;
        if (sqlite3_wal_checkpoint_v2(db->handle, "main", SQLITE_CHECKPOINT_PASSIVE, &log, &copied) == SQLITE_OK) {
          copied_frames_.store(copied, std::memory_order_relaxed);
          if (log >= kResetFrames) reset_wanted_.store(true);
        }
      } catch (const StorageError&) {
        db.reset();  // tried again at the next wake; SQLite's own checks keep the WAL correct meanwhile
      }
      lock.lock();
    }
  }
  sql::Pool<Db>::Lease Lease() {
    return pool_.Acquire([this] { return Open(); });
  }

  std::string path_;
  sql::Pool<Db> pool_;
  std::mutex ck_mu_;
  std::condition_variable ck_cv_;
  bool ck_wanted_ = false, ck_stop_ = false;
  std::atomic<int> copied_frames_{0};   // WAL frames the last background checkpoint had copied
  std::atomic<bool> reset_wanted_{false};
  std::atomic<int> wal_frames_{0};      // the WAL's length after the last commit
  std::thread checkpointer_;
  std::mutex reserve_mu_;
  DiskReserve reserve_;
  std::atomic<bool> disk_full_{false};  // the last write failed for lack of space
  static constexpr std::uint64_t kRoomForAWrite = 1 << 20;
};

}  // namespace

std::unique_ptr<Storage> OpenSqliteStorage(const std::string& path, std::uint64_t disk_reserve) {
  return std::make_unique<SqliteStorage>(path, disk_reserve);
}

}  // namespace ptsn::server
