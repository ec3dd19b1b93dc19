#include "runner/reproduce/setup_cost.h"

#include <gtest/gtest.h>

#include "results-xml/stats/statistics.h"

namespace ptsn::reproduce {
namespace {

results::Entry Entry(const std::string& who, const std::vector<std::string>& trials) {
  return results::MakeEntry(who, results::MeanValue(trials), trials);
}

// Published: an encrypted home, stock and AES-NI (100 and 125 Files/s). Here: plain, slow and
// fast set-ups over `instances` instance pairs, three rounds each; fast is 1.25x slow here.
results::ResultFile Measured(int instances, const std::string& published_fast = "125") {
  results::ResultFile f;
  results::Result r;
  r.identifier = "pts/fs-mark-1.0.0";
  r.title = "FS-Mark";
  r.app_version = "3.3";
  r.description = "Test: 1000 Files, 1MB Size";
  r.scale = "Files/s";
  r.proportion = "HIB";
  r.display_format = "BAR_GRAPH";
  r.entries = {Entry("Home: Stock", {"99", "100", "101"}), Entry("Home: AES-NI", {published_fast, published_fast})};
  const char* wobble[] = {"0.99", "1.0", "1.01"};
  for (int k = 1; k <= instances; ++k) {
    double base = 200 + 3 * k;  // each instance a little different; the set-ups keep their ratios
    std::vector<std::string> plain, slow, fast;
    for (const char* w : wobble) {
      double x = base * std::stod(w);
      plain.push_back(std::to_string(x));
      slow.push_back(std::to_string(x * 0.5));
      fast.push_back(std::to_string(x * 0.625 * (k % 2 ? 1.004 : 0.996)));
    }
    r.entries.push_back(Entry(results::InstanceIdentifier("plain", k), plain));
    r.entries.push_back(Entry(results::InstanceIdentifier("slow", k), slow));
    r.entries.push_back(Entry(results::InstanceIdentifier("fast", k), fast));
  }
  f.results.push_back(r);
  return f;
}

const std::vector<TargetOrigin> kTargets = {{"plain", {}}, {"slow", {"Home: Stock"}}, {"fast", {"Home: AES-NI"}}};

}  // namespace

TEST(SetupCost, EachSetUpAgainstThePlainReferenceAndBesideThePublishedComparison) {
  const std::string text = SetupCostText(Measured(3), kTargets, {5, 0.95});
  EXPECT_NE(text.find("  FS-Mark 3.3 [Test: 1000 Files, 1MB Size] (Files/s, higher is better)\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("    slow: 0.500x here ["), std::string::npos) << text;
  EXPECT_NE(text.find("(3 instance pairs, 9 rounds) of plain\n      published: no unencrypted system to compare with\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("    fast vs slow: 1.252x here ["), std::string::npos) << text;
  EXPECT_NE(text.find("published: 1.250x (Home: AES-NI / Home: Stock): the same within +-5 %"), std::string::npos)
      << text;
}

TEST(SetupCost, APublishedRatioOutsideTheIntervalIsDifferent) {
  const std::string text = SetupCostText(Measured(3, "100"), kTargets, {5, 0.95});
  EXPECT_NE(text.find("published: 1.000x (Home: AES-NI / Home: Stock): different"), std::string::npos) << text;
}

TEST(SetupCost, OneInstancePairGivesNoVerdict) {
  const std::string text = SetupCostText(Measured(1, "100"), kTargets, {5, 0.95});
  EXPECT_NE(text.find("fast vs slow: 1.255x here (1 instance pair, 3 rounds)"), std::string::npos) << text;
  EXPECT_NE(text.find("1.000x (Home: AES-NI / Home: Stock): one instance pair cannot tell"), std::string::npos) << text;
  EXPECT_EQ(text.find("different"), std::string::npos) << text;
}

// A run that could look again judged its verdicts at Pocock's level: the cost view judges at it too
// (a wider interval than 95 %'s), and says so.
TEST(SetupCost, JudgesAtTheLevelOfTheRunsLooks) {
  results::ResultFile f = Measured(3);
  for (auto& e : f.results[0].entries) e.json = R"({"verdict-looks":4})";
  const std::string at95 = SetupCostText(Measured(3), kTargets, {5, 0.95});
  const std::string text = SetupCostText(f, kTargets, {5, 0.95});
  EXPECT_NE(text.find("(at 98.18 %: the run looked up to 4 times)"), std::string::npos) << text;
  EXPECT_EQ(at95.find("the run looked"), std::string::npos) << at95;
  auto low = [](const std::string& t) { return std::stod(t.substr(t.find("    fast: 0.626x here [") + 23)); };
  EXPECT_LT(low(text), low(at95)) << text << at95;
}

TEST(SetupCost, NothingWithoutTwoTargets) {
  EXPECT_EQ(SetupCostText(Measured(3), {kTargets[0]}, {5, 0.95}), "");
  EXPECT_EQ(SetupCostText(results::ResultFile{}, kTargets, {5, 0.95}), "");
}

}  // namespace ptsn::reproduce
