#include "results-xml/views/export_stream.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "results-xml/model/result_xml.h"
#include "results-xml/model/test_support.h"
#include "results-xml/views/export_csv.h"
#include "results-xml/views/export_json.h"
#include "results-xml/views/export_test_fixture.h"
#include "results-xml/views/export_text.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"

namespace ptsn::results {
namespace {

namespace fs = std::filesystem;

// RenderResultFile into a string.
std::string RenderResultFile(const std::string& path, StreamingView& view,
                             const std::function<std::string(const ResultFile&)>& whole) {
  struct StringSink : TextSink {
    void Write(std::string_view more) override { text += more; }
    void Restart() override { text.clear(); }
    std::string text;
  } sink;
  results::RenderResultFile(path, view, whole, sink);
  return std::move(sink.text);
}

class StreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ptsn-stream-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& xml) {
    std::string p = (dir_ / name).string();
    WriteFileAtomically(p, xml);
    return p;
  }
  fs::path dir_;
};

// Records what a visitor is given, copying (the Result object is reused).
struct Recorder : ResultVisitor {
  void Head(const ResultFile& head) override {
    ++heads;
    this->head = head;
  }
  void OnResult(const Result& r) override {
    EXPECT_EQ(heads, 1) << "a Result before the head";
    results.push_back(r);
  }
  int heads = 0;
  ResultFile head;
  std::vector<Result> results;
};

bool SameResult(const Result& a, const Result& b) {
  if (a.identifier != b.identifier || a.arguments != b.arguments || a.parent != b.parent ||
      a.annotation != b.annotation || a.entries.size() != b.entries.size())
    return false;
  for (size_t i = 0; i < a.entries.size(); ++i) {
    const Entry &x = a.entries[i], &y = b.entries[i];
    if (x.identifier != y.identifier || x.value != y.value || x.raw_string != y.raw_string || x.json != y.json)
      return false;
  }
  return true;
}

TEST_F(StreamTest, VisitorSeesTheHeadOnceThenEveryResultAsParsed) {
  const ResultFile model = test::SmallResultFile();
  const std::string xml = SerializeResultFile(model);
  Recorder rec;
  ASSERT_TRUE(StreamResultFile(xml, "in.xml", rec));
  EXPECT_EQ(rec.heads, 1);
  ASSERT_EQ(rec.head.systems.size(), 2u);
  EXPECT_EQ(rec.head.generated.title, model.generated.title);
  const ResultFile parsed = ParseResultFile(xml, "in.xml");
  ASSERT_EQ(rec.results.size(), parsed.results.size());
  // The reused Result must not carry entries or optional fields over from the one before.
  for (size_t i = 0; i < parsed.results.size(); ++i) EXPECT_TRUE(SameResult(rec.results[i], parsed.results[i])) << i;
}

TEST_F(StreamTest, OptionalFieldsOfTheReusedResultDoNotLeakIntoTheNext) {
  // The reader keeps the reused Result's and Entries' optional strings for their capacity: one
  // that the next element lacks must come out absent, not as the previous one's text.
  ResultFile model = test::SmallResultFile();
  model.results.resize(2);
  model.results.push_back(model.results[0]);
  model.results.push_back(model.results[1]);
  model.results[0].annotation = "first";
  model.results[0].parent = "abc";
  for (auto& e : model.results[0].entries) e.raw_string = "1:2", e.json = R"({"test-run-times":"1:2"})";
  model.results[1].annotation.reset();
  model.results[1].parent.reset();
  for (auto& e : model.results[1].entries) e.raw_string.reset(), e.json.reset();
  model.results[2].annotation = "";
  model.results[3].parent.reset();
  const std::string xml = SerializeResultFile(model, {.keep_as_read = true});
  Recorder rec;
  ASSERT_TRUE(StreamResultFile(xml, "in.xml", rec));
  const ResultFile parsed = ParseResultFile(xml, "in.xml");
  ASSERT_EQ(rec.results.size(), 4u);
  for (size_t i = 0; i < 4; ++i) EXPECT_TRUE(SameResult(rec.results[i], parsed.results[i])) << i;
  EXPECT_FALSE(rec.results[1].annotation.has_value());
  EXPECT_FALSE(rec.results[1].parent.has_value());
  EXPECT_FALSE(rec.results[1].entries[0].json.has_value());
  EXPECT_FALSE(rec.results[1].entries[0].raw_string.has_value());
  EXPECT_EQ(rec.results[2].annotation, std::optional<std::string>(""));
}

TEST_F(StreamTest, FileWithoutResultsStillGetsItsHead) {
  ResultFile model = test::SmallResultFile();
  model.results.clear();
  Recorder rec;
  ASSERT_TRUE(StreamResultFile(SerializeResultFile(model), "in.xml", rec));
  EXPECT_EQ(rec.heads, 1);
  EXPECT_EQ(rec.head.systems.size(), 2u);
}

TEST_F(StreamTest, ErrorsAreThoseOfTheWholeFileReader) {
  std::string xml = SerializeResultFile(test::SmallResultFile());
  const std::string truncated = xml.substr(0, xml.size() * 2 / 3);
  Recorder rec;
  std::string streamed, whole;
  try {
    StreamResultFile(truncated, "in.xml", rec);
  } catch (const Error& e) {
    streamed = e.what();
  }
  try {
    ParseResultFile(truncated, "in.xml");
  } catch (const Error& e) {
    whole = e.what();
  }
  EXPECT_FALSE(streamed.empty());
  EXPECT_EQ(streamed, whole);
}

TEST_F(StreamTest, SystemAfterAResultFallsBackToTheWholeFile) {
  std::string xml = SerializeResultFile(test::SmallResultFile());
  // Move the second <System> block after the first <Result>: legal, never written by PTS.
  const size_t s2 = xml.find("  <System>", xml.find("</System>"));
  const size_t s2_end = xml.find("</System>\n", s2) + 10;
  std::string system = xml.substr(s2, s2_end - s2);
  xml.erase(s2, s2_end - s2);
  const size_t r1_end = xml.find("</Result>\n") + 10;
  xml.insert(r1_end, system);
  Recorder rec;
  EXPECT_FALSE(StreamResultFile(xml, "in.xml", rec));

  const std::string path = Write("odd.xml", xml);
  const ResultFile model = ReadResultFile(path);
  ASSERT_EQ(model.systems.size(), 2u);
  EXPECT_EQ(RenderResultFile(path, *MakeTextView(), [](const ResultFile& f) { return ResultFileToText(f); }),
            ResultFileToText(model));
}

TEST_F(StreamTest, JsonWithTwoResultsOfOneHashIsRenderedFromTheWholeFile) {
  ResultFile model = test::SmallResultFile();
  Result again = model.results[0];
  again.entries[0].value = "1";
  model.results.push_back(again);  // same comparison hash as results[0]
  const std::string path = Write("dup.xml", SerializeResultFile(model));
  const ResultFile parsed = ReadResultFile(path);
  const std::string json =
      RenderResultFile(path, *MakeJsonView(), [](const ResultFile& f) { return ResultFileToJson(f); });
  EXPECT_EQ(json, ResultFileToJson(parsed));
  EXPECT_NE(json.find("ptsn_shadowed_results"), std::string::npos);
}

// A sink that keeps each piece apart, to see the text leave in pieces.
struct PieceSink : TextSink {
  void Write(std::string_view text) override { pieces.emplace_back(text); }
  void Restart() override { pieces.clear(); }
  std::string Joined() const {
    std::string s;
    for (const auto& p : pieces) s += p;
    return s;
  }
  std::vector<std::string> pieces;
};

// A file of a few MB: 3 + 3 x 1500 Results.
ResultFile LargeModel() { return test::RepeatedResultFile(1500); }

TEST_F(StreamTest, LargeExportsLeaveInPiecesAndMatchTheWholeFileViews) {
  const std::string path = Write("big.xml", SerializeResultFile(LargeModel()));
  const ResultFile parsed = ReadResultFile(path);
  // Each amount of our additions (export_json.h): the default, statistics, PTS's keys only.
  for (const JsonOptions& o : std::vector<JsonOptions>{{}, {.extras = JsonOptions::Extras::kStatistics},
                                                        {.extras = JsonOptions::Extras::kPtsOnly}}) {
    PieceSink sink;
    RenderResultFile(path, *MakeJsonView(o), [&](const ResultFile& f) { return ResultFileToJson(f, o); }, sink);
    // With statistics the view needs the whole file (the verdicts close the document) and
    // leaves in one piece.
    if (o.statistics()) EXPECT_EQ(sink.pieces.size(), 1u);
    else EXPECT_GT(sink.pieces.size(), 2u);
    EXPECT_EQ(sink.Joined(), ResultFileToJson(parsed, o));
  }
  EXPECT_EQ(RenderResultFile(path, *MakeTextView(100), [](const ResultFile& f) { return ResultFileToText(f, 100); }),
            ResultFileToText(parsed, 100));
  EXPECT_EQ(RenderResultFile(path, *MakeCsvView(), [](const ResultFile& f) { return ResultFileToCsv(f); }),
            ResultFileToCsv(parsed));
}

// The second of two Results with one hash, late in the file: the view stops there after its
// earlier text went to the sink, so the export starts again from the whole file and the sink
// holds that export alone.
TEST_F(StreamTest, JsonWithOneHashTwiceStartsTheSinkAgainFromTheWholeFile) {
  ResultFile model = LargeModel();
  const size_t late = model.results.size() * 3 / 4;
  Result again = model.results[late];
  again.entries[0].value = "1";
  model.results.insert(model.results.begin() + static_cast<long>(late) + 1, again);
  const std::string path = Write("dup-late.xml", SerializeResultFile(model));
  const std::string expected = ResultFileToJson(ReadResultFile(path));
  ASSERT_NE(expected.find("ptsn_shadowed_results"), std::string::npos);
  PieceSink sink;
  RenderResultFile(path, *MakeJsonView(), [](const ResultFile& f) { return ResultFileToJson(f); }, sink);
  EXPECT_EQ(sink.Joined(), expected);
}

// A file cut short: the reader's error naming the file, whatever the sink was given before it.
TEST_F(StreamTest, ATruncatedFileGivesTheReadersError) {
  const std::string xml = SerializeResultFile(LargeModel());
  const std::string path = Write("cut.xml", xml.substr(0, xml.size() * 4 / 5));
  PieceSink sink;
  try {
    RenderResultFile(path, *MakeTextView(), [](const ResultFile& f) { return ResultFileToText(f); }, sink);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with(path + ": line ")) << e.what();
    EXPECT_NE(std::string(e.what()).find("malformed XML"), std::string::npos) << e.what();
  }
}

TEST_F(StreamTest, EveryReferenceFileStreamsToTheSameViews) {
  PTSN_REQUIRE_REFERENCE();
  for (const std::string& path : test::ReferenceResultFiles()) {
    const ResultFile f = ReadResultFile(path);
    auto whole_text = [](const ResultFile& m) { return ResultFileToText(m); };
    EXPECT_EQ(RenderResultFile(path, *MakeTextView(), whole_text), ResultFileToText(f)) << path;
    EXPECT_EQ(RenderResultFile(path, *MakeCsvView(), [](const ResultFile& m) { return ResultFileToCsv(m); }),
              ResultFileToCsv(f))
        << path;
    for (const auto extras : {JsonOptions::Extras::kLossless, JsonOptions::Extras::kStatistics}) {
      const JsonOptions o{.extras = extras};
      EXPECT_EQ(RenderResultFile(path, *MakeJsonView(o), [&](const ResultFile& m) { return ResultFileToJson(m, o); }),
                ResultFileToJson(f, o))
          << path;
    }
  }
}

}  // namespace
}  // namespace ptsn::results
