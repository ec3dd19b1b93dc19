#include "runner/reproduce/compare.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "results-xml/model/result_xml.h"
#include "runner/common/shared_dir.h"
#include "runner/reproduce/append.h"

namespace ptsn::reproduce {

namespace {

std::string Seed(const std::string& name) { return ::ptsn::SharedDir() + "/reference/seed-results/" + name; }

results::Result* FindByTitle(results::ResultFile& f, const std::string& title, const std::string& description) {
  for (auto& r : f.results)
    if (!r.identifier.empty() && r.title == title && r.description == description) return &r;
  return nullptr;
}

results::Entry Trials(const std::string& who, const std::string& value, const std::string& raw) {
  results::Entry e;
  e.identifier = who;
  e.value = value;
  e.raw_string = raw;
  return e;
}

}  // namespace

TEST(Compare, PercentagesAndNoiseAgainstThePublished1110088) {
  std::string path = Seed("1110088-AR-1110066AR56.xml");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "shared reference tree absent: " << path;
  auto file = results::ReadResultFile(path);
  results::Result* fs = FindByTitle(file, "FS-Mark", "Test: 1000 Files, 1MB Size");
  ASSERT_TRUE(fs);
  // Same trials as the published "Stock" system (41.73, SE 0.20): 100 %. Each system is one run:
  // the verdict is unknown however far apart (issue 50: one run's interval leaves out the run's own
  // difference), and the view says what would decide it.
  PutEntry(*fs, Trials("This Box", "41.73", "42.08:41.38:41.73"), std::nullopt);
  results::Result* dbench = FindByTitle(file, "Dbench", "Client Count: 12");
  ASSERT_TRUE(dbench);
  PutEntry(*dbench, Trials("This Box", "10.5", "10.4:10.5:10.6"), std::string("native/dbench-like-1.0.0 for pts/dbench-1.0"));

  auto cmp = CompareWithPublished(file, "This Box");
  ASSERT_EQ(cmp.size(), 2u);
  ASSERT_EQ(cmp[0].versus.size(), 4u);
  EXPECT_EQ(cmp[0].versus[0].published, "Encrypted Home (eCryptfs): Stock");
  EXPECT_NEAR(cmp[0].versus[0].percent, 100.0, 1e-9);
  ASSERT_TRUE(cmp[0].versus[0].verdict);
  EXPECT_EQ(cmp[0].versus[0].verdict->kind, results::VerdictKind::kUnknown);
  EXPECT_EQ(cmp[1].stand_in, "native/dbench-like-1.0.0 for pts/dbench-1.0");
  for (const auto& v : cmp[1].versus) {
    ASSERT_TRUE(v.verdict) << v.published;
    EXPECT_EQ(v.verdict->kind, results::VerdictKind::kUnknown) << v.published;
  }

  std::string text = ComparisonText(file, "This Box");
  EXPECT_NE(text.find("FS-Mark 3.3"), std::string::npos) << text;
  EXPECT_NE(text.find("This Box = 100.0% of Encrypted Home (eCryptfs): Stock  [unknown]"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("This Box *"), std::string::npos) << text;  // the bar row is marked
  EXPECT_NE(text.find("* STAND-IN: native/dbench-like-1.0.0 for pts/dbench-1.0 (not the original program)"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("worse"), std::string::npos) << text;
  EXPECT_NE(text.find("To decide: run each system 2 more times"), std::string::npos) << text;
  // Repeated runs of this system ("This Box run 2", "run 3") give the run-to-run spread: a verdict.
  PutEntry(*fs, Trials("This Box run 2", "41.9", "41.8:41.9:42.0"), std::nullopt);
  PutEntry(*fs, Trials("This Box run 3", "41.5", "41.4:41.5:41.6"), std::nullopt);
  cmp = CompareWithPublished(file, "This Box");
  ASSERT_TRUE(cmp[0].versus[0].verdict);
  EXPECT_TRUE(cmp[0].versus[0].verdict->has_interval);
  EXPECT_EQ(cmp[0].versus[0].verdict->reference_runs, 1u);  // the published system
  EXPECT_EQ(cmp[0].versus[0].verdict->other_runs, 3u);
  // Stand-ins stay out of the overall figure: only FS-Mark counts.
  EXPECT_NE(text.find("vs Encrypted Home (eCryptfs): Stock: 100.0% over 1 result"), std::string::npos) << text;
}

TEST(Compare, FailedAndForeignUnitEntriesAreNotCompared) {
  results::ResultFile f;
  results::Result r;
  r.identifier = "pts/x-1.0.0";
  r.title = "X";
  r.scale = "TPS";
  r.proportion = "HIB";
  r.entries = {Trials("Published", "100", "")};
  f.results = {r, r};
  f.results[1].arguments = "2";
  results::Entry failed = Trials("Me", "", "");
  PutEntry(f.results[0], failed, std::nullopt);
  results::Entry foreign = Trials("Me", "55", "");
  foreign.json = "{\"stand-in\":\"native\\/y-1.0.0 for pts\\/x-1.0\",\"stand-in-scale\":\"MB\\/s\"}";
  PutEntry(f.results[1], foreign, std::nullopt);
  auto cmp = CompareWithPublished(f, "Me");
  ASSERT_EQ(cmp.size(), 2u);
  EXPECT_EQ(cmp[0].not_comparable, "this run failed");
  EXPECT_EQ(cmp[1].not_comparable, "the stand-in measured in MB/s, not TPS");
  EXPECT_TRUE(cmp[1].versus.empty());
  // A failed stand-in in a unit like the original's (MiB/s for MB/s): failed, never 0.0 %.
  results::Entry failed_stand_in = Trials("Me", "", "");
  failed_stand_in.json = "{\"stand-in\":\"native\\/y-1.0.0 for pts\\/x-1.0\",\"stand-in-scale\":\"TPS\"}";
  PutEntry(f.results[1], failed_stand_in, std::nullopt);
  cmp = CompareWithPublished(f, "Me");
  EXPECT_EQ(cmp[1].not_comparable, "this run failed");
  EXPECT_TRUE(cmp[1].versus.empty());
  EXPECT_EQ(ComparisonText(f, "Me", 80).find("0.0%"), std::string::npos) << ComparisonText(f, "Me", 80);
  // Single trials on both sides: a percentage but no noise verdict.
  PutEntry(f.results[0], Trials("Me", "120", ""), std::nullopt);
  cmp = CompareWithPublished(f, "Me");
  ASSERT_EQ(cmp[0].versus.size(), 1u);
  EXPECT_NEAR(cmp[0].versus[0].percent, 120.0, 1e-9);
  EXPECT_TRUE(cmp[0].versus[0].better);
  ASSERT_TRUE(cmp[0].versus[0].verdict);
  EXPECT_EQ(cmp[0].versus[0].verdict->kind, results::VerdictKind::kUnknown);
}

}  // namespace ptsn::reproduce
