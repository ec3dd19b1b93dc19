// A stand-in measuring in another unit (MiB/s, higher is better, standing in for fio 1.57's
// "Seconds, lower is better") as every view shows it after a reproduction: the original's chart
// keeps only the published systems, the stand-in has a chart of its own in its own unit, and
// no percentage is computed across the two.
#include <gtest/gtest.h>
#include <libxml/parser.h>

#include <algorithm>

#include "results-xml/model/comparison_hash.h"
#include "results-xml/views/export_compare.h"
#include "results-xml/views/export_html.h"
#include "results-xml/views/export_svg.h"
#include "results-xml/views/export_text.h"
#include "runner/reproduce/append.h"
#include "runner/reproduce/compare.h"

namespace ptsn::reproduce {
namespace {

constexpr const char* kLabel = "native/file-server-1.0.0 for pts/fio-1.2";

results::Entry Trials(const std::string& who, const std::string& value, const std::string& raw) {
  results::Entry e;
  e.identifier = who;
  e.value = value;
  e.raw_string = raw;
  return e;
}

// The published fio result and a reproduction's stand-in filed by FoldStandIns, as `run <ID>` does.
results::ResultFile Reproduction() {
  results::ResultFile f;
  for (const char* who : {"Published A", "Published B", "This Box"}) {
    results::System s;
    s.identifier = who;
    f.systems.push_back(s);
  }
  results::Result fio;
  fio.identifier = "pts/fio-1.2.0";
  fio.title = "Flexible IO Tester";
  fio.app_version = "1.57";
  fio.arguments = "fileserver";
  fio.description = "Test: Intel IOMeter File Server Access Pattern";
  fio.scale = "Seconds";
  fio.proportion = "LIB";
  fio.entries = {Trials("Published A", "101.5", "101:102"), Trials("Published B", "88.25", "88:88.5")};
  f.results.push_back(fio);
  results::Result standin;
  standin.identifier = "native/file-server-1.0.0";
  standin.title = "Native File Server";
  standin.app_version = "1.0";
  standin.arguments = "--size 4g --iodepth 64 --direct";
  standin.description = "File Server Access Pattern";
  standin.scale = "MiB/s";
  standin.proportion = "HIB";
  standin.entries = {Trials("This Box", "7777.5", "7777:7778")};
  f.results.push_back(standin);
  results::Result iops = standin;  // the stand-in's second result, in yet another unit
  iops.scale = "IOPS";
  iops.entries = {Trials("This Box", "34768.39", "34768.39")};
  f.results.push_back(iops);
  ReproducePlan plan;
  PlanItem item;
  item.result_index = 0;
  item.original_hash = results::ComparisonHash(fio);
  item.kind = PlanKind::kStandIn;
  item.profile = standin.identifier;
  item.arguments = standin.arguments;
  item.stand_in_label = kLabel;
  plan.items = {item};
  EXPECT_EQ(FoldStandIns(f, plan, "This Box"), 1u);
  return f;
}

// The text of one result's chart in a whole-file text view: from its title line to the next blank line pair.
std::string Chart(const std::string& text, const std::string& title) {
  size_t at = text.find("\n" + title);
  if (at == std::string::npos) return "";
  size_t end = text.find("\n\n", at + 1);
  return text.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

TEST(StandInViews, TextDrawsTheStandInOnItsOwnAxis) {
  const std::string text = results::ResultFileToText(Reproduction());
  const std::string original = Chart(text, "Flexible IO Tester 1.57");
  const std::string own = Chart(text, "Native File Server 1.0");
  ASSERT_FALSE(original.empty()) << text;
  ASSERT_FALSE(own.empty()) << text;
  EXPECT_EQ(original.find("This Box"), std::string::npos) << original;
  EXPECT_NE(original.find("Seconds < Lower Is Better"), std::string::npos) << original;
  EXPECT_NE(own.find("MiB/s > Higher Is Better"), std::string::npos) << own;
  EXPECT_NE(own.find("This Box * . 7777.5"), std::string::npos) << own;
  EXPECT_NE(own.find(std::string("* STAND-IN: ") + kLabel), std::string::npos) << own;
  EXPECT_LT(text.find("Flexible IO Tester 1.57"), text.find("Native File Server 1.0")) << "side by side, original first";
}

TEST(StandInViews, SvgGivesTheStandInItsOwnChart) {
  const results::ResultFile f = Reproduction();
  ASSERT_EQ(f.results.size(), 3u);
  const std::string original = results::ResultToSvg(f.results[0]);
  const std::string own = results::ResultToSvg(f.results[1]);
  EXPECT_EQ(original.find("This Box"), std::string::npos);
  EXPECT_NE(original.find("Seconds"), std::string::npos);
  EXPECT_NE(own.find(">This Box *"), std::string::npos) << own;
  EXPECT_NE(own.find("MiB/s"), std::string::npos);
  EXPECT_EQ(own.find("Seconds"), std::string::npos);
  for (const auto* svg : {&original, &own}) {
    xmlDocPtr doc = xmlReadMemory(svg->data(), static_cast<int>(svg->size()), "x.svg", nullptr, XML_PARSE_NONET);
    EXPECT_NE(doc, nullptr);
    xmlFreeDoc(doc);
  }
}

TEST(StandInViews, HtmlShowsTwoChartsAndMarksTheRow) {
  const std::string html = results::ResultFileToHtml(Reproduction());
  // The results' sections, after the overview (which has a row for each).
  const size_t sections = html.find("<section id=\"r");
  ASSERT_NE(sections, std::string::npos);
  const size_t original = html.find("Flexible IO Tester", sections);
  const size_t own = html.find("Native File Server", sections);
  ASSERT_NE(original, std::string::npos);
  ASSERT_NE(own, std::string::npos);
  EXPECT_LT(original, own);
  // Between the original's heading and the stand-in's, no bar of This Box.
  EXPECT_EQ(html.substr(original, own - original).find("This Box"), std::string::npos);
  EXPECT_NE(html.find(std::string("STAND-IN: ") + kLabel), std::string::npos);
  EXPECT_NE(html.find("MiB/s", own), std::string::npos);
}

TEST(StandInViews, ComparisonShowsBothChartsAndNoPercentage) {
  const std::string text = ComparisonText(Reproduction(), "This Box");
  EXPECT_NE(text.find("Published A . 101.5"), std::string::npos) << text;
  EXPECT_NE(text.find("This Box * . 7777.5"), std::string::npos) << text;
  EXPECT_NE(text.find("This Box: no comparison (stand-in for Flexible IO Tester measured in MiB/s, higher is better; "
                      "the original reports Seconds, lower is better: no percentage across units)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("This Box * . 34768.39"), std::string::npos) << text;
  EXPECT_EQ(text.find("Published A . 101.5"), text.rfind("Published A . 101.5")) << "the published chart once";
  EXPECT_EQ(text.find("% of"), std::string::npos) << text;
  EXPECT_EQ(text.find("geometric mean"), std::string::npos) << text;
}

// compare-results across files: an older file that filed a stand-in in another unit under the
// original still shows the value, never a percentage.
TEST(StandInViews, CompareResultsGivesNoPercentageAcrossUnits) {
  results::ResultFile legacy = Reproduction();
  results::Result& fio = legacy.results[0];
  results::Entry mine = Trials("This Box", "7777.5", "7777:7778");
  mine.json = "{\"stand-in\":\"native\\/file-server-1.0.0 for pts\\/fio-1.2\",\"stand-in-scale\":\"MiB\\/s\"}";
  fio.entries.push_back(mine);
  std::rotate(legacy.systems.begin(), legacy.systems.end() - 1, legacy.systems.end());  // This Box: the reference
  auto cmp = results::CompareResultFiles({legacy}, {"legacy"});
  ASSERT_FALSE(cmp.results.empty());
  const auto& row = cmp.results[0];
  ASSERT_EQ(row.values.size(), 3u);
  EXPECT_EQ(row.values[0].other_unit, "MiB/s");
  EXPECT_FALSE(row.values[1].change_pct) << "no percentage against a value in another unit";
  EXPECT_FALSE(row.values[1].verdict);
  const std::string text = results::ComparisonToText(cmp);
  EXPECT_NE(text.find("(stand-in measured in MiB/s: not compared)"), std::string::npos) << text;
  EXPECT_EQ(text.find("%"), std::string::npos) << text;
}

}  // namespace
}  // namespace ptsn::reproduce
