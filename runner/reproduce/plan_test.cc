#include "runner/reproduce/plan.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace ptsn::reproduce {

// A catalog with a fixed set of profiles; runnable unless listed in `broken`.
class FakeCatalog : public ProfileCatalog {
 public:
  std::vector<std::string> installed, available;
  std::map<std::string, std::string> broken;
  std::vector<std::string> Installed(const std::string& base) const override { return Filter(installed, base); }
  std::vector<std::string> Available(const std::string& base) const override { return Filter(available, base); }
  std::string WhyNotRunnable(const std::string& id) const override {
    auto it = broken.find(id);
    return it == broken.end() ? "" : it->second;
  }

 private:
  static std::vector<std::string> Filter(const std::vector<std::string>& all, const std::string& base) {
    std::vector<std::string> out;
    for (const auto& a : all)
      if (a.rfind(base + "-", 0) == 0) out.push_back(a);
    return out;
  }
};

namespace {

results::Result MakeResult(const std::string& id, const std::string& title, const std::string& args) {
  results::Result r;
  r.identifier = id;
  r.title = title;
  r.arguments = args;
  r.app_version = "1.0";
  r.scale = "MB/s";
  return r;
}

results::ResultFile SampleFile() {
  results::ResultFile f;
  f.generated.title = "Sample";
  f.results.push_back(MakeResult("", "CPU Usage Monitor", "cpu.usage"));
  f.results.push_back(MakeResult("pts/fs-mark-1.0.0", "FS-Mark", "-s 1048576 -n 1000"));
  f.results.push_back(MakeResult("pts/dbench-1.0.0", "Dbench", "12"));
  f.results.push_back(MakeResult("local/evil-1.0.0", "Evil", "1 | rm -rf /"));
  f.results.push_back(MakeResult("pts/sqlite-1.8.0", "SQLite", ""));
  f.results.push_back(MakeResult("pts/tiobench-1.1.0", "Threaded I/O Tester", "-k3"));
  return f;
}

std::vector<StandInRule> Rules() {
  StandInRule fs;
  fs.stand_in_profile = "native/fs-files-1.0.0";
  fs.for_profile = "pts/fs-mark-1.0";
  fs.arguments_pattern = "-s (\\d+) -n (\\d+)";
  fs.use_arguments = "--size $1 --files $2";
  StandInRule sq;
  sq.stand_in_profile = "native/sqlite-insert-1.0.0";
  sq.for_profile = "pts/sqlite";
  sq.use_arguments = "$&";
  StandInRule tio;
  tio.stand_in_profile = "native/disk-random-1.0.0";
  tio.for_profile = "pts/tiobench-1.1";
  tio.use_arguments = "$&";
  StandInRule tio2 = tio;  // a second candidate for the same test, tried when the first cannot run
  tio2.stand_in_profile = "native/disk-rand-write-1.0.0";
  return {fs, sq, tio, tio2};
}

}  // namespace

TEST(Plan, QualifiedResultsOnlyInFileOrder) {
  FakeCatalog cat;
  cat.available = {"pts/dbench-1.0.2", "pts/fs-mark-1.0.0", "native/fs-files-1.0.0"};
  auto plan = BuildPlan(SampleFile(), cat, Rules());
  ASSERT_EQ(plan.not_rerun.size(), 2u);
  EXPECT_EQ(plan.not_rerun[0].result_index, 0u);  // monitor: no Identifier
  EXPECT_EQ(plan.not_rerun[1].result_index, 3u);  // '|' in Arguments
  EXPECT_NE(plan.not_rerun[1].reason.find("'|'"), std::string::npos);
  ASSERT_EQ(plan.items.size(), 4u);
  EXPECT_EQ(plan.items[0].result_index, 1u);
  EXPECT_EQ(plan.items[0].kind, PlanKind::kOriginal);
  EXPECT_EQ(plan.items[0].profile, "pts/fs-mark-1.0.0");
  EXPECT_EQ(plan.items[0].arguments, "-s 1048576 -n 1000");
  // Newer patch level stands for the stored one, as in PTS.
  EXPECT_EQ(plan.items[1].kind, PlanKind::kOriginal);
  EXPECT_EQ(plan.items[1].profile, "pts/dbench-1.0.2");
}

TEST(Plan, StandInOnlyWhenTheOriginalCannotRun) {
  FakeCatalog cat;
  cat.available = {"pts/fs-mark-1.0.0", "native/fs-files-1.0.0"};
  cat.broken = {{"pts/fs-mark-1.0.0", "program fs_mark not found"}};
  auto plan = BuildPlan(SampleFile(), cat, Rules());
  const PlanItem& fs = plan.items[0];
  EXPECT_EQ(fs.kind, PlanKind::kStandIn);
  EXPECT_EQ(fs.profile, "native/fs-files-1.0.0");
  EXPECT_EQ(fs.arguments, "--size 1048576 --files 1000");
  EXPECT_EQ(fs.stand_in_label, "native/fs-files-1.0.0 for pts/fs-mark-1.0");
  EXPECT_EQ(fs.reason, "pts/fs-mark-1.0.0: program fs_mark not found");
  // No profile and no stand-in: unavailable, with the reason.
  EXPECT_EQ(plan.items[1].kind, PlanKind::kUnavailable);
  EXPECT_EQ(plan.items[1].reason, "no profile pts/dbench-1.0.x here");
  // The next candidate is taken when the first stand-in cannot run...
  cat.broken["native/disk-random-1.0.0"] = "needs liburing";
  plan = BuildPlan(SampleFile(), cat, Rules());
  EXPECT_EQ(plan.items[3].kind, PlanKind::kStandIn);
  EXPECT_EQ(plan.items[3].profile, "native/disk-rand-write-1.0.0");
  // ...and when none can, the test is unavailable with every reason.
  cat.broken["native/disk-rand-write-1.0.0"] = "unsupported";
  plan = BuildPlan(SampleFile(), cat, Rules());
  EXPECT_EQ(plan.items[3].kind, PlanKind::kUnavailable);
  EXPECT_NE(plan.items[3].reason.find("stand-in native/disk-random-1.0.0: needs liburing"), std::string::npos);
  EXPECT_EQ(plan.Unavailable().size(), 2u);
}

TEST(Plan, FormatListsEveryDecision) {
  FakeCatalog cat;
  cat.available = {"pts/fs-mark-1.0.3", "native/sqlite-insert-1.0.0"};
  auto file = SampleFile();
  std::string text = FormatPlan(file, BuildPlan(file, cat, Rules()));
  // One line per test begins with what happens to it.
  EXPECT_NE(text.find("\nrun      pts/fs-mark-1.0.3 -s 1048576 -n 1000  (in place of pts/fs-mark-1.0.0)\n"),
            std::string::npos) << text;
  EXPECT_NE(text.find("\nSTAND-IN native/sqlite-insert-1.0.0"), std::string::npos) << text;
  EXPECT_NE(text.find("\nCANNOT RUN pts/dbench-1.0.0: no profile pts/dbench-1.0.x here\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Plan: 4 tests: 1 original, 2 stand-in, 1 cannot run; 2 derived/refused"), std::string::npos)
      << text;
}

// What a stand-in of an earlier reproduction left in the file (its own Result, every entry
// marked: kept apart in another unit, or its extra IOPS/latency results) is no test of the
// published file: re-planning the file (a resumed run, finish-run) must not run it a second time.
TEST(Plan, AStandInsOwnResultIsNotATest) {
  FakeCatalog cat;
  cat.available = {"pts/fs-mark-1.0.0", "native/fs-files-1.0.0", "pts/dbench-1.0.0", "native/sqlite-insert-1.0.0"};
  auto file = SampleFile();
  auto stand_in = MakeResult("native/fs-files-1.0.0", "Files", "--size 1048576 --files 1000");
  stand_in.scale = "MiB/s";
  results::Entry e;
  e.identifier = "Mine";
  e.value = "5";
  e.json = R"({"stand-in":"native\/fs-files-1.0.0 for pts\/fs-mark-1.0","stand-in-for":"abc"})";
  stand_in.entries = {e};
  file.results.insert(file.results.begin() + 2, stand_in);
  auto plan = BuildPlan(file, cat, Rules());
  ASSERT_EQ(plan.items.size(), 4u);
  for (const auto& item : plan.items) EXPECT_NE(item.result_index, 2u) << item.profile;
  ASSERT_EQ(plan.not_rerun.size(), 3u);
  EXPECT_EQ(plan.not_rerun[1].result_index, 2u);
  EXPECT_NE(plan.not_rerun[1].reason.find("stand-in"), std::string::npos);
  // A result that also holds an unmarked (published) entry is still a test.
  e.identifier = "Published";
  e.json.reset();
  file.results[2].entries.push_back(e);
  EXPECT_FALSE(NotATest(file, 2));
  EXPECT_EQ(BuildPlan(file, cat, Rules()).items.size(), 5u);
}

TEST(Plan, PresetEnvironmentSplitsLikePts) {
  auto vars = ParsePresetEnvironment("MONITOR=cpu.usage; X = 1 ;=bad;noequals;");
  ASSERT_EQ(vars.size(), 2u);
  EXPECT_EQ(vars[0].name, "MONITOR");
  EXPECT_EQ(vars[0].value, "cpu.usage");
  EXPECT_EQ(vars[1].name, "X");
  EXPECT_EQ(vars[1].value, "1");
}

}  // namespace ptsn::reproduce
