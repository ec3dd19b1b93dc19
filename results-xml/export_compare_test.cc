#include "results-xml/export_compare.h"

#include <gtest/gtest.h>

#include "results-xml/export_test_fixture.h"

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

TEST(ExportCompare, ChangeAgainstTheFirstAndNoise) {
  const ResultFile a = OneSystem("A", "100", "99:100:101");
  const ResultFile close = OneSystem("B", "101", "100:101:102");   // CIs overlap
  const ResultFile far = OneSystem("C", "120", "119:120:121");     // clearly higher
  const Comparison c = CompareResultFiles({a, close, far}, {"a", "b", "c"});
  ASSERT_EQ(c.columns, (std::vector<std::string>{"A", "B", "C"}));
  ASSERT_EQ(c.results.size(), 1u);
  const auto& v = c.results[0].values;
  EXPECT_FALSE(v[0].change_pct.has_value());
  EXPECT_NEAR(*v[1].change_pct, 1.0, 1e-9);
  EXPECT_EQ(*v[1].verdict, 0);
  EXPECT_NEAR(*v[2].change_pct, 20.0, 1e-9);
  EXPECT_EQ(*v[2].verdict, 1);  // HIB: higher is better
  const std::string text = ComparisonToText(c);
  EXPECT_NE(text.find("+1.00%  within noise"), std::string::npos) << text;
  EXPECT_NE(text.find("+20.00%  better"), std::string::npos) << text;
  EXPECT_NE(text.find("C         1 better, 0 worse, 0 within noise"), std::string::npos) << text;
  // What the verdicts are worth follows them, with the measured false rates.
  EXPECT_NE(text.find("in 10.8 % [6.3, 18.0] of 111 when run one after the other"), std::string::npos) << text;
  EXPECT_EQ(text.find("14.4 %"), std::string::npos) << text;
}

TEST(ExportCompare, PairedRoundsJudgeTheRatioNotTheOverlap) {
  // One file, three targets run in rounds on a machine that slowed down during the run: B is
  // a steady 10 % slower than A round by round, C the same as A. Unpaired, B's change drowns in
  // the drift; paired, it is clear, and C is within noise.
  ResultFile f = OneSystem("A", "250", "400:300:200:100");
  f.systems.resize(3);
  f.systems[1].identifier = "B";
  f.systems[2].identifier = "C";
  f.results[0].entries.push_back({"B", "225", "360:270:180:90", {}});
  f.results[0].entries.push_back({"C", "250", "404:297:202:99", {}});
  const Comparison unpaired = CompareResultFiles({f}, {"f"});
  EXPECT_EQ(*unpaired.results[0].values[1].verdict, 0);
  const Comparison c = CompareResultFiles({f}, {"f"}, CompareMode::kPaired);
  const auto& v = c.results[0].values;
  ASSERT_TRUE(v[1].paired);
  EXPECT_NEAR(v[1].paired->ratio, 0.9, 1e-9);
  EXPECT_EQ(*v[1].verdict, -1);
  ASSERT_TRUE(v[2].paired);
  EXPECT_EQ(*v[2].verdict, 0);
  const std::string text = ComparisonToText(c);
  EXPECT_NE(text.find("x0.900 [0.900, 0.900] paired over 4 rounds (-10.00%)  worse"), std::string::npos) << text;
  EXPECT_NE(text.find("x1.000 [0.982, 1.018] paired over 4 rounds (-0.01%)  within noise"), std::string::npos) << text;
  EXPECT_NE(text.find("'better' or 'worse' in 14.4 % [12.1, 17.0] of 772 A/A runs"), std::string::npos) << text;
}

TEST(ExportCompare, LowerIsBetterSingleTrialsAndMissingResults) {
  ResultFile a = OneSystem("A", "100", "99:100:101");
  a.results[0].proportion = "LIB";
  ResultFile b = OneSystem("B", "80", "79:80:81");
  b.results[0].proportion = "LIB";
  ResultFile single = OneSystem("C", "90", "");  // one trial: no interval, noise unknown
  single.results[0].proportion = "LIB";
  single.results[0].arguments = "--other";        // a result the first file lacks
  const Comparison c = CompareResultFiles({a, b, single}, {"a", "b", "c"});
  ASSERT_EQ(c.results.size(), 2u);
  EXPECT_EQ(*c.results[0].values[1].verdict, 1);   // lower wins for LIB
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
