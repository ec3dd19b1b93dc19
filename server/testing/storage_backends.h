// The two storage back ends as test parameters: SQLite in a temporary directory, PostgreSQL in a
// schema of its own in the database PTSN_TEST_PG names (skipped without it, failed instead when
// PTSN_REQUIRE names pg, as CI sets).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <pqxx/pqxx>
#include <random>
#include <string>

#include "server/store/storage.h"
#include "server/testing/pg_schema.h"
#include "tests/support/required.h"

namespace ptsn::server::testing {

inline std::string UniqueTestName(const char* prefix) {
  static std::atomic<int> n{0};
  std::random_device rd;
  return std::string(prefix) + std::to_string(::getpid()) + "_" + std::to_string(rd() % 100000) + "_" + std::to_string(n++);
}

struct SqliteTestBackend {
  std::string dir;
  SqliteTestBackend() {
    dir = (std::filesystem::temp_directory_path() / UniqueTestName("ptsn_storage_")).string();
    std::filesystem::create_directories(dir);
  }
  ~SqliteTestBackend() { std::filesystem::remove_all(dir); }
  std::unique_ptr<Storage> Open() { return OpenSqliteStorage(dir + "/results.db"); }
  static std::string SkipReason() { return ""; }
};

struct PostgresTestBackend {
  PgTestSchema schema{UniqueTestName("ptsn_t_")};
  std::unique_ptr<Storage> Open() { return OpenPostgresStorage(schema.conninfo, 4); }
  static std::string SkipReason() {
    const char* base = std::getenv("PTSN_TEST_PG");
    if (!base || !*base) return "PTSN_TEST_PG is not set (contrib/start-test-services.sh starts a PostgreSQL)";
    try {
      pqxx::connection c(base);
    } catch (const std::exception& e) {
      return std::string("PostgreSQL at PTSN_TEST_PG is unreachable: ") + e.what();
    }
    return "";
  }
};

// In SetUp: skips (or fails when PTSN_REQUIRE names pg) when the back end is not available.
#define PTSN_REQUIRE_BACKEND(Backend)                                \
  do {                                                               \
    std::string why_ = Backend::SkipReason();                        \
    if (!why_.empty()) PTSN_SKIP_UNLESS_REQUIRED("pg", why_);        \
  } while (0)

class TestBackendNames {
 public:
  template <typename T>
  static std::string GetName(int) {
    return std::is_same_v<T, SqliteTestBackend> ? "SQLite" : "PostgreSQL";
  }
};

}  // namespace ptsn::server::testing
