#include "runner/targets/ledger.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "runner/common/atomic_file.h"
#include "runner/targets/fake_system.h"
#include "runner/workloads/test_dir.h"

namespace fs = std::filesystem;

namespace ptsn::targets {
namespace {

using testing::FakeSystem;

// A dead run's record as its process left it.
void WriteRecord(const std::string& dir, int pid, const std::string& start, const std::vector<Resource>& resources) {
  Ledger ledger(dir, pid, start);
  for (const auto& r : resources) ledger.Add(r);
  // Simulate the process dying: the destructor must not remove a non-empty record, so nothing to do.
}

TEST(Ledger, EveryChangeIsOnDiskAndAnEmptyRecordIsRemoved) {
  workloads::testing::TempDir tmp;
  std::string dir = tmp.path() + "/targets";
  {
    Ledger ledger(dir, 77, "1234");
    ledger.Add({ResourceType::kFile, "/t/a.img", "", "plain ext4"});
    ledger.Add({ResourceType::kLoop, "/dev/loop3", "/t/a.img", "plain ext4"});
    auto j = nlohmann::json::parse(ReadFile(ledger.path()));
    EXPECT_EQ(j["pid"], 77);
    EXPECT_EQ(j["start_time"], "1234");
    ASSERT_EQ(j["resources"].size(), 2u);
    EXPECT_EQ(j["resources"][1]["type"], "loop");
    EXPECT_EQ(j["resources"][1]["detail"], "/t/a.img");
    ledger.Forget({ResourceType::kLoop, "/dev/loop3", "/t/a.img", "plain ext4"});
    EXPECT_EQ(nlohmann::json::parse(ReadFile(ledger.path()))["resources"].size(), 1u);
    ledger.Forget({ResourceType::kFile, "/t/a.img", "", "plain ext4"});
    EXPECT_FALSE(fs::exists(ledger.path()));
  }
  {
    Ledger kept(dir, 78, "1");
    kept.Add({ResourceType::kFile, "/t/b.img", "", ""});
  }
  EXPECT_TRUE(fs::exists(dir + "/run-78.json")) << "a record with resources outlives its Ledger object";
}

TEST(Ledger, CleanupReleasesADeadRunNewestFirstAndLeavesLiveRunsAlone) {
  workloads::testing::TempDir tmp;
  std::string dir = tmp.path();
  FakeSystem sys;
  sys.files = {"/t/d/t1.img"};
  sys.dirs = {"/t/d", "/t/d/t1"};
  sys.loops = {{"/dev/loop5", "/t/d/t1.img"}};
  sys.mounts = {{"/t/d/t1", "/dev/loop5"}};
  sys.keys = {{"00000000000000000000000000000001", "/t/d/t1"}};
  WriteRecord(dir, 111, "500",
              {{ResourceType::kDirectory, "/t/d", "", ""},
               {ResourceType::kFile, "/t/d/t1.img", "", "f"},
               {ResourceType::kLoop, "/dev/loop5", "/t/d/t1.img", "f"},
               {ResourceType::kMount, "/t/d/t1", "/dev/loop5", "f"},
               {ResourceType::kFscryptKey, "/t/d/t1", "00000000000000000000000000000001", "f"}});
  // A live run (same pid, same start time) and one whose pid was reused by another process.
  WriteRecord(dir, 222, "900", {{ResourceType::kFile, "/t/live.img", "", ""}});
  sys.files.insert("/t/live.img");
  sys.live_pids = {{222, "900"}, {111, "999"}};

  auto report = CleanupDeadRuns(sys, dir);
  EXPECT_TRUE(report.problems.empty()) << report.problems.front();
  std::vector<std::string> expected = {"remove-key /t/d/t1 00000000000000000000000000000001", "umount /t/d/t1",
                                       "detach /dev/loop5", "rm /t/d/t1.img", "rm -r /t/d"};
  EXPECT_EQ(sys.log, expected);
  EXPECT_EQ(report.released.size(), 5u);
  EXPECT_FALSE(fs::exists(dir + "/run-111.json"));
  EXPECT_TRUE(fs::exists(dir + "/run-222.json"));
  EXPECT_TRUE(sys.files.count("/t/live.img"));
}

// A dead run that served a target over NFS: its export (the kernel holds what it exports) and
// its server go before the target's file system, though recorded after it; its rpc.mountd died
// with it (nothing to stop), the nfsd mount went with its mount namespace.
TEST(Ledger, CleanupWithdrawsADeadRunsNfsExportAndServerBeforeItsFileSystem) {
  workloads::testing::TempDir tmp;
  std::string dir = tmp.path();
  FakeSystem sys;
  sys.files = {"/t/d/t1.img"};
  sys.loops = {{"/dev/loop5", "/t/d/t1.img"}};
  sys.mounts = {{"/t/d/t1", "/dev/loop5"}, {"/proc/fs/nfsd", "nfsd"}};  // both still held by the server
  sys.texts["/proc/fs/nfsd/threads"] = "8\n";
  sys.texts["/var/lib/nfs/etab"] = "/t/d/t1\t127.0.0.1(rw,sync)\n/srv/other\t10.0.0.0/8(ro)\n";
  sys.held_by = 1;  // the trial's child, still writing on the NFS client's mount in the dead run's namespace
  WriteRecord(dir, 111, "500",
              {{ResourceType::kMountNamespace, "mnt:[4026532999]", "/t/d", ""},
               {ResourceType::kFile, "/t/d/t1.img", "", "f"},
               {ResourceType::kLoop, "/dev/loop5", "/t/d/t1.img", "f"},
               {ResourceType::kMount, "/t/d/t1", "/dev/loop5", "f"},
               {ResourceType::kProcess, "4321", "77", ""},
               {ResourceType::kNfsServer, "/proc/fs/nfsd", "", ""},
               {ResourceType::kNfsExport, "/t/d/t1", "127.0.0.1", "f"},
               {ResourceType::kMount, "/t/d/t1-nfs", "127.0.0.1:/t/d/t1", "f"}});
  auto report = CleanupDeadRuns(sys, dir);
  EXPECT_TRUE(report.problems.empty()) << report.problems.front();
  std::vector<std::string> expected = {"kill 1 in mnt:[4026532999] holding /t/d", "exportfs -u 127.0.0.1:/t/d/t1",
                                       "rpc.nfsd 0", "umount /t/d/t1",
                                       "detach /dev/loop5", "rm /t/d/t1.img"};
  EXPECT_EQ(sys.log, expected);
  EXPECT_EQ(sys.texts["/var/lib/nfs/etab"], "/srv/other\t10.0.0.0/8(ro)\n") << "nobody else's export touched";
  EXPECT_FALSE(fs::exists(dir + "/run-111.json"));
}

TEST(Ledger, TheRunsOwnNamespaceIsLeftToTheRun) {
  FakeSystem sys;
  sys.held_by = 2;  // would be killed, were it another run's
  EXPECT_FALSE(Release(sys, {ResourceType::kMountNamespace, sys.mount_namespace, "/t/d", ""}));
  EXPECT_TRUE(sys.log.empty());
  EXPECT_TRUE(Release(sys, {ResourceType::kMountNamespace, "mnt:[4026532999]", "/t/d", ""}));
  EXPECT_EQ(sys.log, std::vector<std::string>{"kill 2 in mnt:[4026532999] holding /t/d"});
}

TEST(Ledger, TheNamespaceThenNfsResourcesGoFirstNewestFirst) {
  std::vector<Resource> recorded = {{ResourceType::kMountNamespace, "mnt:[1]", "/t/d", ""},
                                    {ResourceType::kDirectory, "/t/d", "", ""},
                                    {ResourceType::kMount, "/t/d/t1", "/dev/loop5", "f"},
                                    {ResourceType::kMount, "/proc/fs/nfsd", "nfsd", ""},
                                    {ResourceType::kNfsExport, "/t/d/t1", "127.0.0.1", "f"},
                                    {ResourceType::kFile, "/t/d/x", "", "g"}};
  std::vector<std::string> order;
  for (const auto& r : ReleaseOrder(recorded)) order.push_back(Describe(r));
  EXPECT_EQ(order, (std::vector<std::string>{"processes of the run still holding /t/d (mount namespace mnt:[1])",
                                             "NFS export 127.0.0.1:/t/d/t1", "mount /proc/fs/nfsd (from nfsd)",
                                             "file /t/d/x", "mount /t/d/t1 (from /dev/loop5)", "directory /t/d"}));
}

TEST(Ledger, CleanupNeverTouchesWhatIsNoLongerOurs) {
  workloads::testing::TempDir tmp;
  FakeSystem sys;
  // The loop device number was reused for another file, the mount point now holds another device.
  sys.loops = {{"/dev/loop5", "/somebody/else.img"}};
  sys.mounts = {{"/t/d/t1", "/dev/sdz1"}};
  WriteRecord(tmp.path(), 111, "500",
              {{ResourceType::kLoop, "/dev/loop5", "/t/d/t1.img", "f"},
               {ResourceType::kMount, "/t/d/t1", "/dev/loop5", "f"}});
  auto report = CleanupDeadRuns(sys, tmp.path());
  EXPECT_TRUE(sys.log.empty());
  EXPECT_EQ(sys.loops.size(), 1u);
  EXPECT_EQ(sys.mounts.size(), 1u);
  ASSERT_EQ(report.problems.size(), 1u);
  EXPECT_EQ(report.problems[0],
            "mount /t/d/t1 (from /dev/loop5): /t/d/t1 is mounted from /dev/sdz1, not from /dev/loop5 as recorded: left alone");
  // Kept for a later look, with only what is still in question.
  auto j = nlohmann::json::parse(ReadFile(tmp.path() + "/run-111.json"));
  ASSERT_EQ(j["resources"].size(), 1u);
  EXPECT_EQ(j["resources"][0]["type"], "mount");
}

TEST(Ledger, DamagedRecordIsReportedNotFatal) {
  workloads::testing::TempDir tmp;
  WriteFileAtomically(tmp.path() + "/run-5.json", "{\"format\": \"pts-native targets ledger 1\", \"pid\": \"x\"}");
  FakeSystem sys;
  auto report = CleanupDeadRuns(sys, tmp.path());
  ASSERT_EQ(report.problems.size(), 1u);
  EXPECT_NE(report.problems[0].find("run-5.json: damaged ledger"), std::string::npos) << report.problems[0];
}

}  // namespace
}  // namespace ptsn::targets
