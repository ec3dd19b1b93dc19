// A small portable SQL session over either storage back end, for modules whose data is plain
// rows (the fleet's machines, jobs and history): statements written once with $1, $2...
// parameters, run in one transaction on a pooled connection. Values travel as text (PostgreSQL
// infers each parameter's type from where it is used; SQLite gets integers bound as integers)
// and come back as text, NULL as nullopt.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace ptsn::server {

enum class SqlDialect { kSqlite, kPostgres };

using SqlArg = std::variant<std::nullptr_t, std::int64_t, std::string>;

struct SqlRow {
  std::vector<std::optional<std::string>> cols;
  bool Null(size_t i) const { return !cols.at(i).has_value(); }
  std::string Text(size_t i) const { return cols.at(i).value_or(""); }
  std::int64_t Int(size_t i) const;   // 0 for NULL
  double Real(size_t i) const;        // 0 for NULL
};

struct SqlResult {
  std::vector<SqlRow> rows;
  std::int64_t affected = 0;  // rows an INSERT/UPDATE/DELETE changed
};

class SqlTx {
 public:
  virtual ~SqlTx() = default;
  // Throws StorageError on failure (the whole transaction is then rolled back).
  virtual SqlResult Exec(const std::string& sql, const std::vector<SqlArg>& args = {}) = 0;
  virtual SqlDialect dialect() const = 0;
};

// Replaces the dialect placeholders of portable DDL/DML: {serial} (an auto-numbered primary
// key), {skip_locked} (" FOR UPDATE SKIP LOCKED" on PostgreSQL, nothing on SQLite, whose write
// transactions are serialised anyway).
std::string ForDialect(const std::string& sql, SqlDialect dialect);

// Called by a back end on a PostgreSQL notification (LISTEN) with its payload.
using NotifyHandler = std::function<void(const std::string& payload)>;

}  // namespace ptsn::server
