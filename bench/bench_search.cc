// Search at scale: N stored results, each query timed through the server's Storage beside the
// same query as the LIKE scan of every row that the index replaced (sql::kSearch run directly).
// SQLite: the FTS5 trigram index. PostgreSQL (a conninfo as DB): the pg_trgm GIN indexes, the
// scan timed with index scans switched off for its transaction. Medians of 21 runs, in-process.
//   bench_search DB_PATH|CONNINFO [ROWS=100000]
// A PostgreSQL database given here is emptied first (its results, id_counters, tokens tables).
#include <sqlite3.h>

#include <pqxx/pqxx>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "server/store/storage.h"
#include "server/store/storage_sql.h"

using namespace ptsn::server;

namespace {

double Ms(const std::function<size_t()>& fn, size_t* found) {
  std::vector<double> t;
  for (int i = 0; i < 21; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    *found = fn();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_search DB_PATH [ROWS]\n");
    return 2;
  }
  const std::string path = argv[1];
  const int rows = argc > 2 ? std::atoi(argv[2]) : 100000;
  const bool postgres = path.find("host=") != std::string::npos || path.rfind("postgres", 0) == 0;
  if (postgres) {
    pqxx::connection c(path);
    pqxx::work w(c);
    w.exec("DROP TABLE IF EXISTS results, id_counters, tokens CASCADE");
    w.commit();
  } else {
    std::filesystem::remove(path);
  }
  auto storage = OpenStorage(path);
  const char* cpus[] = {"AMD Ryzen 9 7950X", "Intel Core i9-13900K", "AMD EPYC 9654", "Intel Xeon Gold 6338", "Ampere Altra Q80-30"};
  const char* tests[] = {"pts/fio", "pts/openssl", "pts/compress-7zip", "pts/build-linux-kernel", "native/cipher", "pts/sqlite"};
  auto t0 = std::chrono::steady_clock::now();
  std::vector<NewResult> files(1000);
  for (int base = 0; base < rows; base += 1000) {
    std::vector<InsertRequest> reqs(std::min(1000, rows - base));
    std::vector<InsertRequest*> ptrs;
    for (size_t k = 0; k < reqs.size(); ++k) {
      int i = base + static_cast<int>(k);
      NewResult& r = files[k];
      r.owner = "user" + std::to_string(i % 97);
      r.xml = "<PhoronixTestSuite/>";
      r.xml_sha1 = std::to_string(i);
      r.summary.title = "Run " + std::to_string(i) + (i % 1000 == 7 ? " needle" : "") + " on " + cpus[i % 5];
      r.summary.description = "Benchmark of build " + std::to_string(i * 7919 % 100003);
      r.summary.systems = {"System " + std::to_string(i % 311)};
      r.summary.hardware = {std::string(cpus[(i / 5) % 5]) + ", 64GB"};
      r.summary.tests = {tests[i % 6], tests[(i / 6) % 6]};
      r.uploaded_at = 1700000000 + i;
      reqs[k] = {&r, "d" + std::to_string(i / 50000), [i](int64_t seq) { return "id-" + std::to_string(i) + "-" + std::to_string(seq); }, "", "", {}};
      ptrs.push_back(&reqs[k]);
    }
    storage->InsertBatch(ptrs);
  }
  std::printf("%d rows stored in %.1f s\n", rows,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());

  sqlite3* db = nullptr;
  sqlite3_stmt* scan = nullptr;
  std::unique_ptr<pqxx::connection> pg;
  if (postgres) {
    pg = std::make_unique<pqxx::connection>(path);
    pqxx::work w(*pg);
    w.exec("ANALYZE results");
    w.commit();
  } else {
    sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_prepare_v2(db, sql::kSearch, -1, &scan, nullptr);
  }
  struct Case {
    const char* name;
    SearchQuery q;
  } cases[] = {
      {"title 'needle' (100 rows)", {.text = "needle"}},
      {"title 'run 4242' (11 rows)", {.text = "run 4242"}},
      {"test 'kernel' (1/3 of rows)", {.test = "kernel"}},
      {"system 'epyc' (1/5 of rows)", {.system = "epyc"}},
      {"title 'no such thing' (0 rows)", {.text = "no such thing"}},
      {"newest 50 (no terms)", {}},
  };
  std::printf("%-32s %12s %12s %8s\n", "query (limit 50)", "index ms", "LIKE scan ms", "rows");
  for (auto& c : cases) {
    size_t found_index = 0, found_scan = 0;
    double index_ms = Ms([&] { return storage->Search(c.q).size(); }, &found_index);
    std::string a = sql::ContainsPattern(c.q.text), b = sql::ContainsPattern(c.q.test), s = sql::ContainsPattern(c.q.system);
    double scan_ms = Ms([&]() -> size_t {
      if (pg) {
        // The same statement with the planner kept off the indexes: the scan they replaced.
        pqxx::work w(*pg);
        w.exec("SET LOCAL enable_bitmapscan = off");
        w.exec("SET LOCAL enable_indexscan = off");
        return w.exec_params(sql::kSearch, a, b, s, c.q.limit, c.q.offset).size();
      }
      sqlite3_reset(scan);
      sqlite3_bind_text(scan, 1, a.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(scan, 2, b.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(scan, 3, s.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_int(scan, 4, c.q.limit);
      sqlite3_bind_int(scan, 5, c.q.offset);
      size_t n = 0;
      while (sqlite3_step(scan) == SQLITE_ROW) ++n;
      return n;
    }, &found_scan);
    std::printf("%-32s %12.2f %12.2f %8zu%s\n", c.name, index_ms, scan_ms, found_index,
                found_index == found_scan ? "" : "  (DIFFERS from the scan!)");
  }
  sqlite3_finalize(scan);
  sqlite3_close(db);
  return 0;
}
