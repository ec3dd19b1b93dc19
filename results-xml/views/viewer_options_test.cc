// OpenBenchmarking's view options: parsing, and the figures on the two published results in
// ../shared/reference/seed-results against what PTS 10.8.6's own code gives for the same file.
// The expected figures were printed by the real pts-core at 84227e6 (PTS_VERSION 10.8.6) with
// pts_result_viewer_embed::process_request_to_attributes() and
// pts_render::attribute_processing_on_result_object() on each seed's composite.xml
// (bench/pts_viewer.php PTS_SRC ../shared/reference/tools FILE 'QUERY').
#include "results-xml/views/viewer_options.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "results-xml/model/comparison_hash.h"
#include "results-xml/views/export_csv.h"
#include "results-xml/views/export_html.h"
#include "results-xml/views/export_json.h"
#include "results-xml/views/multi_way.h"
#include "results-xml/views/view_export.h"
#include "results-xml/stats/runs_verdict.h"
#include "results-xml/stats/statistics.h"
#include "results-xml/stats/verdict.h"
#include "runner/common/error.h"
#include "results-xml/model/result_xml.h"
#include "results-xml/model/test_support.h"

namespace ptsn::results {
namespace {

// ---- parsing --------------------------------------------------------------------------------

TEST(ViewerOptions, NamesPresentAreOnWhateverTheirValue) {
  const ViewerOptions o = ParseViewerQuery("?nor&hnr=0&hlc=1&hni=&sgm=on");
  EXPECT_TRUE(o.normalize);
  EXPECT_TRUE(o.hide_noisy);  // PHP's empty("0") is true, and an empty value is "on"
  EXPECT_TRUE(o.hide_little_change);
  EXPECT_TRUE(o.hide_incomplete);
  EXPECT_TRUE(o.geometric_mean);
  EXPECT_FALSE(ParseViewerQuery("").Any());
  EXPECT_FALSE(ParseViewerQuery("page=2&foo").Any());
}

TEST(ViewerOptions, ObrFormsAreAcceptedAndThePlainNameWins) {
  const ViewerOptions o = ParseViewerQuery("obr_nor&obr_hgv=A%20B&hgv=C&obr_rmm%5B%5D=D");
  EXPECT_TRUE(o.normalize);
  EXPECT_EQ(o.highlight, std::vector<std::string>{"C"});
  EXPECT_EQ(o.hide_systems, std::vector<std::string>{"D"});
}

TEST(ViewerOptions, ArraysCommaListsAndDots) {
  ViewerOptions o = ParseViewerQuery("hgv[]=A,%20B&hgv[]=C+D&rmm=E,F&oss=fs-mark,+Dbench&noss=x");
  EXPECT_EQ(o.highlight, (std::vector<std::string>{"A, B", "C D"}));  // hgv[] is one name each
  EXPECT_EQ(o.hide_systems, (std::vector<std::string>{"E", "F"}));    // rmm=... a comma list
  EXPECT_EQ(o.only_show, (std::vector<std::string>{"fs-mark", "Dbench"}));
  EXPECT_TRUE(o.hide_matching.empty()) << "PTS ignores an oss/noss of one character";
  // "_DD_" stands for '.' in values longer than 5 characters (PTS's check_request_for_var).
  EXPECT_EQ(ParseViewerQuery("hgv=v1_DD_2_DD_3").highlight, std::vector<std::string>{"v1.2.3"});
  EXPECT_EQ(ParseViewerQuery("hgv=a_DD_").highlight, std::vector<std::string>{"a_DD_"});
}

TEST(ViewerOptions, TheQueryOfAViewReadsBackAsTheSameView) {
  ViewerOptions o;
  o.normalize = o.hide_noisy = o.geometric_mean = true;
  o.highlight = {"Encrypted LVM (dmcrypt): Stock"};
  o.hide_systems = {"A & B", "C+D"};
  o.only_show = {"fs-mark", "dbench"};
  const ViewerOptions back = ParseViewerQuery(o.ToQuery());
  EXPECT_EQ(back.ToQuery(), o.ToQuery());
  EXPECT_EQ(back.highlight, o.highlight);
  EXPECT_EQ(back.hide_systems, o.hide_systems);
  EXPECT_EQ(back.only_show, o.only_show);
  EXPECT_TRUE(back.normalize && back.hide_noisy && back.geometric_mean && !back.hide_incomplete);
}

// The page shows the view for people: decoded, "[]" and spaces as typed; the link stays encoded.
TEST(ViewerOptions, TheReadableQueryIsTheLinkDecoded) {
  ViewerOptions o;
  o.normalize = true;
  o.highlight = {"No Encryption"};
  o.only_show = {"a&b"};
  EXPECT_EQ(o.ToQuery(), "nor&hgv%5B%5D=No%20Encryption&oss=a%26b");
  EXPECT_EQ(o.ToReadableQuery(), "nor&hgv[]=No Encryption&oss=a&b");
  EXPECT_EQ(ViewerOptions{}.ToReadableQuery(), "");
}

// A one-character oss/noss is ignored (PTS), judged on the words kept: "oss=n&oss" is "n" and an
// empty piece, so it is ignored too, and its link reads back as the same view (fuzz_viewer_options
// found "oss=n" written for it, which then read back as no filter).
TEST(ViewerOptions, AOneCharacterFilterIsIgnoredAfterEmptyPiecesAreDropped) {
  EXPECT_TRUE(ParseViewerQuery("oss=n&oss").only_show.empty());
  EXPECT_TRUE(ParseViewerQuery("noss=+n+,,").hide_matching.empty());
  EXPECT_EQ(ParseViewerQuery("oss=n&oss").ToQuery(), "");
  EXPECT_EQ(ParseViewerQuery("oss=ab&oss").only_show, std::vector<std::string>{"ab"});
  EXPECT_EQ(ParseViewerQuery("oss=a,b").only_show, (std::vector<std::string>{"a", "b"}));
}

// ---- PTS's figures on the published results ------------------------------------------------

ResultFile Seed(const std::string& name) {
  return ReadResultFile(test::ReferenceDir() + "/seed-results/" + name + "/composite.xml");
}
constexpr const char* k1110088 = "1110088-AR-1110066AR56";
constexpr const char* kUbuntu = "ubuntu-1304-disk-encryption";

std::vector<std::string> Titles(const ResultFile& f) {
  std::vector<std::string> out;
  for (const auto& r : f.results) out.push_back(r.title + " / " + r.description);
  return out;
}

TEST(ViewerFigures, GeometricMeanOverTheResultsEverySystemHasIsPts) {
  PTSN_REQUIRE_REFERENCE();
  // PTS's sgm: "Geometric Mean Of All Test Results", 3 decimals.
  const GeometricMeans a = GeometricMeanOfResults(Seed(k1110088));
  ASSERT_EQ(a.values.size(), 4u);
  const double pts_a[] = {33.838, 32.354, 56.057, 63.021};
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(a.values[i], pts_a[i], 0.0005) << a.systems[i];
  EXPECT_EQ(a.counted, 7u);
  EXPECT_EQ(a.comparable, 7u);
  const GeometricMeans b = GeometricMeanOfResults(Seed(kUbuntu));
  ASSERT_EQ(b.values.size(), 3u);
  const double pts_b[] = {386.396, 146.690, 198.443};
  for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(b.values[i], pts_b[i], 0.0005) << b.systems[i];
  EXPECT_EQ(b.counted, 13u);
}

TEST(ViewerFigures, AMissingValueLeavesItsResultOutOfTheMean) {
  PTSN_REQUIRE_REFERENCE();
  ResultFile f = Seed(kUbuntu);
  const GeometricMeans all = GeometricMeanOfResults(f);
  for (auto& r : f.results)
    if (r.title == "Dbench") std::erase_if(r.entries, [](const Entry& e) { return e.identifier == "Home Encryption"; });
  const GeometricMeans fewer = GeometricMeanOfResults(f);
  EXPECT_EQ(fewer.counted, all.counted - 2) << "two Dbench results lost a system";
  EXPECT_EQ(fewer.comparable, all.comparable);
  EXPECT_NE(fewer.values[0], all.values[0]);
}

TEST(ViewerFigures, HideNoisyRemovesWhatPtsRemoves) {
  PTSN_REQUIRE_REFERENCE();
  // PTS's hnr on 1110088 removes PostMark (and its CPU monitor child); on Ubuntu 13.04 nothing.
  ResultFile a = Seed(k1110088);
  const size_t before = a.results.size();
  ViewerOptions o;
  o.hide_noisy = true;
  ApplyViewerOptions(a, o);
  EXPECT_EQ(a.results.size(), before - 2);
  for (const auto& t : Titles(a)) EXPECT_EQ(t.find("PostMark"), std::string::npos) << t;
  ResultFile b = Seed(kUbuntu);
  ApplyViewerOptions(b, o);
  EXPECT_EQ(b.results.size(), 26u);
}

TEST(ViewerFigures, HideLittleChangeKeepsWhatPtsKeeps) {
  PTSN_REQUIRE_REFERENCE();
  ViewerOptions o;
  o.hide_little_change = true;
  ResultFile a = Seed(k1110088);
  ApplyViewerOptions(a, o);
  EXPECT_EQ(Titles(a), (std::vector<std::string>{
                           "FS-Mark / Test: 1000 Files, 1MB Size", "Dbench / Client Count: 12",
                           "Threaded I/O Tester / Test: Random Write - Size Per Thread: 64MB - Thread Count: 8",
                           "PostMark / Disk Transaction Performance",
                           "Flexible IO Tester / Test: Intel IOMeter File Server Access Pattern",
                           "SQLite / Test Target: Default Test Directory"}))
      << "IOzone: 102.79, 99.18, 106.14, 103.95: two within 3 % of their mean, over 30 % of four";
  ResultFile b = Seed(kUbuntu);
  ApplyViewerOptions(b, o);
  EXPECT_EQ(b.results.size(), 13u) << "every test result kept, every monitor series hidden";
}

TEST(ViewerFigures, OnlyShowHideMatchingAndHideSystemsArePts) {
  PTSN_REQUIRE_REFERENCE();
  ResultFile a = Seed(kUbuntu);
  ApplyViewerOptions(a, ParseViewerQuery("oss=fs-mark,Dbench"));
  EXPECT_EQ(a.results.size(), 10u);  // 5 tests and their monitor children
  ResultFile b = Seed(kUbuntu);
  ApplyViewerOptions(b, ParseViewerQuery("noss=monitor"));
  EXPECT_EQ(b.results.size(), 13u);
  ResultFile c = Seed(kUbuntu);
  ApplyViewerOptions(c, ParseViewerQuery("hni&rmm=Home+Encryption"));
  ASSERT_EQ(c.systems.size(), 2u);
  EXPECT_EQ(c.results.size(), 26u);
  for (const auto& r : c.results)
    for (const auto& e : r.entries) EXPECT_NE(e.identifier, "Home Encryption");
}

std::vector<double> NormalizedOf(const ResultFile& f, const std::string& title, const std::string& base) {
  for (const auto& r : f.results)
    if (r.title + " / " + r.description == title) {
      std::vector<double> out;
      const std::optional<Normalized> n = NormalizeResult(r, base);
      if (!n) return out;
      for (const auto& v : n->values) out.push_back(v.value_or(-1));
      return out;
    }
  return {};
}

void ExpectNear3(const std::vector<double>& ours, const std::vector<double>& pts) {
  ASSERT_EQ(ours.size(), pts.size());
  for (size_t i = 0; i < ours.size(); ++i) EXPECT_NEAR(ours[i], pts[i], 0.0005) << "value " << i;
}

TEST(ViewerFigures, NormalizeIsPtsIncludingMultiWayAndLowerIsBetter) {
  PTSN_REQUIRE_REFERENCE();
  const ResultFile a = Seed(k1110088);  // "GROUP: NAME" identifiers: a multi-way comparison
  ExpectNear3(NormalizedOf(a, "FS-Mark / Test: 1000 Files, 1MB Size", ""), {1.000, 0.971, 0.839, 1.000});
  ExpectNear3(NormalizedOf(a, "SQLite / Test Target: Default Test Directory", ""), {1.000, 0.932, 0.656, 1.000});
  ExpectNear3(NormalizedOf(a, "FS-Mark / Test: 1000 Files, 1MB Size", "Encrypted LVM (dmcrypt): Stock"),
              {1.000, 0.971, 1.000, 1.192});
  ExpectNear3(NormalizedOf(a, "SQLite / Test Target: Default Test Directory", "Encrypted LVM (dmcrypt): Stock"),
              {1.000, 0.932, 1.000, 1.525});
  const ResultFile b = Seed(kUbuntu);  // plain: against the worst, or the highlighted system
  ExpectNear3(NormalizedOf(b, "Dbench / Client Count: 1", ""), {2.294, 1.000, 1.921});
  ExpectNear3(NormalizedOf(b, "Flexible IO Tester / Test: Intel IOMeter File Server Access Pattern", ""),
              {2.419, 1.312, 1.000});
  ExpectNear3(NormalizedOf(b, "Flexible IO Tester / Test: Intel IOMeter File Server Access Pattern", "Home Encryption"),
              {1.844, 1.000, 0.762});
  ExpectNear3(NormalizedOf(b, "BlogBench / Test: Read", "Home Encryption"), {0.383, 1.000, 0.472});
}

TEST(ViewerFigures, OneHighlightedSystemBecomesTheBase) {
  PTSN_REQUIRE_REFERENCE();
  ResultFile b = Seed(kUbuntu);
  ApplyViewerOptions(b, ParseViewerQuery("hgv=Home+Encryption"));
  EXPECT_EQ(b.systems.front().identifier, "Home Encryption");
  ResultFile c = Seed(kUbuntu);
  ApplyViewerOptions(c, ParseViewerQuery("hgv[]=Home+Encryption&hgv[]=No+Encryption"));
  EXPECT_EQ(c.systems.front().identifier, "No Encryption") << "two highlighted: no base, the file's order";
}

TEST(ViewerFigures, SgmAddsPtsGeometricMeanResult) {
  PTSN_REQUIRE_REFERENCE();
  ResultFile b = Seed(kUbuntu);
  ApplyViewerOptions(b, ParseViewerQuery("sgm"));
  ASSERT_EQ(b.results.size(), 27u);
  const Result& g = b.results.back();
  EXPECT_EQ(g.title, "Geometric Mean Of All Test Results");
  ASSERT_EQ(g.entries.size(), 3u);
  EXPECT_EQ(g.entries[0].value, "386.396");
  EXPECT_EQ(g.entries[1].value, "146.690");
  EXPECT_EQ(g.entries[2].value, "198.443");
}

// ---- the rendered overview -------------------------------------------------------------------

TEST(ViewerHtml, OverviewHasEveryResultBySystemWithWordsBesideColour) {
  PTSN_REQUIRE_REFERENCE();
  ResultFile f = Seed(kUbuntu);
  HtmlView view;
  view.options = ParseViewerQuery("nor&hgv=Home+Encryption");
  ApplyViewerOptions(f, view.options);
  const std::string html = ResultFileToHtml(f, view);
  const size_t overview = html.find("<section id=\"overview\">");
  ASSERT_NE(overview, std::string::npos);
  const std::string table = html.substr(overview, html.find("</section>", overview) - overview);
  EXPECT_NE(table.find("Home Encryption (base)"), std::string::npos);
  EXPECT_NE(table.find("over all 13 results"), std::string::npos);
  EXPECT_NE(table.find("rel 0.762"), std::string::npos) << "FIO, Full-Disk against Home, normalized as PTS";
  // Every coloured cell says the same in words.
  for (size_t at = 0; (at = table.find("class=\"num better", at)) != std::string::npos; ++at)
    EXPECT_NE(table.substr(at, table.find("</td>", at) - at).find("better"), std::string::npos);
  for (size_t at = 0; (at = table.find("class=\"num worse", at)) != std::string::npos; ++at)
    EXPECT_NE(table.substr(at, table.find("</td>", at) - at).find("worse</span>"), std::string::npos);
  // One run of each: the verdict is unknown, with its ratio (the CLI's words).
  EXPECT_NE(table.find("class=\"verdict\""), std::string::npos);
  EXPECT_NE(table.find("unknown, x"), std::string::npos);
}

// ---- the options this slice adds --------------------------------------------------------------

TEST(ViewerOptions, OrdersFiltersAndExportReadBackAsTheSameView) {
  const ViewerOptions o = ParseViewerQuery("obr_shm&spr&swl&grt&grs&sor&rro&ftt=Home+Encryption&ftb=No+Encryption&export=CSV");
  EXPECT_TRUE(o.harmonic_means);
  EXPECT_TRUE(o.notable);
  EXPECT_TRUE(o.wins_losses);
  EXPECT_TRUE(o.reverse_systems);
  EXPECT_EQ(o.result_order, ResultOrder::kSpread) << "PTS tests grs before grt";
  EXPECT_EQ(o.system_order, SystemOrder::kPerformance);
  EXPECT_EQ(o.faster, "Home Encryption");
  EXPECT_EQ(o.slower, "No Encryption");
  EXPECT_EQ(o.export_format, "csv");
  const ViewerOptions back = ParseViewerQuery(o.ToQuery());
  EXPECT_EQ(back.ToQuery(), o.ToQuery());
  EXPECT_EQ(back.result_order, o.result_order);
  EXPECT_EQ(back.faster, o.faster);
  // ftt without ftb is no filter, as in PTS.
  EXPECT_TRUE(ParseViewerQuery("ftt=A").faster.empty());
  EXPECT_EQ(ParseViewerQuery("gru&rdt").system_order, SystemOrder::kRunDate);
  EXPECT_EQ(ParseViewerQuery("gru&rdt").result_order, ResultOrder::kUnit);
}

TEST(ViewerFigures, HarmonicMeansArePts) {
  PTSN_REQUIRE_REFERENCE();
  // PTS's shm on Ubuntu 13.04: one result, "Harmonic Mean Of MB/s Test Results", best first.
  const std::vector<Result> b = HarmonicMeanResults(Seed(kUbuntu));
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].title, "Harmonic Mean Of MB/s Test Results");
  ASSERT_EQ(b[0].entries.size(), 3u);
  const std::pair<const char*, const char*> pts[] = {
      {"No Encryption", "268.657"}, {"Full-Disk Encryption", "99.075"}, {"Home Encryption", "79.334"}};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(b[0].entries[i].identifier, pts[i].first);
    EXPECT_EQ(b[0].entries[i].value, pts[i].second);
  }
  // 1110088: no unit has 4 results: none, as in PTS.
  EXPECT_TRUE(HarmonicMeanResults(Seed(k1110088)).empty());
  ResultFile f = Seed(kUbuntu);
  ViewerOptions o;
  o.harmonic_means = true;
  ApplyViewerOptions(f, o);
  EXPECT_EQ(f.results.back().title, "Harmonic Mean Of MB/s Test Results");
}

TEST(ViewerFigures, NotableResultsArePts) {
  PTSN_REQUIRE_REFERENCE();
  // PTS's spr (process_helper_html): 15 results / 4 = 3 on 1110088, 26 / 4 = 6 on Ubuntu.
  auto notable = [](const ResultFile& f) {
    std::vector<std::string> out;
    for (size_t i : NotableResults(f)) out.push_back(f.results[i].title + " / " + f.results[i].description);
    return out;
  };
  EXPECT_EQ(notable(Seed(k1110088)),
            (std::vector<std::string>{"Dbench / Client Count: 12",
                                      "Threaded I/O Tester / Test: Random Write - Size Per Thread: 64MB - Thread Count: 8",
                                      "SQLite / Test Target: Default Test Directory"}));
  EXPECT_EQ(notable(Seed(kUbuntu)),
            (std::vector<std::string>{"PostMark / Disk Transaction Performance",
                                      "IOzone / Record Size: 1MB - File Size: 8GB - Disk Test: Write Performance",
                                      "Compile Bench / Test: Compile", "Compile Bench / Test: Initial Create",
                                      "FS-Mark / Test: 4000 Files, 32 Sub Dirs, 1MB Size",
                                      "FS-Mark / Test: 1000 Files, 1MB Size"}));
  // The means shm and sgm add are neither listed nor counted.
  ResultFile with_means = Seed(kUbuntu);
  ApplyViewerOptions(with_means, ParseViewerQuery("shm&sgm"));
  EXPECT_EQ(notable(with_means), notable(Seed(kUbuntu)));
  // get_spread: PostMark on 1110088 is noisy (-1); Dbench's best/worst as PTS prints it.
  for (const auto& r : Seed(k1110088).results) {
    if (r.title == "Dbench" && !r.parent) {
      EXPECT_NEAR(Spread(r), 2.5941965587635, 1e-9);
    }
    if (r.title == "PostMark" && !r.parent) {
      EXPECT_EQ(Spread(r), -1);
    }
  }
}

TEST(ViewerFigures, FasterThanKeepsWhatPtsKeeps) {
  PTSN_REQUIRE_REFERENCE();
  // PTS: ftt=Home Encryption&ftb=Full-Disk Encryption keeps 8 of 26 (monitor series compared as text).
  ResultFile f = Seed(kUbuntu);
  ApplyViewerOptions(f, ParseViewerQuery("ftt=Home+Encryption&ftb=Full-Disk+Encryption"));
  EXPECT_EQ(Titles(f), (std::vector<std::string>{
                           "FS-Mark / Test: 5000 Files, 1MB Size, 4 Threads", "FS-Mark / CPU Usage Monitor",
                           "Flexible IO Tester / Test: Intel IOMeter File Server Access Pattern",
                           "Flexible IO Tester / CPU Usage Monitor", "Compile Bench / Test: Compile",
                           "IOzone / Record Size: 1MB - File Size: 8GB - Disk Test: Write Performance",
                           "IOzone / CPU Usage Monitor", "BlogBench / Test: Read"}));
  // A system not in the file: nothing is left (PTS: no value, removed).
  ResultFile g = Seed(k1110088);
  ApplyViewerOptions(g, ParseViewerQuery("ftt=EXT4: Stock&ftb=LVM: Stock"));
  EXPECT_TRUE(g.results.empty());
}

TEST(ViewerFigures, ResultOrdersArePts) {
  PTSN_REQUIRE_REFERENCE();
  auto first = [](const char* query, size_t n) {
    ResultFile f = Seed(kUbuntu);
    ApplyViewerOptions(f, ParseViewerQuery(query));
    std::vector<std::string> t = Titles(f);
    t.resize(n);
    return t;
  };
  // grs: by spread, largest first; the -1s (monitors) after them, last in file order first.
  EXPECT_EQ(first("grs", 4), (std::vector<std::string>{
                                 "PostMark / Disk Transaction Performance",
                                 "IOzone / Record Size: 1MB - File Size: 8GB - Disk Test: Write Performance",
                                 "Compile Bench / Test: Compile", "Compile Bench / Test: Initial Create"}));
  EXPECT_EQ(first("grs", 14)[13], "CPU Usage Monitor / Phoronix Test Suite System Monitoring");
  EXPECT_EQ(first("grt", 3), (std::vector<std::string>{"BlogBench / Test: Read", "BlogBench / CPU Usage Monitor",
                                                       "Compile Bench / Test: Initial Create"}));
  // gru: by direction ("" < HIB < LIB), then unit.
  const auto u = first("gru", 26);
  EXPECT_EQ(u[0], "CPU Usage Monitor / Phoronix Test Suite System Monitoring");
  EXPECT_EQ(u[4], "BlogBench / Test: Read");
  EXPECT_EQ(u[12], "PostMark / Disk Transaction Performance");
  EXPECT_EQ(u[25], "Flexible IO Tester / Test: Intel IOMeter File Server Access Pattern");
}

// grr on a file PTS 10.8.6 wrote with run times (bench/pts_viewer.php on pts-output/merged, "grr"):
// 4KB (mean of 26.63 and 26.23 s) before 1MB (23.89 and 23.90 s), then the monitor series, which
// have no run times, in reverse file order (1MB's series first: its Baseline starts at 84.21).
TEST(ViewerFigures, RunTimeOrderIsPts) {
  PTSN_REQUIRE_REFERENCE();
  ResultFile f = ReadResultFile(test::ReferenceDir() + "/pts-output/merged/composite.xml");
  ASSERT_EQ(f.results.size(), 4u);
  EXPECT_NEAR(RunTimeAverage(f.results[0]), (26.63 + 26.23) / 2, 1e-9);
  EXPECT_EQ(RunTimeAverage(f.results[1]), -1);
  ApplyViewerOptions(f, ParseViewerQuery("grr"));
  EXPECT_EQ(Titles(f), (std::vector<std::string>{"Sample Disk / Block Size: 4KB", "Sample Disk / Block Size: 1MB",
                                                 "Sample Disk / CPU Usage (Summary) Monitor",
                                                 "Sample Disk / CPU Usage (Summary) Monitor"}));
  EXPECT_EQ(f.results[2].entries.at(0).value.substr(0, 6), "84.21,");
  EXPECT_EQ(f.results[3].entries.at(0).value.substr(0, 7), "100.00,");
  // The published files predate run times: grr leaves them in file order (PTS reverses them).
  ResultFile u = Seed(kUbuntu);
  EXPECT_FALSE(HasRunTimes(u));
  const std::vector<std::string> before = Titles(u);
  ApplyViewerOptions(u, ParseViewerQuery("grr"));
  EXPECT_EQ(Titles(u), before);
}

TEST(ViewerFigures, ValueOrdersFollowTheOptions) {
  PTSN_REQUIRE_REFERENCE();
  auto order = [](const char* query) {
    ResultFile f = Seed(kUbuntu);
    ApplyViewerOptions(f, ParseViewerQuery(query));
    std::vector<std::string> ids;
    for (const auto& r : f.results)
      if (r.title == "BlogBench" && !r.parent)
        for (const auto& e : r.entries) ids.push_back(e.identifier);
    return ids;
  };
  // BlogBench Read: 291645 / 760809 / 358969, higher is better.
  EXPECT_EQ(order("sor"), (std::vector<std::string>{"Home Encryption", "Full-Disk Encryption", "No Encryption"}));
  EXPECT_EQ(order("sro"), (std::vector<std::string>{"Full-Disk Encryption", "Home Encryption", "No Encryption"}));
  EXPECT_EQ(order("sor&rro"), (std::vector<std::string>{"No Encryption", "Full-Disk Encryption", "Home Encryption"}));
}

// grr's key: the systems' run times added up, averaged over the systems above 0; ties keep
// their file order before the reversal, so the later of two equal results comes first.
TEST(ViewerOptions, RunTimeOrderIsLongestFirst) {
  auto result = [](const std::string& title, std::vector<std::optional<std::string>> times) {
    Result r;
    r.identifier = "pts/" + title + "-1.0.0";
    r.title = title;
    for (size_t i = 0; i < times.size(); ++i) {
      std::optional<std::string> json;
      if (times[i]) json = "{\"test-run-times\":\"" + *times[i] + "\"}";
      r.entries.push_back({"S" + std::to_string(i), "1", std::nullopt, json});
    }
    return r;
  };
  ResultFile f;
  f.systems = {{.identifier = "S0"}, {.identifier = "S1"}};
  f.results = {result("a", {"1:2", "0:0"}), result("b", {"10", std::nullopt}), result("c", {"2", "4"}),
               result("d", {std::nullopt, std::nullopt}), result("e", {"3", "3"})};
  EXPECT_EQ(RunTimeAverage(f.results[0]), 3);  // S1's 0 s is not counted
  EXPECT_EQ(RunTimeAverage(f.results[3]), -1);
  ApplyViewerOptions(f, ParseViewerQuery("grr"));
  std::string order;
  for (const auto& r : f.results) order += r.title;
  EXPECT_EQ(order, "becad");
  EXPECT_EQ(ParseViewerQuery("grr").ToQuery(), "grr");
  EXPECT_EQ(ParseViewerQuery("gru&grr").result_order, ResultOrder::kUnit) << "PTS tests gru before grr";
}

// grw (by the suites holding each test): a result file names no suites, so the file's order stays
// and the page says why; it still takes its place among the orders (after grt, before gru).
TEST(ViewerOptions, CommonWorkloadsOrderKeepsTheFileOrderAndSaysWhy) {
  PTSN_REQUIRE_REFERENCE();
  ResultFile f = Seed(kUbuntu);
  const std::vector<std::string> before = Titles(f);
  const auto notes = ApplyViewerOptions(f, ParseViewerQuery("obr_grw"));
  EXPECT_EQ(Titles(f), before);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("grw keeps the file's order here"), std::string::npos) << notes[0];
  EXPECT_EQ(ParseViewerQuery("grw").ToQuery(), "grw");
  EXPECT_EQ(ParseViewerQuery("grw&gru").result_order, ResultOrder::kCommonSuites) << "PTS tests grw before gru";
  EXPECT_EQ(ParseViewerQuery("grt&grw").result_order, ResultOrder::kTitle);
  EXPECT_TRUE(ApplyViewerOptions(f, ParseViewerQuery("gru")).empty());
}

// Two systems, two results: X's first value has trials 90/100/110, the rest have no spread.
ResultFile TwoByTwo() {
  ResultFile f;
  f.systems = {{.identifier = "X"}, {.identifier = "Y"}};
  Result a;
  a.identifier = "pts/a-1.0.0";
  a.title = "A";
  a.scale = "MB/s";
  a.proportion = "HIB";
  a.entries = {{"X", "100", "90:100:110", std::nullopt}, {"Y", "50", "50:50:50", std::nullopt}};
  Result b = a;
  b.identifier = "pts/b-1.0.0";
  b.title = "B";
  b.proportion = "LIB";
  b.entries = {{"X", "0.5", "0.5:0.5:0.5", std::nullopt}, {"Y", "0.5", "0.5:0.5:0.5", std::nullopt}};
  f.results = {a, b};
  return f;
}

TEST(ViewerFigures, GeometricMeanIntervalIsTheDeltaMethodOnTheLogScale) {
  const GeometricMeans g = GeometricMeanOfResults(TwoByTwo());
  ASSERT_EQ(g.values.size(), 2u);
  EXPECT_NEAR(g.values[0], std::sqrt(100.0 * 200.0), 1e-9) << "LIB as 100/x";
  // Var(log X's mean) = (SD/mean)^2 / n = 0.1^2 / 3 for result A, 0 for B; over k = 2 results.
  const double se = std::sqrt(0.01 / 3) / 2;
  ASSERT_EQ(g.low.size(), 2u);
  EXPECT_NEAR(g.low[0], g.values[0] * std::exp(-1.959964 * se), 1e-6);
  EXPECT_NEAR(g.high[0], g.values[0] * std::exp(1.959964 * se), 1e-6);
  EXPECT_EQ(g.low[1], g.values[1]) << "no spread in Y's trials";
  // Y against X: only X's variance.
  EXPECT_NEAR(g.ratio_low[1], g.values[1] / g.values[0] * std::exp(-1.959964 * se), 1e-9);
  EXPECT_NEAR(g.ratio_low[0], 1 * std::exp(-1.959964 * se * std::sqrt(2.0)), 1e-9);
  // A value without trials: no interval.
  ResultFile f = TwoByTwo();
  f.results[1].entries[0].raw_string.reset();
  f.results[1].entries[0].value = "0.5";
  EXPECT_TRUE(GeometricMeanOfResults(f).low.empty());
  EXPECT_EQ(GeometricMeanOfResults(f).values.size(), 2u) << "the mean itself stays";
}

// A file whose systems are the entries' identifiers and whose two results, H (MB/s, higher is
// better) and L (Seconds, lower is better), both hold `entries`.
ResultFile HibAndLib(const std::vector<Entry>& entries) {
  ResultFile f;
  for (const auto& e : entries) f.systems.push_back({.identifier = e.identifier});
  Result hib;
  hib.identifier = "pts/h-1.0.0";
  hib.title = "H";
  hib.scale = "MB/s";
  hib.proportion = "HIB";
  hib.entries = entries;
  Result lib = hib;
  lib.identifier = "pts/l-1.0.0";
  lib.title = "L";
  lib.scale = "Seconds";
  lib.proportion = "LIB";
  f.results = {hib, lib};
  return f;
}

// Runs of two set-ups ("A", "A run 2", "B", "B run 2"): B decidedly ahead on HIB, behind on LIB.
ResultFile TwoSetUpsTwoRuns() {
  return HibAndLib({{"A", "100", "99:100:101", std::nullopt},
                    {"A run 2", "100.5", "100:100.5:101", std::nullopt},
                    {"B", "150", "149:150:151", std::nullopt},
                    {"B run 2", "150.5", "150:150.5:151", std::nullopt}});
}

TEST(ViewerFigures, FasterDecidedlyKeepsOnlyWhatTheVerdictDecides) {
  // B's runs are 1.5 times A's: better on H (HIB), worse on L (LIB).
  auto kept = [](const char* query) {
    ResultFile f = TwoSetUpsTwoRuns();
    ApplyViewerOptions(f, ParseViewerQuery(query));
    return Titles(f);
  };
  EXPECT_EQ(kept("ftt=B&ftb=A"), (std::vector<std::string>{"H / "})) << "PTS's ftt/ftb alone";
  EXPECT_EQ(kept("ftt=B&ftb=A&ftd=10"), (std::vector<std::string>{"H / "}));
  EXPECT_TRUE(kept("ftt=B&ftb=A&ftd=60").empty()) << "x1.5 is not 60 % better";
  EXPECT_EQ(kept("ftt=A&ftb=B&ftd=0"), (std::vector<std::string>{"L / "}));
  // One run of each set-up decides nothing: nothing is kept, where PTS's ftt keeps H.
  ResultFile one = TwoSetUpsTwoRuns();
  for (auto& r : one.results)
    std::erase_if(r.entries, [](const Entry& e) { return e.identifier.find("run 2") != std::string::npos; });
  ApplyViewerOptions(one, ParseViewerQuery("ftt=B&ftb=A&ftd=0"));
  EXPECT_TRUE(one.results.empty());
  // The link keeps it; without ftt/ftb it means nothing.
  EXPECT_EQ(ParseViewerQuery("ftt=B&ftb=A&ftd=12.5").ToQuery(), "ftt=B&ftb=A&ftd=12.5");
  EXPECT_FALSE(ParseViewerQuery("ftd=5").decided_by_percent);
  EXPECT_FALSE(ParseViewerQuery("ftt=B&ftb=A&ftd=-1").decided_by_percent);
}

// A run across targets: instances "A", "A #2", "B", "B #2", trials in rounds ("interleaved").
// The two instances of A differ by 2x (where each target's files lie), but within each instance
// pair B is 1.50 and 1.52 times A, round by round: the instance pairs decide "different", the
// runs (A: 100 and 200, B: 150 and 304, judged as separate runs) cannot.
ResultFile TargetsRun() {
  const std::string rounds = "{\"interleaved\":true}";
  return HibAndLib({{"A", "100", "99:100:101", rounds},
                    {"A #2", "200", "199:200:201", rounds},
                    {"B", "150", "148.5:150:151.5", rounds},
                    {"B #2", "304", "302.48:304:305.52", rounds}});
}

TEST(ViewerFigures, FasterDecidedlyInARunAcrossTargetsFollowsTheInstancePairsAsTheOverviewDoes) {
  const ResultFile f = TargetsRun();
  ASSERT_TRUE(TrialsInterleaved(f));
  const Result& h = f.results[0];
  // The premise: the verdicts disagree here. By runs unknown, by instance pairs different.
  std::vector<std::vector<double>> a, b;
  for (const auto& e : h.entries) (e.identifier[0] == 'A' ? a : b).push_back(NumericTrials(e));
  EXPECT_EQ(DecideRunsVerdict(a, b, {}).kind, VerdictKind::kUnknown);
  const auto pairs = VerdictsAgainstFirst(ResultSystemTrials(f, h), LevelOfRun(h, {}));
  ASSERT_EQ(pairs.size(), 1u);
  ASSERT_EQ(pairs[0].verdict.kind, VerdictKind::kDifferent);
  EXPECT_GT(pairs[0].verdict.ci_low, 1.1);
  EXPECT_LT(pairs[0].verdict.ci_low, 1.5);

  auto kept = [](ResultFile file, const char* query) {
    ApplyViewerOptions(file, ParseViewerQuery(query));
    return Titles(file);
  };
  EXPECT_EQ(kept(f, "ftt=B&ftb=A&ftd=10"), (std::vector<std::string>{"H / "})) << "the pairs decide it";
  EXPECT_EQ(kept(f, "ftt=A&ftb=B&ftd=10"), (std::vector<std::string>{"L / "}));
  EXPECT_TRUE(kept(f, "ftt=B&ftb=A&ftd=60").empty()) << "the pairs' interval does not reach x1.6";
  // ftb's set-up is the reference whichever comes first in the file.
  ResultFile b_first = f;
  std::rotate(b_first.systems.begin(), b_first.systems.begin() + 2, b_first.systems.end());
  EXPECT_EQ(kept(b_first, "ftt=B&ftb=A&ftd=10"), (std::vector<std::string>{"H / "}));
  // Without the rounds the same values are separate runs: unknown, nothing kept.
  ResultFile runs = f;
  for (auto& r : runs.results)
    for (auto& e : r.entries) e.json.reset();
  EXPECT_TRUE(kept(runs, "ftt=B&ftb=A&ftd=10").empty());

  // The overview's cell for B on H says the same verdict that ftd kept it by.
  const std::string html = ResultFileToHtml(f, {});
  const size_t row = html.find("<tr data-result=\"r1\">");
  ASSERT_NE(row, std::string::npos);
  const std::string cells = html.substr(row, html.find("</tr>", row) - row);
  char shown[64];
  std::snprintf(shown, sizeof shown, "different, x%.3f [%.3f, %.3f]", pairs[0].verdict.ratio, pairs[0].verdict.ci_low,
                pairs[0].verdict.ci_high);
  EXPECT_NE(cells.find(shown), std::string::npos) << cells;
}

TEST(ViewerHtml, DecidedWinsAndLossesCountOnlyDifferentVerdictsAndSwlShowsPts) {
  ResultFile f = TwoSetUpsTwoRuns();
  HtmlView view;
  view.options = ParseViewerQuery("swl");
  const std::string html = ResultFileToHtml(f, view);
  const size_t row = html.find("<tr class=\"decided\">");
  ASSERT_NE(row, std::string::npos);
  const std::string decided = html.substr(row, html.find("</tr>", row) - row);
  EXPECT_NE(decided.find("against the base (over the 2 test results)</th>"), std::string::npos) << decided;
  // B and B run 2: "different" both times, better on H (HIB), worse on L (LIB).
  EXPECT_NE(decided.find("data-system=\"B\"><span class=\"wl\">1 won, 1 lost</span>"), std::string::npos) << decided;
  const size_t swl = html.find("<tr class=\"swl\">");
  ASSERT_NE(swl, std::string::npos);
  const std::string pts = html.substr(swl, html.find("</tr>", swl) - swl);
  // PTS: B run 2 is first on H and last on L, A first on L and last on H; no verdict asked.
  EXPECT_NE(pts.find("data-system=\"B run 2\">1 first, 1 last"), std::string::npos) << pts;
  EXPECT_NE(pts.find("data-system=\"A\">1 first, 1 last"), std::string::npos) << pts;
  // The geometric mean row has its interval.
  EXPECT_NE(html.find("class=\"gm-ci\""), std::string::npos);
  EXPECT_NE(html.find("class=\"gm-ratio\""), std::string::npos);
}

TEST(ViewExport, EachFormatAndPdfRefusedWithWhatToDo) {
  PTSN_REQUIRE_REFERENCE();
  ResultFile f = Seed(kUbuntu);
  ViewerOptions o = ParseViewerQuery("oss=BlogBench&export=csv");
  ApplyViewerOptions(f, o);
  const std::string csv = ExportView(f, o);
  EXPECT_NE(csv.find("BlogBench"), std::string::npos);
  EXPECT_EQ(csv.find("PostMark"), std::string::npos) << "the view, not the file";
  EXPECT_STREQ(FindExportFormat("csv-all").content_type, "text/csv; charset=utf-8");
  o.export_format = "xml";
  EXPECT_EQ(ParseResultFile(ExportView(f, o), "export").results.size(), f.results.size());
  try {
    FindExportFormat("pdf");
    FAIL() << "pdf is refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("print it to PDF"), std::string::npos);
  }
  EXPECT_THROW(FindExportFormat("docx"), Error);
}

// ---- cmw and imw: multi-way comparisons (multi_way.h) -----------------------------------------

TEST(ViewerMultiWay, CmwAndImwParseUnderBothNamesAndReadBack) {
  const ViewerOptions o = ParseViewerQuery("obr_cmw&imw=0");
  EXPECT_TRUE(o.condense_multi_way);
  EXPECT_TRUE(o.transpose_multi_way);
  EXPECT_EQ(o.ToQuery(), "cmw&imw");
  EXPECT_EQ(ParseViewerQuery(o.ToQuery()).ToQuery(), o.ToQuery());
  EXPECT_FALSE(ParseViewerQuery("nor").condense_multi_way);
}

const Result* FindResult(const ResultFile& f, const std::string& title, const std::string& description_prefix) {
  for (const auto& r : f.results)
    if (r.title == title && r.description.rfind(description_prefix, 0) == 0) return &r;
  return nullptr;
}

TEST(ViewerMultiWay, CmwCondensesATestsOptionSetsIntoOneGroupedResult) {
  PTSN_REQUIRE_REFERENCE();
  ResultFile f = Seed(kUbuntu);
  const std::vector<std::string> notes = ApplyViewerOptions(f, ParseViewerQuery("cmw"));
  EXPECT_TRUE(notes.empty());
  // dbench x2, fs-mark x3, compilebench x2 and iozone x2 become one result each: 13 tests, 8 left.
  size_t tests = 0;
  for (const auto& r : f.results) tests += r.display_format == "BAR_GRAPH" && !r.parent;
  EXPECT_EQ(tests, 8u);
  const Result* dbench = FindResult(f, "Dbench", "Client Count");
  ASSERT_NE(dbench, nullptr);
  EXPECT_EQ(dbench->description, "Client Count: 1; 6");
  EXPECT_TRUE(MultiWay(*dbench));
  ASSERT_EQ(dbench->entries.size(), 6u);
  EXPECT_EQ(dbench->entries[0].identifier, "1: No Encryption");
  EXPECT_EQ(dbench->entries[0].value, "209.51");
  EXPECT_EQ(dbench->entries[4].identifier, "6: Home Encryption");
  EXPECT_EQ(dbench->entries[4].value, "268.76");
  const Result* iozone = FindResult(f, "IOzone", "Disk Test");
  ASSERT_NE(iozone, nullptr);
  EXPECT_EQ(iozone->description, "Disk Test: Write Performance; Read Performance - Record Size: 1MB - File Size: 8GB");
  EXPECT_EQ(iozone->entries[5].identifier, "Read Performance: Full-Disk Encryption");
  EXPECT_EQ(iozone->entries[5].value, "167.60");
  const Result* fs_mark = FindResult(f, "FS-Mark", "Test");
  ASSERT_NE(fs_mark, nullptr);
  EXPECT_EQ(fs_mark->entries.size(), 9u);
  // The replaced results' monitor children went with them: of 12, those of pgbench, fio,
  // postmark and blogbench (not condensed) stay.
  size_t monitors = 0;
  for (const auto& r : f.results) monitors += r.parent.has_value();
  EXPECT_EQ(monitors, 4u);
}

// Dbench at one client count, with these values: the test cmw condenses.
Result Dbench(const char* clients, std::vector<Entry> entries) {
  Result r;
  r.identifier = "pts/dbench-1.0.0";
  r.title = "Dbench";
  r.description = std::string("Client Count: ") + clients;
  r.scale = "MB/s";
  r.proportion = "HIB";
  r.entries = std::move(entries);
  return r;
}

// Two systems `a` and `b` and Dbench at 1 client (10 and 11) and at 6 (60 and 66): a test under
// two option sets, for cmw.
ResultFile DbenchTwoOptionSets(const char* a, const char* b) {
  ResultFile f;
  for (const char* id : {a, b}) f.systems.push_back({id, "", "", "", "", "", {}, {}, {}});
  f.results = {Dbench("1", {{a, "10", {}, {}}, {b, "11", {}, {}}}), Dbench("6", {{a, "60", {}, {}}, {b, "66", {}, {}}})};
  return f;
}

TEST(ViewerMultiWay, CmwOnAMultiWayFileKeepsTwoWaysAndImwSwapsThem) {
  ResultFile f = DbenchTwoOptionSets("EXT4: Stock", "XFS: Stock");
  ResultFile g = f;
  EXPECT_TRUE(ApplyViewerOptions(f, ParseViewerQuery("cmw")).empty());
  ASSERT_EQ(f.results.size(), 1u);
  ASSERT_EQ(f.results[0].entries.size(), 4u);
  EXPECT_EQ(f.results[0].entries[3].identifier, "6: XFS / Stock");
  EXPECT_EQ(f.results[0].entries[3].value, "66");
  EXPECT_TRUE(MultiWay(f.results[0]));
  EXPECT_TRUE(ApplyViewerOptions(g, ParseViewerQuery("cmw&imw")).empty());
  EXPECT_EQ(g.results[0].entries[3].identifier, "XFS / Stock: 6");
  EXPECT_EQ(g.systems[1].identifier, "XFS: Stock") << "the systems are not all in a transposed result";
}

// A test run twice with the same options is not an option set: the repeat stays its own result
// (merged, the condensed result named the group "1" twice).
TEST(ViewerMultiWay, CmwLeavesARepeatOfTheSameOptionsOutOfTheGroup) {
  ResultFile f;
  f.systems.push_back({"A", "", "", "", "", "", {}, {}, {}});
  auto dbench = [](const char* clients, const char* value) { return Dbench(clients, {{"A", value, {}, {}}}); };
  f.results = {dbench("1", "10"), dbench("1", "12"), dbench("6", "60")};
  EXPECT_TRUE(ApplyViewerOptions(f, ParseViewerQuery("cmw")).empty());
  ASSERT_EQ(f.results.size(), 2u);
  ASSERT_EQ(f.results[0].entries.size(), 2u);
  EXPECT_EQ(f.results[0].entries[0].identifier, "1: A");
  EXPECT_EQ(f.results[0].entries[0].value, "10");
  EXPECT_EQ(f.results[0].entries[1].identifier, "6: A");
  EXPECT_EQ(f.results[0].description, "Client Count: 1; 6");
  EXPECT_EQ(f.results[1].description, "Client Count: 1");
  EXPECT_EQ(f.results[1].entries[0].value, "12");
}

// cts is PTS's name for what cmw does here: the same view, whose link says cmw.
TEST(ViewerMultiWay, CtsCondensesAsCmwAndReadsBackAsCmw) {
  for (const char* query : {"cts", "obr_cts"}) {
    SCOPED_TRACE(query);
    const ViewerOptions o = ParseViewerQuery(query);
    EXPECT_TRUE(o.condense_multi_way);
    EXPECT_EQ(o.ToQuery(), "cmw");
  }
  ResultFile f;
  f.systems.push_back({"A", "", "", "", "", "", {}, {}, {}});
  f.results = {Dbench("1", {{"A", "10", {}, {}}}), Dbench("6", {{"A", "60", {}, {}}})};
  EXPECT_TRUE(ApplyViewerOptions(f, ParseViewerQuery("cts")).empty());
  ASSERT_EQ(f.results.size(), 1u);
  EXPECT_EQ(f.results[0].entries[1].identifier, "6: A");
}

// Dbench in test profile `version`, program version `app`, at one client count.
Result DbenchVersion(const char* version, const char* app, std::vector<Entry> entries) {
  Result r = Dbench("1", std::move(entries));
  r.identifier = std::string("pts/dbench-") + version;
  r.app_version = app;
  return r;
}

TEST(ViewerMultiWay, CmvCondensesATestsVersionsIntoOneResultWithoutTheirMonitors) {
  EXPECT_TRUE(ParseViewerQuery("obr_cmv").condense_versions);
  EXPECT_EQ(ParseViewerQuery("cmv&cts").ToQuery(), "cmw&cmv");
  ResultFile f;
  for (const char* id : {"A", "B"}) f.systems.push_back({id, "", "", "", "", "", {}, {}, {}});
  Result monitor;
  monitor.title = "CPU Usage";
  monitor.display_format = "LINE_GRAPH";
  f.results = {DbenchVersion("1.0.0", "4.0", {{"A", "10", {}, {}}, {"B", "11", {}, {}}}),
               Dbench("6", {{"A", "60", {}, {}}, {"B", "66", {}, {}}}),
               DbenchVersion("1.0.2", "4.1", {{"A", "20", {}, {}}, {"B", "22", {}, {}}})};
  monitor.parent = ComparisonHash(f.results[2]);
  monitor.entries = {{"A", "1,2", {}, {}}};
  f.results.push_back(monitor);
  EXPECT_TRUE(ApplyViewerOptions(f, ParseViewerQuery("cmv")).empty());
  ASSERT_EQ(f.results.size(), 2u) << "the monitor went with the 1.0.2 result";
  const Result& v = f.results[0];
  EXPECT_EQ(v.description, "Version Comparison (Client Count: 1)");
  EXPECT_EQ(v.title, "Dbench");
  EXPECT_TRUE(v.identifier.empty());
  ASSERT_EQ(v.entries.size(), 4u);
  EXPECT_EQ(v.entries[0].identifier, "4.0: A");
  EXPECT_EQ(v.entries[3].identifier, "4.1: B");
  EXPECT_EQ(v.entries[3].value, "22");
  EXPECT_TRUE(MultiWay(v));
  EXPECT_EQ(f.results[1].description, "Client Count: 6");

  // The same program version in both profiles: the profiles' versions name the groups.
  ResultFile same;
  same.systems = f.systems;
  same.results = {DbenchVersion("1.0.0", "4.0", {{"A", "10", {}, {}}}), DbenchVersion("1.0.2", "4.0", {{"A", "20", {}, {}}})};
  ResultFile none = same;
  ApplyViewerOptions(same, ParseViewerQuery("cmv"));
  ASSERT_EQ(same.results.size(), 1u);
  EXPECT_EQ(same.results[0].entries[1].identifier, "1.0.2: A");

  // Another unit, or a test in one version only: nothing to condense.
  none.results[1].scale = "ms";
  const std::vector<std::string> notes = ApplyViewerOptions(none, ParseViewerQuery("cmv"));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rfind("cmv has no effect here", 0), 0u);
  EXPECT_EQ(none.results.size(), 2u);
}

// hgv names a system by the name the form lists (the file's); under imw that system is named
// "B: A": it is still the one highlighted and the base (and so is the swapped name itself).
TEST(ViewerMultiWay, HgvFollowsImwsSwapOfTheSystemsNames) {
  ResultFile f;
  for (const char* id : {"EXT4: Stock", "XFS: Stock"}) f.systems.push_back({id, "", "", "", "", "", {}, {}, {}});
  f.results = {Dbench("1", {{"EXT4: Stock", "10", {}, {}}, {"XFS: Stock", "20", {}, {}}})};
  for (const char* query : {"imw&nor&hgv=XFS: Stock", "imw&nor&hgv=Stock: XFS"}) {
    SCOPED_TRACE(query);
    ResultFile g = f;
    HtmlView view;
    view.options = ParseViewerQuery(query);
    view.notes = ApplyViewerOptions(g, view.options);
    ASSERT_EQ(g.systems[1].identifier, "Stock: EXT4");  // (not yet the base)
    ASSERT_EQ(g.systems[0].identifier, "Stock: XFS") << "the base comes first";
    EXPECT_EQ(NormalizationBase(g, view.options), "Stock: XFS");
    const auto n = NormalizeResult(g.results[0], NormalizationBase(g, view.options));
    ASSERT_TRUE(n);
    EXPECT_DOUBLE_EQ(*n->values[0], 0.5);  // EXT4 against XFS
    const std::string html = ResultFileToHtml(g, view);
    EXPECT_NE(html.find("<th data-system=\"Stock: XFS\" class=\"hl\">"), std::string::npos);
    EXPECT_NE(html.find("<th data-system=\"Stock: EXT4\">"), std::string::npos);
  }
}

// A condensed result's values are "GROUP: SYSTEM": the overview and the CSV export give it a row
// per option set, its values under their systems.
TEST(ViewerMultiWay, CondensedResultHasARowPerOptionSetInTheOverviewAndCsv) {
  ResultFile f = DbenchTwoOptionSets("A", "B: x");
  HtmlView view;
  view.options = ParseViewerQuery("cmw");
  view.notes = ApplyViewerOptions(f, view.options);
  ASSERT_EQ(f.results.size(), 1u);
  const auto parts = SplitByGroup(f.results[0], f.systems);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1].first, "6");
  EXPECT_EQ(parts[1].second.title, "Dbench (6)");  // (no program version in this file)
  ASSERT_EQ(parts[1].second.entries.size(), 2u);
  EXPECT_EQ(parts[1].second.entries[1].identifier, "B: x");
  EXPECT_EQ(parts[1].second.entries[1].value, "66");
  EXPECT_TRUE(SplitByGroup(f.results[0], {}).empty()) << "names that are no system's";

  const std::string html = ResultFileToHtml(f, view);
  const size_t row = html.find("<tr data-result=\"r1\" data-group=\"6\">");
  ASSERT_NE(row, std::string::npos) << html;
  const std::string cells = html.substr(row, html.find("</tr>", row) - row);
  EXPECT_NE(cells.find("Dbench (6) - Client Count: 1; 6"), std::string::npos);
  EXPECT_NE(cells.find("data-system=\"B: x\"><span class=\"v\">66</span>"), std::string::npos) << cells;

  const std::string csv = ResultFileToCsv(f);
  EXPECT_NE(csv.find("Title,Description,Scale,Proportion,A,B: x\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("Dbench (1),Client Count: 1; 6,MB/s,HIB,10,11\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("Dbench (6),Client Count: 1; 6,MB/s,HIB,60,66\n"), std::string::npos) << csv;

  // JSON keeps PTS's keys ("6: B / x") and adds the group and system of each.
  const nlohmann::json json = nlohmann::json::parse(ResultFileToJson(f));
  const nlohmann::json& values = json["results"].begin().value()["results"];
  ASSERT_TRUE(values.contains("6: B / x")) << values.dump();
  EXPECT_EQ(values["6: B / x"]["ptsn_group"], "6");
  EXPECT_EQ(values["6: B / x"]["ptsn_system"], "B: x");
  EXPECT_EQ(values["1: A"]["ptsn_system"], "A");
  ResultFile plain;
  plain.systems = f.systems;
  plain.results = {Dbench("1", {{"A", "10", {}, {}}})};
  EXPECT_EQ(ResultFileToJson(plain).find("ptsn_group"), std::string::npos);
}

// After imw a condensed result's values are "SYSTEM: GROUP": still a row per option set in the
// overview and the CSV export, its values under their systems (the grouped table is transposed).
TEST(ViewerMultiWay, CondensedAndTransposedResultKeepsItsRowsPerOptionSet) {
  ResultFile f = DbenchTwoOptionSets("A", "B: x");
  ApplyViewerOptions(f, ParseViewerQuery("cmw&imw"));
  ASSERT_EQ(f.results.size(), 1u);
  ASSERT_EQ(f.results[0].entries.at(3).identifier, "B / x: 6");
  const auto parts = SplitByGroup(f.results[0], f.systems);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1].first, "6");
  ASSERT_EQ(parts[1].second.entries.size(), 2u);
  EXPECT_EQ(parts[1].second.entries[1].identifier, "B: x");
  EXPECT_EQ(parts[1].second.entries[1].value, "66");
  const std::string csv = ResultFileToCsv(f);
  EXPECT_NE(csv.find("Dbench (6),Client Count: 1; 6,MB/s,HIB,60,66\n"), std::string::npos) << csv;
  // A file's own multi-way result (its values are its systems' names) is no condensed one.
  ResultFile own;
  for (const char* id : {"EXT4: Stock", "XFS: Stock"}) own.systems.push_back({id, "", "", "", "", "", {}, {}, {}});
  own.results = {Dbench("1", {{"EXT4: Stock", "10", {}, {}}, {"XFS: Stock", "20", {}, {}}})};
  EXPECT_TRUE(SplitByGroup(own.results[0], own.systems).empty());
}

TEST(ViewerMultiWay, ImwTransposesAMultiWayFileAndSaysWhenThereIsNone) {
  PTSN_REQUIRE_REFERENCE();
  ResultFile f = Seed(k1110088);
  EXPECT_TRUE(ApplyViewerOptions(f, ParseViewerQuery("imw")).empty());
  EXPECT_EQ(f.systems[0].identifier, "Stock: Encrypted Home (eCryptfs)");
  EXPECT_EQ(f.systems[3].identifier, "AES-NI Intel: Encrypted LVM (dmcrypt)");
  const Result* dbench = FindResult(f, "Dbench", "");
  ASSERT_NE(dbench, nullptr);
  EXPECT_EQ(dbench->entries[1].identifier, "AES-NI Intel: Encrypted Home (eCryptfs)");
  EXPECT_EQ(dbench->entries[1].value, "249.75");

  ResultFile single = Seed(kUbuntu);
  const std::vector<std::string> notes = ApplyViewerOptions(single, ParseViewerQuery("imw"));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rfind("imw has no effect here", 0), 0u);
  ResultFile distinct = Seed(k1110088);  // every test there was run under one set of options
  const std::vector<std::string> cmw = ApplyViewerOptions(distinct, ParseViewerQuery("cmw"));
  ASSERT_EQ(cmw.size(), 1u);
  EXPECT_EQ(cmw[0].rfind("cmw has no effect here", 0), 0u);
}

TEST(ViewerMultiWay, CondensedAndTransposedPagesShowTheGroupedTable) {
  PTSN_REQUIRE_REFERENCE();
  for (const char* query : {"cmw", "cmw&imw"}) {
    SCOPED_TRACE(query);
    ResultFile f = Seed(kUbuntu);
    HtmlView view;
    view.options = ParseViewerQuery(query);
    view.notes = ApplyViewerOptions(f, view.options);
    const std::string html = ResultFileToHtml(f, view);
    const size_t table = html.find("<table class=\"multiway\">");
    ASSERT_NE(table, std::string::npos);
    const std::string first = html.substr(table, html.find("</table>", table) - table);
    if (std::string(query) == "cmw") {
      // Dbench: a row per client count, a column per system.
      EXPECT_NE(first.find("<th>No Encryption</th><th>Home Encryption</th><th>Full-Disk Encryption</th>"), std::string::npos);
      EXPECT_NE(first.find("<tr><th>6</th><td class=\"num\">688.60</td><td class=\"num\">268.76</td>"), std::string::npos);
    } else {
      EXPECT_NE(first.find("<th>1</th><th>6</th>"), std::string::npos);
      EXPECT_NE(first.find("<tr><th>Home Encryption</th><td class=\"num\">91.33</td><td class=\"num\">268.76</td>"),
                std::string::npos);
    }
  }
  ResultFile f = Seed(kUbuntu);
  HtmlView view;
  view.options = ParseViewerQuery("imw");
  view.notes = ApplyViewerOptions(f, view.options);
  const std::string html = ResultFileToHtml(f, view);
  EXPECT_NE(html.find("data-note=\"option\">imw has no effect here"), std::string::npos);
  EXPECT_EQ(html.find("<table class=\"multiway\">"), std::string::npos);
}

}  // namespace
}  // namespace ptsn::results
