#include "runner/run/estimate.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "runner/common/atomic_file.h"

namespace fs = std::filesystem;

namespace ptsn::run {
namespace {

PlannedTest Planned(const std::string& arguments, double per_run, int times = 3) {
  profile::TestProfile p;
  p.identifier = "local/est-1.0.0";
  p.title = "Est";
  p.times_to_run = times;
  p.estimated_time_per_run = per_run;
  return MakePlannedTest(p, {arguments, "Mode: " + arguments});
}

class RunEstimate : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("estimate-" + std::to_string(getpid()));
    fs::remove_all(root_);
    MakeDirectories((root_ / "local/est-1.0.0").string());
  }
  void TearDown() override { fs::remove_all(root_); }
  std::string Dir() const { return (root_ / "local/est-1.0.0").string(); }
  fs::path root_;
};

TEST_F(RunEstimate, ProfileEstimateTimesTheScheduledTrials) {
  auto e = EstimateTest(Planned("-a", 20), root_.string(), {}, 0);
  EXPECT_EQ(e.trials, 3);
  EXPECT_EQ(e.seconds, 60);
  EXPECT_EQ(e.basis, "profile");
  RunCountOverrides forced;
  forced.force_times_to_run = 5;
  e = EstimateTest(Planned("-a", 20), root_.string(), forced, 1.5);
  EXPECT_EQ(e.trials, 5);
  EXPECT_EQ(e.seconds, 5 * 20 + 4 * 1.5);  // settle time between trials
  EXPECT_EQ(EstimateTest(Planned("-a", 0), root_.string(), {}, 0).basis, "unknown");
}

// Measured trial times win over the profile: the same test and options first, else any.
TEST_F(RunEstimate, TimesMeasuredHereWinOverTheProfile) {
  RecordRunTime(Dir(), RunTimeKey(Planned("-a", 20)), 2);
  RecordRunTime(Dir(), RunTimeKey(Planned("-a", 20)), 4);
  RecordRunTime(Dir(), RunTimeKey(Planned("-b", 20)), 30);
  RecordRunTime(Dir(), "ignored", 0);
  std::ofstream(RunTimesLogPath(Dir()), std::ios::app) << "torn-line-without-a-number\n";
  auto same = EstimateTest(Planned("-a", 20), root_.string(), {}, 0);
  EXPECT_EQ(same.basis, "measured here (same options)");
  EXPECT_DOUBLE_EQ(same.seconds_per_trial, 3);
  auto other = EstimateTest(Planned("-c", 20), root_.string(), {}, 0);
  EXPECT_EQ(other.basis, "measured here");
  EXPECT_DOUBLE_EQ(other.seconds_per_trial, 12);
}

TEST(Estimate, TotalSaysWhatIsUnknown) {
  EXPECT_EQ(DescribeEstimate({60, 0, 5}), "about 1m 05s, plus 1 test(s) with no estimate");
  EXPECT_EQ(DescribeEstimate({60}), "about 1m 00s");
  EXPECT_EQ(DescribeEstimate({0}), "unknown");
  EXPECT_EQ(DescribeEstimate({}), "unknown");
}

}  // namespace
}  // namespace ptsn::run
