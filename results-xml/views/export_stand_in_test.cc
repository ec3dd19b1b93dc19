// Every view marks an entry a stand-in measured ("Tuned *" and a STAND-IN footnote), never
// showing it as the original program's result; files without stand-ins are untouched.
#include <gtest/gtest.h>
#include <libxml/parser.h>

#include <nlohmann/json.hpp>

#include "results-xml/model/comparison_hash.h"
#include "results-xml/views/export_common.h"
#include "results-xml/views/export_html.h"
#include "results-xml/views/export_json.h"
#include "results-xml/views/export_svg.h"
#include "results-xml/views/export_test_fixture.h"
#include "results-xml/views/export_text.h"

namespace ptsn::results {
namespace {

constexpr const char* kLabel = "native/disk-seq-write-1.0.0 for pts/sample-disk-1.0";

// The fixture with Tuned's bar and monitor entries measured by a stand-in.
ResultFile WithStandIn() {
  ResultFile f = test::SmallResultFile();
  f.results[0].entries[1].json = R"({"test-run-times":"10.26:7.98:7.99","stand-in":"native\/disk-seq-write-1.0.0 for pts\/sample-disk-1.0"})";
  f.results[1].entries[1].json = R"({"stand-in":"native\/disk-seq-write-1.0.0 for pts\/sample-disk-1.0"})";
  return f;
}

size_t Count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
  return n;
}

TEST(StandIn, MarkIsReadFromTheEntryJson) {
  ResultFile f = WithStandIn();
  EXPECT_EQ(StandInMark(f.results[0].entries[1]).value_or(""), kLabel);
  EXPECT_FALSE(StandInMark(f.results[0].entries[0]));
  EXPECT_EQ(EntryLabel(f.results[0].entries[1]), "Tuned *");
  EXPECT_EQ(EntryLabel(f.results[0].entries[0]), "Baseline");
  Entry odd{"X", "1", std::nullopt, R"({"stand-in":5})"};
  EXPECT_FALSE(StandInMark(odd)) << "not a label";
  odd.json = "stand-in, not JSON";
  EXPECT_FALSE(StandInMark(odd));
  EXPECT_EQ(StandInFootnotes(f.results[0]),
            std::vector<std::string>{std::string("* STAND-IN: ") + kLabel + " (not the original program)"});
}

TEST(StandIn, TextViewMarksTheRowAndFootnotesIt) {
  std::string plain = ResultFileToText(test::SmallResultFile());
  std::string text = ResultFileToText(WithStandIn());
  EXPECT_EQ(plain.find("STAND-IN"), std::string::npos);
  EXPECT_NE(text.find("\nTuned * .. 123.11 |"), std::string::npos) << text;
  EXPECT_NE(text.find("\nBaseline . 124.13 |"), std::string::npos) << text;
  EXPECT_EQ(Count(text, std::string("    * STAND-IN: ") + kLabel + " (not the original program)"), 2u) << text;
}

TEST(StandIn, SvgLabelsTheBarAndTheSeriesAndAddsTheFootnote) {
  ResultFile f = WithStandIn();
  for (size_t i : {0, 1}) {
    std::string svg = ResultToSvg(f.results[i]);
    EXPECT_NE(svg.find(">Tuned *"), std::string::npos) << svg;
    EXPECT_NE(svg.find(std::string("* STAND-IN: ") + kLabel), std::string::npos) << svg;
    xmlDocPtr doc = xmlReadMemory(svg.data(), static_cast<int>(svg.size()), "x.svg", nullptr, XML_PARSE_NONET);
    EXPECT_NE(doc, nullptr) << "well-formed";
    xmlFreeDoc(doc);
    // The footnote takes room of its own: the chart grows by a line.
    std::string plain = ResultToSvg(test::SmallResultFile().results[i]);
    auto height = [](const std::string& s) {
      size_t at = s.find("height=\"") + 8;
      return std::stoi(s.substr(at, s.find('"', at) - at));
    };
    EXPECT_EQ(height(svg), height(plain) + 14);
  }
  std::string plain_bar = ResultToSvg(test::SmallResultFile().results[0]);
  EXPECT_EQ(plain_bar.find("STAND-IN"), std::string::npos);
}

TEST(StandIn, HtmlMarksTheValuesRowAndTheCharts) {
  std::string html = ResultFileToHtml(WithStandIn());
  EXPECT_NE(html.find(std::string("<td>Tuned <span class=\"stand-in\">*&nbsp;STAND-IN: ") + kLabel +
                      " (not the original program)</span></td>"),
            std::string::npos)
      << html;
  EXPECT_GE(Count(html, ">Tuned *"), 2u) << "bar label and series legend";
  EXPECT_EQ(ResultFileToHtml(test::SmallResultFile()).find("STAND-IN"), std::string::npos);
}

TEST(StandIn, JsonCarriesTheLabelAsOurKeyAndInDetails) {
  ResultFile f = WithStandIn();
  auto j = nlohmann::json::parse(ResultFileToJson(f));  // the default: what PTS's keys would mislabel
  for (size_t i : {0, 1}) {
    const auto& r = j["results"][ComparisonHash(f.results[i])]["results"];
    EXPECT_EQ(r["Tuned"].value("ptsn_stand_in", ""), kLabel) << i;
    EXPECT_EQ(r["Tuned"]["details"].value("stand-in", ""), kLabel) << i;
    EXPECT_FALSE(r["Baseline"].contains("ptsn_stand_in")) << i;
  }
  EXPECT_FALSE(j["results"][ComparisonHash(f.results[2])]["results"]["Tuned"].contains("ptsn_stand_in"));
  // PTS's keys only (the golden comparison mode): the label stays in details, nothing added.
  auto core = nlohmann::json::parse(ResultFileToJson(WithStandIn(), {.extras = JsonOptions::Extras::kPtsOnly}));
  for (const auto& [hash, r] : core["results"].items()) {
    if (r.contains("results") && r["results"].contains("Tuned")) {
      EXPECT_FALSE(r["results"]["Tuned"].contains("ptsn_stand_in")) << hash;
    }
  }
}

}  // namespace
}  // namespace ptsn::results
