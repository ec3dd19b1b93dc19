#include "runner/reproduce/encryption_cost.h"

#include <gtest/gtest.h>

#include "results-xml/stats/statistics.h"

namespace ptsn::reproduce {
namespace {

// Plain and set-ups over three instance pairs of three rounds: each set-up at `ratio` of plain's
// value (a little noise between instances) in a result of `proportion`.
results::Result Measured(const std::string& arguments, const std::vector<std::pair<std::string, double>>& setups,
                         const std::string& proportion = "HIB") {
  results::Result r;
  r.identifier = "native/disk-rand-read-1.0.0";
  r.title = "Native Random Read";
  r.app_version = "1.0";
  r.arguments = arguments;
  r.description = "Block Size: 4KB";
  r.scale = "MiB/s";
  r.proportion = proportion;
  for (int k = 1; k <= 3; ++k) {
    const double base = 200 + 3 * k;
    int index = 0;  // each set-up's instances differ a little, and differently
    auto entry = [&](const std::string& who, double ratio) {
      const double instance = 1 + 0.01 * ((k + index++) % 3 - 1);
      std::vector<std::string> trials;
      for (double w : {0.99, 1.0, 1.01}) trials.push_back(std::to_string(base * w * ratio * instance));
      r.entries.push_back(results::MakeEntry(results::InstanceIdentifier(who, k), results::MeanValue(trials), trials));
    };
    entry("plain ext4", 1);
    for (const auto& [who, ratio] : setups) entry(who, ratio);
  }
  return r;
}

results::ResultFile File(const std::vector<results::Result>& results) {
  results::ResultFile f;
  f.results = results;
  for (const auto& e : results.front().entries) f.systems.push_back({.identifier = e.identifier});
  return f;
}

const std::vector<std::string> kSetups = {"dm-crypt LUKS2", "fscrypt"};

}  // namespace

TEST(EncryptionCost, TheDefaultWorkloadsExistAndCoverDepthOneAndThirtyTwo) {
  auto names = DefaultWorkloadNames();
  ASSERT_EQ(names.size(), 4u);
  for (const auto& n : names) ASSERT_NE(FindWorkload(n), nullptr) << n;
  EXPECT_NE(FindWorkload("rand-read-4k-qd1")->presets.find("iodepth=1;"), std::string::npos);
  EXPECT_NE(FindWorkload("rand-read-4k-qd32")->presets.find("iodepth=32;"), std::string::npos);
  EXPECT_EQ(FindWorkload("nonesuch"), nullptr);
  EXPECT_EQ(DefaultSetups().front(), "plain");
}

TEST(EncryptionCost, ThePlanSaysWhatItBuildsWhatItCannotAndHowLong) {
  CostPlan plan;
  plan.probe = {"kernel: 6.1.0-13-amd64"};
  plan.unoffered = {"dm-crypt high_priority: needs Linux 6.10, this is 6.1; no target option for it yet"};
  plan.setups = {{"plain", "plain ext4", ""},
                 {"fscrypt", "fscrypt AES-256-XTS ext4", ""},
                 {"ecryptfs", "ecryptfs ext4", "ecryptfs-add-passphrase not found (Debian package ecryptfs-utils)"}};
  plan.workloads = {"rand-read-4k-qd1: 4 KiB random reads"};
  plan.estimate = "about 4m 10s";
  plan.time_budget_seconds = 600;
  EXPECT_EQ(CostPlanText(plan),
            "This machine:\n  kernel: 6.1.0-13-amd64\n"
            "Will build (2):\n  plain ext4  (the reference)  [plain]\n  fscrypt AES-256-XTS ext4  [fscrypt]\n"
            "Cannot build here:\n  ecryptfs: ecryptfs-add-passphrase not found (Debian package ecryptfs-utils)\n"
            "Not compared (no target option yet):\n"
            "  dm-crypt high_priority: needs Linux 6.10, this is 6.1; no target option for it yet\n"
            "Workloads (1):\n  rand-read-4k-qd1: 4 KiB random reads\n"
            "Estimated run time: about 4m 10s; extra rounds of each test stop at run.time_budget (10m 00s)\n");
}

TEST(EncryptionCost, TheAnswerRanksBySpeedOverWorkloadsWithVerdicts) {
  auto file = File({Measured("--depth 1", {{"dm-crypt LUKS2", 0.5}, {"fscrypt", 0.8}}),
                    Measured("--depth 32", {{"dm-crypt LUKS2", 0.9}, {"fscrypt", 0.7}})});
  std::string text = CostAnswerText(file, "plain ext4", kSetups,
                                    {{"native/disk-rand-read-1.0.0", "--depth 1", "rand-read-4k-qd1"}}, {5, 0.95});
  EXPECT_NE(text.find("Encryption cost here against plain ext4"), std::string::npos) << text;
  EXPECT_NE(text.find("\n  dm-crypt LUKS2  rand-read-4k-qd1 (MiB/s)                      different: x0.50"), std::string::npos) << text;
  // An unlabelled result is named by its title and description; rows in the order of the set-ups.
  EXPECT_NE(text.find("\n  fscrypt         Native Random Read - Block Size: 4KB (MiB/s)  different: x0.70"), std::string::npos) << text;
  EXPECT_LT(text.find("dm-crypt LUKS2  Native"), text.find("fscrypt         rand-read"));
  // Geometric means: fscrypt sqrt(0.8 * 0.7) = 0.748 > dm-crypt sqrt(0.5 * 0.9) = 0.671; but
  // dm-crypt is faster at depth 32, so which costs least is not a verdict.
  EXPECT_NE(text.find("Costs least here: fscrypt (x0.74"), std::string::npos) << text;
  EXPECT_NE(text.find(" of plain's speed, geometric mean over 2 workloads): unknown; "
                      "slower than dm-crypt LUKS2 in some workload\n"),
            std::string::npos)
      << text;
}

TEST(EncryptionCost, ASetUpAheadEverywhereIsAVerdictAndLowerIsBetterIsInverted) {
  // Lower is better: dm-crypt takes 1.6x plain's time, fscrypt 1.2x: fscrypt costs least.
  auto file = File({Measured("a", {{"dm-crypt LUKS2", 1.6}, {"fscrypt", 1.2}}, "LIB")});
  std::string text = CostAnswerText(file, "plain ext4", kSetups, {}, {5, 0.95});
  EXPECT_NE(text.find("Costs least here: fscrypt (x0.83"), std::string::npos) << text;
  EXPECT_NE(text.find(" of plain's speed, geometric mean over 1 workload): verdict\n"),
            std::string::npos)
      << text;
}

TEST(EncryptionCost, ATestsOtherResultsAreRowsButNotWorkloadsOfTheMean) {
  results::Result iops = Measured("a", {{"dm-crypt LUKS2", 0.5}, {"fscrypt", 0.9}});
  iops.scale = "IOPS";
  auto file = File({Measured("a", {{"dm-crypt LUKS2", 0.5}, {"fscrypt", 0.8}}), iops});
  std::string text = CostAnswerText(file, "plain ext4", kSetups, {{"native/disk-rand-read-1.0.0", "a", "w"}}, {5, 0.95});
  EXPECT_NE(text.find("\n  fscrypt         w (IOPS)   different: x0.90"), std::string::npos) << text;
  EXPECT_NE(text.find("fscrypt (x0.80"), std::string::npos) << text;
  EXPECT_NE(text.find("geometric mean over 1 workload)"), std::string::npos) << text;
}

TEST(EncryptionCost, SetUpsThatCannotBeToldApartAreSaid) {
  auto file = File({Measured("a", {{"dm-crypt LUKS2", 0.80}, {"fscrypt", 0.801}})});
  std::string text = CostAnswerText(file, "plain ext4", kSetups, {}, {5, 0.95});
  EXPECT_NE(text.find("): verdict; the same within +-5 % as "), std::string::npos) << text;
  EXPECT_EQ(CostAnswerText(results::ResultFile{}, "plain ext4", kSetups, {}, {5, 0.95}), "");
  // One set-up alone costs least by default, and is not called a verdict.
  text = CostAnswerText(File({Measured("a", {{"fscrypt", 0.8}})}), "plain ext4", {"fscrypt"}, {}, {5, 0.95});
  EXPECT_NE(text.find("workload): the only set-up measured (its cost against plain is its verdicts above)\n"), std::string::npos) << text;
}

// A set-up whose every trial failed (eCryptfs refuses O_DIRECT: seen on Debian's kernel) has no
// ratio: its row says so and it is never the set-up that costs least.
TEST(EncryptionCost, ASetUpWithoutValuesIsNeverTheAnswer) {
  results::Result r = Measured("a", {{"dm-crypt LUKS2", 0.7}, {"fscrypt", 0.6}});
  for (int k = 1; k <= 3; ++k)
    r.entries.push_back({results::InstanceIdentifier("ecryptfs", k), "", "", R"({"error":"cannot open with O_DIRECT"})"});
  auto file = File({r});
  const std::vector<std::string> setups = {"dm-crypt LUKS2", "fscrypt", "ecryptfs"};
  std::string text = CostAnswerText(file, "plain ext4", setups, {}, {5, 0.95});
  EXPECT_NE(text.find("ecryptfs        Native Random Read - Block Size: 4KB (MiB/s)  no values: its trials failed"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Costs least here: dm-crypt LUKS2 (x0.70"), std::string::npos) << text;
  EXPECT_EQ(text.find("not told apart from"), std::string::npos) << text;
}

}  // namespace ptsn::reproduce
