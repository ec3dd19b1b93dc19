// The server's result page draws a reproduction's stand-in that measured in another unit on a
// chart of its own (its own unit), never as a bar on the original's axis; its pages keep a monitor
// series with its test.
#include "server/results/pages.h"

#include <gtest/gtest.h>

#include "results-xml/model/comparison_hash.h"
#include "results-xml/model/result_xml.h"
#include "server/http/http.h"

namespace ptsn::server {
namespace {

TEST(ResultPage, AStandInInAnotherUnitHasItsOwnChart) {
  results::ResultFile f;
  f.generated.title = "Reproduced";
  for (const char* who : {"Published A", "This Box"}) {
    results::System s;
    s.identifier = who;
    f.systems.push_back(s);
  }
  results::Result fio;
  fio.identifier = "pts/fio-1.2.0";
  fio.title = "Flexible IO Tester";
  fio.app_version = "1.57";
  fio.scale = "Seconds";
  fio.proportion = "LIB";
  fio.entries = {{"Published A", "101.5", "101:102", std::nullopt}};
  results::Result own;
  own.identifier = "native/file-server-1.0.0";
  own.title = "Native File Server";
  own.app_version = "1.0";
  own.scale = "MiB/s";
  own.proportion = "HIB";
  own.entries = {{"This Box", "7777.5", "7777:7778",
                  "{\"stand-in\":\"native\\/file-server-1.0.0 for pts\\/fio-1.2\",\"stand-in-for\":\"" +
                      results::ComparisonHash(fio) + "\"}"}};
  f.results = {fio, own};
  StoredResult stored;
  stored.id = "2611305-ME-REPRO000001";
  stored.owner = "me";
  stored.xml = results::SerializeResultFile(f);
  const std::string html = RenderResultPage({std::make_shared<const StoredResult>(stored)});
  const size_t original = html.find("Flexible IO Tester");
  const size_t chart = html.find("Native File Server");
  ASSERT_NE(original, std::string::npos);
  ASSERT_NE(chart, std::string::npos);
  EXPECT_EQ(html.substr(original, chart - original).find("This Box *"), std::string::npos)
      << "no bar of the stand-in on the Seconds chart";
  EXPECT_NE(html.find("This Box *", chart), std::string::npos);
  EXPECT_NE(html.find("MiB/s", chart), std::string::npos);
  EXPECT_NE(html.find("STAND-IN: native/file-server-1.0.0 for pts/fio-1.2 (not the original program)"), std::string::npos);
}

// A long result is paged; a monitor series goes on its test's page, in its test's section, even
// where a cut at every `size` results would have put it on the next page without its test.
TEST(ResultPage, AMonitorSeriesIsOnItsTestsPage) {
  results::ResultFile f;
  f.generated.title = "Paged";
  results::System a;
  a.identifier = "A";
  f.systems.push_back(a);
  for (const char* name : {"Alpha", "Bravo", "Charlie"}) {
    results::Result t;
    t.identifier = std::string("pts/") + name + "-1.0.0";
    t.title = name;
    t.scale = "MB/s";
    t.proportion = "HIB";
    t.entries = {{"A", "10", "9:10:11", std::nullopt}};
    results::Result cpu;
    cpu.title = name;
    cpu.description = "CPU Usage Monitor";
    cpu.scale = "Percent";
    cpu.display_format = "LINE_GRAPH";
    cpu.parent = results::ComparisonHash(t);
    cpu.entries = {{"A", "10,20,30", std::nullopt, std::nullopt}};
    f.results.push_back(t);
    f.results.push_back(cpu);
  }
  StoredResult stored;
  stored.id = "2612070-ME-PAGED000001";
  stored.owner = "me";
  stored.xml = results::SerializeResultFile(f);
  const auto result = std::make_shared<const StoredResult>(stored);
  // 3 results a page: Alpha and its series, then Bravo and its series, then Charlie and its.
  for (size_t page = 0; page < 3; ++page) {
    const std::string html = RenderResultPage({result}, {page, 3});
    const std::string test = page == 0 ? "Alpha" : page == 1 ? "Bravo" : "Charlie";
    EXPECT_NE(html.find("(page " + std::to_string(page + 1) + " of 3)"), std::string::npos) << page;
    const size_t section = html.find("<section id=\"r1\"><h2>" + test);
    ASSERT_NE(section, std::string::npos) << page << html;
    const size_t monitor = html.find("<table class=\"monitor\">", section);
    ASSERT_NE(monitor, std::string::npos) << page;
    EXPECT_LT(monitor, html.find("</section>", section)) << "the series is in its test's section";
    EXPECT_EQ(html.find("<section id=\"r2\">"), std::string::npos) << "no section of its own on page " << page + 1;
  }
  const std::string second = RenderResultPage({result}, {1, 3});
  EXPECT_NE(second.find("Results 3&ndash;4 (page 2 of 3)"), std::string::npos);
  // The decided wins / losses count this page's results only, and say so; unpaged, all of them.
  EXPECT_NE(second.find("against the base (over the 1 test result on this page, not the whole view)"), std::string::npos);
  EXPECT_NE(RenderResultPage({result}).find("against the base (over the 3 test results)</th>"), std::string::npos);
  EXPECT_THROW(RenderResultPage({result}, {3, 3}), HttpError);
}

}  // namespace
}  // namespace ptsn::server
