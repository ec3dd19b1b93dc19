#include "runner/reproduce/encryption_cost.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "results-xml/stats/statistics.h"
#include "runner/common/strings.h"

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

const std::vector<CostSetup> kSetups = {{"dm-crypt LUKS2"}, {"fscrypt"}};

}  // namespace

TEST(EncryptionCost, TheDefaultWorkloadsExistAndCoverDepthOneAndThirtyTwo) {
  auto names = DefaultWorkloadNames();
  ASSERT_EQ(names.size(), 4u);
  for (const auto& n : names) ASSERT_NE(FindWorkload(n), nullptr) << n;
  EXPECT_NE(FindWorkload("rand-read-4k-qd1")->presets.find("iodepth=1;"), std::string::npos);
  EXPECT_NE(FindWorkload("rand-read-4k-qd32")->presets.find("iodepth=32;"), std::string::npos);
  EXPECT_EQ(FindWorkload("nonesuch"), nullptr);
  EXPECT_EQ(DefaultSetups("yes").front(), "plain");
  // The options' variants are in; inlinecrypt only where the kernel's config says (a "no" is
  // refused in the plan with the reason, an unknown is left out and said).
  const auto with = DefaultSetups("no");
  EXPECT_NE(std::find(with.begin(), with.end(), "dm-crypt:no-read-workqueue:no-write-workqueue"), with.end());
  EXPECT_NE(std::find(with.begin(), with.end(), "fscrypt:inlinecrypt"), with.end());
  std::vector<std::string> left_out;
  const auto without = DefaultSetups("unknown", &left_out);
  EXPECT_EQ(without.size() + 1, with.size());
  EXPECT_EQ(std::find(without.begin(), without.end(), "fscrypt:inlinecrypt"), without.end());
  ASSERT_EQ(left_out.size(), 1u);
  EXPECT_EQ(left_out[0].rfind("fscrypt:inlinecrypt: whether this kernel has inline encryption is not known", 0), 0u);
  CostPlan plan;
  plan.left_out = left_out;
  EXPECT_NE(CostPlanText(plan).find("Left out of the default set-ups:\n  fscrypt:inlinecrypt: "), std::string::npos);
}

TEST(EncryptionCost, ThePlanSaysWhatItBuildsWhatItCannotAndHowLong) {
  CostPlan plan;
  plan.probe = {"kernel: 6.1.0-13-amd64"};
  plan.options = {"dm-crypt high-priority: no, needs Linux 6.10 (this is 6.1)"};
  plan.setups = {{"plain", "plain ext4", ""},
                 {"fscrypt", "fscrypt AES-256-XTS ext4", ""},
                 {"ecryptfs", "ecryptfs ext4", "ecryptfs-add-passphrase not found (Debian package ecryptfs-utils)"}};
  plan.workloads = {{"rand-read-4k-qd1", "rand-read-4k-qd1: 4 KiB random reads", false}};
  plan.estimate = "about 4m 10s";
  plan.time_budget_seconds = 600;
  EXPECT_EQ(CostPlanText(plan),
            "This machine:\n  kernel: 6.1.0-13-amd64\n"
            "Will build (2):\n  plain ext4  (the reference)  [plain]\n  fscrypt AES-256-XTS ext4  [fscrypt]\n"
            "Cannot build here:\n  ecryptfs: ecryptfs-add-passphrase not found (Debian package ecryptfs-utils)\n"
            "Target options this kernel and cryptsetup can apply (each checked in the kernel's report after building):\n"
            "  dm-crypt high-priority: no, needs Linux 6.10 (this is 6.1)\n"
            "Workloads (1):\n  rand-read-4k-qd1: 4 KiB random reads\n"
            "Estimated run time: about 4m 10s; extra rounds of each test stop at run.time_budget (10m 00s)\n");
}

// Each workload's scheduled rounds on every instance of every set-up kept within run.time_budget:
// rounds first, then instances (never below 2), then rounds to 1, and last the slowest workloads.
TEST(EncryptionCost, ThePlanIsTrimmedToTheTimeBudgetRoundsThenInstancesThenWorkloads) {
  // Within the budget: nothing changes.
  BudgetFit fit = FitToBudget({{"a", 10, 3}, {"b", 20, 3}}, 2, 3, 600, false);
  EXPECT_EQ(fit.instances, 3);
  EXPECT_EQ(fit.rounds, (std::vector<int>{3, 3}));
  EXPECT_TRUE(fit.said.empty());

  // b: 5 rounds x 2 x 3 x 30 s = 900 s > 600 s: 3 rounds fit (540 s); a is left alone.
  fit = FitToBudget({{"a", 10, 5}, {"b", 30, 5}}, 2, 3, 600, false);
  EXPECT_EQ(fit.instances, 3);
  EXPECT_EQ(fit.rounds, (std::vector<int>{5, 3}));
  EXPECT_EQ(fit.said, (std::vector<std::string>{"b: 5 rounds -> 3 (5 rounds x 2 set-ups x 3 instances x 30s = 15m 00s)"}));

  // b at 2 rounds still needs 2 x 2 x 3 x 60 = 720 s: instances 3 -> 2 (480 s).
  fit = FitToBudget({{"a", 10, 3}, {"b", 60, 3}}, 2, 3, 600, false);
  EXPECT_EQ(fit.instances, 2);
  EXPECT_EQ(fit.rounds, (std::vector<int>{3, 2}));
  ASSERT_EQ(fit.said.size(), 2u);
  EXPECT_EQ(fit.said[1], "instances of each set-up: 3 -> 2, for b (over with 3)");

  // c is too slow even at 1 round on 2 instances (2 x 2 x 200 = 800 s): dropped, slowest first;
  // b fits at 1 round (2 x 2 x 120 = 480 s).
  fit = FitToBudget({{"a", 10, 3}, {"b", 120, 3}, {"c", 200, 3}}, 2, 3, 600, false);
  EXPECT_EQ(fit.instances, 2);
  EXPECT_EQ(fit.rounds, (std::vector<int>{3, 1, 0}));
  EXPECT_EQ(fit.said.back(), "c: dropped (1 rounds x 2 set-ups x 2 instances x 3m 20s = 13m 20s)");

  // The only workload is kept and said to be over; FORCE_TIMES_TO_RUN's rounds stay.
  fit = FitToBudget({{"c", 200, 3}}, 2, 3, 600, true);
  EXPECT_EQ(fit.rounds, (std::vector<int>{3}));
  EXPECT_EQ(fit.instances, 2);
  EXPECT_EQ(fit.said.back(), "c: kept, the only workload left, although over (3 rounds x 2 set-ups x 2 instances x 3m 20s = 40m 00s)");

  // An unknown trial time is never trimmed; fewer than 2 instances asked for stay as asked.
  fit = FitToBudget({{"x", 0, 3}, {"b", 120, 3}}, 2, 1, 100, false);
  EXPECT_EQ(fit.instances, 1);
  EXPECT_EQ(fit.rounds, (std::vector<int>{3, 0}));

  CostPlan plan;
  plan.estimate = "about 9m";
  plan.time_budget_seconds = 600;
  plan.trimmed = {"b: 5 rounds -> 3 (...)"};
  plan.caches = "Caches: dropped before every trial";
  EXPECT_NE(CostPlanText(plan).find("Caches: dropped before every trial\n"
                                    "Trimmed to keep each workload within run.time_budget (10m 00s; a longer one keeps more):\n"
                                    "  b: 5 rounds -> 3 (...)\n"
                                    "Estimated run time: about 9m;"),
            std::string::npos)
      << CostPlanText(plan);
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

// A disk test's later lower-is-better results (p50 and p99 latency, CPU seconds per GiB) are
// cost rows: judged against plain by the same instance pairs, shown in their own block set-up by
// set-up, named by what the parser appended to the description, and never ranked.
TEST(EncryptionCost, LatencyAndCpuPerGiBAreCostRowsJudgedByInstancePairs) {
  auto cost = [](const std::string& appended, const std::string& scale, double dm, double fs) {
    results::Result r = Measured("a", {{"dm-crypt LUKS2", dm}, {"fscrypt", fs}}, "LIB");
    r.description += " - " + appended;
    r.scale = scale;
    return r;
  };
  auto file = File({Measured("a", {{"dm-crypt LUKS2", 0.5}, {"fscrypt", 0.8}}),
                    cost("p50 Latency", "Microseconds", 2.0, 1.25), cost("p99 Latency", "Microseconds", 3.0, 1.0),
                    cost("CPU system per GiB", "CPU Seconds per GiB", 4.0, 1.5)});
  const CostTable t = ComputeCostTable(file, "plain ext4", kSetups, {{"native/disk-rand-read-1.0.0", "a", "w"}}, {5, 0.95});
  std::vector<std::string> cost_rows;
  for (const auto& row : t.rows)
    if (row.cost) cost_rows.push_back(row.setup + " | " + row.workload + " | " + row.measure + " | " + row.verdict.substr(0, 16));
  EXPECT_EQ(cost_rows, (std::vector<std::string>{
                           "dm-crypt LUKS2 | w | p50 Latency | different: x2.00",
                           "dm-crypt LUKS2 | w | p99 Latency | different: x3.00",
                           "dm-crypt LUKS2 | w | CPU system per GiB | different: x4.00",
                           "fscrypt | w | p50 Latency | different: x1.25",
                           "fscrypt | w | p99 Latency | same within +-5 ",
                           "fscrypt | w | CPU system per GiB | different: x1.50",
                       }));
  // Ranked by speed alone: the cost rows are not workloads of the mean.
  EXPECT_EQ(t.workloads, 1u);
  EXPECT_EQ(t.best, "fscrypt");
  EXPECT_NEAR(t.best_mean, 0.8, 0.01);
  const std::string text = CostTableText(t);
  EXPECT_NE(text.find("\n  fscrypt         w (MiB/s)  different: x0.80"), std::string::npos) << text;
  EXPECT_EQ(text.find("  fscrypt         w p50"), std::string::npos) << text;
  const size_t block = text.find("Latency and CPU time per GiB against plain ext4 (each over plain's; above 1 costs more):\n");
  ASSERT_NE(block, std::string::npos) << text;
  EXPECT_NE(text.find("\n  dm-crypt LUKS2\n    w\n      p50 Latency         different: x2.000 [1.9", block), std::string::npos)
      << text;
  EXPECT_NE(text.find("\n  fscrypt\n    w\n      p50 Latency         different: x1.250", block), std::string::npos) << text;
  EXPECT_LT(block, text.find("Costs least here: fscrypt"));
  for (const auto& line : Split(text, '\n')) EXPECT_LE(line.size(), 100u) << line;
}

// CPU time counts in ticks: a set-up and plain with no CPU time in a short trial have no ratio,
// and the row says why rather than that the trials failed.
TEST(EncryptionCost, ACostWithNoValueAboveZeroSaysWhy) {
  results::Result softirq = Measured("a", {{"dm-crypt LUKS2", 1}, {"fscrypt", 1}}, "LIB");
  softirq.description += " - CPU softirq per GiB";
  for (auto& e : softirq.entries) e.value = "0", e.raw_string = "0:0:0";
  auto file = File({Measured("a", {{"dm-crypt LUKS2", 0.5}, {"fscrypt", 0.8}}), softirq});
  const std::string text = CostTableText(ComputeCostTable(file, "plain ext4", kSetups, {}, {5, 0.95}));
  EXPECT_NE(text.find("no ratio: no round with a value above 0 on both sides"), std::string::npos) << text;
  EXPECT_EQ(text.find("its trials failed"), std::string::npos) << text;

  // A set-up whose trials failed (no value in the test's first result either) says so in both blocks.
  results::Result throughput = Measured("a", {{"dm-crypt LUKS2", 0.5}, {"fscrypt", 0.8}});
  for (auto* r : {&throughput, &softirq})
    for (auto& e : r->entries)
      if (e.identifier.rfind("fscrypt", 0) == 0) e.value.clear(), e.raw_string.reset();
  const std::string failed = CostTableText(ComputeCostTable(File({throughput, softirq}), "plain ext4", kSetups, {}, {5, 0.95}));
  EXPECT_NE(failed.find("\n  fscrypt\n    Native Random Read - Block Size: 4KB\n      CPU softirq per GiB  no values: its trials failed"),
            std::string::npos)
      << failed;
  // As on Debian's kernel (eCryptfs without O_DIRECT): the failed trials wrote no entry at all into
  // the cost figure's result, and the row still says why there is none.
  std::erase_if(softirq.entries, [](const auto& e) { return e.identifier.rfind("fscrypt", 0) == 0; });
  const std::string absent = CostTableText(ComputeCostTable(File({throughput, softirq}), "plain ext4", kSetups, {}, {5, 0.95}));
  EXPECT_NE(absent.find("\n  fscrypt\n    Native Random Read - Block Size: 4KB\n      CPU softirq per GiB  no values: its trials failed"),
            std::string::npos)
      << absent;
}

TEST(EncryptionCost, SetUpsThatCannotBeToldApartAreSaid) {
  auto file = File({Measured("a", {{"dm-crypt LUKS2", 0.80}, {"fscrypt", 0.801}})});
  std::string text = CostAnswerText(file, "plain ext4", kSetups, {}, {5, 0.95});
  EXPECT_NE(text.find("): verdict; the same within +-5 % as "), std::string::npos) << text;
  EXPECT_EQ(CostAnswerText(results::ResultFile{}, "plain ext4", kSetups, {}, {5, 0.95}), "");
  // One set-up alone costs least by default, and is not called a verdict.
  text = CostAnswerText(File({Measured("a", {{"fscrypt", 0.8}})}), "plain ext4", {{"fscrypt"}}, {}, {5, 0.95});
  EXPECT_NE(text.find("workload): the only set-up measured (its cost against plain is its verdicts above)\n"), std::string::npos) << text;
}

// A set-up whose every trial failed (eCryptfs refuses O_DIRECT: seen on Debian's kernel) has no
// ratio: its row says so and it is never the set-up that costs least.
TEST(EncryptionCost, ASetUpWithoutValuesIsNeverTheAnswer) {
  results::Result r = Measured("a", {{"dm-crypt LUKS2", 0.7}, {"fscrypt", 0.6}});
  for (int k = 1; k <= 3; ++k)
    r.entries.push_back({results::InstanceIdentifier("ecryptfs", k), "", "", R"({"error":"cannot open with O_DIRECT"})"});
  auto file = File({r});
  const std::vector<CostSetup> setups = {{"dm-crypt LUKS2"}, {"fscrypt"}, {"ecryptfs"}};
  std::string text = CostAnswerText(file, "plain ext4", setups, {}, {5, 0.95});
  EXPECT_NE(text.find("ecryptfs        Native Random Read - Block Size: 4KB (MiB/s)  no values: its trials failed"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Costs least here: dm-crypt LUKS2 (x0.70"), std::string::npos) << text;
  EXPECT_EQ(text.find("not told apart from"), std::string::npos) << text;
}

TEST(EncryptionCost, EachKindServesODirectAsTheKernelDoes) {
  EXPECT_EQ(DirectIoOf(targets::ParseTargetSpec("plain")), DirectIo::kDirect);
  EXPECT_EQ(DirectIoOf(targets::ParseTargetSpec("dm-crypt:plain")), DirectIo::kDirect);
  EXPECT_EQ(DirectIoOf(targets::ParseTargetSpec("fscrypt:adiantum")), DirectIo::kBuffered);
  EXPECT_EQ(DirectIoOf(targets::ParseTargetSpec("ecryptfs")), DirectIo::kRefused);
  EXPECT_EQ(DirectIoOf(targets::ParseTargetSpec("fscrypt:inlinecrypt")), DirectIo::kDirect);
  EXPECT_TRUE(IsDirectWorkload("--size 64m --direct --fsync end"));
  EXPECT_FALSE(IsDirectWorkload("--size 64m --fsync end"));
  EXPECT_FALSE(IsDirectWorkload("--directory x"));
}

// Once built, the kernel's word (statx STATX_DIOALIGN, in the target's System Notes) replaces the
// kind's rule; where it said nothing, the rule stands and the answer says which was used.
TEST(EncryptionCost, TheBuiltTargetsDirectIoReplacesTheRuleByKind) {
  CostSetup inline_crypt = DescribeSetup(targets::ParseTargetSpec("fscrypt:inlinecrypt"), "f");
  ConfirmDirectIo(inline_crypt, "pts-native target f (fscrypt). Direct I/O: no: O_DIRECT is not supported on its files "
                                "(statx STATX_DIOALIGN: 0). Inline Encryption: x.");
  EXPECT_EQ(inline_crypt.direct_io, DirectIo::kBuffered);
  EXPECT_TRUE(inline_crypt.direct_io_checked);
  CostSetup fscrypt = DescribeSetup(targets::ParseTargetSpec("fscrypt"), "g");
  ConfirmDirectIo(fscrypt, "pts-native target g (fscrypt). Direct I/O: yes (statx STATX_DIOALIGN: memory 4096, offset 4096 bytes).");
  EXPECT_EQ(fscrypt.direct_io, DirectIo::kDirect);
  // eCryptfs reports nothing of its own: the rule (refused) stands; "no" never makes it buffered.
  CostSetup ecryptfs = DescribeSetup(targets::ParseTargetSpec("ecryptfs"), "e");
  ConfirmDirectIo(ecryptfs, "pts-native target e (ecryptfs). Direct I/O: not reported (statx ...).");
  EXPECT_EQ(ecryptfs.direct_io, DirectIo::kRefused);
  EXPECT_FALSE(ecryptfs.direct_io_checked);
  ConfirmDirectIo(ecryptfs, "Direct I/O: no: O_DIRECT is not supported.");
  EXPECT_EQ(ecryptfs.direct_io, DirectIo::kRefused);
  CostSetup old = DescribeSetup(targets::ParseTargetSpec("dm-crypt"), "d");
  ConfirmDirectIo(old, "pts-native target d (dm-crypt).");  // results from before the check
  EXPECT_FALSE(old.direct_io_checked);
  EXPECT_EQ(DirectIoSourceText({fscrypt, old}),
            "O_DIRECT, direct or buffered: the kernel's word (statx STATX_DIOALIGN on the built target) for g; the rule "
            "by kind (the kernel did not say: before Linux 6.1, or not this file system) for d\n");
}

// Per set-up and workload: which direct workloads a set-up serves buffered or refuses; and the
// workloads the targets cannot hold, before the estimate.
TEST(EncryptionCost, ThePlanSaysWhichSetUpServesWhichDirectWorkloadBuffered) {
  CostPlan plan;
  plan.setups = {{"plain", "plain ext4", "", DirectIo::kDirect},
                 {"fscrypt", "fscrypt AES-256-XTS ext4", "", DirectIo::kBuffered},
                 {"ecryptfs", "ecryptfs AES-128 ext4", "", DirectIo::kRefused},
                 {"dm-crypt", "dm-crypt LUKS2 AES-256-XTS ext4", "", DirectIo::kDirect}};
  plan.workloads = {{"rand-read-4k-qd1", "rand-read-4k-qd1: ...", true},
                    {"many-files", "many-files: ...", false},
                    {"seq-write-1m", "seq-write-1m: ...", true}};
  plan.target_size = "Targets of 256 MiB cannot hold every test; these will fail:\n  seq-write-1m needs 576 MiB\n";
  plan.estimate = "about 1m";
  const std::string text = CostPlanText(plan);
  EXPECT_NE(text.find("  fscrypt AES-256-XTS ext4  [fscrypt]\n    O_DIRECT becomes buffered I/O (fscrypt without inline "
                      "encryption): rand-read-4k-qd1, seq-write-1m measured buffered, not ranked with direct I/O\n"
                      "  ecryptfs AES-128 ext4  [ecryptfs]\n    O_DIRECT refused (eCryptfs has no direct I/O): "
                      "rand-read-4k-qd1, seq-write-1m will fail on it\n  dm-crypt LUKS2 AES-256-XTS ext4  [dm-crypt]\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  seq-write-1m: ...\nTargets of 256 MiB cannot hold every test; these will fail:\n"
                      "  seq-write-1m needs 576 MiB\nEstimated run time: "),
            std::string::npos)
      << text;
  // No direct workload: nothing to say about O_DIRECT.
  plan.workloads = {{"many-files", "many-files: ...", false}};
  EXPECT_EQ(CostPlanText(plan).find("O_DIRECT"), std::string::npos);
}

// fscrypt serves O_DIRECT through the page cache: in a direct workload its ratio is shown, marked,
// and it is not ranked against dm-crypt's direct I/O; in a buffered workload it is ranked.
TEST(EncryptionCost, BufferedIsNeverRankedWithDirectIo) {
  const std::vector<CostSetup> setups = {DescribeSetup(targets::ParseTargetSpec("dm-crypt"), "dm-crypt LUKS2"),
                                         DescribeSetup(targets::ParseTargetSpec("fscrypt"), "fscrypt")};
  auto file = File({Measured("--direct", {{"dm-crypt LUKS2", 0.5}, {"fscrypt", 2.0}})});
  CostTable t = ComputeCostTable(file, "plain ext4", setups, {{"native/disk-rand-read-1.0.0", "--direct", "rr"}}, {5, 0.95});
  EXPECT_EQ(t.best, "dm-crypt LUKS2");
  ASSERT_EQ(t.buffered.size(), 1u);
  EXPECT_EQ(t.buffered[0].first, "fscrypt");
  EXPECT_EQ(t.buffered[0].second, std::vector<std::string>{"rr"});
  std::string text = CostTableText(t);
  EXPECT_NE(text.find("\n  fscrypt         rr (MiB/s)  buffered: not ranked with direct I/O; different: x2.0"), std::string::npos)
      << text;
  EXPECT_NE(text.find("Costs least here: dm-crypt LUKS2 (x0.50"), std::string::npos) << text;
  EXPECT_NE(text.find("): the only set-up ranked; buffered, not ranked with direct I/O: fscrypt (rr)\n"), std::string::npos) << text;
  // Alone on a direct workload, nothing is ranked.
  t = ComputeCostTable(file, "plain ext4", {setups[1]}, {}, {5, 0.95});
  EXPECT_EQ(t.best, "");
  EXPECT_NE(CostTableText(t).find("Costs least here: unknown (no set-up has a like-for-like value in every workload; "
                                  "buffered, not ranked with direct I/O: fscrypt (Native Random Read - Block Size: 4KB))\n"),
            std::string::npos)
      << CostTableText(t);
  EXPECT_EQ(RecommendationText(t, setups), "");
  // A buffered workload compares them like for like.
  t = ComputeCostTable(File({Measured("--fsync end", {{"dm-crypt LUKS2", 0.5}, {"fscrypt", 0.9}})}), "plain ext4", setups, {},
                       {5, 0.95});
  EXPECT_EQ(t.best, "fscrypt");
  EXPECT_TRUE(t.buffered.empty());
}

TEST(EncryptionCost, DmCryptSetUpsSayHowToMakeOneLikeThem) {
  const CostSetup luks = DescribeSetup(targets::ParseTargetSpec("dm-crypt"), "d");
  EXPECT_EQ(luks.protection, 2);
  EXPECT_EQ(luks.dm_crypt_how,
            "cryptsetup luksFormat --type luks2 --cipher aes-xts-plain64 --key-size 512 /dev/DEVICE\n"
            "cryptsetup open /dev/DEVICE NAME\n"
            "/etc/crypttab: NAME UUID=<cryptsetup luksUUID /dev/DEVICE> none luks\n");
  const CostSetup plain = DescribeSetup(targets::ParseTargetSpec("dm-crypt:plain:key-size=256:cipher=aes-cbc-essiv:sha256"), "p");
  EXPECT_NE(plain.protects.find("no header"), std::string::npos);
  EXPECT_EQ(plain.dm_crypt_how,
            "cryptsetup open --type plain --cipher aes-cbc-essiv:sha256 --key-size 256 --key-file KEYFILE --keyfile-size 32 "
            "/dev/disk/by-id/DEVICE NAME\n"
            "/etc/crypttab: NAME /dev/disk/by-id/DEVICE KEYFILE plain,cipher=aes-cbc-essiv:sha256,size=256,keyfile-size=32\n");
  EXPECT_EQ(DescribeSetup(targets::ParseTargetSpec("dm-crypt:loopaes"), "l").dm_crypt_how, "");
  // The options as the target set them: the flags on open and in crypttab, the sector size in the
  // LUKS2 header or, for plain mode, on open and in crypttab.
  EXPECT_EQ(DescribeSetup(targets::ParseTargetSpec("dm-crypt:no-read-workqueue:no-write-workqueue:sector-size=4096"), "w")
                .dm_crypt_how,
            "cryptsetup luksFormat --type luks2 --cipher aes-xts-plain64 --key-size 512 --sector-size 4096 /dev/DEVICE\n"
            "cryptsetup open --perf-no_read_workqueue --perf-no_write_workqueue /dev/DEVICE NAME\n"
            "/etc/crypttab: NAME UUID=<cryptsetup luksUUID /dev/DEVICE> none luks,no-read-workqueue,no-write-workqueue\n");
  EXPECT_EQ(DescribeSetup(targets::ParseTargetSpec("dm-crypt:plain:same-cpu-crypt:sector-size=4096"), "q").dm_crypt_how,
            "cryptsetup open --type plain --cipher aes-xts-plain64 --key-size 512 --sector-size 4096 --perf-same_cpu_crypt "
            "--key-file KEYFILE --keyfile-size 64 /dev/disk/by-id/DEVICE NAME\n"
            "/etc/crypttab: NAME /dev/disk/by-id/DEVICE KEYFILE plain,cipher=aes-xts-plain64,size=512,keyfile-size=64,"
            "same-cpu-crypt,sector-size=4096\n");
  EXPECT_EQ(DescribeSetup(targets::ParseTargetSpec("fscrypt"), "f").protection, 1);
  EXPECT_NE(DescribeSetup(targets::ParseTargetSpec("fscrypt"), "f").protects.find("in the clear"), std::string::npos);
  EXPECT_NE(DescribeSetup(targets::ParseTargetSpec("ecryptfs"), "e").protects.find("over another file system"), std::string::npos);
}

// The answer in words, from the table: what the best protects, the same ones, the unknown, and
// for dm-crypt the commands.
TEST(EncryptionCost, TheRecommendationNamesWhatEachProtectsAndHowToMakeTheBest) {
  const std::vector<CostSetup> setups = {DescribeSetup(targets::ParseTargetSpec("dm-crypt"), "dm-crypt LUKS2"),
                                         DescribeSetup(targets::ParseTargetSpec("dm-crypt:plain"), "dm-crypt plain"),
                                         DescribeSetup(targets::ParseTargetSpec("fscrypt"), "fscrypt")};
  // LUKS2 and plain the same, fscrypt slower: LUKS2 (the first of the same) with its commands.
  auto file = File({Measured("a", {{"dm-crypt LUKS2", 0.801}, {"dm-crypt plain", 0.80}, {"fscrypt", 0.5}})});
  CostTable t = ComputeCostTable(file, "plain ext4", setups, {}, {5, 0.95});
  ASSERT_EQ(t.best, "dm-crypt LUKS2");
  std::string words = RecommendationText(t, setups);
  EXPECT_EQ(words.rfind("In words: dm-crypt LUKS2 costs least here; it protects the whole device, with a LUKS2 header", 0), 0u)
      << words;
  EXPECT_NE(words.find("\n  The same as it within +-5 % in every workload: dm-crypt plain (protects the whole device, plain "
                       "mode: no header"),
            std::string::npos)
      << words;
  EXPECT_NE(words.find("\n    cryptsetup luksFormat --type luks2 --cipher aes-xts-plain64 --key-size 512 /dev/DEVICE\n"),
            std::string::npos)
      << words;
  EXPECT_NE(words.find("\n    /etc/crypttab: NAME UUID="), std::string::npos) << words;
  EXPECT_EQ(words.find("protects less"), std::string::npos) << words;
  EXPECT_EQ(words.find("Not told apart"), std::string::npos) << words;
  // fscrypt cheapest: it protects less than the whole-device set-ups, and that is said, with the
  // cheapest of those; no cryptsetup command for it.
  file = File({Measured("a", {{"dm-crypt LUKS2", 0.6}, {"dm-crypt plain", 0.7}, {"fscrypt", 0.9}})});
  t = ComputeCostTable(file, "plain ext4", setups, {}, {5, 0.95});
  ASSERT_EQ(t.best, "fscrypt");
  words = RecommendationText(t, setups);
  EXPECT_NE(words.find("it protects file contents and names only"), std::string::npos) << words;
  EXPECT_NE(words.find("\n  It protects less than dm-crypt plain, the cheapest here that protects more (x0.70"), std::string::npos)
      << words;
  EXPECT_EQ(words.find("cryptsetup"), std::string::npos) << words;
  // Undecided and faster elsewhere say what would decide them.
  t.undecided = {"dm-crypt plain"};
  t.faster_elsewhere = {"dm-crypt LUKS2"};
  t.buffered = {{"fscrypt", {"rr"}}};
  words = RecommendationText(t, setups);
  EXPECT_NE(words.find("\n  Not told apart from it: dm-crypt plain; more instance pairs (run.max_target_instances)"), std::string::npos)
      << words;
  EXPECT_NE(words.find("\n  Faster than it in some workload: dm-crypt LUKS2; which costs least depends"), std::string::npos) << words;
  EXPECT_NE(words.find("\n  Unknown against direct I/O: fscrypt (its O_DIRECT went through the page cache)"), std::string::npos) << words;
  // The whole answer is the table, then the words.
  EXPECT_NE(CostAnswerText(file, "plain ext4", setups, {}, {5, 0.95}).find("workload): verdict\n\nIn words: fscrypt"), std::string::npos)
      << CostAnswerText(file, "plain ext4", setups, {}, {5, 0.95});
}

}  // namespace ptsn::reproduce
