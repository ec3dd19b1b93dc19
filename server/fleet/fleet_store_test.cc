// The fleet's state machine on both back ends: claims, leases, retries, results and history.
#include "server/fleet/fleet_store.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "server/testing/storage_backends.h"

namespace ptsn::server {
namespace {

using testing::PostgresTestBackend;
using testing::SqliteTestBackend;

constexpr std::int64_t kT0 = 1796140800;
const std::string kSpec = R"({"tests":["native/cipher"],"presets":"","times":2})";

template <typename Backend>
class FleetStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PTSN_REQUIRE_BACKEND(Backend);
    backend_ = std::make_unique<Backend>();
    storage_ = backend_->Open();
    store_ = std::make_unique<FleetStore>(*storage_);
    for (const char* m : {"m1", "m2", "m3"}) store_->SetAgentToken(m, std::string("sha-") + m, kT0);
    limits_.lease_seconds = 30;
    limits_.return_seconds = 600;
  }
  TestMeasurement Test(double mean, double half = 1, const std::string& key = "k1") {
    return {key, "Cipher - AES", "MiB/s", "HIB", {3, mean, mean - half, mean + half}, "1:2:3"};
  }
  std::int64_t Job(const std::vector<std::string>& machines) {
    return store_->CreateJob("alice", std::nullopt, 0, "job", kSpec, machines, kT0);
  }
  std::string StateOf(std::int64_t job, const std::string& machine, std::string* reason = nullptr) {
    const auto row = store_->Job(job);
    for (const auto& t : row->tasks)
      if (t.machine == machine) {
        if (reason) *reason = t.reason;
        return t.state;
      }
    return "none";
  }

  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Storage> storage_;
  std::unique_ptr<FleetStore> store_;
  TimeLimits limits_;
};

using Backends = ::testing::Types<SqliteTestBackend, PostgresTestBackend>;
TYPED_TEST_SUITE(FleetStoreTest, Backends, testing::TestBackendNames);

TYPED_TEST(FleetStoreTest, TokensNameMachinesAndSelectorsPickThem) {
  EXPECT_EQ(*this->store_->MachineForToken("sha-m2"), "m2");
  EXPECT_FALSE(this->store_->MachineForToken("sha-nobody"));
  MachineInfo info;
  info.tags = {"nightly"};
  this->store_->Hello("m3", "s", info, kT0);
  EXPECT_EQ(this->store_->SelectMachines("all"), (std::vector<std::string>{"m1", "m2", "m3"}));
  EXPECT_EQ(this->store_->SelectMachines("tag:nightly"), (std::vector<std::string>{"m3"}));
  EXPECT_EQ(this->store_->SelectMachines("m2,m1,m2"), (std::vector<std::string>{"m2", "m1"}));
  EXPECT_THROW(this->store_->SelectMachines("m9"), FleetError);
  EXPECT_THROW(this->store_->SelectMachines("tag:none"), FleetError);
}

TYPED_TEST(FleetStoreTest, EachTaskIsClaimedOnceByItsOwnMachine) {
  auto job = this->Job({"m1", "m2"});
  auto a = this->store_->Claim("m1", "s1", kT0, this->limits_);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->job_id, job);
  EXPECT_EQ(a->attempt, 1);
  EXPECT_EQ(a->spec, kSpec);
  EXPECT_FALSE(this->store_->Claim("m1", "s1", kT0, this->limits_)) << "m1 has one task only";
  EXPECT_FALSE(this->store_->Claim("m3", "s3", kT0, this->limits_)) << "m3 has none";
  auto b = this->store_->Claim("m2", "s2", kT0, this->limits_);
  ASSERT_TRUE(b);
  EXPECT_NE(a->task_id, b->task_id);
}

TYPED_TEST(FleetStoreTest, AnExpiredLeaseIsRetriedOnceThenFails) {
  auto job = this->Job({"m1"});
  auto first = this->store_->Claim("m1", "s1", kT0, this->limits_);
  ASSERT_TRUE(first);
  EXPECT_TRUE(this->store_->Expire(kT0 + 10, this->limits_).empty());
  EXPECT_EQ(this->StateOf(job, "m1"), "running") << "within its lease";
  this->store_->Expire(kT0 + 31, this->limits_);
  std::string reason;
  EXPECT_EQ(this->StateOf(job, "m1", &reason), "queued");
  EXPECT_NE(reason.find("lease expired"), std::string::npos) << reason;
  auto retry = this->store_->Claim("m1", "s2", kT0 + 40, this->limits_);
  ASSERT_TRUE(retry);
  EXPECT_EQ(retry->attempt, 2);
  EXPECT_EQ(retry->task_id, first->task_id);
  auto over = this->store_->Expire(kT0 + 71, this->limits_);
  EXPECT_EQ(over, std::vector<std::int64_t>{job}) << "the job is over once its only task failed";
  EXPECT_EQ(this->StateOf(job, "m1", &reason), "failed");
  EXPECT_NE(reason.find("again on the retry"), std::string::npos) << reason;
  EXPECT_EQ(this->store_->JobsToMerge(kT0 + 72, 120), std::vector<std::int64_t>{job});
}

TYPED_TEST(FleetStoreTest, AMachineThatDoesNotReturnFailsItsTask) {
  auto job = this->Job({"m1"});
  this->store_->Claim("m1", "s1", kT0, this->limits_);
  this->store_->Expire(kT0 + 31, this->limits_);
  EXPECT_TRUE(this->store_->Expire(kT0 + 31 + 599, this->limits_).empty());
  EXPECT_EQ(this->store_->Expire(kT0 + 31 + 601, this->limits_), std::vector<std::int64_t>{job});
  std::string reason;
  EXPECT_EQ(this->StateOf(job, "m1", &reason), "failed");
  EXPECT_NE(reason.find("did not come back within 600 s"), std::string::npos) << reason;
}

TYPED_TEST(FleetStoreTest, ARestartedAgentLosesItsRunningTaskToTheRetry) {
  auto job = this->Job({"m1"});
  this->store_->Claim("m1", "old", kT0, this->limits_);
  this->store_->Hello("m1", "old", {}, kT0 + 1);
  EXPECT_EQ(this->StateOf(job, "m1"), "running") << "the same session said hello again";
  this->store_->Hello("m1", "new", {}, kT0 + 2);
  std::string reason;
  EXPECT_EQ(this->StateOf(job, "m1", &reason), "queued");
  EXPECT_NE(reason.find("restarted"), std::string::npos) << reason;
  EXPECT_FALSE(this->store_->Renew(this->store_->Job(job)->tasks[0].id, "m1", "new", "", kT0 + 3, this->limits_))
      << "the new session never held it";
  auto retry = this->store_->Claim("m1", "new", kT0 + 3, this->limits_);
  ASSERT_TRUE(retry);
  EXPECT_EQ(retry->attempt, 2);
  this->store_->Hello("m1", "newer", {}, kT0 + 4);
  EXPECT_EQ(this->StateOf(job, "m1", &reason), "failed") << "lost twice";
}

TYPED_TEST(FleetStoreTest, ALateRenewalTakesAnExpiredLeaseBack) {
  auto job = this->Job({"m1"});
  auto t = this->store_->Claim("m1", "s1", kT0, this->limits_);
  this->store_->Expire(kT0 + 100, this->limits_);  // the server was away
  EXPECT_EQ(this->StateOf(job, "m1"), "queued");
  EXPECT_TRUE(this->store_->Renew(t->task_id, "m1", "s1", "test 1/1", kT0 + 101, this->limits_));
  EXPECT_EQ(this->StateOf(job, "m1"), "running");
  EXPECT_FALSE(this->store_->Renew(t->task_id, "m1", "other", "", kT0 + 101, this->limits_));
  EXPECT_FALSE(this->store_->Renew(t->task_id, "m2", "s1", "", kT0 + 101, this->limits_)) << "another machine";
}

TYPED_TEST(FleetStoreTest, AResultIsStoredOnceAndItsHistorySearchedForChangePoints) {
  RegressionPolicy policy;
  std::int64_t now = kT0;
  auto run = [&](double mean, const std::string& sha) {
    this->Job({"m1"});
    auto t = this->store_->Claim("m1", "s", now, this->limits_);
    return std::make_pair(t->task_id, this->store_->Complete(t->task_id, "m1", "<xml " + sha + "/>", sha,
                                                             {this->Test(mean)}, ++now, policy));
  };
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(run(i % 2 ? 101 : 100, "a" + std::to_string(i)).second.flagged.empty()) << i;
  // A step down to 70: one slow result could be an outlier; the second makes it a change (the
  // split has 3 results on each side, the last 101 among them, and is then placed between 2).
  EXPECT_TRUE(run(70, "b0").second.flagged.empty());
  auto [task, c] = run(70.5, "b1");
  EXPECT_TRUE(c.job_finished);
  ASSERT_EQ(c.flagged.size(), 1u);
  const HistoryRow& flag = c.flagged[0];
  EXPECT_EQ(*flag.verdict, -1);
  EXPECT_EQ(flag.m.mean, 70) << "the first result after the change, not the one that revealed it";
  EXPECT_NEAR(flag.change_pct, -30.1, 0.1);
  EXPECT_NEAR(flag.baseline_mean, 100.5, 1e-9);
  EXPECT_LT(flag.ratio_low, 0.699);
  EXPECT_GT(flag.ratio_high, 0.699);
  EXPECT_LE(flag.p_value, 0.02);
  // A retried upload of the same file is the same result; another file is refused.
  auto again = this->store_->Complete(task, "m1", "<xml b1/>", "b1", {this->Test(70.5)}, ++now, policy);
  EXPECT_TRUE(again.duplicate);
  EXPECT_THROW(this->store_->Complete(task, "m1", "<xml d/>", "d", {}, ++now, policy), FleetError);
  EXPECT_THROW(this->store_->Complete(task, "m2", "<xml b1/>", "b1", {}, ++now, policy), FleetError) << "not m2's task";
  // More results at the new level are the same change, announced once.
  EXPECT_TRUE(run(69.5, "b2").second.flagged.empty());
  auto history = this->store_->History("m1");
  ASSERT_EQ(history.size(), 23u) << "the duplicate added nothing";
  EXPECT_EQ(*history[0].verdict, 0);
  EXPECT_EQ(*history[19].verdict, 0);
  EXPECT_EQ(*history[20].verdict, -1);
  EXPECT_FALSE(history[21].verdict) << "too recent to start a change";
  EXPECT_FALSE(history[22].verdict);
  EXPECT_EQ(this->store_->Flags(10).size(), 1u);
  EXPECT_EQ(this->store_->History("m1", true).size(), 1u);
  EXPECT_TRUE(run(70, "e").second.flagged.empty());
  EXPECT_EQ(this->store_->Flags(10).size(), 1u);
  EXPECT_EQ(*this->store_->History("m1").at(21).verdict, 0);
}

TYPED_TEST(FleetStoreTest, AHistoryTableFromBeforeChangePointsGetsTheirColumns) {
  this->storage_->Transact([](SqlTx& tx) {
    tx.Exec("DROP TABLE fleet_history", {});
    tx.Exec("CREATE TABLE fleet_history (id BIGINT, machine TEXT NOT NULL, test_key TEXT NOT NULL, label TEXT NOT NULL,"
            " scale TEXT NOT NULL, proportion TEXT NOT NULL, job_id BIGINT NOT NULL, task_id BIGINT NOT NULL,"
            " measured_at BIGINT NOT NULL, n INTEGER NOT NULL, mean DOUBLE PRECISION NOT NULL,"
            " ci_low DOUBLE PRECISION NOT NULL, ci_high DOUBLE PRECISION NOT NULL, trials TEXT NOT NULL, verdict INTEGER,"
            " change_pct DOUBLE PRECISION, baseline_mean DOUBLE PRECISION)", {});
    // A newer fleet_history in another schema of the same database (another deployment, or a
    // parallel test) must not make ours look migrated: CI once failed on just that.
    if (tx.dialect() == SqlDialect::kPostgres)
      tx.Exec("CREATE TABLE IF NOT EXISTS public.fleet_history (ratio_low DOUBLE PRECISION,"
              " ratio_high DOUBLE PRECISION, p_value DOUBLE PRECISION)", {});
  });
  FleetStore migrated(*this->storage_);
  FleetStore again(*this->storage_);  // a second start finds the columns there
  EXPECT_TRUE(again.History("m1").empty());
  EXPECT_TRUE(again.Flags(5).empty());
  this->storage_->Transact([](SqlTx& tx) {
    if (tx.dialect() == SqlDialect::kPostgres) tx.Exec("DROP TABLE IF EXISTS public.fleet_history", {});
  });
}

TYPED_TEST(FleetStoreTest, TooShortAHistoryIsNotJudged) {
  std::int64_t now = kT0;
  for (double mean : {100.0, 101.0, 70.0}) {
    this->Job({"m1"});
    auto t = this->store_->Claim("m1", "s", now, this->limits_);
    EXPECT_TRUE(this->store_->Complete(t->task_id, "m1", "<x/>", std::to_string(mean), {this->Test(mean)}, ++now, {})
                    .flagged.empty());
  }
  for (const auto& h : this->store_->History("m1")) EXPECT_FALSE(h.verdict);
}

TYPED_TEST(FleetStoreTest, AFailedTaskTakesNoResult) {
  auto job = this->Job({"m1", "m2"});
  auto t = this->store_->Claim("m1", "s", kT0, this->limits_);
  auto f = this->store_->Fail(t->task_id, "m1", "install failed", kT0 + 1);
  EXPECT_FALSE(f.job_finished) << "m2 is still queued";
  EXPECT_THROW(this->store_->Complete(t->task_id, "m1", "<x/>", "x", {}, kT0 + 2, {}), FleetError);
  auto u = this->store_->Claim("m2", "s", kT0, this->limits_);
  auto c = this->store_->Complete(u->task_id, "m2", "<x/>", "x", {}, kT0 + 3, {});
  EXPECT_TRUE(c.job_finished);
  EXPECT_TRUE(this->store_->ClaimMerge(job, kT0 + 4, 120));
  EXPECT_FALSE(this->store_->ClaimMerge(job, kT0 + 5, 120)) << "claimed once";
  EXPECT_TRUE(this->store_->ClaimMerge(job, kT0 + 200, 120)) << "a stale claim is taken over";
  EXPECT_EQ(this->store_->DoneResults(job), (std::vector<std::pair<std::string, std::string>>{{"m2", "<x/>"}}));
  this->store_->FinishMerge(job, "ID-1", "");
  EXPECT_EQ(this->store_->Job(job)->result_id, "ID-1");
  EXPECT_TRUE(this->store_->JobsToMerge(kT0 + 300, 120).empty());
}

TYPED_TEST(FleetStoreTest, AScheduleSlotFiresOnce) {
  ScheduleRow s;
  s.name = "nightly";
  s.owner = "alice";
  s.spec = kSpec;
  s.machines = "all";
  s.cron = "0 3 * * *";
  s.next_fire = kT0 + 60;
  s.created_at = kT0;
  s.id = this->store_->CreateSchedule(s);
  EXPECT_THROW(this->store_->CreateSchedule(s), FleetError) << "names are unique";
  EXPECT_TRUE(this->store_->DueSchedules(kT0 + 59).empty());
  auto due = this->store_->DueSchedules(kT0 + 60);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_GT(this->store_->FireSchedule(due[0], {"m1", "m2"}, "Fleet: nightly", kT0 + 86400, kT0 + 60), 0);
  EXPECT_EQ(this->store_->FireSchedule(due[0], {"m1", "m2"}, "Fleet: nightly", kT0 + 86400, kT0 + 61), 0)
      << "a second process seeing the same slot";
  EXPECT_TRUE(this->store_->DueSchedules(kT0 + 120).empty());
  EXPECT_EQ(this->store_->Schedule("nightly")->next_fire, kT0 + 86400);
  EXPECT_TRUE(this->store_->DeleteSchedule("nightly"));
  EXPECT_FALSE(this->store_->DeleteSchedule("nightly"));
}

// Two stores on one database (two server processes) and many threads claiming at once: every
// task goes to exactly one claim.
TYPED_TEST(FleetStoreTest, ConcurrentClaimsNeverShareATask) {
  std::vector<std::string> machines;
  for (int i = 0; i < 8; ++i) {
    machines.push_back("c" + std::to_string(i));
    this->store_->SetAgentToken(machines.back(), "sha-c" + std::to_string(i), kT0);
  }
  for (int j = 0; j < 6; ++j) this->Job(machines);
  auto second_storage = this->backend_->Open();
  FleetStore second(*second_storage);
  std::mutex mu;
  std::multiset<std::int64_t> claimed;
  std::vector<std::thread> threads;
  for (int k = 0; k < 16; ++k)
    threads.emplace_back([&, k] {
      FleetStore& store = k % 2 ? second : *this->store_;
      const std::string& machine = machines[k % machines.size()];
      while (auto t = store.Claim(machine, "s" + std::to_string(k), kT0, this->limits_)) {
        std::lock_guard lock(mu);
        claimed.insert(t->task_id);
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(claimed.size(), 48u);
  EXPECT_EQ(std::set<std::int64_t>(claimed.begin(), claimed.end()).size(), 48u) << "a task was claimed twice";
}

}  // namespace
}  // namespace ptsn::server
