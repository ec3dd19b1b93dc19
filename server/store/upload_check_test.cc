#include "server/store/upload_check.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "results-xml/checks/validate.h"
#include "results-xml/model/result_xml.h"
#include "runner/common/error.h"
#include "runner/common/shared_dir.h"
#include "server/testing/sample_result.h"

namespace ptsn::server {
namespace {

std::string RejectionOf(const std::string& xml, const UploadLimits& limits = {}) {
  try {
    CheckResultFile(xml, limits);
  } catch (const UploadRejected& e) {
    return e.message;
  }
  return "";
}

TEST(UploadCheck, AcceptsAndSummarisesAResultFile) {
  auto s = CheckResultFile(testing::SampleCompositeXml("My Title", 4, 2));
  EXPECT_EQ(s.title, "My Title");
  EXPECT_EQ(s.systems, (std::vector<std::string>{"System 1", "System 2"}));
  ASSERT_EQ(s.tests.size(), 4u);
  EXPECT_EQ(s.tests[1], "pts/fio-2.1.1");
  EXPECT_EQ(s.result_titles[0], "Flexible IO Tester");
}

TEST(UploadCheck, AcceptsTheGoldenPtsFile) {
  std::ifstream in(::ptsn::SharedDir() + "/reference/pts-output/result-a/composite.xml");
  if (!in) GTEST_SKIP() << "shared/reference/pts-output is not available";
  std::stringstream ss;
  ss << in.rdbuf();
  auto s = CheckResultFile(ss.str());
  EXPECT_EQ(s.title, "Sample Disk Golden A");
  EXPECT_EQ(s.systems, std::vector<std::string>{"Baseline"});
  EXPECT_EQ(s.tests.front(), "local/sample-disk-1.0.0");
  EXPECT_EQ(s.tests[1], "");  // the monitor result has no test profile
}

TEST(UploadCheck, RejectsXxeAndEntityBombs) {
  std::string xxe =
      "<?xml version=\"1.0\"?><!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
      "<PhoronixTestSuite><Generated><Title>&x;</Title></Generated></PhoronixTestSuite>";
  EXPECT_NE(RejectionOf(xxe).find("DOCTYPE"), std::string::npos) << RejectionOf(xxe);
  std::string bomb = "<?xml version=\"1.0\"?><!DOCTYPE r [<!ENTITY a \"aaaaaaaaaa\">"
                     "<!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\"><!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\">]>"
                     "<PhoronixTestSuite><Generated><Title>&c;</Title></Generated></PhoronixTestSuite>";
  // libxml2 may stop at the entity loop before the DOCTYPE node is seen; either way it is refused.
  EXPECT_NE(RejectionOf(bomb).find("composite.xml:"), std::string::npos) << RejectionOf(bomb);
}

TEST(UploadCheck, RejectsDeepNestingHugeAttributesAndBadStructure) {
  std::string deep = "<PhoronixTestSuite>";
  for (int i = 0; i < 5000; ++i) deep += "<a>";
  EXPECT_NE(RejectionOf(deep).find("nested deeper"), std::string::npos) << RejectionOf(deep);

  std::string attr = testing::SampleCompositeXml("T");
  attr.replace(attr.find("<Generated>"), 11, "<Generated x=\"" + std::string(100000, 'x') + "\">");
  EXPECT_NE(RejectionOf(attr).find("attribute"), std::string::npos) << RejectionOf(attr);

  UploadLimits small;
  small.max_value_bytes = 10;
  EXPECT_NE(RejectionOf(testing::SampleCompositeXml("A long title here"), small).find("Generated/Title"),
            std::string::npos);

  EXPECT_NE(RejectionOf("<html><body/></html>").find("PhoronixTestSuite"), std::string::npos)
      << RejectionOf("<html><body/></html>");
  EXPECT_NE(RejectionOf("<PhoronixTestSuite><Generated>").find("malformed XML"), std::string::npos);
  EXPECT_NE(RejectionOf("").find("composite.xml"), std::string::npos);
  EXPECT_NE(RejectionOf("<PhoronixTestSuite><Generated><Title></Title></Generated></PhoronixTestSuite>").find("composite.xml"),
            std::string::npos);
  std::string no_result = testing::SampleCompositeXml("T", 0);
  EXPECT_NE(RejectionOf(no_result).find("no <Result>"), std::string::npos);
  std::string no_system = testing::SampleCompositeXml("T", 1, 1);
  no_system.erase(no_system.find("  <System>"), no_system.find("</System>\n") + 10 - no_system.find("  <System>"));
  EXPECT_NE(RejectionOf(no_system).find("no <System>"), std::string::npos);
}

// The bounds are enforced inside the one parse (results::ReadLimits), not by a pass of their own:
// each is still refused, with its own message, and stops the parse.
TEST(UploadCheck, BoundsHoldInTheSingleParse) {
  UploadLimits few;
  few.max_nodes = 50;
  EXPECT_NE(RejectionOf(testing::SampleCompositeXml("T", 10), few).find("more than 50 XML nodes"), std::string::npos)
      << RejectionOf(testing::SampleCompositeXml("T", 10), few);
  // Comments and processing instructions count as nodes too (they are not stored, but cost).
  std::string noisy = testing::SampleCompositeXml("T");
  std::string junk;
  for (int i = 0; i < 60; ++i) junk += i % 2 ? "<!--c-->" : "<?pi x?>";
  noisy.insert(noisy.find("<Generated>"), junk);
  UploadLimits hundred;
  hundred.max_nodes = 100;
  EXPECT_TRUE(RejectionOf(noisy).empty()) << RejectionOf(noisy);
  EXPECT_NE(RejectionOf(noisy, hundred).find("XML nodes"), std::string::npos) << RejectionOf(noisy, hundred);

  // A structural error earlier in the file does not switch the bounds off: the deep nesting
  // after an unknown element is still reported as such (and stops the parse).
  std::string deep = "<PhoronixTestSuite><Unknown/>";
  for (int i = 0; i < 40; ++i) deep += "<a>";
  EXPECT_NE(RejectionOf(deep).find("nested deeper than 16"), std::string::npos) << RejectionOf(deep);
  // A value over the bound names where it is, split across libxml2's text pieces or not.
  UploadLimits small;
  small.max_value_bytes = 1000;
  std::string big = testing::SampleCompositeXml("T");
  big.replace(big.find("<Notes></Notes>"), 15, "<Notes>" + std::string(5000, 'd') + "&amp;" + std::string(5000, 'd') + "</Notes>");
  EXPECT_NE(RejectionOf(big, small).find("/PhoronixTestSuite/System/Notes is over 1000 bytes"),
            std::string::npos)
      << RejectionOf(big, small);
  EXPECT_TRUE(RejectionOf(big).empty()) << RejectionOf(big);
  // Bytes that are not UTF-8 (checked by the reader, no longer by the server beforehand).
  std::string latin1 = testing::SampleCompositeXml("Caf\xe9");
  EXPECT_NE(RejectionOf(latin1).find("not valid UTF-8"), std::string::npos) << RejectionOf(latin1);
}

// The check reads the file as a stream (no model of the whole file): its outcome is the one of
// parsing the whole file, then validating it, then summarising it: the same summary, the same
// rejection, a read error anywhere winning over a validation error earlier in the file, and a
// file out of PTS's order (read whole instead) refused as before.
std::string WholeFileOutcome(const std::string& xml) {
  results::ReadLimits bounds;
  UploadLimits limits;
  bounds.max_depth = limits.max_depth;
  bounds.max_nodes = limits.max_nodes;
  bounds.max_value_bytes = limits.max_value_bytes;
  bounds.schema_structure = true;
  results::ResultFile file;
  try {
    file = results::ParseResultFile(xml, "composite.xml", bounds);
  } catch (const Error& e) {
    return std::string("rejected: ") + e.what();
  }
  for (const auto& issue : results::ValidateResultFile(file, {.warnings = false}))
    if (issue.error) return "rejected: composite.xml: " + issue.where + ": " + issue.what;
  ResultSummary s = SummaryOf(file);
  std::string out = "accepted: " + s.title + "|" + s.description;
  for (const auto* v : {&s.systems, &s.hardware, &s.tests, &s.result_titles})
    for (const auto& x : *v) out += "|" + x;
  return out;
}
std::string StreamedOutcome(const std::string& xml) {
  try {
    ResultSummary s = CheckResultFile(xml);
    std::string out = "accepted: " + s.title + "|" + s.description;
    for (const auto* v : {&s.systems, &s.hardware, &s.tests, &s.result_titles})
      for (const auto& x : *v) out += "|" + x;
    return out;
  } catch (const UploadRejected& e) {
    return "rejected: " + e.message;
  }
}

TEST(UploadCheck, StreamingCheckDecidesAsTheWholeFileCheck) {
  const std::string good = testing::SampleCompositeXml("Streamed", 5, 2);
  auto cut = [](std::string s, const std::string& from, const std::string& to) {
    size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? s : s.replace(at, from.size(), to);
  };
  const std::string bad_value = cut(good, "<Value>", "<Value>fast");  // BAR_GRAPH: not a number
  const std::string system_block = good.substr(good.find("  <System>"), good.find("</System>\n") + 10 - good.find("  <System>"));
  std::vector<std::pair<std::string, std::string>> cases = {
      {"valid", good},
      {"validation error in result 1", bad_value},
      {"validation error, then a read error", cut(bad_value, "</PhoronixTestSuite>", "<Unknown/></PhoronixTestSuite>")},
      {"validation error, then malformed XML", cut(bad_value, "</PhoronixTestSuite>", "</Result></PhoronixTestSuite>")},
      {"head error", cut(good, "<LastModified>2026-11-30 07:40:08", "<LastModified>now")},
      {"entry names no system", cut(good, "<Identifier>System 2</Identifier>\n        <Value>", "<Identifier>Ghost</Identifier>\n        <Value>")},
      {"System after a Result", cut(good, "</PhoronixTestSuite>", system_block + "</PhoronixTestSuite>")},
      {"Generated after a Result", cut(good, "</PhoronixTestSuite>", "  <Generated><Title>x</Title></Generated>\n</PhoronixTestSuite>")},
      {"no results", testing::SampleCompositeXml("T", 0)},
      {"a result without entries", cut(good, "<Data>", "<Data></Data><X>")},
  };
  for (const auto& [name, xml] : cases) EXPECT_EQ(StreamedOutcome(xml), WholeFileOutcome(xml)) << name;
  EXPECT_EQ(StreamedOutcome(good).rfind("accepted", 0), 0u) << StreamedOutcome(good);
  EXPECT_NE(StreamedOutcome(bad_value).find("is not a number"), std::string::npos) << StreamedOutcome(bad_value);
  EXPECT_NE(StreamedOutcome(cases[2].second).find("unknown element <Unknown>"), std::string::npos) << StreamedOutcome(cases[2].second);
}

std::string Replaced(std::string s, const std::string& from, const std::string& to) {
  size_t at = s.find(from);
  if (at == std::string::npos) ADD_FAILURE() << "no " << from;
  else s.replace(at, from.size(), to);
  return s;
}

// Differential check against PTS's result-file.xsd (libxml2's XSD validator): every mutation of a
// PTS-shaped file that the schema refuses, the upload check refuses too; what the schema accepts
// is accepted (the check is stricter only in rules the schema cannot state: entries name a
// System, numeric values, which the last cases show).
TEST(UploadCheck, RefusesWhatResultFileXsdRefuses) {
  const std::string xsd = ::ptsn::SharedDir() + "/reference/schemas/result-file.xsd";
  if (!std::ifstream(xsd)) GTEST_SKIP() << "shared/reference/schemas is not available";
  const std::string base = testing::SampleCompositeXml("Schema Check", 3, 2);
  const std::string first_result = base.substr(base.find("  <Result>"), base.find("  </Result>\n") + 12 - base.find("  <Result>"));
  const std::string first_system = base.substr(base.find("  <System>"), base.find("  </System>\n") + 12 - base.find("  <System>"));
  struct Case {
    const char* what;
    std::string xml;
  };
  std::vector<Case> cases = {
      {"as PTS writes it", base},
      {"Generated fields swapped", Replaced(base, "<Title>Schema Check</Title>\n    <LastModified>2026-11-30 07:40:08</LastModified>",
                                            "<LastModified>2026-11-30 07:40:08</LastModified>\n    <Title>Schema Check</Title>")},
      {"System after a Result", Replaced(Replaced(base, first_system, ""), "</PhoronixTestSuite>", first_system + "</PhoronixTestSuite>")},
      {"Result before the Systems", Replaced(Replaced(base, first_result, ""), "  <System>", first_result + "  <System>")},
      {"Result before Generated", Replaced(Replaced(base, first_result, ""), "  <Generated>", first_result + "  <Generated>")},
      {"Entry without Identifier", Replaced(base, "<Identifier>System 1</Identifier>\n        <Value>", "<Value>")},
      {"Entry JSON before RawString", Replaced(Replaced(base, "<JSON>{\"test-run-times\":\"10.66:8.05:7.92\"}</JSON>\n", ""), "<RawString>",
                                               "<JSON>{}</JSON><RawString>")},
      {"Data before DisplayFormat", Replaced(Replaced(base, "<DisplayFormat>BAR_GRAPH</DisplayFormat>\n", ""), "    </Data>\n",
                                             "    </Data>\n<DisplayFormat>BAR_GRAPH</DisplayFormat>\n")},
      {"System fields swapped", Replaced(base, "<User>phoronix</User>\n    <TimeStamp>2026-11-30 07:38:31</TimeStamp>",
                                         "<TimeStamp>2026-11-30 07:38:31</TimeStamp>\n    <User>phoronix</User>")},
      {"System without Notes", Replaced(base, "<Notes></Notes>", "")},
      {"a Result with an empty Data", Replaced(base, first_result, Replaced(first_result, first_result.substr(first_result.find("      <Entry>"), first_result.find("    </Data>") - first_result.find("      <Entry>")), ""))},
      {"default namespace", Replaced(base, "<PhoronixTestSuite>", "<PhoronixTestSuite xmlns=\"urn:x\">")},
      {"namespaced element", Replaced(base, "<Title>Schema Check</Title>", "<t:Title xmlns:t=\"urn:t\">Schema Check</t:Title>")},
      {"attribute", Replaced(base, "<Entry>", "<Entry id=\"1\">")},
      {"text inside Data", Replaced(base, "<Data>", "<Data>text")},
      {"title of 127 characters", Replaced(base, "Schema Check", std::string(127, 'T'))},
      {"title of 126 characters", Replaced(base, "Schema Check", std::string(126, 'T'))},
      {"result title of 1 character", Replaced(base, "<Title>Flexible IO Tester</Title>", "<Title>F</Title>")},
      {"result title of 51 characters", Replaced(base, "<Title>Flexible IO Tester</Title>", "<Title>" + std::string(51, 'F') + "</Title>")},
      {"system identifier of 129 characters", Replaced(base, "<Identifier>System 2</Identifier>\n    <Hardware>",
                                                       "<Identifier>" + std::string(129, 'S') + "</Identifier>\n    <Hardware>")},
      {"bad time stamp", Replaced(base, "2026-11-30 07:38:31", "2026-11-30T07:38:31")},
      {"bad proportion", Replaced(base, "<Proportion>HIB</Proportion>", "<Proportion>hib</Proportion>")},
      {"bad display format", Replaced(base, "<DisplayFormat>BAR_GRAPH</DisplayFormat>", "<DisplayFormat>PIE</DisplayFormat>")},
      {"description of 2049 characters", Replaced(base, "<Description>Sample 0</Description>", "<Description>" + std::string(2049, 'd') + "</Description>")},
      {"no Result", testing::SampleCompositeXml("T", 0, 1)},
      {"no System", testing::SampleCompositeXml("T", 1, 0)},
      {"unknown element", Replaced(base, "<Scale>", "<Colour>red</Colour><Scale>")},
      {"duplicate Title", Replaced(base, "<Title>Schema Check</Title>", "<Title>Schema Check</Title><Title>Again</Title>")},
      {"comments and a processing instruction", Replaced(base, "<Data>", "<Data><!-- c --><?pi x?>")},
      {"optional elements present", Replaced(Replaced(base, "    <Data>\n", "    <Annotation>a</Annotation>\n    <Parent></Parent>\n    <Data>\n"), "</Description>\n  </Generated>", "</Description>\n    <Notes>n</Notes>\n    <InternalTags></InternalTags>\n  </Generated>")},
  };
  for (const auto& c : cases) {
    auto schema_errors = results::ValidateAgainstSchema(c.xml, xsd);
    std::string ours = RejectionOf(c.xml);
    EXPECT_EQ(schema_errors.empty(), ours.empty())
        << c.what << ": schema says " << (schema_errors.empty() ? "valid" : schema_errors[0]) << "; upload check says "
        << (ours.empty() ? "valid" : ours);
  }
  // Stricter than the schema, on purpose: an Entry must name one of the file's Systems, a
  // BAR_GRAPH value must be a number.
  for (const std::string& stricter :
       {Replaced(base, "<Identifier>System 1</Identifier>\n        <Value>", "<Identifier>Nobody</Identifier>\n        <Value>"),
        Replaced(base, ".13</Value>", "x</Value>")}) {
    EXPECT_TRUE(results::ValidateAgainstSchema(stricter, xsd).empty());
    EXPECT_FALSE(RejectionOf(stricter).empty());
  }
}

}  // namespace
}  // namespace ptsn::server
