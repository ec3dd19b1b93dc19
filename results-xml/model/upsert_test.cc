#include "results-xml/model/upsert.h"

#include <gtest/gtest.h>

#include "results-xml/model/comparison_hash.h"
#include "runner/common/error.h"

namespace ptsn::results {
namespace {

Entry E(const std::string& system, const std::string& value) {
  Entry e;
  e.identifier = system;
  e.value = value;
  return e;
}

Result R(const std::string& identifier, const std::string& arguments, std::vector<Entry> entries = {}) {
  Result r;
  r.identifier = identifier;
  r.title = "T";
  r.arguments = arguments;
  r.scale = "MB/s";
  r.entries = std::move(entries);
  return r;
}

std::vector<std::string> Values(const Result& r) {
  std::vector<std::string> out;
  for (const auto& e : r.entries) out.push_back(e.identifier + "=" + e.value);
  return out;
}

TEST(ResultIndex, TheSameHashMergesEntriesIntoTheResultAlreadyThere) {
  ResultFile file;
  file.results = {R("pts/x-1.0.0", "-a", {E("A", "1")}), R("pts/y-1.0.0", "", {E("A", "2")})};
  ResultIndex index(file);
  // pts/x-1.0.3 differs only in patch level: the same comparison hash.
  EXPECT_EQ(index.Upsert(R("pts/x-1.0.3", "-a ", {E("B", "3"), E("C", "4")})), 0u);
  ASSERT_EQ(file.results.size(), 2u);
  EXPECT_EQ(Values(file.results[0]), (std::vector<std::string>{"A=1", "B=3", "C=4"}));
  EXPECT_EQ(file.results[0].identifier, "pts/x-1.0.0") << "the result already there keeps its fields";
}

TEST(ResultIndex, AnEntryOfTheSameSystemIsReplacedInPlace) {
  ResultFile file;
  file.results = {R("pts/x-1.0.0", "", {E("A", "1"), E("B", "2")})};
  ResultIndex index(file);
  index.Upsert(R("pts/x-1.0.0", "", {E("A", "9"), E("C", "3")}));
  EXPECT_EQ(Values(file.results[0]), (std::vector<std::string>{"A=9", "B=2", "C=3"}));
}

TEST(ResultIndex, ANewHashIsAppendedOrInsertedWhereAsked) {
  ResultFile file;
  file.results = {R("pts/x-1.0.0", "1"), R("pts/x-1.0.0", "2")};
  ResultIndex index(file);
  EXPECT_EQ(index.Upsert(R("pts/x-1.1.0", "1", {E("A", "1")})), 2u) << "1.1 is another test: appended";
  EXPECT_EQ(index.Upsert(R("pts/x-1.0.0", "3"), Match::kHash, 1), 1u);
  EXPECT_EQ(index.Upsert(R("pts/x-1.0.0", "4"), Match::kHash, 99), 4u) << "past the end: the end";
  std::vector<std::string> arguments;
  for (const auto& r : file.results) arguments.push_back(r.identifier + " " + r.arguments);
  EXPECT_EQ(arguments, (std::vector<std::string>{"pts/x-1.0.0 1", "pts/x-1.0.0 3", "pts/x-1.0.0 2",
                                                 "pts/x-1.1.0 1", "pts/x-1.0.0 4"}));
}

TEST(ResultIndex, StaysRightAfterAppendsAndInsertsBeforeWhatItHolds) {
  ResultFile file;
  file.results = {R("pts/a-1.0.0", ""), R("pts/b-1.0.0", "")};
  ResultIndex index(file);
  index.Upsert(R("pts/c-1.0.0", ""));                   // appended at 2
  index.Upsert(R("pts/d-1.0.0", ""), Match::kHash, 0);  // inserted before all: a, b, c move up
  for (size_t i = 0; i < file.results.size(); ++i) {
    EXPECT_EQ(index.HashAt(i), ComparisonHash(file.results[i])) << i;
    EXPECT_EQ(index.Find(ComparisonHash(file.results[i])), i) << i;
  }
  // An entry for the appended one goes into it, not into a new result.
  index.Upsert(R("pts/c-1.0.0", "", {E("A", "5")}));
  ASSERT_EQ(file.results.size(), 4u);
  EXPECT_EQ(Values(file.results[3]), (std::vector<std::string>{"A=5"}));
  EXPECT_EQ(index.Find(ComparisonHash(R("pts/z-1.0.0", ""))), std::nullopt);
}

TEST(ResultIndex, WithParentsResultsOfOneHashUnderTwoParentsStayApart) {
  Result child = R("", "CPU Usage -a");
  child.parent = "p1";
  ResultFile file;
  file.results = {child};
  ResultIndex index(file);
  Result other = child;
  other.parent = "p2";
  other.entries = {E("A", "1")};
  EXPECT_EQ(index.Upsert(other, Match::kHashAndParent), 1u) << "another parent: a result of its own";
  EXPECT_EQ(index.Find(ComparisonHash(child)), 0u) << "Find without a parent: the first";
  EXPECT_EQ(index.Find(ComparisonHash(child), Match::kHashAndParent, std::string("p2")), 1u);
  EXPECT_EQ(index.After(ComparisonHash(child)), 2u) << "after the last of that hash";
  other.entries = {E("B", "2")};
  EXPECT_EQ(index.Upsert(other, Match::kHashAndParent), 1u);
  EXPECT_EQ(index.Upsert(other, Match::kHash), 0u) << "PTS's rule: the first of that hash";
  EXPECT_EQ(Values(file.results[1]), (std::vector<std::string>{"A=1", "B=2"}));
  EXPECT_EQ(Values(file.results[0]), (std::vector<std::string>{"B=2"}));
}

TEST(ResultIndex, InsertAddsANewResultEvenWithAHashAlreadyThere) {
  ResultFile file;
  file.results = {R("pts/a-1.0.0", "", {E("A", "1")})};
  ResultIndex index(file);
  Result again = R("pts/a-1.0.0", "", {E("B", "2")});
  EXPECT_EQ(index.Insert(again, ComparisonHash(again)), 1u);
  EXPECT_EQ(index.Find(ComparisonHash(again)), 0u);
  EXPECT_EQ(index.After(ComparisonHash(again)), 2u);
}

TEST(ResultIndex, AChangeInTheNumberOfResultsPastItIsAnError) {
  ResultFile file;
  ResultIndex index(file);
  file.results.push_back(R("pts/a-1.0.0", ""));
  EXPECT_THROW(index.Upsert(R("pts/a-1.0.0", "")), Error);
}

}  // namespace
}  // namespace ptsn::results
