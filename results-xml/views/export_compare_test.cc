#include "results-xml/views/export_compare.h"

#include <gtest/gtest.h>

#include "results-xml/views/export_html.h"
#include "results-xml/views/export_test_fixture.h"

namespace ptsn::results {
namespace {

ResultFile OneSystem(const std::string& id, const std::string& value, const std::string& raw) {
  ResultFile f = test::SmallResultFile();
  f.systems.resize(1);
  f.systems[0].identifier = id;
  f.results.resize(1);
  f.results[0].entries = {{id, value, raw, {}}};
  return f;
}

TEST(ExportCompare, OneRunOfEachIsUnknownAndTheViewSaysWhatWouldDecide) {
  // Issue 50: one run of each system (PTS's way) called identical set-ups different in 10.8 % of
  // A/A runs by the overlap of their intervals. Now the change is shown, and the verdict is
  // unknown however far apart, with what would decide it.
  const ResultFile a = OneSystem("A", "100", "99:100:101");
  const ResultFile close = OneSystem("B", "101", "100:101:102");
  const ResultFile far = OneSystem("C", "120", "119:120:121");
  const Comparison c = CompareResultFiles({a, close, far}, {"a", "b", "c"});
  ASSERT_EQ(c.columns, (std::vector<std::string>{"A", "B", "C"}));
  ASSERT_EQ(c.results.size(), 1u);
  const auto& v = c.results[0].values;
  EXPECT_FALSE(v[0].change_pct.has_value());
  EXPECT_NEAR(*v[1].change_pct, 1.0, 1e-9);
  EXPECT_NEAR(*v[2].change_pct, 20.0, 1e-9);
  ASSERT_TRUE(v[2].runs);
  EXPECT_EQ(v[2].runs->kind, VerdictKind::kUnknown);
  EXPECT_FALSE(v[2].verdict);
  const std::string text = ComparisonToText(c);
  EXPECT_NE(text.find("+20.00%  unknown\n"), std::string::npos) << text;
  EXPECT_NE(text.find("C         0 better, 0 worse, 0 same within +-5 %, 1 unknown"), std::string::npos) << text;
  EXPECT_NE(text.find("Verdicts against A:\n  Sample Disk 1.0 - Block Size: 4KB\n    B: unknown: x1.010 (1 run against 1); "
                      "one run of each cannot tell a set-up from its run"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("To decide: run each system 2 more times"), std::string::npos) << text;
  EXPECT_EQ(text.find("better\n"), std::string::npos) << text;
}

TEST(ExportCompare, RepeatedRunsOfASetUpGiveItsVerdict) {
  // A and B each run three times, saved to one result ("A", "A run 2", or "A #2" as a merge names
  // them): the spread from run to
  // run decides. B is 20 % faster in every run: better, and the runs of A are marked as such.
  ResultFile f = OneSystem("A", "100", "99:100:101");
  f.systems.clear();
  f.results[0].entries.clear();
  const char* runs[][3] = {{"A", "100", "99:100:101"},   {"A run 2", "102", "101:102:103"}, {"A #3", "98", "97:98:99"},
                           {"B", "120", "119:120:121"},  {"B run 2", "122", "121:122:123"}, {"B run 3", "119", "118:119:120"}};
  for (const auto& r : runs) {
    f.systems.push_back({r[0]});
    f.results[0].entries.push_back({r[0], r[1], r[2], {}});
  }
  const Comparison c = CompareResultFiles({f}, {"f"});
  const auto& v = c.results[0].values;
  ASSERT_TRUE(v[3].runs);
  EXPECT_EQ(v[3].runs->kind, VerdictKind::kDifferent);
  EXPECT_EQ(v[3].runs->reference_runs, 3u);
  EXPECT_EQ(v[3].runs->other_runs, 3u);
  EXPECT_EQ(*v[3].verdict, 1);
  EXPECT_FALSE(v[1].runs);  // a run of the reference
  const std::string text = ComparisonToText(c);
  EXPECT_NE(text.find("(a run of the reference)"), std::string::npos) << text;
  EXPECT_NE(text.find("B         1 better, 0 worse, 0 same within +-5 %, 0 unknown"), std::string::npos) << text;
  EXPECT_NE(text.find("    B: different: x1.203 ["), std::string::npos) << text;
  // The same words in the file's other views: FileVerdictsText is what the HTML view and the
  // server's page show.
  EXPECT_NE(FileVerdictsText(f, {}).find("    B: different: x1.203 ["), std::string::npos) << FileVerdictsText(f, {});
  const std::string html = ResultFileToHtml(f);
  EXPECT_NE(html.find("<h2>Verdicts</h2><pre>Against A:"), std::string::npos) << html;
  EXPECT_NE(html.find("    B: different: x1.203 ["), std::string::npos) << html;
}

TEST(ExportCompare, PairedRoundsJudgeTheRatioNotTheOverlap) {
  // One file, three targets run in rounds on a machine that slowed down during the run: B is
  // a steady 10 % slower than A round by round, C the same as A. Unpaired, B's change drowns in
  // the drift; paired, the ratio is clear, but one pair of targets is no verdict on the set-ups
  // (issue 50): no column says better or worse, the verdict by instance pairs follows (VerdictView).
  ResultFile f = OneSystem("A", "250", "400:300:200:100");
  f.systems.resize(3);
  f.systems[1].identifier = "B";
  f.systems[2].identifier = "C";
  f.results[0].entries.push_back({"B", "225", "360:270:180:90", {}});
  f.results[0].entries.push_back({"C", "250", "404:297:202:99", {}});
  const Comparison unpaired = CompareResultFiles({f}, {"f"});
  EXPECT_EQ(unpaired.results[0].values[1].runs->kind, VerdictKind::kUnknown);  // one run of each
  const Comparison c = CompareResultFiles({f}, {"f"}, CompareMode::kPaired);
  const auto& v = c.results[0].values;
  ASSERT_TRUE(v[1].paired);
  EXPECT_NEAR(v[1].paired->ratio, 0.9, 1e-9);
  EXPECT_FALSE(v[1].verdict);
  ASSERT_TRUE(v[2].paired);
  EXPECT_FALSE(v[2].verdict);
  const std::string text = ComparisonToText(c);
  EXPECT_NE(text.find("x0.900 [0.900, 0.900] paired over 4 rounds (-10.00%)  (verdict below)\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("x1.000 [0.982, 1.018] paired over 4 rounds (-0.01%)  (verdict below)\n"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("worse"), std::string::npos) << text;
}

TEST(ExportCompare, LowerIsBetterSingleTrialsAndMissingResults) {
  ResultFile a = OneSystem("A", "100", "99:100:101");
  a.results[0].proportion = "LIB";
  ResultFile b = OneSystem("B", "80", "79:80:81");
  b.results[0].proportion = "LIB";
  ResultFile single = OneSystem("C", "90", "");  // one trial
  single.results[0].proportion = "LIB";
  single.results[0].arguments = "--other";        // a result the first file lacks
  const Comparison c = CompareResultFiles({a, b, single}, {"a", "b", "c"});
  ASSERT_EQ(c.results.size(), 2u);
  EXPECT_EQ(c.results[0].values[1].runs->kind, VerdictKind::kUnknown);  // one run of each
  EXPECT_NEAR(c.results[0].values[1].runs->ratio, 0.8, 1e-3);
  EXPECT_FALSE(c.results[0].values[2].value.has_value());
  EXPECT_FALSE(c.results[1].values[0].value.has_value());
  EXPECT_FALSE(c.results[1].values[2].verdict.has_value());
  EXPECT_NE(ComparisonToText(c).find("  A         -\n"), std::string::npos) << ComparisonToText(c);
}

TEST(ExportCompare, RepeatedIdentifiersArePrefixedWithTheFileName) {
  const Comparison c = CompareResultFiles({OneSystem("Run", "1", ""), OneSystem("Run", "2", "")}, {"before", "after"});
  EXPECT_EQ(c.columns, (std::vector<std::string>{"before: Run", "after: Run"}));
}

}  // namespace
}  // namespace ptsn::results
