#include "results-xml/store/merge.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "results-xml/model/result_xml.h"
#include "results-xml/model/test_support.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"

namespace ptsn::results {
namespace {

std::string Out() { return test::ReferenceDir() + "/pts-output/"; }

MergeInput In(const std::string& rel) { return {rel, ReadResultFile(Out() + rel)}; }

// Serializes the merge as PTS would have saved it at the moment the golden file was written.
std::string AsSavedAt(const ResultFile& merged, const std::string& golden_path) {
  SerializeOptions o;
  o.now = ReadResultFile(golden_path).generated.last_modified;
  return SerializeResultFile(merged, o);
}

void ExpectGolden(std::vector<std::string> inputs, const std::string& golden, ClashPolicy policy) {
  std::vector<MergeInput> in;
  for (const auto& i : inputs) in.push_back(In(i));
  MergeOutcome m = MergeResultFiles(std::move(in), policy);
  EXPECT_EQ(AsSavedAt(m.merged, Out() + golden), ReadFile(Out() + golden)) << golden;
}

TEST(Merge, ResultAPlusResultBMatchesPtsMergedComposite) {
  PTSN_REQUIRE_REFERENCE();
  ExpectGolden({"result-a/composite.xml", "result-b/composite.xml"}, "merged/composite.xml", ClashPolicy::kRename);
  ExpectGolden({"result-a/composite.xml", "result-b/composite.xml"}, "merged/composite.xml", ClashPolicy::kError);
}

TEST(Merge, PartialResultsAndOrderingMatchPts) {
  PTSN_REQUIRE_REFERENCE();
  ExpectGolden({"result-a/composite.xml", "merge-experiments/inputs/exp-c-partial.xml"},
               "merge-experiments/3-a-plus-partial.xml", ClashPolicy::kRename);
  ExpectGolden({"merge-experiments/inputs/exp-c-partial.xml", "result-a/composite.xml"},
               "merge-experiments/4-partial-plus-a.xml", ClashPolicy::kRename);
  ExpectGolden({"result-a/composite.xml", "result-b/composite.xml", "merge-experiments/inputs/exp-c-partial.xml"},
               "merge-experiments/5-a-b-partial.xml", ClashPolicy::kRename);
}

TEST(Merge, ClashWithKeepIsExactlyPts) {
  PTSN_REQUIRE_REFERENCE();
  ExpectGolden({"result-a/composite.xml", "merge-experiments/inputs/exp-a-clash.xml"},
               "merge-experiments/1-a-plus-clash.xml", ClashPolicy::kKeep);
  ExpectGolden({"result-a/composite.xml", "merge-experiments/inputs/exp-a-same.xml"},
               "merge-experiments/2-a-plus-same.xml", ClashPolicy::kKeep);
}

// Deliberate difference: PTS writes two <System>s called Baseline and two Baseline entries
// (124.13 and 130.50) that no view can tell apart. By default we rename the second system.
TEST(Merge, ClashRenamesByDefaultInsteadOfDuplicatingTheIdentifier) {
  PTSN_REQUIRE_REFERENCE();
  MergeOutcome m = MergeResultFiles({In("result-a/composite.xml"), In("merge-experiments/inputs/exp-a-clash.xml")});
  ASSERT_EQ(m.merged.systems.size(), 2u);
  EXPECT_EQ(m.merged.systems[0].identifier, "Baseline");
  EXPECT_EQ(m.merged.systems[1].identifier, "Baseline #2");
  ASSERT_EQ(m.notices.size(), 1u);
  EXPECT_EQ(m.notices[0],
            "merge-experiments/inputs/exp-a-clash.xml: system 'Baseline' renamed to 'Baseline #2' "
            "(the identifier is already used by an earlier file)");
  const Result& first = m.merged.results[0];
  ASSERT_EQ(first.entries.size(), 2u);
  EXPECT_EQ(first.entries[0].identifier, "Baseline");
  EXPECT_EQ(first.entries[0].value, "124.13");
  EXPECT_EQ(first.entries[1].identifier, "Baseline #2");
  EXPECT_EQ(first.entries[1].value, "130.50");
  // Same results in the same order as PTS. PTS also loses data here: the clashing file's monitor
  // entries equal A's ("Baseline" + same value), so its dedup drops them; renamed, every result
  // keeps one entry per input system.
  MergeOutcome pts = MergeResultFiles({In("result-a/composite.xml"), In("merge-experiments/inputs/exp-a-clash.xml")},
                                      ClashPolicy::kKeep);
  ASSERT_EQ(pts.merged.results.size(), m.merged.results.size());
  for (size_t i = 0; i < pts.merged.results.size(); ++i) {
    EXPECT_EQ(pts.merged.results[i].description, m.merged.results[i].description);
    EXPECT_EQ(m.merged.results[i].entries.size(), 2u);
  }
  EXPECT_EQ(pts.merged.results[1].entries.size(), 1u);
}

TEST(Merge, ClashErrorPolicyRefuses) {
  PTSN_REQUIRE_REFERENCE();
  try {
    MergeResultFiles({In("result-a/composite.xml"), In("merge-experiments/inputs/exp-a-clash.xml")}, ClashPolicy::kError);
    FAIL() << "expected a clash error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "merge-experiments/inputs/exp-a-clash.xml: system identifier 'Baseline' is already used by an "
                 "earlier file (use --on-clash=rename or --on-clash=keep)");
  }
}

// Deliberate difference: merging the very same run twice (2-a-plus-same) does not duplicate its
// System (PTS writes Baseline twice); the entries were already deduplicated by PTS too.
TEST(Merge, SameRunTwiceIsNotDuplicated) {
  PTSN_REQUIRE_REFERENCE();
  MergeOutcome m = MergeResultFiles({In("result-a/composite.xml"), In("merge-experiments/inputs/exp-a-same.xml")});
  EXPECT_TRUE(m.notices.empty());
  ResultFile golden = ReadResultFile(Out() + "merge-experiments/2-a-plus-same.xml");
  ASSERT_EQ(golden.systems.size(), 2u);
  golden.systems.pop_back();
  EXPECT_EQ(AsSavedAt(m.merged, Out() + "merge-experiments/2-a-plus-same.xml"),
            AsSavedAt(golden, Out() + "merge-experiments/2-a-plus-same.xml"));
}

Result R(const std::string& args, std::vector<Entry> entries) {
  Result r;
  r.identifier = "pts/x-1.0.0";
  r.title = "X";
  r.arguments = args;
  r.entries = std::move(entries);
  return r;
}
Entry En(const std::string& id, const std::string& v) { return Entry{id, v, "", std::nullopt}; }
System Sys(const std::string& id) {
  System s;
  s.identifier = id;
  return s;
}

TEST(Merge, IncompleteEntryIsReplacedAndDuplicatePairsSkipped) {
  ResultFile a, b;
  a.systems = {Sys("A")};
  a.results = {R("1", {En("A", "")}), R("2", {En("A", "5")})};
  b.systems = {Sys("B")};
  b.results = {R("1", {En("A", "7"), En("B", "8")}), R("2", {En("A", "5"), En("B", "6")}), R("3", {En("B", "1")})};
  MergeOutcome m = MergeResultFiles({{"a", a}, {"b", b}});
  ASSERT_EQ(m.merged.results.size(), 3u);
  EXPECT_EQ(m.merged.results[0].entries.size(), 2u);
  EXPECT_EQ(m.merged.results[0].entries[0].value, "7");  // '' replaced
  EXPECT_EQ(m.merged.results[1].entries.size(), 2u);      // A=5 not duplicated
  EXPECT_EQ(m.merged.results[2].arguments, "3");          // new result appended
}

// Many files' entries for one result, drawn from few identifiers and values (repeats, empty
// values to replace, one identifier with hundreds of values), against PTS's merge done the plain
// way: the first file's result as it is, then add_buffer_item for each later entry (scan for the
// identifier's last entry and for the pair).
TEST(Merge, EntriesFollowAddBufferItemAtAnyScale) {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 40; ++round) {
    const int identifiers = 1 + static_cast<int>(rng() % 12), values = 1 + static_cast<int>(rng() % (round % 4 == 0 ? 600 : 8));
    std::vector<MergeInput> inputs;
    std::vector<Entry> expected;
    for (int f = 0; f < 30; ++f) {
      ResultFile file;
      file.systems = {Sys("S" + std::to_string(f))};
      std::vector<Entry> entries;
      for (int k = 0, n = static_cast<int>(rng() % 20); k < n; ++k) {
        const int v = static_cast<int>(rng() % (values + 1));
        entries.push_back(En("I" + std::to_string(rng() % identifiers), v == values ? "" : std::to_string(v)));
      }
      // The first file's result is taken whole; later files' entries go through add_buffer_item.
      if (f == 0) expected = entries;
      for (const Entry& e : f == 0 ? std::vector<Entry>{} : entries) {
        auto last = std::find_if(expected.rbegin(), expected.rend(), [&](const Entry& x) { return x.identifier == e.identifier; });
        if (last != expected.rend() && last->value.empty())
          std::erase_if(expected, [&](const Entry& x) { return x.identifier == e.identifier; });
        if (std::none_of(expected.begin(), expected.end(),
                         [&](const Entry& x) { return x.identifier == e.identifier && x.value == e.value; }))
          expected.push_back(e);
      }
      file.results = {R("1", entries)};
      inputs.push_back({"f" + std::to_string(f), std::move(file)});
    }
    MergeOutcome m = MergeResultFiles(std::move(inputs), ClashPolicy::kKeep);
    ASSERT_EQ(m.merged.results.size(), 1u);
    std::vector<std::string> got, want;
    for (const Entry& e : m.merged.results[0].entries) got.push_back(e.identifier + "=" + e.value);
    for (const Entry& e : expected) want.push_back(e.identifier + "=" + e.value);
    ASSERT_EQ(got, want) << "round " << round;
  }
}

TEST(Merge, PatchLevelLinesUpAnnotationsConcatenate) {
  ResultFile a, b;
  a.systems = {Sys("A")};
  b.systems = {Sys("B")};
  a.results = {R("1", {En("A", "1")})};
  b.results = {R("1", {En("B", "2")})};
  b.results[0].identifier = "pts/x-1.0.9";
  b.results[0].annotation = "note b";
  MergeOutcome m = MergeResultFiles({{"a", a}, {"b", b}});
  ASSERT_EQ(m.merged.results.size(), 1u);
  EXPECT_EQ(m.merged.results[0].entries.size(), 2u);
  EXPECT_EQ(m.merged.results[0].annotation, "note b");
  a.results[0].annotation = "note a";
  m = MergeResultFiles({{"a", a}, {"b", b}});
  EXPECT_EQ(m.merged.results[0].annotation, "note a \nnote b");
}

TEST(Merge, TitleFromLaterFileOnlyWhenEmptyAndRenameSkipsTakenNames) {
  ResultFile a, b;
  a.systems = {Sys("S"), Sys("S #2")};
  b.generated.title = "B title";
  b.systems = {Sys("S")};
  b.results = {R("1", {En("S", "3")})};
  MergeOutcome m = MergeResultFiles({{"a", a}, {"b", b}});
  EXPECT_EQ(m.merged.generated.title, "B title");
  EXPECT_EQ(m.merged.systems.back().identifier, "S #3");
  EXPECT_EQ(m.merged.results[0].entries[0].identifier, "S #3");
}

TEST(Merge, ClashPolicyParsing) {
  EXPECT_EQ(ParseClashPolicy("keep"), ClashPolicy::kKeep);
  EXPECT_THROW(ParseClashPolicy("overwrite"), Error);
}

}  // namespace
}  // namespace ptsn::results
