#include "results-xml/model/result_xml.h"

#include <algorithm>

#include <gtest/gtest.h>
#include <libxml/globals.h>
#include <libxml/xmlerror.h>

#include "results-xml/model/test_support.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"

namespace ptsn::results {
namespace {

std::string ErrorOf(const std::string& xml) {
  try {
    ParseResultFile(xml, "in.xml");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

const char* kMinimal = R"(<?xml version="1.0"?>
<!--Phoronix Test Suite v10.8.6-->
<PhoronixTestSuite>
  <Generated>
    <Title>T</Title>
    <LastModified>2026-01-02 03:04:05</LastModified>
    <TestClient>Phoronix Test Suite v10.8.6</TestClient>
    <Description>D</Description>
  </Generated>
  <System>
    <Identifier>A</Identifier>
    <Hardware>H</Hardware>
    <Software>S</Software>
    <User>u</User>
    <TimeStamp>2026-01-02 03:04:05</TimeStamp>
    <TestClientVersion>10.8.6</TestClientVersion>
    <Notes></Notes>
  </System>
  <Result>
    <Identifier>pts/x-1.0.0</Identifier>
    <Title>X</Title>
    <AppVersion>1</AppVersion>
    <Arguments></Arguments>
    <Description>d</Description>
    <Scale>s</Scale>
    <Proportion>HIB</Proportion>
    <DisplayFormat>BAR_GRAPH</DisplayFormat>
    <Data>
      <Entry>
        <Identifier>A</Identifier>
        <Value>1.5</Value>
        <RawString>1:2</RawString>
      </Entry>
    </Data>
  </Result>
</PhoronixTestSuite>
)";

TEST(ResultXml, EveryReferenceResultFileRoundTripsByteForByte) {
  PTSN_REQUIRE_REFERENCE();
  auto files = test::ReferenceResultFiles();
  ASSERT_GE(files.size(), 15u) << "expected the golden result files of shared/reference";
  SerializeOptions keep;
  keep.keep_as_read = true;
  for (const std::string& path : files) {
    std::string original = ReadFile(path);
    ResultFile f = ReadResultFile(path);
    EXPECT_EQ(SerializeResultFile(f, keep), original) << path;
  }
}

TEST(ResultXml, ReadsTheGoldenModel) {
  PTSN_REQUIRE_REFERENCE();
  ResultFile f = ReadResultFile(test::ReferenceDir() + "/pts-output/result-a/composite.xml");
  EXPECT_EQ(f.generated.title, "Sample Disk Golden A");
  EXPECT_EQ(f.generated.preset_environment_variables, "MONITOR=cpu.usage");
  EXPECT_FALSE(f.generated.notes.has_value());
  ASSERT_EQ(f.systems.size(), 1u);
  EXPECT_EQ(f.systems[0].identifier, "Baseline");
  EXPECT_EQ(f.systems[0].notes, "");
  ASSERT_EQ(f.results.size(), 4u);
  EXPECT_EQ(f.results[0].entries[0].value, "124.13");
  EXPECT_EQ(f.results[0].entries[0].raw_string, "125.1:121.99:125.29");
  EXPECT_EQ(f.results[1].identifier, "");
  EXPECT_EQ(f.results[1].parent, "2deeb28142ce87a23bdae19f6a64aeb25d716585");
}

TEST(ResultXml, DefaultSaveRestampsLikePts) {
  ResultFile f = ParseResultFile(kMinimal, "in.xml");
  f.leading_comment = "something else";
  f.generated.test_client = "Phoronix Test Suite v3.4.0";
  SerializeOptions o;
  o.now = "2030-12-31 23:59:58";
  std::string out = SerializeResultFile(f, o);
  EXPECT_NE(out.find("<!--Phoronix Test Suite v10.8.6-->\n<PhoronixTestSuite>"), std::string::npos);
  EXPECT_NE(out.find("<LastModified>2030-12-31 23:59:58</LastModified>"), std::string::npos);
  EXPECT_NE(out.find("<TestClient>Phoronix Test Suite v10.8.6</TestClient>"), std::string::npos);
  EXPECT_EQ(out.find("3.4.0"), std::string::npos);
}

TEST(ResultXml, AlwaysWrittenElementsAppearWhenRestamping) {
  std::string xml = kMinimal;
  xml.erase(xml.find("    <Notes></Notes>\n"), 20);
  xml.erase(xml.find("        <RawString>1:2</RawString>\n"), 35);
  ResultFile f = ParseResultFile(xml, "in.xml");
  EXPECT_FALSE(f.systems[0].notes);
  EXPECT_FALSE(f.results[0].entries[0].raw_string);
  SerializeOptions keep;
  keep.keep_as_read = true;
  EXPECT_EQ(SerializeResultFile(f, keep), xml);
  std::string saved = SerializeResultFile(f, {});
  EXPECT_NE(saved.find("    <Notes></Notes>\n"), std::string::npos);
  EXPECT_NE(saved.find("        <RawString></RawString>\n"), std::string::npos);
}

TEST(ResultXml, EscapesLikeLibxmlWithoutDeclaredEncoding) {
  ResultFile f = ParseResultFile(kMinimal, "in.xml");
  f.generated.title = "a<b>&c \"q\" 'x' caf\xC3\xA9 \xE2\x82\xAC\r\tz";
  SerializeOptions o;
  o.now = "2030-01-01 00:00:00";
  std::string out = SerializeResultFile(f, o);
  EXPECT_NE(out.find("<Title>a&lt;b&gt;&amp;c \"q\" 'x' caf&#xE9; &#x20AC;&#xD;\tz</Title>"), std::string::npos)
      << out;
  EXPECT_EQ(ParseResultFile(out, "out.xml").generated.title, f.generated.title);
}

TEST(ResultXml, EmptyElementFormsAreReadAndWrittenAsOpenClosePairs) {
  std::string xml = kMinimal;
  xml.replace(xml.find("<Arguments></Arguments>"), 23, "<Arguments/>");
  ResultFile f = ParseResultFile(xml, "in.xml");
  EXPECT_EQ(f.results[0].arguments, "");
  SerializeOptions keep;
  keep.keep_as_read = true;
  EXPECT_EQ(SerializeResultFile(f, keep), kMinimal);
}

TEST(ResultXml, ResultsWithoutEntriesAreNotWritten) {
  ResultFile f = ParseResultFile(kMinimal, "in.xml");
  f.results.push_back(f.results[0]);
  f.results.back().entries.clear();
  SerializeOptions keep;
  keep.keep_as_read = true;
  EXPECT_EQ(SerializeResultFile(f, keep), kMinimal);
}

TEST(ResultXml, TruncatedFileNamesLine) {
  std::string xml = std::string(kMinimal).substr(0, 600);
  std::string e = ErrorOf(xml);
  EXPECT_TRUE(e.starts_with("in.xml: line ")) << e;
  EXPECT_NE(e.find("malformed XML"), std::string::npos) << e;
}

TEST(ResultXml, WrongRoot) {
  std::string e = ErrorOf("<?xml version=\"1.0\"?>\n<Foo><Bar/></Foo>\n");
  EXPECT_EQ(e, "in.xml: line 2: root element is <Foo>, not <PhoronixTestSuite>: this is not a PTS result file");
}

TEST(ResultXml, MissingRequiredElement) {
  std::string xml = kMinimal;
  xml.erase(xml.find("    <Scale>s</Scale>\n"), 21);
  EXPECT_EQ(ErrorOf(xml), "in.xml: line 19: <Result> lacks the required element <Scale>");
  xml = kMinimal;
  xml.erase(xml.find("        <Value>1.5</Value>\n"), 27);
  EXPECT_EQ(ErrorOf(xml), "in.xml: line 29: <Entry> lacks the required element <Value>");
}

TEST(ResultXml, DuplicateElementsAreRefused) {
  std::string xml = kMinimal;
  xml.insert(xml.find("    <Title>X</Title>"), "    <Title>Y</Title>\n");
  EXPECT_EQ(ErrorOf(xml), "in.xml: line 22: duplicate <Title> in <Result>");
}

// Collects the read notices for one test, and restores the default after it.
struct CapturedNotices {
  std::vector<std::string> lines;
  CapturedNotices() { SetReadNoticeHandler([this](const std::string& m) { lines.push_back(m); }); }
  ~CapturedNotices() { SetReadNoticeHandler(nullptr); }
};

// PTS reads a result file with SimpleXML and picks the elements it knows: anything else (and every
// attribute) is read past, and gone when PTS writes the file again. So here, with one notice.
TEST(ResultXml, UnknownElementsAndAttributesAreReadPastWithOneNotice) {
  CapturedNotices notices;
  std::string xml = kMinimal;
  xml.insert(xml.find("    <Title>X</Title>"), "    <Colour shade=\"dark\">red<Title>inner</Title></Colour>\n");
  xml.insert(xml.find("  </Generated>"), "    <Mood>fine</Mood>\n");
  xml.replace(xml.find("<Entry>"), 7, "<Entry id=\"1\">");
  xml.insert(xml.find("</PhoronixTestSuite>"), "  <Extra><Result><Title>nested</Title></Result></Extra>\n");
  ResultFile f = ParseResultFile(xml, "unknown.xml");
  EXPECT_EQ(f.results.size(), 1u);
  EXPECT_EQ(f.results[0].title, "X");  // not the <Title> inside the unknown element
  EXPECT_EQ(f.results[0].entries.at(0).value, "1.5");
  EXPECT_EQ(SerializeResultFile(f, {.keep_as_read = true}), std::string(kMinimal));
  ASSERT_EQ(notices.lines.size(), 1u);
  EXPECT_EQ(notices.lines[0],
            "unknown.xml: line 9: unknown element <Mood> in <Generated> (and 4 more) ignored: PTS does not read it "
            "either, and it is not written back when the file is saved");
  ParseResultFile(xml, "unknown.xml");  // once per file
  EXPECT_EQ(notices.lines.size(), 1u);
  // The XSD refuses them: so does a read under schema_structure (the server's upload check).
  try {
    ParseResultFile(xml, "in.xml", ReadLimits{.schema_structure = true});
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "in.xml: line 9: unknown element <Mood> in <Generated>");
  }
}

TEST(ResultXml, GoldenFileWithUnknownElementsReadsAndSavesAsPtsWouldSaveIt) {
  PTSN_REQUIRE_REFERENCE();
  CapturedNotices notices;
  const std::string path = test::ReferenceDir() + "/pts-output/merged/composite.xml";
  const std::string golden = ReadFile(path);
  std::string extended = golden;
  // What a newer PTS (or another tool) might add: an element per level and an attribute.
  extended.insert(extended.find("    <Description>"), "    <UploadedBy>someone</UploadedBy>\n");
  extended.insert(extended.find("    <Notes>"), "    <Accelerator>none</Accelerator>\n");
  extended.insert(extended.find("    <Data>"), "    <Footnote>f</Footnote>\n");
  extended.insert(extended.find("        <RawString>"), "        <Min>1</Min>\n");
  extended.replace(extended.find("<Result>"), 8, "<Result version=\"2\">");
  SerializeOptions keep;
  keep.keep_as_read = true;
  EXPECT_EQ(SerializeResultFile(ParseResultFile(extended, "extended.xml"), keep), golden);
  ASSERT_EQ(notices.lines.size(), 1u);
  EXPECT_NE(notices.lines[0].find("(and 4 more) ignored"), std::string::npos) << notices.lines[0];
}

TEST(ResultXml, StrayTextAndNestedElements) {
  std::string xml = kMinimal;
  xml.insert(xml.find("    <Title>X</Title>"), "garbage\n");
  EXPECT_NE(ErrorOf(xml).find("unexpected text inside <Result>"), std::string::npos);
  xml = kMinimal;
  xml.replace(xml.find("<Value>1.5</Value>"), 18, "<Value><b>1</b></Value>");
  EXPECT_NE(ErrorOf(xml).find("unexpected element <b> inside <Value>"), std::string::npos);
}

// Text between elements is checked word by word: every length and position of a stray character
// (around the word boundaries of the check) is refused, and only white space is let through.
TEST(ResultXml, OnlyWhiteSpaceBetweenElements) {
  const std::string at = "    <Title>X</Title>";
  for (size_t spaces = 0; spaces <= 20; ++spaces) {
    for (const char* blank : {" ", "\t", "\r\n", "\n"}) {
      std::string xml = kMinimal;
      xml.insert(xml.find(at), std::string(spaces, ' ') + blank + "\n");
      EXPECT_EQ(ErrorOf(xml), "") << spaces << " spaces";
    }
    for (size_t stray = 0; stray <= spaces; ++stray) {
      std::string text(spaces, ' ');
      text.insert(stray, "x");
      std::string xml = kMinimal;
      xml.insert(xml.find(at), text);  // after the previous line's newline, before four spaces
      EXPECT_NE(ErrorOf(xml).find("unexpected text inside <Result>"), std::string::npos) << spaces << " " << stray;
    }
  }
}

TEST(ResultXml, BillionLaughsIsRefusedBeforeParsing) {
  std::string bomb = "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n <!ENTITY lol \"lol\">\n";
  for (int i = 1; i < 10; ++i)
    bomb += " <!ENTITY lol" + std::to_string(i) + " \"" + std::string() + [&] {
      std::string s;
      for (int k = 0; k < 10; ++k) s += "&lol" + (i == 1 ? std::string() : std::to_string(i - 1)) + ";";
      return s;
    }() + "\">\n";
  bomb += "]>\n<PhoronixTestSuite><Generated><Title>&lol9;</Title></Generated></PhoronixTestSuite>\n";
  EXPECT_EQ(ErrorOf(bomb),
            "in.xml: line 2: DOCTYPE is not allowed in a result file (entity declarations are refused)");
}

TEST(ResultXml, ExternalEntityIsNeverRead) {
  std::string xxe =
      "<?xml version=\"1.0\"?>\n<!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>\n"
      "<PhoronixTestSuite><Generated><Title>&x;</Title></Generated></PhoronixTestSuite>\n";
  std::string e = ErrorOf(xxe);
  EXPECT_NE(e.find("DOCTYPE is not allowed"), std::string::npos) << e;
  EXPECT_EQ(e.find("root:"), std::string::npos);
}

TEST(ResultXml, EntityDeclarationWithoutDoctypeIsRefused) {
  std::string xml = kMinimal;
  xml.insert(xml.find("<PhoronixTestSuite>"), "<!ENTITY x \"y\">\n");
  EXPECT_EQ(ErrorOf(xml), "in.xml: line 3: ENTITY is not allowed in a result file (entity declarations are refused)");
  // A DOCTYPE is named even when an ENTITY comes first; a "!" elsewhere is not mistaken for one.
  xml = std::string(kMinimal);
  xml.replace(xml.find("<Title>T</Title>"), 16, "<Title>T!</Title>");
  xml.insert(xml.find("<PhoronixTestSuite>"), "<!ENTITY x \"y\">\n<!DOCTYPE r>\n");
  EXPECT_EQ(ErrorOf(xml), "in.xml: line 4: DOCTYPE is not allowed in a result file (entity declarations are refused)");
}

TEST(ResultXml, MalformedNamesTheFirstErrorNotItsEcho) {
  // libxml2 goes on after a mismatched end tag; the line reported is the cause's, not the end's.
  std::string xml = kMinimal;
  xml.replace(xml.find("<Title>T</Title>"), 16, "<Title>T</Titel>");
  std::string e = ErrorOf(xml);
  EXPECT_TRUE(e.starts_with("in.xml: line 5: malformed XML: Opening and ending tag mismatch: Title")) << e;
}

// An attribute is read past with a notice; prefixed names and tag errors are refused with their line.
TEST(ResultXml, AttributesNamespacesAndTagErrorsNameTheirLine) {
  CapturedNotices notices;
  std::string xml = kMinimal;
  xml.replace(xml.find("<Title>X</Title>"), 16, "<Title lang=\"en\">X</Title>");
  EXPECT_EQ(ErrorOf(xml), "");
  EXPECT_EQ(ParseResultFile(xml, "in.xml").results.at(0).title, "X");
  EXPECT_EQ(notices.lines.at(0).substr(0, 43), "in.xml: line 21: attribute on <Title> ignor");
  xml = kMinimal;
  xml.replace(xml.find("<Title>X</Title>"), 16, "<p:Title>X</p:Title>");
  EXPECT_EQ(ErrorOf(xml), "in.xml: line 21: malformed XML: Namespace prefix p on Title is not defined");
  xml = kMinimal;
  xml.replace(xml.find("<Title>T</Title>"), 16, "<Title>T</Titel>");
  EXPECT_EQ(ErrorOf(xml), "in.xml: line 5: malformed XML: Opening and ending tag mismatch: Title line 5 and Titel");
  // Declared namespaces: elements are known by their local name (refused only with schema_structure).
  xml = kMinimal;
  xml.replace(xml.find("<PhoronixTestSuite>"), 19, "<PhoronixTestSuite xmlns:p=\"urn:p\">");
  xml.insert(xml.find("  </Generated>"), "    <p:Notes>n</p:Notes>\n");
  ResultFile f = ParseResultFile(xml, "in.xml");
  EXPECT_EQ(f.generated.notes, "n");
  EXPECT_EQ(f.results.at(0).entries.at(0).value, "1.5");
  try {
    ParseResultFile(xml, "in.xml", ReadLimits{.schema_structure = true});
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "in.xml: line 9: <Notes> is in an XML namespace; result files use none");
  }
}

// The reader takes libxml2's errors through its own handler: one the caller set for the thread
// (runner/profile sets a silent one) neither hides them nor is lost.
TEST(ResultXml, TheCallersErrorHandlerNeitherHidesErrorsNorIsReplaced) {
  static int calls = 0;
  const xmlStructuredErrorFunc silent = [](void* count, xmlErrorPtr) { ++*static_cast<int*>(count); };
  xmlSetStructuredErrorFunc(&calls, silent);
  std::string xml = kMinimal;
  xml.replace(xml.find("<Title>T</Title>"), 16, "<Title>T</Titel>");
  EXPECT_EQ(ErrorOf(xml), "in.xml: line 5: malformed XML: Opening and ending tag mismatch: Title line 5 and Titel");
  xml = kMinimal;
  xml.replace(xml.find("<Title>T</Title>"), 16, "<Title>&nope;</Title>");
  EXPECT_EQ(ErrorOf(xml), "in.xml: line 5: malformed XML: Entity 'nope' not defined");
  EXPECT_EQ(xmlStructuredError, silent);
  EXPECT_EQ(xmlStructuredErrorContext, &calls);
  EXPECT_EQ(calls, 0);
  xmlSetStructuredErrorFunc(nullptr, nullptr);
}

// A streamed read gives the visitor each call once, in file order, up to an error.
TEST(ResultXml, StreamingGivesEachCallOnceUpToTheError) {
  struct Log : ResultVisitor {
    std::vector<std::string> calls;
    void Head(const ResultFile& head) override { calls.push_back("head " + head.generated.title); }
    void OnResult(const Result& r) override { calls.push_back("result " + r.title); }
  };
  const std::string one = kMinimal;
  const size_t begin = one.find("  <Result>"), end = one.find("</PhoronixTestSuite>");
  const std::string result = one.substr(begin, end - begin);
  auto titled = [&](const std::string& title) {
    std::string r = result;
    return r.replace(r.find("<Title>X</Title>"), 16, "<Title>" + title + "</Title>");
  };
  std::string xml = one.substr(0, begin) + titled("R1") + titled("R2") + titled("R3") + "</PhoronixTestSuite>\n";
  // A prefixed element in the third Result, in a declared namespace: read to the end.
  std::string ok = xml;
  ok.replace(ok.find("<PhoronixTestSuite>"), 19, "<PhoronixTestSuite xmlns:p=\"urn:p\">");
  const size_t third = ok.find("<Title>R3</Title>");
  ok.replace(ok.find("<Scale>s</Scale>", third), 16, "<p:Scale>s</p:Scale>");
  Log log;
  EXPECT_TRUE(StreamResultFile(ok, "in.xml", log));
  EXPECT_EQ(log.calls, (std::vector<std::string>{"head T", "result R1", "result R2", "result R3"}));
  // An attribute in the third Result: read past, every call once.
  std::string attributed = xml;
  attributed.replace(attributed.find("<Title>R3</Title>"), 17, "<Title x=\"1\">R3</Title>");
  Log all;
  EXPECT_TRUE(StreamResultFile(attributed, "attributed.xml", all));
  EXPECT_EQ(all.calls, (std::vector<std::string>{"head T", "result R1", "result R2", "result R3"}));
  // An error in the third Result: the first two, once each, then the error.
  std::string bad = xml;
  bad.replace(bad.find("<Title>R3</Title>"), 17, "<Title>R3</Titel>");
  Log partial;
  try {
    StreamResultFile(bad, "in.xml", partial);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Opening and ending tag mismatch"), std::string::npos) << e.what();
  }
  EXPECT_EQ(partial.calls, (std::vector<std::string>{"head T", "result R1", "result R2"}));
}

TEST(ResultXml, UndeclaredEntityIsMalformed) {
  std::string xml = kMinimal;
  xml.replace(xml.find("<Title>T</Title>"), 16, "<Title>&nope;</Title>");
  std::string e = ErrorOf(xml);
  EXPECT_TRUE(e.starts_with("in.xml: line 5: malformed XML")) << e;
}

TEST(ResultXml, NonUtf8BytesNameTheLine) {
  std::string xml = kMinimal;
  xml.replace(xml.find("<Title>T</Title>"), 16, "<Title>caf\xE9</Title>");
  EXPECT_EQ(ErrorOf(xml), "in.xml: line 5: not valid UTF-8 (byte 0xE9); result files are UTF-8");
}

TEST(ResultXml, EmptyAndGarbageInput) {
  EXPECT_EQ(ErrorOf(""), "in.xml: empty file, not a result file");
  EXPECT_NE(ErrorOf("this is not xml").find("malformed XML"), std::string::npos);
}

TEST(ResultXml, WriteIsAtomicAndReadBack) {
  std::string dir = ::testing::TempDir() + "/ptsn_result_xml_write";
  MakeDirectories(dir);
  ResultFile f = ParseResultFile(kMinimal, "in.xml");
  WriteResultFile(dir + "/composite.xml", f, {.keep_as_read = true});
  EXPECT_EQ(ReadFile(dir + "/composite.xml"), kMinimal);
  EXPECT_THROW(WriteResultFile(dir + "/no/such/dir/composite.xml", f), Error);
}

}  // namespace
}  // namespace ptsn::results
