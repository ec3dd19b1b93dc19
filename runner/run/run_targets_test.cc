#include "runner/run/run_targets.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/targets/fake_system.h"
#include "runner/workloads/test_dir.h"

namespace ptsn::run {
namespace {

struct Events : RunObserver {
  std::vector<std::string> seen;
  void TargetReady(const std::string& id, double, const std::string& dir) override { seen.push_back("ready " + id + " " + dir); }
  void TargetRemoved(const std::string& id, double) override { seen.push_back("removed " + id); }
  void Message(const std::string& text) override { seen.push_back(text); }
};

class RunTargetsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto fake = std::make_unique<targets::testing::FakeSystem>();
    sys_ = fake.get();
    fake_ = std::move(fake);
    MakeDirectories(tmp_.path() + "/sys/proc");
    WriteFileAtomically(tmp_.path() + "/sys/proc/mounts", "/dev/vda / ext4 rw 0 0\n");
    reader_ = sysinfo::MakeRootedReader(tmp_.path() + "/sys");
  }
  targets::TargetOptions Options() {
    targets::TargetOptions o;
    o.test_dir = "/t";
    o.size = 256ull << 20;
    return o;
  }
  workloads::testing::TempDir tmp_;
  std::unique_ptr<targets::TargetSystem> fake_;
  targets::testing::FakeSystem* sys_ = nullptr;
  std::unique_ptr<sysinfo::SystemReader> reader_;
  Events events_;
};

TEST_F(RunTargetsTest, EachTargetBecomesAPlaceWithItsOwnSystem) {
  std::string base_dir = "/t/.ptsn-targets-" + std::to_string(getpid());
  {
    RunTargets run_targets(std::move(fake_), tmp_.path() + "/ledger", Options(), events_);
    results::System base;
    base.identifier = "box";
    base.hardware = "Processor: X";
    auto places = run_targets.Create(targets::ParseTargetList("plain,fscrypt"), base, *reader_);
    ASSERT_EQ(places.size(), 2u);
    EXPECT_EQ(places[0].system.identifier, "plain ext4");
    EXPECT_EQ(places[0].system.hardware, "Processor: X");
    EXPECT_EQ(places[0].test_dir, base_dir + "/t1-plain");
    EXPECT_EQ(places[1].test_dir, base_dir + "/t2-fscrypt/encrypted");
    EXPECT_EQ(places[1].system.notes.value_or("").rfind("pts-native target fscrypt AES-256-XTS ext4 (fscrypt).", 0), 0u);
    EXPECT_TRUE(run_targets.Remove());
  }
  EXPECT_TRUE(sys_->Clean());
  EXPECT_EQ(events_.seen, (std::vector<std::string>{"ready plain ext4 " + base_dir + "/t1-plain",
                                                    "ready fscrypt AES-256-XTS ext4 " + base_dir + "/t2-fscrypt/encrypted",
                                                    "removed plain ext4", "removed fscrypt AES-256-XTS ext4"}));
}

TEST_F(RunTargetsTest, InstancesAreMadeInstanceByInstanceWithNumberedNames) {
  RunTargets run_targets(std::move(fake_), tmp_.path() + "/ledger", Options(), events_);
  auto places = run_targets.Create(targets::ParseTargetList("A=plain,fscrypt"), {}, *reader_, 3);
  std::vector<std::string> ids;
  for (const auto& p : places) ids.push_back(p.system.identifier);
  EXPECT_EQ(ids, (std::vector<std::string>{"A", "fscrypt AES-256-XTS ext4", "A #2", "fscrypt AES-256-XTS ext4 #2", "A #3",
                                           "fscrypt AES-256-XTS ext4 #3"}));
  EXPECT_NE(places[0].test_dir, places[2].test_dir);
  EXPECT_TRUE(run_targets.Remove());
}

TEST_F(RunTargetsTest, AFailedTargetStopsTheRunAndTheOthersAreReleased) {
  sys_->fail_on = "add-key";
  {
    RunTargets run_targets(std::move(fake_), tmp_.path() + "/ledger", Options(), events_);
    EXPECT_THROW(run_targets.Create(targets::ParseTargetList("plain,fscrypt"), {}, *reader_), Error);
  }  // the exception left the scope: the destructor releases the plain target
  EXPECT_TRUE(sys_->Clean());
}

TEST_F(RunTargetsTest, LeftoversOfADeadRunAreReleasedFirstAndReported) {
  {
    targets::Ledger dead(tmp_.path() + "/ledger", 999999, "1");
    dead.Add({targets::ResourceType::kFile, "/t/old.img", "", "plain ext4"});
  }
  sys_->files.insert("/t/old.img");
  RunTargets run_targets(std::move(fake_), tmp_.path() + "/ledger", Options(), events_);
  EXPECT_FALSE(sys_->files.count("/t/old.img"));
  ASSERT_EQ(events_.seen.size(), 1u);
  EXPECT_EQ(events_.seen[0], "Cleaned up: file /t/old.img, left by a run that did not finish (pid 999999)");
}

// Beside the verdicts, a run on a machine busier than twice its cores says what that costs; a quiet
// one, or one whose load is unknown, says nothing.
TEST(BusyMachine, ANoteOnlyAboveTwiceTheCores) {
  EXPECT_EQ(BusyMachineNote(3.9, 2), "");
  EXPECT_EQ(BusyMachineNote(4.0, 2), "");
  EXPECT_EQ(BusyMachineNote(-1, 2), "");
  EXPECT_EQ(BusyMachineNote(9.0, 0), "");
  const std::string note = BusyMachineNote(9.34, 2);
  EXPECT_NE(note.find("load average 9.3 over 5 minutes, 2 cores"), std::string::npos) << note;
  EXPECT_NE(note.find("8.0 % of runs at load 9-10 on 2 cores, against 3.0 % quiet"), std::string::npos) << note;
  EXPECT_EQ(note.back(), '\n');
  EXPECT_NE(BusyMachineNote(2.5, 1).find("1 core)"), std::string::npos);
}

}  // namespace
}  // namespace ptsn::run
