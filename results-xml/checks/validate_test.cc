#include "results-xml/checks/validate.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "results-xml/model/result_xml.h"
#include "results-xml/model/test_support.h"
#include "results-xml/store/merge.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"

namespace ptsn::results {
namespace {

std::string Xsd() { return test::ReferenceDir() + "/schemas/result-file.xsd"; }

std::vector<std::string> Errors(const ResultFile& f) {
  std::vector<std::string> out;
  for (const ValidationIssue& i : ValidateResultFile(f))
    if (i.error) out.push_back(i.where + ": " + i.what);
  return out;
}

TEST(Validate, EveryReferenceFileAndOurRewriteOfItValidateAgainstTheXsd) {
  PTSN_REQUIRE_REFERENCE();
  if (!std::filesystem::exists(Xsd())) GTEST_SKIP() << "no " << Xsd();
  for (const std::string& path : test::ReferenceResultFiles()) {
    ResultFile f = ReadResultFile(path);
    EXPECT_EQ(ValidateAgainstSchema(ReadFile(path), Xsd()), std::vector<std::string>{}) << path;
    EXPECT_EQ(ValidateAgainstSchema(SerializeResultFile(f), Xsd()), std::vector<std::string>{}) << path;
    EXPECT_EQ(Errors(f), std::vector<std::string>{}) << path;
  }
}

TEST(Validate, MergedOutputValidates) {
  PTSN_REQUIRE_REFERENCE();
  if (!std::filesystem::exists(Xsd())) GTEST_SKIP() << "no " << Xsd();
  std::string out = test::ReferenceDir() + "/pts-output/";
  MergeOutcome m = MergeResultFiles({{"a", ReadResultFile(out + "result-a/composite.xml")},
                                     {"c", ReadResultFile(out + "merge-experiments/inputs/exp-a-clash.xml")},
                                     {"p", ReadResultFile(out + "merge-experiments/inputs/exp-c-partial.xml")}});
  EXPECT_EQ(ValidateAgainstSchema(SerializeResultFile(m.merged), Xsd()), std::vector<std::string>{});
  EXPECT_EQ(Errors(m.merged), std::vector<std::string>{});
}

TEST(Validate, XsdCatchesWhatItDescribes) {
  PTSN_REQUIRE_REFERENCE();
  if (!std::filesystem::exists(Xsd())) GTEST_SKIP() << "no " << Xsd();
  ResultFile f = ReadResultFile(test::ReferenceDir() + "/pts-output/result-a/composite.xml");
  f.results[0].proportion = "MORE";
  auto errors = ValidateAgainstSchema(SerializeResultFile(f), Xsd());
  ASSERT_FALSE(errors.empty());
  EXPECT_TRUE(errors[0].starts_with("line 28: ")) << errors[0];
  EXPECT_THROW(ValidateAgainstSchema("<a/>", "/nonexistent.xsd"), Error);
}

TEST(Validate, OwnStructuralRules) {
  PTSN_REQUIRE_REFERENCE();
  ResultFile good = ReadResultFile(test::ReferenceDir() + "/pts-output/merged/composite.xml");
  ASSERT_TRUE(Errors(good).empty());
  ResultFile f = good;
  f.generated.title = "";
  f.generated.last_modified = "2026-11-30T07:42:40";
  f.systems[1].timestamp = "yesterday";
  f.results[0].title = "X";
  f.results[0].proportion = "MORE";
  f.results[0].display_format = "PIE";
  f.results[0].entries[0].value = "fast";
  f.results[0].entries[1].identifier = "Ghost";
  f.results[1].entries[0].value = "100,abc";
  f.results[2].entries[0].raw_string = "1:x:3";
  std::vector<std::string> e = Errors(f);
  std::vector<std::string> want = {
      "Generated/Title: is 0 characters long; it must be 1 to 126",
      "Generated/LastModified: '2026-11-30T07:42:40' is not a YYYY-MM-DD HH:MM:SS time stamp",
      "System 2 'Tuned' TimeStamp: 'yesterday' is not a YYYY-MM-DD HH:MM:SS time stamp",
      "Result 1 (X, Block Size: 4KB) Title: is 1 characters long; it must be 2 to 50",
      "Result 1 (X, Block Size: 4KB) Proportion: 'MORE' is not one of LIB, HIB, ABSTRACT or empty",
      "Result 1 (X, Block Size: 4KB) DisplayFormat: 'PIE' is not a PTS display format",
      "Result 1 (X, Block Size: 4KB) Entry 'Ghost': names no <System> of this file",
      "Result 2 (Sample Disk, CPU Usage (Summary) Monitor) Entry 'Baseline' Value: 'abc' in the series is not a number",
      "Result 3 (Sample Disk, Block Size: 1MB) Entry 'Baseline' RawString: trial 'x' is not a number",
  };
  EXPECT_EQ(e, want);
  // The streaming validator (the server's upload check) finds the same, in the same order, from
  // Head and each Result; a result without entries still counts for nothing.
  f.results[3].entries.clear();
  StreamingValidator streaming;
  streaming.Head(f);
  for (const Result& r : f.results) streaming.OnResult(r);
  EXPECT_EQ(streaming.Finish(), ValidateResultFile(f, {.warnings = false}));
  // A BAR_GRAPH value that is not a number (display format valid).
  ResultFile g = good;
  g.results[0].entries[0].value = "fast";
  EXPECT_EQ(Errors(g), std::vector<std::string>{"Result 1 (Sample Disk, Block Size: 4KB) Entry 'Baseline' Value: 'fast' is not a number"});
}

// Lengths are in characters (the XSD's facets), whatever their bytes: checked by byte count first.
TEST(Validate, LengthsCountCharactersNotBytes) {
  PTSN_REQUIRE_REFERENCE();
  const ResultFile good = ReadResultFile(test::ReferenceDir() + "/pts-output/merged/composite.xml");
  auto title_errors = [&](const std::string& title) {
    ResultFile f = good;
    f.results[0].title = title;
    return Errors(f);
  };
  std::string e_acute = "\xC3\xA9";
  auto times = [](const std::string& s, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += s;
    return out;
  };
  EXPECT_EQ(title_errors(e_acute),
            std::vector<std::string>{"Result 1 (\xC3\xA9, Block Size: 4KB) Title: is 1 characters long; it must be 2 to 50"});
  EXPECT_TRUE(title_errors(times(e_acute, 25) + "x").empty());  // 51 bytes, 26 characters
  EXPECT_TRUE(title_errors(times(e_acute, 50)).empty());        // 100 bytes, 50 characters
  EXPECT_EQ(title_errors(times(e_acute, 51)).size(), 1u);
  EXPECT_EQ(title_errors(times("x", 51)).size(), 1u);
  EXPECT_TRUE(title_errors("xy").empty());
}

TEST(Validate, DuplicateSystemIsAWarningEmptyFileAnError) {
  PTSN_REQUIRE_REFERENCE();
  ResultFile f = ReadResultFile(test::ReferenceDir() + "/pts-output/merge-experiments/1-a-plus-clash.xml");
  auto issues = ValidateResultFile(f);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_FALSE(issues[0].error);
  ResultFile empty;
  empty.generated.title = "T";
  empty.generated.last_modified = "2026-01-01 00:00:00";
  EXPECT_EQ(Errors(empty), (std::vector<std::string>{"PhoronixTestSuite: has no <System>",
                                                     "PhoronixTestSuite: has no <Result> with data"}));
}

TEST(Validate, StreamingValidatorSeesNoResultWithData) {
  ResultFile f;
  f.generated.title = "T";
  f.generated.last_modified = "2026-01-01 00:00:00";
  f.systems.emplace_back().identifier = "A";
  f.systems[0].timestamp = "2026-01-01 00:00:00";
  f.systems[0].notes = "";
  f.results.emplace_back().title = "No entries";
  StreamingValidator streaming;
  streaming.Head(f);
  streaming.OnResult(f.results[0]);
  auto issues = streaming.Finish();
  EXPECT_EQ(issues, ValidateResultFile(f, {.warnings = false}));
  ASSERT_EQ(issues.size(), 2u);
  EXPECT_FALSE(issues[0].error);  // the result without entries: a warning
  EXPECT_EQ(issues[1].where + ": " + issues[1].what, "PhoronixTestSuite: has no <Result> with data");
}

}  // namespace
}  // namespace ptsn::results
