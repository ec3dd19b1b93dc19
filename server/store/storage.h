// Where the server keeps results and upload tokens. One interface, two implementations:
// SQLite (embedded default, WAL) and PostgreSQL (several server processes on one database).
// Every method is safe to call from many threads at once. Uniqueness of result IDs comes from
// the database (a per-day counter row updated in the same transaction as the insert).
#pragma once

#include <cstdint>
#include <ctime>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "server/store/sql_session.h"
#include "server/store/upload_check.h"

namespace ptsn::server {

struct NewResult {
  std::string owner;  // user name of the token that uploaded it
  bool unlisted = false;
  std::string xml;    // stored and served byte for byte
  // A raw DEFLATE of `xml` (the client's composite_xml_gz, or the server's own): the row keeps
  // these few KiB instead of the whole file (sql::StoredXml), and a fetch inflates them back.
  std::optional<std::string> xml_deflated;
  std::string xml_sha1;
  std::optional<std::string> system_logs_zip;
  std::string local_file_name;
  ResultSummary summary;
  std::time_t uploaded_at = 0;
};

// Sets r.xml_deflated to the DEFLATE form of r.xml that its row keeps: `client`'s (an upload's
// composite_xml_gz, checked to inflate to r.xml) when smaller than the file, else the server's
// own; none when neither is smaller (or zlib failed: the file is stored as it is).
void PackForStorage(NewResult& r, std::optional<std::string> client);

struct StoredResult {
  std::string id;
  std::string owner;
  bool unlisted = false;
  std::string xml;
  std::string xml_sha1;
  std::optional<std::string> system_logs_zip;
  std::string title;
  std::int64_t uploaded_at = 0;  // Unix seconds
};

struct ListedResult {
  std::string id;
  std::string owner;
  std::string title;
  std::int64_t uploaded_at = 0;
  int system_count = 0;
  int result_count = 0;
  std::string systems;  // identifiers joined by ", "
  std::string tests;    // test profiles joined by ", "
};

struct SearchQuery {
  std::string text;    // in the title or description
  std::string test;    // a test profile identifier contains this
  std::string system;  // a system identifier or hardware string contains this
  int limit = 50;
  int offset = 0;
};

enum class DeleteOutcome { kDeleted, kNotFound, kForbidden };

// The ID for the `sequence`-th upload of `day_key` (see result_id.h).
using IdMaker = std::function<std::string(std::int64_t sequence)>;

// A file stored again by the same client soon after (a retry whose answer was lost): answered
// with the first one's ID instead of being stored twice.
struct Dedupe {
  std::string key;         // the uploader's token hash, kept with the row; "" = never a duplicate
  std::int64_t since = 0;  // only rows stored at or after this time count
};

// One insert of a batch: what to store, and where its outcome goes.
struct InsertRequest {
  const NewResult* result = nullptr;
  std::string day_key;  // selects the ID counter
  IdMaker make_id;
  // Outcome, set by InsertBatch: the new ID, or why this one insert was refused.
  std::string id;
  std::string error;
  Dedupe dedupe;
};

class Storage {
 public:
  virtual ~Storage() = default;
  // Stores every request in ONE transaction (one commit, one flush to disk: group commit), each
  // insert inside its own savepoint so that one refused insert does not undo the others: it
  // gets `error` set, the rest their `id`. Throws StorageError when the transaction as a whole
  // failed, and then nothing of the batch is stored.
  virtual void InsertBatch(std::vector<InsertRequest*>& batch) = 0;
  // One insert, its own transaction; returns the new ID. Throws StorageError when refused.
  std::string Insert(const NewResult& result, const std::string& day_key, const IdMaker& make_id,
                     const Dedupe& dedupe = {});
  virtual std::optional<StoredResult> Get(const std::string& id) = 0;
  // Public results only, newest first.
  virtual std::vector<ListedResult> Search(const SearchQuery& query) = 0;
  virtual DeleteOutcome Delete(const std::string& id, const std::string& owner) = 0;
  virtual void AddToken(const std::string& user, const std::string& token_sha256) = 0;
  // The user a token hash belongs to.
  virtual std::optional<std::string> UserForToken(const std::string& token_sha256) = 0;
  // Whether the database answers (reads); a failing write shows in the write's StorageError.
  virtual bool Healthy() = 0;
  // After a write failed: whether writes would succeed now, checked without one (SQLite: room on
  // its disk again); nullopt when only a write can tell.
  virtual std::optional<bool> WritableAgain() { return std::nullopt; }
  virtual std::string Describe() const = 0;  // "sqlite:/path" or "postgresql"

  // Plain rows for modules with tables of their own (server/fleet/fleet_store.h): runs `fn` in one
  // write transaction (SQLite: BEGIN IMMEDIATE) and commits when it returns; rolls back and
  // rethrows when it throws. Database failures are StorageError.
  virtual void Transact(const std::function<void(SqlTx&)>& fn) = 0;
  // Calls `handler` (from a thread of its own) for every NOTIFY on `channel` until the storage
  // is destroyed, so several server processes on one PostgreSQL hear of each other's writes.
  // Returns false where there is nothing to listen to (SQLite: one process owns the database).
  virtual bool Listen(const std::string& /*channel*/, NotifyHandler /*handler*/) { return false; }
};

// SQLite database file `path` (created with the schema when missing), with `disk_reserve`
// bytes kept beside it (`path`-reserve) for recovering from a full disk (disk_reserve.h).
// The WAL is copied into the database by 1,000 frames (4 MiB) and reset past 4,000: the
// default reserve covers twice that.
constexpr std::uint64_t kDefaultDiskReserve = 32u << 20;
std::unique_ptr<Storage> OpenSqliteStorage(const std::string& path, std::uint64_t disk_reserve = kDefaultDiskReserve);
// libpq connection string ("postgresql://user@127.0.0.1:55432/db" or "host=... dbname=...").
std::unique_ptr<Storage> OpenPostgresStorage(const std::string& conninfo, int pool_size = 8);
// "postgresql://..." / "postgres://..." / "host=..." → PostgreSQL, anything else → SQLite file.
std::unique_ptr<Storage> OpenStorage(const std::string& database, std::uint64_t sqlite_disk_reserve = kDefaultDiskReserve);

// Thrown for database failures; the HTTP layer answers 503 for these.
struct StorageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace ptsn::server
