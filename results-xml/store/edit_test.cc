#include "results-xml/store/edit.h"

#include <gtest/gtest.h>

#include "results-xml/model/result_xml.h"
#include "results-xml/model/test_support.h"
#include "results-xml/store/merge.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"

namespace ptsn::results {
namespace {

std::string Out() { return test::ReferenceDir() + "/pts-output/"; }

std::string SavedLike(ResultFile f, const std::string& golden) {
  NormalizeLikePts(f);
  SerializeOptions o;
  o.now = ReadResultFile(golden).generated.last_modified;
  return SerializeResultFile(f, o);
}

TEST(Edit, RenameIdentifierMatchesPts) {
  PTSN_REQUIRE_REFERENCE();
  ResultFile f = ReadResultFile(Out() + "merged/composite.xml");
  RenameIdentifier(f, "Tuned", "Tuned (renamed)");
  std::string golden = Out() + "merge-experiments/6-rename-identifier.xml";
  EXPECT_EQ(SavedLike(f, golden), ReadFile(golden));
}

TEST(Edit, RemoveFirstResultTakesItsMonitorChildMatchesPts) {
  PTSN_REQUIRE_REFERENCE();
  ResultFile f = ReadResultFile(Out() + "merged/composite.xml");
  size_t before = f.results.size();
  std::vector<std::string> removed = RemoveResult(f, FindResult(f, "1"));
  EXPECT_EQ(removed.size(), 2u);
  EXPECT_EQ(f.results.size(), before - 2);
  std::string golden = Out() + "merge-experiments/7-remove-result.xml";
  EXPECT_EQ(SavedLike(f, golden), ReadFile(golden));
}

TEST(Edit, FindResultByHashPrefix) {
  PTSN_REQUIRE_REFERENCE();
  ResultFile f = ReadResultFile(Out() + "merged/composite.xml");
  EXPECT_EQ(FindResult(f, "2deeb28142ce87a23bdae19f6a64aeb25d716585"), 0u);
  EXPECT_EQ(FindResult(f, "2DEEB281"), 0u);
  EXPECT_EQ(FindResult(f, "52300b35"), 1u);
  EXPECT_THROW(FindResult(f, "0"), Error);
  EXPECT_THROW(FindResult(f, "99"), Error);
  EXPECT_THROW(FindResult(f, "ffffff"), Error);
  EXPECT_THROW(FindResult(f, "Sample"), Error);
}

TEST(Edit, RenameRefusals) {
  PTSN_REQUIRE_REFERENCE();
  ResultFile f = ReadResultFile(Out() + "merged/composite.xml");
  EXPECT_THROW(RenameIdentifier(f, "Nope", "X"), Error);
  EXPECT_THROW(RenameIdentifier(f, "Tuned", "Baseline"), Error);
  EXPECT_THROW(RenameIdentifier(f, "Tuned", ""), Error);
  EXPECT_THROW(RenameIdentifier(f, "Tuned", std::string(129, 'x')), Error);
}

TEST(Edit, RemoveSystemDropsEntriesAndEmptyResults) {
  PTSN_REQUIRE_REFERENCE();
  ResultFile f = ReadResultFile(Out() + "merge-experiments/5-a-b-partial.xml");
  size_t results = f.results.size();
  size_t removed = RemoveSystem(f, "Partial");
  EXPECT_GT(removed, 0u);
  for (const System& s : f.systems) EXPECT_NE(s.identifier, "Partial");
  for (const Result& r : f.results)
    for (const Entry& e : r.entries) EXPECT_NE(e.identifier, "Partial");
  EXPECT_LE(f.results.size(), results);
  EXPECT_THROW(RemoveSystem(f, "Partial"), Error);
}

}  // namespace
}  // namespace ptsn::results
