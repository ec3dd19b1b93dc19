// Monitor series stay with the test they were recorded with: MonitorParents finds the test, and
// ResultPages never puts a series on another page than its test (the server's pages).
#include "results-xml/views/monitor_parents.h"

#include <gtest/gtest.h>

#include "results-xml/model/comparison_hash.h"

namespace ptsn::results {
namespace {

Result TestResult(const std::string& name) {
  Result r;
  r.identifier = "pts/" + name + "-1.0.0";
  r.title = name;
  r.scale = "MB/s";
  r.proportion = "HIB";
  r.entries = {{"A", "1", std::nullopt, std::nullopt}};
  return r;
}

// A cpu.usage series recorded with `test` (its <Parent>).
Result Series(const Result& test, const std::string& monitor = "cpu.usage") {
  Result r;
  r.title = test.title;
  r.description = monitor;
  r.display_format = "LINE_GRAPH";
  r.parent = ComparisonHash(test);
  r.entries = {{"A", "1,2,3", std::nullopt, std::nullopt}};
  return r;
}

using Pages = std::vector<std::vector<size_t>>;

TEST(MonitorParents, ByParentHashAndByPtsOldNaming) {
  ResultFile f;
  f.results = {TestResult("a"), TestResult("b")};
  f.results.push_back(Series(f.results[1]));
  // Older than <Parent>: no identifier, the test's title, the monitor's name before its arguments.
  f.results[0].arguments = "-s 1";
  Result old;
  old.title = "a";
  old.arguments = "CPU Usage -s 1";
  old.display_format = "LINE_GRAPH";
  f.results.push_back(old);
  EXPECT_EQ(MonitorParents(f), (std::vector<size_t>{kNoMonitorParent, kNoMonitorParent, 1, 0}));
}

TEST(ResultPages, ASeriesGoesOnItsTestsPageAndNoPageHoldsMoreThanItsSize) {
  ResultFile f;
  for (const char* t : {"a", "b", "c"}) {
    f.results.push_back(TestResult(t));
    f.results.push_back(Series(f.results.back()));
  }
  // Cut at every 3 results, b's series would open page 2 without b.
  EXPECT_EQ(ResultPages(f, 3), (Pages{{0, 1}, {2, 3}, {4, 5}}));
  EXPECT_EQ(ResultPages(f, 4), (Pages{{0, 1, 2, 3}, {4, 5}}));
  // Ordered away from their tests (grs puts the series, with no spread, last): back beside them.
  ResultFile apart;
  apart.results = {f.results[0], f.results[2], f.results[4], f.results[1], f.results[3], f.results[5]};
  EXPECT_EQ(ResultPages(apart, 2), (Pages{{0, 3}, {1, 4}, {2, 5}}));
  // A test with more series than a page holds is cut, on pages of its own: never above the size.
  ResultFile many;
  many.results = {TestResult("x"), TestResult("y")};
  for (const char* m : {"cpu.usage", "cpu.temp", "sys.power", "memory.usage"})
    many.results.push_back(Series(many.results[1], m));
  many.results.push_back(TestResult("z"));
  EXPECT_EQ(ResultPages(many, 2), (Pages{{0}, {1, 2}, {3, 4}, {5, 6}}));
  EXPECT_EQ(ResultPages(many, 3), (Pages{{0}, {1, 2, 3}, {4, 5, 6}}));
  // Every result lands on exactly one page, also a series of a series and a loop of parents.
  ResultFile odd = f;
  odd.results.push_back(Series(odd.results[1], "nested"));  // a series of b's series
  Result loop_a = TestResult("p"), loop_b = TestResult("q");
  loop_a.parent = ComparisonHash(loop_b);
  loop_b.parent = ComparisonHash(loop_a);
  odd.results.push_back(loop_a);
  odd.results.push_back(loop_b);
  EXPECT_EQ(ResultPages(odd, 3), (Pages{{0, 1, 6}, {2, 3}, {4, 5, 7}, {8}}));
}

}  // namespace
}  // namespace ptsn::results
