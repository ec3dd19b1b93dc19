#include "runner/workloads/fs_workloads.h"

#include <gtest/gtest.h>

#include "runner/common/error.h"
#include "runner/workloads/test_dir.h"

namespace ptsn::workloads {
namespace {

TEST(FsFiles, CreatesEveryFileWithItsSize) {
  testing::TempDir tmp;
  FsFilesOptions o;
  o.dir = tmp.path();
  o.files = 40;
  o.file_size = 10000;
  o.threads = 2;
  o.dirs = 3;
  auto s = RunFsFiles(o);
  EXPECT_EQ(s.files_created, 80u);
  EXPECT_EQ(s.files_on_disk, 80u);
  EXPECT_EQ(s.bytes_on_disk, 80u * 10000u);
  EXPECT_EQ(s.latency.count(), 80u);
  EXPECT_EQ(tmp.EntryCount(), 0u);
  auto text = FsFilesReport(o, s).ToText();
  EXPECT_NE(text.find("Files: "), std::string::npos);
  EXPECT_NE(text.find(" files/s"), std::string::npos);
}

TEST(MailServer, FileCountAddsUp) {
  testing::TempDir tmp;
  MailServerOptions o;
  o.dir = tmp.path();
  o.files = 50;
  o.transactions = 400;
  o.min_size = 100;
  o.max_size = 20000;
  o.subdirs = 4;
  auto s = RunMailServer(o);
  EXPECT_EQ(s.transactions, 400u);
  EXPECT_EQ(s.reads + s.appends, 400u);
  EXPECT_EQ(s.tx_created + s.tx_deleted, 400u) << "every transaction creates or deletes one file";
  EXPECT_EQ(s.files_on_disk, 50u + s.tx_created - s.tx_deleted);
  EXPECT_EQ(s.created, 50u + s.tx_created);
  EXPECT_EQ(s.deleted, s.created) << "everything removed at the end";
  EXPECT_GT(s.bytes_read, 0u);
  EXPECT_GT(s.bytes_written, 50u * 100u);
  EXPECT_EQ(tmp.EntryCount(), 0u);
  EXPECT_NE(MailServerReport(o, s).ToText().find("Transactions per second: "), std::string::npos);
}

TEST(MailServer, RejectsBadSizes) {
  testing::TempDir tmp;
  MailServerOptions o;
  o.dir = tmp.path();
  o.min_size = 10;
  o.max_size = 5;
  EXPECT_THROW(RunMailServer(o), Error);
}

}  // namespace
}  // namespace ptsn::workloads
