#include "results-xml/views/export_svg.h"

#include <gtest/gtest.h>
#include <libxml/parser.h>

#include <regex>

#include "results-xml/model/result_xml.h"
#include "results-xml/model/test_support.h"
#include "results-xml/views/export_html.h"
#include "results-xml/views/export_test_fixture.h"
#include "runner/common/atomic_file.h"

namespace ptsn::results {
namespace {

// Well-formed XML (libxml2, no network, no entities).
bool WellFormed(const std::string& xml) {
  xmlDocPtr doc = xmlReadMemory(xml.data(), static_cast<int>(xml.size()), "chart.svg", nullptr, XML_PARSE_NONET);
  const bool ok = doc != nullptr;
  xmlFreeDoc(doc);
  return ok;
}

std::vector<std::string> SeLabels(const std::string& text) {
  static const std::regex re(R"(SE \+/- [0-9.]+, N = [0-9]+)");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    out.push_back(it->str());
  return out;
}

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(ExportSvg, BarChartHasBarsValuesAndSeLabels) {
  const ResultFile f = test::SmallResultFile();
  const std::string svg = ResultToSvg(f.results[0]);
  EXPECT_TRUE(WellFormed(svg)) << svg;
  EXPECT_EQ(svg.rfind("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_EQ(Count(svg, "<rect x=\"") - 1, 2u);  // the frame + one bar per system
  EXPECT_EQ(SeLabels(svg), (std::vector<std::string>{"SE +/- 1.07, N = 3", "SE +/- 0.95, N = 3"}));
  EXPECT_NE(svg.find(">124.13</text>"), std::string::npos);
  EXPECT_NE(svg.find("MB/s, More Is Better"), std::string::npos);
}

// The SE label is drawn right-aligned where the bars start; with one-letter identifiers the
// margin must still hold it (it used to start left of the chart: clipped).
TEST(ExportSvg, SeLabelFitsLeftOfTheBarsWithAShortIdentifier) {
  ResultFile f = test::SmallResultFile();
  Result r = f.results[0];
  for (auto& e : r.entries) e.identifier = e.identifier.substr(0, 1);
  r.entries[0].raw_string = "1234567.25:1034567.5:1434567.75";  // a wide SE figure
  const std::string svg = ResultToSvg(r);
  static const std::regex se_text(R"re(<text x="([0-9.]+)" [^>]*text-anchor="end">(SE \+/- [^<]+)</text>)re");
  size_t labels = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), se_text); it != std::sregex_iterator(); ++it, ++labels) {
    const double right = std::stod((*it)[1].str());
    const double width = static_cast<double>((*it)[2].str().size()) * 8 * 0.58;  // the export's own estimate
    EXPECT_GE(right - width, 0.0) << (*it)[2].str() << " starts left of the chart";
  }
  EXPECT_EQ(labels, 2u) << svg;
}

TEST(ExportSvg, LineChartHasOnePolylinePerSystemAndALegend) {
  const std::string svg = ResultToSvg(test::SmallResultFile().results[1]);
  EXPECT_TRUE(WellFormed(svg)) << svg;
  EXPECT_EQ(Count(svg, "<polyline"), 2u);
  EXPECT_NE(svg.find("Tuned  Min: 50.50 / Avg: 73.45 / Max: 100.00"), std::string::npos) << svg;
  EXPECT_EQ(SeLabels(svg).size(), 0u);
}

TEST(ExportSvg, EscapesTextAndStacksAllCharts) {
  ResultFile f = test::SmallResultFile();
  f.results[0].title = "A <b> & \"c\"";
  f.results[0].entries[0].identifier = "x<y>";
  const std::string svg = ResultFileToSvg(f);
  EXPECT_TRUE(WellFormed(svg));
  EXPECT_NE(svg.find("A &lt;b&gt; &amp; &quot;c&quot;"), std::string::npos);
  EXPECT_EQ(Count(svg, "<svg "), 1u + f.results.size());
}

// src: a box per system with a dot for every trial, and the mean's interval; well-formed SVG.
TEST(ExportSvg, TrialsChartHasABoxAndADotPerTrial) {
  const Result bar = test::SmallResultFile().results[0];
  std::string svg;
  ASSERT_GT(AppendTrialsSvg(svg, bar, {}), 0);
  EXPECT_TRUE(WellFormed(svg)) << svg;
  EXPECT_EQ(Count(svg, "<g class=\"box\""), 2u);
  EXPECT_EQ(Count(svg, "<g class=\"box\" data-system=\"Baseline\">"), 1u);
  EXPECT_EQ(Count(svg, "<circle class=\"trial\""), 6u);
  EXPECT_EQ(Count(svg, "class=\"ci\""), 2u);
  EXPECT_EQ(Count(svg, "class=\"mean\""), 2u);
  // One trial per system leaves no spread to draw.
  Result single = bar;
  for (auto& e : single.entries) e.raw_string = e.value;
  std::string none;
  EXPECT_EQ(AppendTrialsSvg(none, single, {}), 0);
  EXPECT_TRUE(none.empty());
  // A spread far below the values' magnitude, and equal trials: a finite axis with its ticks.
  Result tiny = bar;
  tiny.entries[0].raw_string = "1000000000000000:1000000000000000.125";
  tiny.entries[1].raw_string = "1000000000000000:1000000000000000";
  std::string far;
  ASSERT_GT(AppendTrialsSvg(far, tiny, {}), 0);
  EXPECT_TRUE(WellFormed(far));
  EXPECT_EQ(far.find("nan"), std::string::npos);
  EXPECT_LE(Count(far, "stroke-dasharray"), 51u);
}

// nor: the bars are relative to the base, and the labels keep each system's own value, the
// base's as what 1 stands for.
TEST(ExportSvg, NormalizedBarsKeepTheBasesOwnValue) {
  const Result bar = test::SmallResultFile().results[0];
  const std::vector<std::optional<double>> relative = {1.0, 123.11 / 124.13};
  SvgOptions o;
  o.relative = &relative;
  const std::string svg = ResultToSvg(bar, o);
  EXPECT_NE(svg.find(">1.000 = 124.13 MB/s<"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">0.992 (123.11)<"), std::string::npos) << svg;
  EXPECT_NE(svg.find("Relative to the base (= 1)"), std::string::npos);
  EXPECT_EQ(svg.find("MB/s, More Is Better"), std::string::npos);
}

TEST(ExportHtml, SrcAddsTheTrialsChartAndItsTable) {
  HtmlView view;
  view.options.confidence_charts = true;
  const std::string html = ResultFileToHtml(test::SmallResultFile(), view);
  // Every result with a system of two or more trials: not the monitor series.
  EXPECT_EQ(Count(html, "<div class=\"chart trials\">"), 3u);
  EXPECT_EQ(Count(html, "<summary>The box plots' numbers</summary>"), 3u);
  EXPECT_NE(html.find("<td>Baseline</td><td class=\"num\">3</td><td class=\"num\">121.99</td>"), std::string::npos) << html;
  EXPECT_EQ(ResultFileToHtml(test::SmallResultFile()).find("chart trials"), std::string::npos);
}

// A multi-way comparison's groups get an axis each (their values differ a thousandfold here),
// the groups in the order they first appear and each group's boxes together.
TEST(ExportSvg, TrialsOfAMultiWayComparisonHaveAnAxisPerGroup) {
  Result r;
  r.title = "T";
  r.scale = "MB/s";
  r.proportion = "HIB";
  r.entries = {{"A: x", "2", "1:2:3", std::nullopt}, {"B: x", "1100", "1000:1100:1200", std::nullopt},
               {"A: y", "3", "2:3:4", std::nullopt}};
  std::string svg;
  ASSERT_GT(AppendTrialsSvg(svg, r, {}), 0);
  EXPECT_EQ(Count(svg, "<g class=\"axis\""), 2u);
  EXPECT_LT(svg.find(">A</text>"), svg.find(">B</text>")) << svg;
  const size_t ax = svg.find("data-system=\"A: x\""), ay = svg.find("data-system=\"A: y\""), bx = svg.find("data-system=\"B: x\"");
  EXPECT_LT(ax, ay);
  EXPECT_LT(ay, bx);
  EXPECT_NE(svg.find(">1200<"), std::string::npos) << "B's own axis reaches its trials";
  EXPECT_NE(svg.find(">4<"), std::string::npos) << "A's own axis is not B's";
  // Not multi-way: one axis, no group names.
  r.entries[1].identifier = "B x";
  std::string one;
  AppendTrialsSvg(one, r, {});
  EXPECT_EQ(Count(one, "<g class=\"axis\""), 1u);
  EXPECT_EQ(one.find(">A</text>"), std::string::npos);
}

// Grouped (the viewer's cmw, cmv, imw): a cluster of bars per group under its name, each bar
// labelled by its system and coloured by it, the groups in the order they first appear.
TEST(ExportSvg, GroupedMultiWayBarsClusterByGroupWithAColourPerName) {
  Result r;
  r.title = "Dbench";
  r.scale = "MB/s";
  r.proportion = "HIB";
  r.display_format = "BAR_GRAPH";
  r.entries = {{"1: A", "13", {}, {}}, {"6: A", "63", {}, {}}, {"1: B", "17", {}, {}}, {"6: B", "67", {}, {}}};
  SvgOptions grouped;
  grouped.grouped = true;
  const std::string svg = ResultToSvg(r, grouped);
  EXPECT_TRUE(WellFormed(svg)) << svg;
  EXPECT_EQ(Count(svg, "<g class=\"group\">"), 2u);
  const size_t one = svg.find(">1</text>"), six = svg.find(">6</text>");
  ASSERT_NE(one, std::string::npos);
  ASSERT_NE(six, std::string::npos);
  // Group 1 holds 13 and 17 (A then B), group 6 holds 63 and 67.
  EXPECT_LT(one, svg.find(">13</text>"));
  EXPECT_LT(svg.find(">17</text>"), six);
  EXPECT_LT(six, svg.find(">63</text>"));
  EXPECT_EQ(Count(svg, ">A</text>"), 2u);
  EXPECT_EQ(svg.find(">1: A</text>"), std::string::npos);
  // A's bars share a colour, B's another.
  static const std::regex fill(R"re(<rect x="[0-9.]+" y="[0-9.]+" width="[0-9.]+" height="30" fill="(#[0-9a-f]+)")re");
  std::vector<std::string> fills;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), fill); it != std::sregex_iterator(); ++it)
    fills.push_back((*it)[1]);
  ASSERT_EQ(fills.size(), 4u) << svg;
  EXPECT_EQ(fills[0], fills[2]);
  EXPECT_EQ(fills[1], fills[3]);
  EXPECT_NE(fills[0], fills[1]);
  // Not asked for: a bar per value in file order, under its full name.
  const std::string plain = ResultToSvg(r);
  EXPECT_EQ(Count(plain, "<g class=\"group\">"), 0u);
  EXPECT_LT(plain.find(">6: A</text>"), plain.find(">1: B</text>"));
  // The label column fits the names, not "GROUP: NAME": the bars start further left.
  r.entries = {{"Record Size 4KB: Home", "13", {}, {}}, {"Record Size 1MB: Home", "63", {}, {}}};
  const std::string long_grouped = ResultToSvg(r, grouped), long_plain = ResultToSvg(r);
  static const std::regex bar_x(R"re(<rect x="([0-9.]+)" y="[0-9.]+" width="[0-9.]+" height="30")re");
  std::smatch grouped_x, plain_x;
  ASSERT_TRUE(std::regex_search(long_grouped, grouped_x, bar_x));
  ASSERT_TRUE(std::regex_search(long_plain, plain_x, bar_x));
  EXPECT_LT(std::stod(grouped_x[1]), std::stod(plain_x[1]));
}

TEST(ExportHtml, TheViewLineIsDecodedAndTheLinkEncoded) {
  HtmlView view;
  view.form = true;
  view.options.highlight = {"No Encryption"};
  const std::string html = ResultFileToHtml(test::SmallResultFile(), view);
  EXPECT_NE(html.find("View: <code>hgv[]=No Encryption</code>"), std::string::npos) << html;
  EXPECT_NE(html.find("<a id=\"view-link\" href=\"?hgv%5B%5D=No%20Encryption\">"), std::string::npos) << html;
}

// grr on a file without run times says so in one line; with them it says nothing.
TEST(ExportHtml, RunTimeOrderSaysWhenTheFileHasNoRunTimes) {
  HtmlView view;
  view.options.result_order = ResultOrder::kRunTime;
  ResultFile f = test::SmallResultFile();
  EXPECT_EQ(ResultFileToHtml(f, view).find("id=\"no-run-times\""), std::string::npos);
  for (auto& r : f.results)
    for (auto& e : r.entries) e.json.reset();
  EXPECT_NE(ResultFileToHtml(f, view).find("grr: this file records no test run times"), std::string::npos);
}

// A monitor series is a min / avg / max table in its test's section, also in files older than
// <Parent> (1110088: no identifier, the test's title, "CPU Usage " before the test's arguments).
TEST(ExportHtml, MonitorSeriesBesideTheTestItWasRecordedWith) {
  ResultFile f = test::SmallResultFile();
  f.results[1].parent.reset();
  f.results[1].arguments = "CPU Usage --bs=4k";
  f.results[1].description = "CPU Usage Monitor";
  for (const ResultFile& file : {test::SmallResultFile(), f}) {
    const std::string html = ResultFileToHtml(file);
    const size_t test = html.find("<section id=\"r1\">"), table = html.find("<table class=\"monitor\">");
    ASSERT_NE(table, std::string::npos);
    EXPECT_LT(test, table);
    EXPECT_LT(table, html.find("</section>", test));
    EXPECT_LT(html.find("<polyline"), table);
    EXPECT_LT(test, html.find("<polyline"));
    EXPECT_EQ(html.find("<section id=\"r2\">"), std::string::npos);  // no section of its own
    EXPECT_NE(html.find("<td>Tuned</td><td class=\"num\">50.50</td><td class=\"num\">73.45</td><td class=\"num\">100.00</td>"
                        "<td class=\"num\">7</td>"), std::string::npos) << html;
  }
  // A series of the whole run (no test of its title) keeps its own section.
  f.results[1].title = "CPU Usage Monitor";
  EXPECT_NE(ResultFileToHtml(f).find("<section id=\"r2\">"), std::string::npos);
}

TEST(ExportHtml, SelfContained) {
  const std::string html = ResultFileToHtml(test::SmallResultFile());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  // One chart per result, the monitor series' in its test's section with a min / avg / max table.
  EXPECT_EQ(Count(html, "<svg "), 4u);
  EXPECT_EQ(Count(html, "<table class=\"monitor\">"), 1u);
  for (const char* external : {"<script", "<link", " src=", "url(", "@import"})
    EXPECT_EQ(html.find(external), std::string::npos) << external;
  // Links only within the page (the overview's rows to their results).
  EXPECT_EQ(Count(html, "href="), Count(html, "href=\"#"));
  // Only the SVG namespace URI mentions a scheme.
  EXPECT_EQ(Count(html, "http"), Count(html, "xmlns=\"http://www.w3.org/2000/svg\""));
  // A component both systems share is one cell across their columns.
  EXPECT_NE(html.find("<th>Processor</th><td colspan=\"2\">AMD EPYC (2 Cores)</td>"), std::string::npos);
  EXPECT_NE(html.find("(failed)"), std::string::npos);
}

// PTS's HTML draws one "SE +/- x, N = y" per multi-trial bar; ours must draw the same ones, in
// the same order (the 28 of the published 1110088 page, the 4 of the golden merge).
TEST(ExportSvgGolden, SameSeLabelsAsPtsHtml) {
  PTSN_REQUIRE_REFERENCE();
  for (const char* dir : {"seed-results/1110088-AR-1110066AR56", "seed-results/ubuntu-1304-disk-encryption",
                          "pts-output/merged", "pts-output/result-a"}) {
    SCOPED_TRACE(dir);
    const std::string base = test::ReferenceDir() + "/" + dir;
    const ResultFile file = ReadResultFile(base + "/composite.xml");
    const auto pts = SeLabels(ReadFile(base + "/result-file-to-html.html"));
    const std::string svg = ResultFileToSvg(file);
    EXPECT_TRUE(WellFormed(svg));
    EXPECT_EQ(SeLabels(svg), pts);
    EXPECT_EQ(SeLabels(ResultFileToHtml(file)), pts);
  }
}

}  // namespace
}  // namespace ptsn::results
