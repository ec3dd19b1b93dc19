#include "runner/workloads/sqlite_workload.h"

#include <gtest/gtest.h>

#include "runner/common/error.h"
#include "runner/workloads/test_dir.h"

namespace ptsn::workloads {
namespace {

TEST(Sqlite, InsertsEveryRow) {
  testing::TempDir tmp;
  SqliteOptions o;
  o.dir = tmp.path();
  o.rows = 120;
  o.rows_per_transaction = 7;
  o.synchronous = "off";
  auto s = RunSqliteInserts(o);
  EXPECT_EQ(s.rows_inserted, 120u);
  EXPECT_EQ(s.rows_in_table, 120u);
  EXPECT_EQ(s.transactions, 18u);  // ceil(120 / 7)
  EXPECT_EQ(tmp.EntryCount(), 0u);
  EXPECT_NE(SqliteReport(o, s).ToText().find("Transactions per second: "), std::string::npos);
}

TEST(Sqlite, WalAndFullSyncWork) {
  testing::TempDir tmp;
  SqliteOptions o;
  o.dir = tmp.path();
  o.rows = 20;
  o.journal = "wal";
  EXPECT_EQ(RunSqliteInserts(o).rows_in_table, 20u);
  o.journal = "sideways";
  EXPECT_THROW(RunSqliteInserts(o), Error);
}

}  // namespace
}  // namespace ptsn::workloads
