#include "results-xml/stats/wins_losses.h"

#include <gtest/gtest.h>

#include "results-xml/model/result_xml.h"
#include "results-xml/model/test_support.h"

namespace ptsn::results {
namespace {

TEST(WinsLosses, MergedGoldenFileAsPtsPrintsIt) {
  PTSN_REQUIRE_REFERENCE();
  // `phoronix-test-suite wins-and-losses` (10.8.6, NO_COLOR, local/sample-disk-1.0.0 installed so
  // that PTS counts its results) on shared/reference/pts-output/merged/composite.xml.
  const std::string pts =
      "   Sample Disk Golden A\n"
      "\n"
      "   WINS:                  \n"
      "   Baseline:  1   [50.0%] \n"
      "   Tuned:     1   [50.0%] \n"
      "                          \n"
      "   LOSSES:                \n"
      "   Tuned:     1   [50.0%] \n"
      "   Baseline:  1   [50.0%] \n"
      "   TESTS COUNTED: 2\n";
  EXPECT_EQ(WinsLossesText(ReadResultFile(test::ReferenceDir() + "/pts-output/merged/composite.xml")), pts);
  // One system: nothing to compare.
  EXPECT_EQ(WinsLossesText(ReadResultFile(test::ReferenceDir() + "/pts-output/result-a/composite.xml")),
            "   Sample Disk Golden A\n\n\nThere are not multiple test runs in this result file.\n");
}

Result R(const std::string& proportion, std::vector<std::pair<std::string, std::string>> values) {
  Result r;
  r.identifier = "pts/x-1.0.0";
  r.proportion = proportion;
  for (auto& [id, v] : values) r.entries.push_back({id, v, std::nullopt, std::nullopt});
  return r;
}

TEST(WinsLosses, ProportionTiesWidthsAndUncountedResults) {
  ResultFile f;
  f.generated.title = "T";
  for (const char* id : {"No Encryption", "Full-Disk Encryption", "Home"}) f.systems.push_back({id});
  for (int i = 0; i < 11; ++i) f.results.push_back(R("HIB", {{"No Encryption", "30"}, {"Full-Disk Encryption", "20"}, {"Home", "10"}}));
  f.results.push_back(R("LIB", {{"No Encryption", "3"}, {"Full-Disk Encryption", "2"}, {"Home", "1"}}));
  // A tie: the first system is both the highest and the lowest (strict comparisons, as PTS's).
  f.results.push_back(R("HIB", {{"No Encryption", "5"}, {"Full-Disk Encryption", "5"}, {"Home", "5"}}));
  f.results.push_back(R("", {{"No Encryption", "5"}, {"Home", "6"}}));         // no proportion: not counted
  f.results.push_back(R("HIB", {{"Home", "6"}}));                              // one system: not counted
  Result monitor = R("LIB", {{"No Encryption", "5"}, {"Home", "6"}});
  monitor.identifier = "";  // a monitor child is not a test
  f.results.push_back(monitor);
  WinsLosses w = CountWinsLosses(f);
  EXPECT_EQ(w.counted, 13);
  EXPECT_EQ(w.possible, 15);
  ASSERT_EQ(w.wins.size(), 2u);
  EXPECT_EQ(w.wins[0], (std::pair<std::string, int>{"No Encryption", 12}));
  EXPECT_EQ(w.wins[1], (std::pair<std::string, int>{"Home", 1}));
  ASSERT_EQ(w.losses.size(), 2u);
  EXPECT_EQ(w.losses[0], (std::pair<std::string, int>{"Home", 11}));
  EXPECT_EQ(w.losses[1], (std::pair<std::string, int>{"No Encryption", 2}));
  // Columns as wide as their longest text plus one (PTS display_text_table); the last line says
  // how many results could be counted.
  const std::string text = WinsLossesText(f);
  EXPECT_NE(text.find("   No Encryption:  12   [92.3%] \n"), std::string::npos) << text;
  EXPECT_NE(text.find("   Home:           11   [84.6%] \n"), std::string::npos) << text;
  EXPECT_NE(text.find("   TESTS COUNTED: 13 of 15\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace ptsn::results
