#include "runner/reproduce/append.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "results-xml/model/comparison_hash.h"
#include "results-xml/model/result_xml.h"
#include "runner/common/shared_dir.h"
#include "runner/reproduce/consent.h"

namespace ptsn::reproduce {

namespace {

results::Result Res(const std::string& id, const std::string& title, const std::string& args, const std::string& scale) {
  results::Result r;
  r.identifier = id;
  r.title = title;
  r.app_version = "3.3";
  r.arguments = args;
  r.description = "Test: " + args;
  r.scale = scale;
  r.proportion = "HIB";
  return r;
}

results::Entry E(const std::string& who, const std::string& value, const std::string& json = "") {
  results::Entry e;
  e.identifier = who;
  e.value = value;
  e.raw_string = "";
  if (!json.empty()) e.json = json;
  return e;
}

results::Result Monitor(const results::Result& test, const std::string& who, const std::string& value) {
  results::Result m;
  m.title = test.title;
  m.app_version = test.app_version;
  m.arguments = "CPU Usage (Summary) " + test.arguments;
  m.description = "CPU Usage (Summary) Monitor";
  m.scale = "Percent";
  m.proportion = "LIB";
  m.display_format = "LINE_GRAPH";
  m.parent = results::ComparisonHash(test);
  m.entries.push_back(E(who, value));
  return m;
}

results::ResultFile Published() {
  results::ResultFile f;
  auto fs = Res("pts/fs-mark-1.0.0", "FS-Mark", "-s 1048576 -n 1000", "Files/s");
  fs.entries = {E("A", "41.73"), E("B", "40.1")};
  auto mon = Monitor(fs, "A", "10,20,30");
  f.results = {fs, mon};
  return f;
}

}  // namespace

TEST(Append, OriginalRunLinesUpByHashEvenWithANewerPatchLevel) {
  auto file = Published();
  PlanItem item;
  item.result_index = 0;
  item.kind = PlanKind::kOriginal;
  auto produced = Res("pts/fs-mark-1.0.3", "FS-Mark", "-s 1048576 -n 1000", "Files/s");
  produced.entries = {E("New", "50.5")};
  auto hashes = FoldRunResults(file, item, {produced, Monitor(produced, "New", "1,2,3")}, "New");
  ASSERT_EQ(file.results.size(), 2u);  // nothing new appended
  ASSERT_EQ(hashes.size(), 2u);
  EXPECT_EQ(hashes[0], results::ComparisonHash(file.results[0]));
  ASSERT_EQ(file.results[0].entries.size(), 3u);
  EXPECT_EQ(file.results[0].entries[2].identifier, "New");
  EXPECT_FALSE(StandInOf(file.results[0].entries[2]));
  EXPECT_EQ(file.results[0].identifier, "pts/fs-mark-1.0.0");  // the published element keeps its identity
  ASSERT_EQ(file.results[1].entries.size(), 2u);
  // Running again (resume) replaces, never duplicates.
  FoldRunResults(file, item, {produced}, "New");
  EXPECT_EQ(file.results[0].entries.size(), 3u);
}

TEST(Append, ChangedAppVersionIsANewResultAsInPts) {
  auto file = Published();
  PlanItem item;
  item.kind = PlanKind::kOriginal;
  auto produced = Res("pts/fs-mark-1.0.3", "FS-Mark", "-s 1048576 -n 1000", "Files/s");
  produced.app_version = "3.4";
  produced.entries = {E("New", "50.5")};
  FoldRunResults(file, item, {produced}, "New");
  ASSERT_EQ(file.results.size(), 3u);
  EXPECT_EQ(file.results[0].entries.size(), 2u);
}

TEST(Append, StandInFilesUnderTheOriginalHashAndIsMarked) {
  auto file = Published();
  std::string original_hash = results::ComparisonHash(file.results[0]);
  PlanItem item;
  item.result_index = 0;
  item.kind = PlanKind::kStandIn;
  item.stand_in_label = "native/fs-files-1.0.0 for pts/fs-mark-1.0";
  auto produced = Res("native/fs-files-1.0.0", "Native File Creation", "--size 1048576 --files 1000", "Files/s");
  produced.entries = {E("New", "55", "{\"test-run-times\":\"1.2:1.3\"}")};
  auto hashes = FoldRunResults(file, item, {produced, Monitor(produced, "New", "5,6,7")}, "New");
  ASSERT_EQ(file.results.size(), 2u);
  EXPECT_EQ(hashes[0], original_hash);
  const auto& e = file.results[0].entries.back();
  EXPECT_EQ(e.identifier, "New");
  EXPECT_EQ(StandInOf(e), "native/fs-files-1.0.0 for pts/fs-mark-1.0");
  EXPECT_EQ(*e.json, "{\"test-run-times\":\"1.2:1.3\",\"stand-in\":\"native\\/fs-files-1.0.0 for pts\\/fs-mark-1.0\"}");
  // The monitor child followed its test under the original's monitor result.
  ASSERT_EQ(file.results[1].entries.size(), 2u);
  EXPECT_EQ(StandInOf(file.results[1].entries[1]), item.stand_in_label);
  EXPECT_EQ(file.results[1].parent, original_hash);
}

TEST(Append, StandInInTheSameUnitUnderAnotherNameSaysSo) {
  auto file = Published();
  file.results[0].scale = "MB/s";
  PlanItem item;
  item.kind = PlanKind::kStandIn;
  item.stand_in_label = "native/x-1.0.0 for pts/fs-mark-1.0";
  auto produced = Res("native/x-1.0.0", "X", "", "MiB/s");
  produced.entries = {E("New", "55")};
  FoldRunResults(file, item, {produced}, "New");
  EXPECT_NE(file.results[0].entries.back().json->find("\"stand-in-scale\":\"MiB\\/s\""), std::string::npos);
}

// MiB/s standing in for "Files/s" (or for Seconds, lower is better) is never filed under the
// original: its Results stay its own, right after the original's, and point at it.
TEST(Append, StandInInAnotherUnitOrDirectionKeepsItsOwnResult) {
  for (auto [scale, proportion] : {std::pair{"MiB/s", "HIB"}, std::pair{"Files/s", "LIB"}}) {
    auto file = Published();
    file.results.push_back(Res("pts/other-1.0.0", "Other", "", "Seconds"));
    file.results.back().entries = {E("A", "3")};
    const std::string original_hash = results::ComparisonHash(file.results[0]);
    ReproducePlan plan;
    PlanItem item;
    item.result_index = 0;
    item.original_hash = original_hash;
    item.kind = PlanKind::kStandIn;
    item.profile = "native/x-1.0.0";
    item.arguments = "--files 1000";
    item.stand_in_label = "native/x-1.0.0 for pts/fs-mark-1.0";
    plan.items = {item};
    auto produced = Res("native/x-1.0.0", "X", "--files 1000", scale);
    produced.proportion = proportion;
    produced.entries = {E("New", "55")};
    file.results.push_back(produced);
    file.results.push_back(Monitor(produced, "New", "5,6,7"));
    EXPECT_EQ(FoldStandIns(file, plan, "New"), 1u) << scale;
    ASSERT_EQ(file.results.size(), 5u);
    EXPECT_EQ(file.results[0].entries.size(), 2u) << "nothing of New on the original's axis";
    EXPECT_EQ(file.results[1].entries.size(), 1u) << "nor in its monitor result";
    // Original, its monitor child, then the stand-in and its child, then the rest.
    EXPECT_EQ(file.results[2].identifier, "native/x-1.0.0");
    EXPECT_EQ(file.results[2].scale, scale);
    EXPECT_EQ(file.results[2].proportion, proportion);
    EXPECT_EQ(StandInOf(file.results[2].entries[0]), item.stand_in_label);
    EXPECT_EQ(StandInForOf(file.results[2].entries[0]), original_hash);
    EXPECT_EQ(file.results[3].parent, results::ComparisonHash(file.results[2]));
    EXPECT_EQ(StandInOf(file.results[3].entries[0]), item.stand_in_label);
    EXPECT_EQ(file.results[4].identifier, "pts/other-1.0.0");
    EXPECT_EQ(OriginalIndex(file, item), 0u);
    // Idempotent, and a resumed run knows this test is done.
    EXPECT_EQ(FoldStandIns(file, plan, "New"), 0u);
    EXPECT_EQ(file.results.size(), 5u);
    EXPECT_TRUE(RemainingItems(file, plan, "New").empty());
    EXPECT_EQ(RemainingItems(file, plan, "Other").size(), 1u);
  }
}

TEST(Append, FoldRunResultsKeepsAForeignStandInApartToo) {
  auto file = Published();
  PlanItem item;
  item.kind = PlanKind::kStandIn;
  item.stand_in_label = "native/x-1.0.0 for pts/fs-mark-1.0";
  auto produced = Res("native/x-1.0.0", "X", "", "MB/s");
  produced.entries = {E("New", "55"), E("Someone else", "1")};
  auto hashes = FoldRunResults(file, item, {produced}, "New");
  ASSERT_EQ(file.results.size(), 3u);
  EXPECT_EQ(file.results[0].entries.size(), 2u);
  EXPECT_EQ(file.results[2].scale, "MB/s");
  ASSERT_EQ(file.results[2].entries.size(), 1u);
  EXPECT_EQ(hashes, std::vector<std::string>{results::ComparisonHash(produced)});
  EXPECT_FALSE(LinesUp(produced, file.results[0]));
}

TEST(Append, FoldStandInsAfterARunLoopFiledThemByTheirOwnHash) {
  auto file = Published();
  std::string original_hash = results::ComparisonHash(file.results[0]);
  ReproducePlan plan;
  PlanItem item;
  item.result_index = 0;
  item.kind = PlanKind::kStandIn;
  item.profile = "native/fs-files-1.0.0";
  item.arguments = "--size 1048576 --files 1000";
  item.stand_in_label = "native/fs-files-1.0.0 for pts/fs-mark-1.0";
  plan.items = {item};
  // What a hash-merging run loop leaves: the stand-in's result and its monitor child appended.
  auto produced = Res("native/fs-files-1.0.0", "Native File Creation", "--size 1048576 --files 1000", "Files/s");
  produced.entries = {E("New", "55")};
  file.results.push_back(produced);
  file.results.push_back(Monitor(produced, "New", "5,6,7"));
  EXPECT_EQ(FoldStandIns(file, plan, "New"), 1u);
  ASSERT_EQ(file.results.size(), 2u);
  EXPECT_EQ(results::ComparisonHash(file.results[0]), original_hash);
  EXPECT_EQ(StandInOf(file.results[0].entries.back()), item.stand_in_label);
  EXPECT_EQ(file.results[1].entries.size(), 2u);
  EXPECT_EQ(FoldStandIns(file, plan, "New"), 0u);  // idempotent
  EXPECT_EQ(file.results[0].entries.size(), 3u);
}

TEST(Append, FoldStandInsPicksTheResultInTheOriginalUnit) {
  auto file = Published();
  ReproducePlan plan;
  PlanItem item;
  item.result_index = 0;
  item.kind = PlanKind::kStandIn;
  item.profile = "native/fs-files-1.0.0";
  item.arguments = "--files 1000";
  item.stand_in_label = "native/fs-files-1.0.0 for pts/fs-mark-1.0";
  plan.items = {item};
  auto latency = Res("native/fs-files-1.0.0", "Native File Creation", "--files 1000", "Microseconds");
  latency.entries = {E("New", "12")};
  auto files = Res("native/fs-files-1.0.0", "Native File Creation", "--files 1000", "Files/s");
  files.entries = {E("New", "55")};
  file.results.push_back(latency);
  file.results.push_back(files);
  EXPECT_EQ(FoldStandIns(file, plan, "New"), 1u);
  EXPECT_EQ(file.results[0].entries.back().value, "55");
  // The latency result stays under the stand-in's own name, marked, and is not folded later.
  ASSERT_EQ(file.results.size(), 3u);
  EXPECT_EQ(file.results[2].scale, "Microseconds");
  EXPECT_EQ(StandInOf(file.results[2].entries[0]), item.stand_in_label);
  EXPECT_EQ(FoldStandIns(file, plan, "New"), 0u);
  EXPECT_EQ(file.results[0].entries.back().value, "55");
  EXPECT_TRUE(SameUnit("MiB/s", "MB/s"));
  EXPECT_FALSE(SameUnit("TPS", "Seconds"));
}

TEST(Append, SystemNotesListStandIns) {
  ReproducePlan plan;
  PlanItem a;
  a.kind = PlanKind::kStandIn;
  a.stand_in_label = "native/fs-files-1.0.0 for pts/fs-mark-1.0";
  PlanItem b;
  b.kind = PlanKind::kOriginal;
  plan.items = {a, b};
  results::System s;
  s.notes = "Disk Scheduler: MQ-DEADLINE.";
  EXPECT_FALSE(IsReproductionSystem(s));
  NoteReproduction(s, "1110088-AR-1110066AR56", plan);
  NoteReproduction(s, "1110088-AR-1110066AR56", plan);  // idempotent on resume
  EXPECT_EQ(*s.notes,
            "Disk Scheduler: MQ-DEADLINE. Reproduction of 1110088-AR-1110066AR56 by pts-native. Stand-ins (not the "
            "original programs): native/fs-files-1.0.0 for pts/fs-mark-1.0.");
  EXPECT_TRUE(IsReproductionSystem(s));
}

TEST(Append, MonitorResultsLineUpUnderAnOlderPtsName) {
  std::string seed = ::ptsn::SharedDir() + "/reference/seed-results/1110088-AR-1110066AR56.xml";
  if (!std::filesystem::exists(seed)) GTEST_SKIP() << "shared reference tree absent";
  results::ResultFile file = results::ReadResultFile(seed);
  const size_t before = file.results.size();
  size_t fs_mark = 0;
  while (file.results[fs_mark].identifier.rfind("pts/fs-mark", 0) != 0) ++fs_mark;
  const std::string arguments = file.results[fs_mark].arguments;
  results::Result child;  // what PTS 10.8.6's monitor writes for this system
  child.title = file.results[fs_mark].title;
  child.app_version = file.results[fs_mark].app_version;
  child.arguments = "CPU Usage (Summary) " + arguments;
  child.description = "CPU Usage (Summary) Monitor";
  child.scale = "Percent";
  child.proportion = "LIB";
  child.display_format = "LINE_GRAPH";
  child.parent = results::ComparisonHash(file.results[fs_mark]);
  child.entries = {{"Mine", "10.00,20.00,30.00,40.00,50.00,60.00,70.00", "", std::nullopt}};
  file.results.insert(file.results.begin() + static_cast<std::ptrdiff_t>(fs_mark) + 1, child);

  EXPECT_EQ(FoldIntoOlderMonitorNames(file, "Mine"), 1u);
  EXPECT_EQ(file.results.size(), before);
  auto old = std::find_if(file.results.begin(), file.results.end(),
                          [&](const results::Result& r) { return r.arguments == "CPU Usage " + arguments; });
  ASSERT_NE(old, file.results.end());
  EXPECT_EQ(old->entries.back().identifier, "Mine");
  EXPECT_EQ(old->entries.size(), 5u) << "four published systems and this one";
  EXPECT_EQ(FoldIntoOlderMonitorNames(file, "Mine"), 0u) << "idempotent";
}

}  // namespace ptsn::reproduce
