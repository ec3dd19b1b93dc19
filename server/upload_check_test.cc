#include "server/upload_check.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

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
  std::ifstream in(std::string(PTSN_SHARED_DIR) + "/reference/pts-output/result-a/composite.xml");
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
  std::string no_system = testing::SampleCompositeXml("T", 1, 0);
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

}  // namespace
}  // namespace ptsn::server
