// One small case per ResultsParser element (testdata/parser_cases.json). The inputs are ours; the
// expected values were produced by running the real PTS 10.8.6 parser on them (see "about").
#include "runner/profile/results_parser.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "runner/common/atomic_file.h"
#include "runner/profile/profile_loader.h"
#include "runner/profile/xml_tree.h"

namespace ptsn::profile {
namespace {

const std::string kTestdata = std::string(PTSN_SOURCE_DIR) + "/runner/profile/testdata";

struct CaseOutcome {
  bool produced = false;
  std::vector<std::pair<ParsedResult, FinalValue>> saved;
};

CaseOutcome RunCase(const nlohmann::json& c) {
  std::string td = "<?xml version=\"1.0\"?>\n<PhoronixTestSuite><TestInformation><Title>Unit</Title>"
                   "<ResultScale>Units</ResultScale><Proportion>HIB</Proportion>" +
                   c["test_information"].get<std::string>() +
                   "</TestInformation><TestProfile><Version>1.0.0</Version><TestType>System</TestType></TestProfile>"
                   "<TestSettings>" +
                   c["test_settings"].get<std::string>() + "</TestSettings></PhoronixTestSuite>";
  ProfileSource src;
  std::vector<LoadIssue> issues;
  ParseTestDefinition(ParseXmlString(td, "test-definition.xml"), "test-definition.xml", &src, &issues);
  TestProfile p;
  p.identifier = "local/unit-1.0.0";
  p.fields = src.fields;
  p.options = src.options;
  FillTypedFields(&p);
  p.results = ParseResultsDefinition(
      ParseXmlString(c["results_definition"].get<std::string>(), "results-definition.xml"), "results-definition.xml",
      &issues);
  ParseSession session(p.results, ParseContextFor(p, c["arguments"], c["description"]));
  CaseOutcome out;
  out.produced = session.ParseLog(c["log"].get<std::string>());
  for (const auto& r : session.Results()) {
    FinalValue f = FinalizeResult(r, p.result_quantifier);
    if (f.saved) out.saved.emplace_back(r, f);
  }
  return out;
}

class ParserElementTest : public testing::TestWithParam<std::string> {};

nlohmann::json LoadCases() { return nlohmann::json::parse(ReadFile(kTestdata + "/parser_cases.json"))["cases"]; }

std::vector<std::string> CaseNames() {
  std::vector<std::string> names;
  for (const auto& c : LoadCases()) names.push_back(c["name"]);
  return names;
}

TEST_P(ParserElementTest, MatchesRealPts) {
  nlohmann::json c;
  for (const auto& x : LoadCases())
    if (x["name"] == GetParam()) c = x;
  ASSERT_FALSE(c.is_null());
  CaseOutcome got = RunCase(c);
  EXPECT_EQ(got.produced, c["expected_produced"].get<bool>());
  const auto& want = c["expected"];
  ASSERT_EQ(got.saved.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const auto& [r, f] = got.saved[i];
    EXPECT_EQ(f.value, want[i]["value"].get<std::string>()) << "result " << i;
    EXPECT_EQ(r.scale, want[i]["scale"].get<std::string>()) << "result " << i;
    EXPECT_EQ(r.proportion, want[i]["proportion"].get<std::string>()) << "result " << i;
    EXPECT_EQ(r.description, want[i]["description"].get<std::string>()) << "result " << i;
    EXPECT_EQ(r.display_format, want[i]["display_format"].get<std::string>()) << "result " << i;
    EXPECT_EQ(r.is_secondary, want[i]["is_secondary"].get<bool>()) << "result " << i;
    EXPECT_EQ(r.trial_values, want[i]["trial_values"].get<std::vector<std::string>>()) << "result " << i;
    for (size_t k = 0; k < r.trial_min.size(); ++k) {
      auto wmin = want[i]["trial_min"][k], wmax = want[i]["trial_max"][k];
      EXPECT_EQ(r.trial_min[k].value_or("null"), wmin.is_null() ? "null" : wmin.get<std::string>());
      EXPECT_EQ(r.trial_max[k].value_or("null"), wmax.is_null() ? "null" : wmax.get<std::string>());
    }
    auto wmin = want[i]["min"], wmax = want[i]["max"];
    EXPECT_EQ(f.min.value_or("null"), wmin.is_null() ? "null" : wmin.get<std::string>());
    EXPECT_EQ(f.max.value_or("null"), wmax.is_null() ? "null" : wmax.get<std::string>());
  }
}

INSTANTIATE_TEST_SUITE_P(Elements, ParserElementTest, testing::ValuesIn(CaseNames()),
                         [](const testing::TestParamInfo<std::string>& param_info) { return param_info.param; });

ResultsDefinition OneBlock(const std::string& output_template) {
  ResultsDefinition def;
  def.path = "results-definition.xml";
  ResultsParserBlock b;
  b.output_template = output_template;
  def.parsers.push_back(b);
  return def;
}

// Whether some line of the parser's trace contains `text`.
bool TraceSays(const std::vector<std::string>& trace, std::string_view text) {
  for (const auto& line : trace)
    if (line.find(text) != std::string::npos) return true;
  return false;
}

TEST(ResultsParser, NoLogFileIsNoResult) {
  ParseSession s(OneBlock("x #_RESULT_#"), ParseContext{});
  std::vector<std::string> trace;
  EXPECT_FALSE(s.ParseLog(std::nullopt, &trace));
  EXPECT_TRUE(s.Results().empty());
  ASSERT_FALSE(trace.empty());
  EXPECT_NE(trace[0].find("no log file"), std::string::npos);
}

TEST(ResultsParser, TrialsAccumulateAndAverage) {
  ParseContext ctx;
  ctx.result_scale = "MB/s";
  ParseSession s(OneBlock("speed: #_RESULT_#"), ctx);
  EXPECT_TRUE(s.ParseLog(std::string("x\nspeed: 10.5\n")));
  EXPECT_TRUE(s.ParseLog(std::string("x\nspeed: 11\n")));
  auto r = s.Results();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].trial_values, (std::vector<std::string>{"10.5", "11"}));
  EXPECT_EQ(FinalizeResult(r[0]).value, "10.8");  // number_format(10.75, 1): PHP rounds half up
}

// Found by fuzz_results_parser: a ResultPrecision of two billion made number_format ask for a
// 2 GiB buffer. Past the 318 decimals PHP's printf prints, the precision is ignored and said so.
TEST(ResultsParser, HugeResultPrecisionIsIgnoredWithAReason) {
  ResultsDefinition def = OneBlock("speed: #_RESULT_#");
  def.parsers[0].result_precision = "2000000000";
  ParseSession s(def, ParseContext{});
  std::vector<std::string> trace;
  EXPECT_TRUE(s.ParseLog(std::string("speed: 10.5\n"), &trace));
  auto r = s.Results();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].result_precision, "");
  EXPECT_EQ(FinalizeResult(r[0]).value, "10.5");
  EXPECT_TRUE(TraceSays(trace, "ResultPrecision '2000000000'"));
}

// Found by fuzz_results_parser: with MultiMatch, a LineBeforeHint that is not in the log never
// shrinks the output, so every pass finds the same value again (PTS loops until PHP runs out of
// memory). We stop once a pass repeats the last one, and say so.
TEST(ResultsParser, MultiMatchPassThatCannotShrinkTheOutputStops) {
  ResultsDefinition def = OneBlock("speed: #_RESULT_#");
  def.parsers[0].line_before_hint = "absent";
  def.parsers[0].multi_match = "AVERAGE";
  ParseSession s(def, ParseContext{});
  std::vector<std::string> trace;
  s.ParseLog(std::string("first line\nspeed: 10\nlast\n"), &trace);
  EXPECT_TRUE(TraceSays(trace, "PTS would repeat this pass forever"));
}

// The fuzzer's hang: the key starts the template's second line, so the search key is "\n",
// which every shortened output still ends with.
TEST(ResultsParser, SearchKeyThatIsALineBreakStops) {
  ResultsDefinition def = OneBlock("ChaCha20 1.0k\n#_RESULT_# 2.0k");
  def.parsers[0].line_hint = "absent";
  ParseSession s(def, ParseContext{});
  std::vector<std::string> trace;
  EXPECT_TRUE(s.ParseLog(std::string("ChaCha20 5.0k\n7.5 8.0k\n"), &trace));
  ASSERT_EQ(s.Results().size(), 1u);
  EXPECT_EQ(FinalizeResult(s.Results()[0]).value, "7.5");  // the last line, as PTS's first pass takes it
  EXPECT_TRUE(TraceSays(trace, "PTS would search forever"));
}

TEST(ResultsParser, QuantifierMaxAndDroppedZero) {
  ParsedResult r;
  r.display_format = "BAR_GRAPH";
  r.trial_values = {"3", "7.5", "5"};
  r.trial_min = r.trial_max = {std::nullopt, std::nullopt, std::nullopt};
  EXPECT_EQ(FinalizeResult(r, "MAX").value, "7.5");
  EXPECT_EQ(FinalizeResult(r, "MIN").value, "3");
  r.trial_values = {"0"};
  r.trial_min = r.trial_max = {std::nullopt};
  FinalValue f = FinalizeResult(r);
  EXPECT_FALSE(f.saved);
  EXPECT_FALSE(f.reason.empty());
}

}  // namespace
}  // namespace ptsn::profile

namespace ptsn::profile {
namespace {

// sys.time profiles have no ResultsParser: the log gives nothing, the trace says where the value
// comes from, and a monitor value lands in the test's own result with the profile's scale.
TEST(SystemMonitor, ValueGoesToTheTestsResultAndTheTraceSaysWhy) {
  std::vector<LoadIssue> issues;
  ResultsDefinition def = ParseResultsDefinition(
      ParseXmlString("<PhoronixTestSuite><SystemMonitor><Sensor>sys.time</Sensor></SystemMonitor></PhoronixTestSuite>",
                     "results-definition.xml"),
      "results-definition.xml", &issues);
  ParseContext context;
  context.description = "Threads / Copies: 1";
  context.result_scale = "Seconds";
  context.proportion = "LIB";
  ParseSession session(def, context);
  std::vector<std::string> trace;
  EXPECT_FALSE(session.ParseLog(std::string("anything\n"), &trace));
  ASSERT_FALSE(trace.empty());
  EXPECT_NE(trace[0].find("<SystemMonitor> sys.time"), std::string::npos) << trace[0];
  session.AddMonitorValue("12.346");
  session.AddMonitorValue("12.5");
  auto r = session.Results();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].description, "Threads / Copies: 1");
  EXPECT_EQ(r[0].scale, "Seconds");
  EXPECT_EQ(r[0].proportion, "LIB");
  EXPECT_EQ(r[0].block, 0);
  EXPECT_EQ(r[0].trial_values, (std::vector<std::string>{"12.346", "12.5"}));
  EXPECT_EQ(FinalizeResult(r[0]).value, "12.423");
}

TEST(ImageParser, UnsupportedAndSaysExactlyWhat) {
  std::vector<LoadIssue> issues;
  ResultsDefinition def = ParseResultsDefinition(
      ParseXmlString("<PhoronixTestSuite><ImageParser><SourceImage>out.png</SourceImage><ImageX>10</ImageX>"
                     "<ImageY>20</ImageY><ImageWidth>300</ImageWidth><ImageHeight>200</ImageHeight></ImageParser>"
                     "<ResultsParser><OutputTemplate>Speed: #_RESULT_#</OutputTemplate></ResultsParser></PhoronixTestSuite>",
                     "results-definition.xml"),
      "results-definition.xml", &issues);
  ParseContext context;
  context.display_format = "IMAGE_COMPARISON";
  ParseSession session(def, context);
  std::vector<std::string> trace;
  EXPECT_FALSE(session.ParseLog(std::string("Speed: 42\n"), &trace));  // never a number from the log
  EXPECT_TRUE(session.Results().empty());
  ASSERT_EQ(trace.size(), 2u);
  EXPECT_NE(trace[0].find("IMAGE_COMPARISON is not supported"), std::string::npos) << trace[0];
  EXPECT_NE(trace[1].find("SourceImage 'out.png' cropped to x=10 y=20 width=300 height=200"), std::string::npos)
      << trace[1];
}

}  // namespace
}  // namespace ptsn::profile
