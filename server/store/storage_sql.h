// SQL shared by both storage back ends. Parameters are written $1, $2, ...: PostgreSQL's form,
// which SQLite also accepts (as named parameters numbered in order of first appearance).
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace ptsn::server {
struct NewResult;
}

namespace ptsn::server::sql {

// Portable DDL: BLOB/BYTEA differs, so the caller substitutes {blob}.
inline constexpr const char* kSchema[] = {
    "CREATE TABLE IF NOT EXISTS results ("
    " id TEXT PRIMARY KEY, owner TEXT NOT NULL, unlisted INTEGER NOT NULL, title TEXT NOT NULL,"
    " description TEXT NOT NULL, uploaded_at BIGINT NOT NULL, xml {blob} NOT NULL, xml_sha1 TEXT NOT NULL,"
    " system_logs {blob}, local_file_name TEXT NOT NULL, system_count INTEGER NOT NULL,"
    " result_count INTEGER NOT NULL, systems TEXT NOT NULL, hardware TEXT NOT NULL, tests TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS results_by_time ON results (uploaded_at)",
    "CREATE INDEX IF NOT EXISTS results_by_sha1 ON results (xml_sha1)",
    "CREATE TABLE IF NOT EXISTS id_counters (day TEXT PRIMARY KEY, n BIGINT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS tokens (token_sha256 TEXT PRIMARY KEY, user_name TEXT NOT NULL,"
    " created_at BIGINT NOT NULL)",
};

inline constexpr const char* kNextSequence =
    "INSERT INTO id_counters (day, n) VALUES ($1, 1) ON CONFLICT (day) DO UPDATE SET n = id_counters.n + 1 "
    "RETURNING n";

// The next `$2` numbers at once: returns the last of them.
inline constexpr const char* kReserveSequences =
    "INSERT INTO id_counters (day, n) VALUES ($1, $2) ON CONFLICT (day) DO UPDATE SET n = id_counters.n + $2 "
    "RETURNING n";

// Added after the first release: the uploader's token hash (Dedupe::key), NULL in older rows.
inline constexpr const char* kUploadKeyColumn = "upload_key";

inline constexpr const char* kInsertResult =
    "INSERT INTO results (id, owner, unlisted, title, description, uploaded_at, xml, xml_sha1, system_logs,"
    " local_file_name, system_count, result_count, systems, hardware, tests, upload_key)"
    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, NULLIF($16, ''))";

// An earlier row of the same file and uploader (Dedupe): $1 xml_sha1, $2 upload_key, $3 since.
inline constexpr const char* kFindDuplicate =
    "SELECT id FROM results WHERE xml_sha1 = $1 AND upload_key = $2 AND uploaded_at >= $3"
    " ORDER BY uploaded_at, id LIMIT 1";

inline constexpr const char* kGetResult =
    "SELECT id, owner, unlisted, xml, xml_sha1, system_logs, title, uploaded_at FROM results WHERE id = $1";

// $1 text, $2 test, $3 system (lower-case LIKE patterns, '' = any), $4 limit, $5 offset.
inline constexpr const char* kSearch =
    "SELECT id, owner, title, uploaded_at, system_count, result_count, systems, tests FROM results"
    " WHERE unlisted = 0"
    " AND ($1 = '' OR lower(title) LIKE $1 ESCAPE '!' OR lower(description) LIKE $1 ESCAPE '!')"
    " AND ($2 = '' OR lower(tests) LIKE $2 ESCAPE '!')"
    " AND ($3 = '' OR lower(systems) LIKE $3 ESCAPE '!' OR lower(hardware) LIKE $3 ESCAPE '!')"
    " ORDER BY uploaded_at DESC, id DESC LIMIT $4 OFFSET $5";

inline constexpr const char* kOwnerOf = "SELECT owner FROM results WHERE id = $1";
inline constexpr const char* kDelete = "DELETE FROM results WHERE id = $1 AND owner = $2";
inline constexpr const char* kAddToken =
    "INSERT INTO tokens (token_sha256, user_name, created_at) VALUES ($1, $2, $3)";
inline constexpr const char* kUserForToken = "SELECT user_name FROM tokens WHERE token_sha256 = $1";

// "%needle%" in lower case with LIKE's wildcards escaped by '!'; "" for an empty needle.
std::string ContainsPattern(const std::string& needle);
std::string JoinSummary(const std::vector<std::string>& parts);
std::string WithBlobType(const char* ddl, const char* blob_type);

// What the results.xml column holds: the XML itself, or (when the upload came deflated) a NUL
// tag and the raw DEFLATE bytes. No well-formed XML starts with NUL (XML cannot contain it), so
// rows stored either way, by any version, read back unambiguously.
std::string_view StoredXml(const NewResult& r, std::string& scratch);
// The XML served for a stored column value; throws StorageError when a deflated value is corrupt.
std::string XmlFromStored(std::string stored);

// A fixed set of connections handed to one thread at a time.
template <typename Conn>
class Pool {
 public:
  explicit Pool(int size) : missing_(size) {}
  class Lease {
   public:
    Lease(Pool* pool, std::unique_ptr<Conn> c) : pool_(pool), conn_(std::move(c)) {}
    Lease(Lease&&) = default;
    ~Lease() {
      if (conn_) pool_->Return(std::move(conn_));
    }
    Conn& operator*() { return *conn_; }
    Conn* operator->() { return conn_.get(); }
    // Drops a broken connection; the caller's factory makes a new one next time.
    void Discard() { conn_.reset(); pool_->Forget(); }

   private:
    Pool* pool_;
    std::unique_ptr<Conn> conn_;
  };
  template <typename Factory>
  Lease Acquire(const Factory& make) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return !idle_.empty() || missing_ > 0; });
    if (idle_.empty()) {
      --missing_;
      lock.unlock();
      try {
        return Lease(this, make());
      } catch (...) {
        Forget();
        throw;
      }
    }
    auto c = std::move(idle_.back());
    idle_.pop_back();
    return Lease(this, std::move(c));
  }

 private:
  void Return(std::unique_ptr<Conn> c) {
    {
      std::lock_guard lock(mu_);
      idle_.push_back(std::move(c));
    }
    cv_.notify_one();
  }
  void Forget() {
    {
      std::lock_guard lock(mu_);
      ++missing_;
    }
    cv_.notify_one();
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<Conn>> idle_;
  int missing_ = 0;
};

}  // namespace ptsn::server::sql
