// A PostgreSQL schema of its own for one test, in the database PTSN_TEST_PG names (set it first),
// so tests running in parallel (ctest -j) do not meet; dropped with everything in it afterwards.
#pragma once

#include <cstdlib>
#include <pqxx/pqxx>
#include <string>
#include <utility>

namespace ptsn::server::testing {

struct PgTestSchema {
  std::string name;
  std::string conninfo;  // PTSN_TEST_PG with this schema as the search path

  explicit PgTestSchema(std::string schema_name) : name(std::move(schema_name)) {
    const char* base = std::getenv("PTSN_TEST_PG");
    pqxx::connection c(base);
    pqxx::work w(c);
    w.exec("CREATE SCHEMA " + name);
    w.commit();
    conninfo = std::string(base) + " options='-csearch_path=" + name + "'";
  }
  ~PgTestSchema() {
    try {
      pqxx::connection c(std::getenv("PTSN_TEST_PG"));
      pqxx::work w(c);
      w.exec("DROP SCHEMA " + name + " CASCADE");
      w.commit();
    } catch (const std::exception&) {  // a test's leftover schema is not worth failing over
    }
  }
  PgTestSchema(const PgTestSchema&) = delete;
  PgTestSchema& operator=(const PgTestSchema&) = delete;
};

}  // namespace ptsn::server::testing
