// PostgreSQL back end (libpqxx 6.4). Several server processes may share one database: the ID
// counter row is upserted inside the insert's transaction, so PostgreSQL's row lock orders
// concurrent uploads and a rolled-back upload takes its number back with it.
#include <pqxx/pqxx>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <thread>

#include "server/store/storage.h"
#include "server/store/storage_sql.h"

namespace ptsn::server {

namespace {

std::optional<std::string> Bytes(const pqxx::field& f) {
  if (f.is_null()) return std::nullopt;
  return pqxx::binarystring(f).str();
}

constexpr const char* kNextSequenceName = "next_sequence";
constexpr const char* kReserveSequencesName = "reserve_sequences";
constexpr const char* kInsertResultName = "insert_result";
constexpr const char* kGetResultName = "get_result";
constexpr const char* kUserForTokenName = "user_for_token";

// SqlTx inside one pqxx transaction: every parameter sent as text (NULL as a null pointer),
// its type inferred by PostgreSQL from where it is used.
class PgTx : public SqlTx {
 public:
  explicit PgTx(pqxx::transaction_base& w) : w_(w) {}
  SqlResult Exec(const std::string& sql, const std::vector<SqlArg>& args) override {
    std::vector<std::string> texts;
    texts.reserve(args.size());
    for (const auto& a : args) {
      if (std::holds_alternative<std::int64_t>(a)) texts.push_back(std::to_string(std::get<std::int64_t>(a)));
      else if (std::holds_alternative<std::string>(a)) texts.push_back(std::get<std::string>(a));
      else texts.emplace_back();
    }
    std::vector<const char*> params;
    for (size_t i = 0; i < args.size(); ++i)
      params.push_back(std::holds_alternative<std::nullptr_t>(args[i]) ? nullptr : texts[i].c_str());
    pqxx::result r = w_.exec_params(sql, pqxx::prepare::make_dynamic_params(params));
    SqlResult out;
    out.rows.reserve(r.size());
    for (const auto& row : r) {
      SqlRow o;
      o.cols.reserve(row.size());
      for (const auto& f : row) {
        if (f.is_null()) o.cols.emplace_back(std::nullopt);
        else o.cols.emplace_back(std::string(f.c_str(), f.size()));
      }
      out.rows.push_back(std::move(o));
    }
    out.affected = r.affected_rows();
    return out;
  }
  SqlDialect dialect() const override { return SqlDialect::kPostgres; }

 private:
  pqxx::transaction_base& w_;
};

// LISTEN on a connection of its own, reconnecting with a pause when it breaks.
class Listener {
 public:
  Listener(std::string conninfo, std::string channel, NotifyHandler handler)
      : conninfo_(std::move(conninfo)), channel_(std::move(channel)), handler_(std::move(handler)) {
    thread_ = std::thread([this] { Loop(); });
  }
  ~Listener() {
    stop_ = true;
    thread_.join();
  }

 private:
  struct Receiver : pqxx::notification_receiver {
    Receiver(pqxx::connection_base& c, const std::string& channel, NotifyHandler& h)
        : pqxx::notification_receiver(c, channel), handler(h) {}
    void operator()(const std::string& payload, int) override { handler(payload); }
    NotifyHandler& handler;
  };
  void Loop() {
    while (!stop_) {
      try {
        pqxx::connection c(conninfo_);
        Receiver r(c, channel_, handler_);
        // A reconnect may have missed notifications: tell the handler to look at everything.
        handler_("");
        while (!stop_) c.await_notification(0, 200000);
      } catch (const std::exception&) {
        for (int i = 0; i < 10 && !stop_; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
  }
  std::string conninfo_, channel_;
  NotifyHandler handler_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

class PgStorage : public Storage {
 public:
  PgStorage(std::string conninfo, int pool_size)
      : conninfo_(std::move(conninfo)), pool_size_(pool_size), pool_(pool_size) {
    Run([](pqxx::connection& c) {
      pqxx::work w(c);
      // Two processes creating the schema at once would race; the advisory lock orders them.
      w.exec("SELECT pg_advisory_xact_lock(7077001)");
      for (const char* ddl : sql::kSchema) w.exec(sql::WithBlobType(ddl, "BYTEA"));
      w.exec(std::string("ALTER TABLE results ADD COLUMN IF NOT EXISTS ") + sql::kUploadKeyColumn + " TEXT");
      // A result stored as plain XML (an upload not sent deflated) is ~78 KB for 100 results and
      // is compressed for TOAST: lz4 (PostgreSQL 14+, when built with it) costs the database
      // 0.5 ms per such upload where pglz cost 1.3 ms. Reads are unchanged; older servers keep pglz.
      // Search's LIKE '%term%' on lower(column) found through trigram indexes (pg_trgm, a trusted
      // extension since PostgreSQL 13) instead of a scan of every row; without the extension
      // (not permitted, not installed) search scans as before.
      w.exec("SAVEPOINT trigram");
      try {
        w.exec("CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public");
        // New rows wait in each GIN index's pending list until it fills (4 MB by default), and
        // every search reads that list row by row: 17-24 ms per query at 100,000 results right
        // after a burst of uploads, against 0.3-1.1 ms once merged. A 256 kB list keeps that
        // read small while uploads still add to the index in batches.
        for (const char* column : {"title", "description", "tests", "systems", "hardware"}) {
          const std::string index = std::string("results_") + column + "_trgm";
          w.exec("CREATE INDEX IF NOT EXISTS " + index + " ON results USING gin (lower(" + column +
                 ") public.gin_trgm_ops)");
          w.exec("ALTER INDEX " + index + " SET (gin_pending_list_limit = 256)");
        }
        w.exec("RELEASE SAVEPOINT trigram");
      } catch (const pqxx::sql_error&) {
        w.exec("ROLLBACK TO SAVEPOINT trigram");
      }
      w.exec("SAVEPOINT lz4");
      try {
        auto method = w.exec(
            "SELECT attcompression FROM pg_attribute WHERE attrelid = 'results'::regclass AND attname = 'xml'");
        if (!method.empty() && std::string(method[0][0].c_str()) != "l")
          w.exec("ALTER TABLE results ALTER COLUMN xml SET COMPRESSION lz4");
        w.exec("RELEASE SAVEPOINT lz4");
      } catch (const pqxx::sql_error&) {
        w.exec("ROLLBACK TO SAVEPOINT lz4");
      }
      w.commit();
      return 0;
    });
  }

  void InsertBatch(std::vector<InsertRequest*>& batch) override {
    // First the whole batch in one transaction without savepoints: the ID numbers of each day's
    // uploads taken in one statement, then one insert per upload, where one by one cost four
    // statements per upload, each a round trip to the backend. Should any insert fail, that
    // transaction is rolled back whole (numbers included) and the batch redone below, one
    // savepoint per insert, so that only the failing uploads are refused.
    // Either way a retried upload (Dedupe) is answered with its earlier row's ID, not inserted.
    if (batch.size() > 1 && Run([&](pqxx::connection& c) {
          pqxx::work w(c);
          try {
            Duplicates dups = ResolveDuplicates(w, batch);
            std::map<std::string, int64_t> next;  // day → its next number in this batch
            for (InsertRequest* req : dups.fresh) ++next[req->day_key];
            for (auto& [day, n] : next) {
              auto rows = w.exec_prepared(kReserveSequencesName, day, n);
              if (rows.empty()) throw StorageError{"postgresql: the ID counter returned no row"};
              n = rows[0][0].as<int64_t>() - n + 1;  // the last number taken → the first
            }
            std::vector<std::string> ids;
            ids.reserve(dups.fresh.size());
            for (InsertRequest* req : dups.fresh) ids.push_back(req->make_id(next[req->day_key]++));
            if (!dups.fresh.empty()) InsertRows(w, dups.fresh, ids);
            for (size_t i = 0; i < dups.fresh.size(); ++i) {
              dups.fresh[i]->error.clear();
              dups.fresh[i]->id = std::move(ids[i]);
            }
            dups.Finish();
          } catch (const pqxx::broken_connection&) {
            throw;
          } catch (const pqxx::in_doubt_error&) {
            throw;
          } catch (const pqxx::sql_error&) {
            for (InsertRequest* req : batch) req->id.clear();
            return false;  // `w` rolls back
          }
          w.commit();
          return true;
        }))
      return;
    Run([&](pqxx::connection& c) {
      pqxx::work w(c);
      for (InsertRequest* req : batch) req->id.clear(), req->error.clear();
      Duplicates dups = ResolveDuplicates(w, batch);
      for (InsertRequest* req : dups.fresh) {
        // Plain SAVEPOINTs: pqxx 6's subtransaction did not roll back to its savepoint when a
        // statement in it failed, leaving the whole transaction aborted.
        w.exec("SAVEPOINT one_insert");
        try {
          req->id = InsertOne(w, *req->result, req->day_key, req->make_id, req->dedupe.key);
          w.exec("RELEASE SAVEPOINT one_insert");
        } catch (const pqxx::broken_connection&) {
          throw;
        } catch (const pqxx::in_doubt_error&) {
          throw;
        } catch (const pqxx::sql_error& e) {
          req->id.clear();
          req->error = std::string("postgresql: ") + e.what();
          w.exec("ROLLBACK TO SAVEPOINT one_insert");
        }
      }
      dups.Finish();
      w.commit();
      return 0;
    });
  }

  // The requests of a batch to insert, and those answered by an earlier row or request.
  struct Duplicates {
    std::vector<InsertRequest*> fresh;
    std::vector<std::pair<InsertRequest*, InsertRequest*>> same_as;  // (duplicate, the request it repeats)
    void Finish() {
      for (auto [dup, first] : same_as) {
        dup->id = first->id;
        dup->error = first->error;
      }
    }
  };
  // One query for the whole batch: rows of the same files by the same uploaders.
  static Duplicates ResolveDuplicates(pqxx::transaction_base& w, const std::vector<InsertRequest*>& batch) {
    Duplicates d;
    std::vector<std::string> sha1s;
    std::string in;
    for (InsertRequest* req : batch) {
      if (req->dedupe.key.empty()) continue;
      sha1s.push_back(req->result->xml_sha1);
      in += (in.empty() ? "$" : ", $") + std::to_string(sha1s.size());
    }
    std::map<std::pair<std::string, std::string>, std::pair<int64_t, std::string>> earlier;  // (sha1, key) → (time, id)
    if (!sha1s.empty()) {
      auto rows = w.exec_params("SELECT xml_sha1, upload_key, uploaded_at, id FROM results WHERE xml_sha1 IN (" + in +
                                    ") AND upload_key IS NOT NULL ORDER BY uploaded_at DESC",
                                pqxx::prepare::make_dynamic_params(sha1s));
      for (const auto& row : rows)
        earlier[{row[0].as<std::string>(), row[1].as<std::string>()}] = {row[2].as<int64_t>(), row[3].as<std::string>()};
    }
    std::map<std::pair<std::string, std::string>, InsertRequest*> in_batch;
    for (InsertRequest* req : batch) {
      if (req->dedupe.key.empty()) {
        d.fresh.push_back(req);
        continue;
      }
      std::pair<std::string, std::string> key{req->result->xml_sha1, req->dedupe.key};
      if (auto it = earlier.find(key); it != earlier.end() && it->second.first >= req->dedupe.since) {
        req->id = it->second.second;
        req->error.clear();
      } else if (auto first = in_batch.find(key); first != in_batch.end()) {
        d.same_as.emplace_back(req, first->second);
      } else {
        in_batch.emplace(key, req);
        d.fresh.push_back(req);
      }
    }
    return d;
  }

  // Every upload of a batch in ONE multi-row INSERT: one round trip to the backend for the batch
  // where one per upload cost a round trip each (the server thread and the backend each woken
  // once per upload). The text parameters are numbered first, then the binary ones (pqxx 6 takes
  // a run-time list of parameters of one type at a time); the values are InsertNumbered's.
  static void InsertRows(pqxx::transaction_base& w, const std::vector<InsertRequest*>& batch,
                         const std::vector<std::string>& ids) {
    constexpr size_t kTexts = 14;  // per row
    std::vector<std::string> texts;
    texts.reserve(kTexts * batch.size());
    std::vector<pqxx::binarystring> blobs;
    blobs.reserve(2 * batch.size());
    std::string values;
    std::string scratch;
    const size_t first_blob = kTexts * batch.size() + 1;
    for (size_t i = 0; i < batch.size(); ++i) {
      const NewResult& r = *batch[i]->result;
      const size_t t = texts.size() + 1;  // this row's first text parameter
      for (std::string v : {ids[i], r.owner, std::string(r.unlisted ? "1" : "0"), r.summary.title,
                            r.summary.description, std::to_string(static_cast<int64_t>(r.uploaded_at)), r.xml_sha1,
                            r.local_file_name, std::to_string(r.summary.systems.size()),
                            std::to_string(r.summary.tests.size()), sql::JoinSummary(r.summary.systems),
                            sql::JoinSummary(r.summary.hardware), sql::JoinSummary(r.summary.tests),
                            batch[i]->dedupe.key})
        texts.push_back(std::move(v));
      const std::string_view xml = sql::StoredXml(r, scratch);
      const size_t xml_param = first_blob + blobs.size();
      blobs.emplace_back(xml.data(), xml.size());
      std::string logs = "NULL";
      if (r.system_logs_zip) {
        logs = "$" + std::to_string(first_blob + blobs.size());
        blobs.emplace_back(r.system_logs_zip->data(), r.system_logs_zip->size());
      }
      auto p = [&](size_t k) { return "$" + std::to_string(t + k); };
      values += (i ? ", (" : "(") + p(0) + ", " + p(1) + ", " + p(2) + "::integer, " + p(3) + ", " + p(4) + ", " +
                p(5) + "::bigint, $" + std::to_string(xml_param) + ", " + p(6) + ", " + logs + ", " + p(7) + ", " +
                p(8) + "::integer, " + p(9) + "::integer, " + p(10) + ", " + p(11) + ", " + p(12) + ", NULLIF(" + p(13) + ", ''))";
    }
    const std::string_view one_row = sql::kInsertResult;  // "INSERT INTO results (...) VALUES ($1, ...)"
    w.exec_params(std::string(one_row.substr(0, one_row.find("VALUES ") + 7)) + values,
                  pqxx::prepare::make_dynamic_params(texts), pqxx::prepare::make_dynamic_params(blobs));
  }

  std::string InsertOne(pqxx::transaction_base& w, const NewResult& r, const std::string& day_key,
                        const IdMaker& make_id, const std::string& upload_key) {
    auto seq_rows = w.exec_prepared(kNextSequenceName, day_key);
    if (seq_rows.empty()) throw StorageError{"postgresql: the ID counter returned no row"};
    return InsertNumbered(w, r, make_id(seq_rows[0][0].as<int64_t>()), upload_key);
  }

  std::string InsertNumbered(pqxx::transaction_base& w, const NewResult& r, std::string id, const std::string& upload_key) {
    std::string scratch;
    const std::string_view xml = sql::StoredXml(r, scratch);
    // A null parameter is nullptr, a different type from binarystring: one call per case.
    auto insert = [&](const auto& logs) {
      w.exec_prepared(kInsertResultName, id, r.owner, r.unlisted ? 1 : 0, r.summary.title, r.summary.description,
                      static_cast<int64_t>(r.uploaded_at), pqxx::binarystring(xml.data(), xml.size()),
                      r.xml_sha1, logs, r.local_file_name, static_cast<int>(r.summary.systems.size()),
                      static_cast<int>(r.summary.tests.size()), sql::JoinSummary(r.summary.systems),
                      sql::JoinSummary(r.summary.hardware), sql::JoinSummary(r.summary.tests),
                      upload_key);
    };
    if (r.system_logs_zip)
      insert(pqxx::binarystring(r.system_logs_zip->data(), r.system_logs_zip->size()));
    else
      insert(nullptr);
    return id;
  }

  std::optional<StoredResult> Get(const std::string& id) override {
    return Run([&](pqxx::connection& c) -> std::optional<StoredResult> {
      // One statement needs no BEGIN/COMMIT round trips around it.
      pqxx::nontransaction w(c);
      auto rows = w.exec_prepared(kGetResultName, id);
      if (rows.empty()) return std::nullopt;
      const auto& row = rows[0];
      StoredResult r;
      r.id = row[0].as<std::string>();
      r.owner = row[1].as<std::string>();
      r.unlisted = row[2].as<int>() != 0;
      r.xml = sql::XmlFromStored(*Bytes(row[3]));
      r.xml_sha1 = row[4].as<std::string>();
      r.system_logs_zip = Bytes(row[5]);
      r.title = row[6].as<std::string>();
      r.uploaded_at = row[7].as<int64_t>();
      return r;
    });
  }

  std::vector<ListedResult> Search(const SearchQuery& q) override {
    return Run([&](pqxx::connection& c) {
      pqxx::read_transaction w(c);
      auto rows = w.exec_params(sql::kSearch, sql::ContainsPattern(q.text), sql::ContainsPattern(q.test),
                                sql::ContainsPattern(q.system), q.limit, q.offset);
      std::vector<ListedResult> out;
      for (const auto& row : rows)
        out.push_back({row[0].as<std::string>(), row[1].as<std::string>(), row[2].as<std::string>(),
                       row[3].as<int64_t>(), row[4].as<int>(), row[5].as<int>(), row[6].as<std::string>(),
                       row[7].as<std::string>()});
      return out;
    });
  }

  DeleteOutcome Delete(const std::string& id, const std::string& owner) override {
    return Run([&](pqxx::connection& c) {
      pqxx::work w(c);
      auto rows = w.exec_params("SELECT owner FROM results WHERE id = $1 FOR UPDATE", id);
      if (rows.empty()) return DeleteOutcome::kNotFound;
      if (rows[0][0].as<std::string>() != owner) return DeleteOutcome::kForbidden;
      w.exec_params(sql::kDelete, id, owner);
      w.commit();
      return DeleteOutcome::kDeleted;
    });
  }

  void AddToken(const std::string& user, const std::string& token_sha256) override {
    Run([&](pqxx::connection& c) {
      pqxx::work w(c);
      w.exec_params(sql::kAddToken, token_sha256, user, static_cast<int64_t>(std::time(nullptr)));
      w.commit();
      return 0;
    });
  }

  std::optional<std::string> UserForToken(const std::string& token_sha256) override {
    return Run([&](pqxx::connection& c) -> std::optional<std::string> {
      pqxx::nontransaction w(c);
      auto rows = w.exec_prepared(kUserForTokenName, token_sha256);
      if (rows.empty()) return std::nullopt;
      return rows[0][0].as<std::string>();
    });
  }

  bool Healthy() override {
    try {
      return Run([](pqxx::connection& c) {
        pqxx::nontransaction w(c);
        return w.exec("SELECT 1")[0][0].as<int>() == 1;
      });
    } catch (const StorageError&) {
      return false;
    }
  }

  std::string Describe() const override { return "postgresql"; }

  // `fn` may run again on a fresh connection when the connection broke before the commit (see Run).
  void Transact(const std::function<void(SqlTx&)>& fn) override {
    Run([&](pqxx::connection& c) {
      pqxx::work w(c);
      PgTx session(w);
      fn(session);
      w.commit();
      return 0;
    });
  }

  bool Listen(const std::string& channel, NotifyHandler handler) override {
    std::lock_guard lock(listeners_mu_);
    listeners_.push_back(std::make_unique<Listener>(conninfo_, channel, std::move(handler)));
    return true;
  }

 private:
  // One try on a pooled connection; a broken connection (server restarted) is dropped and the
  // operation retried on the next one (at most once per pooled connection). Transactions that
  // failed mid-way were rolled back by PostgreSQL, so a retry never stores anything twice...
  // except an insert whose COMMIT was sent but not acknowledged; pqxx reports that as
  // in_doubt_error and we do not retry it.
  template <typename Fn>
  auto Run(const Fn& fn) -> decltype(fn(std::declval<pqxx::connection&>())) {
    for (int attempt = 0;; ++attempt) {
      auto lease = pool_.Acquire([this] { return Connect(); });
      try {
        return fn(*lease);
      } catch (const pqxx::in_doubt_error& e) {
        lease.Discard();
        throw StorageError{std::string("postgresql: commit outcome unknown: ") + e.what()};
      } catch (const pqxx::broken_connection& e) {
        lease.Discard();
        // After a database restart every pooled connection is broken: drop them one by one.
        if (attempt >= pool_size_) throw StorageError{std::string("postgresql: connection lost: ") + e.what()};
      } catch (const pqxx::sql_error& e) {
        throw StorageError{std::string("postgresql: ") + e.what()};
      } catch (const pqxx::failure& e) {
        lease.Discard();
        throw StorageError{std::string("postgresql: ") + e.what()};
      }
    }
  }

  std::unique_ptr<pqxx::connection> Connect() {
    try {
      auto c = std::make_unique<pqxx::connection>(conninfo_);
      // Parsed and planned once per connection instead of once per request.
      c->prepare(kNextSequenceName, sql::kNextSequence);
      c->prepare(kReserveSequencesName, sql::kReserveSequences);
      c->prepare(kInsertResultName, sql::kInsertResult);
      c->prepare(kGetResultName, sql::kGetResult);
      c->prepare(kUserForTokenName, sql::kUserForToken);
      return c;
    } catch (const std::exception& e) {
      throw StorageError{std::string("postgresql: cannot connect: ") + e.what()};
    }
  }

  std::string conninfo_;
  int pool_size_;
  sql::Pool<pqxx::connection> pool_;
  std::mutex listeners_mu_;
  std::vector<std::unique_ptr<Listener>> listeners_;  // last members: stopped first
};

}  // namespace

std::unique_ptr<Storage> OpenPostgresStorage(const std::string& conninfo, int pool_size) {
  return std::make_unique<PgStorage>(conninfo, pool_size);
}

std::unique_ptr<Storage> OpenStorage(const std::string& database, std::uint64_t sqlite_disk_reserve) {
  if (database.rfind("postgresql://", 0) == 0 || database.rfind("postgres://", 0) == 0 ||
      database.find("host=") != std::string::npos || database.find("dbname=") != std::string::npos)
    return OpenPostgresStorage(database);
  return OpenSqliteStorage(database, sqlite_disk_reserve);
}

}  // namespace ptsn::server
