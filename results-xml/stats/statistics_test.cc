#include "results-xml/stats/statistics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <filesystem>

#include "results-xml/model/result_xml.h"
#include "results-xml/model/test_support.h"

namespace ptsn::results {
namespace {

Entry E(const std::string& value, const std::string& raw) {
  Entry e;
  e.identifier = "x";
  e.value = value;
  e.raw_string = raw;
  return e;
}

TEST(PhpNumbers, RoundAndNumberFormatMatchPhp82) {
  // Values printed by PHP 8.2.36 (number_format($v, $p, '.', ''), (string)round($v, $p)).
  struct Case {
    double v;
    int p;
    const char* number_format;
    const char* round;
  } cases[] = {
      {1.005, 2, "1.01", "1.01"},     {2.675, 2, "2.68", "2.68"},   {124.126666, 2, "124.13", "124.13"},
      {0.285, 2, "0.29", "0.29"},     {1.955, 2, "1.96", "1.96"},   {-1.005, 2, "-1.01", "-1.01"},
      {5.055, 2, "5.06", "5.06"},     {0.5, 2, "0.50", "0.5"},      {2.5, 0, "3", "3"},
      {-0.5, 0, "-1", "-1"},          {1234567.891, 2, "1234567.89", "1234567.89"},
      {67009.494999999995, 5, "67009.49500", "67009.495"},
      {4211260640.0000501, 5, "4211260640.00005", "4211260640.0001"},
      {-0.001, 2, "0.00", "-0"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(PhpNumberFormat(c.v, c.p), c.number_format) << c.v;
    EXPECT_EQ(PhpFloatToString(PhpRound(c.v, c.p)), c.round) << c.v;
  }
}

TEST(PhpNumbers, FloatToStringUsesPrecision14) {
  EXPECT_EQ(PhpFloatToString(125.10), "125.1");
  EXPECT_EQ(PhpFloatToString(122.0), "122");
  EXPECT_EQ(PhpFloatToString(1e15), "1.0E+15");
  EXPECT_EQ(PhpFloatToString(1e25), "1.0E+25");
  EXPECT_EQ(PhpFloatToString(1.5e-5), "1.5E-5");
  EXPECT_EQ(PhpFloatToString(0.0001), "0.0001");
  EXPECT_EQ(PhpFloatToString(-0.0), "-0");
  EXPECT_EQ(PhpFloatToString(0.1 + 0.2), "0.3");
  EXPECT_EQ(PhpFloatToString(123456789012345678.0), "1.2345678901235E+17");
  EXPECT_EQ(PhpFloatToString(12345678901234.5), "12345678901234");
  EXPECT_EQ(PhpFloatToString(99999999999999.99), "1.0E+14");
}

TEST(PhpNumbers, IsNumeric) {
  for (const char* yes : {"1", "-1.5", "+.5", "5.", "1e3", " 12", "12 ", "1.5E-3"}) EXPECT_TRUE(PhpIsNumeric(yes)) << yes;
  for (const char* no : {"", ".", "abc", "1x", "0x1A", "1e", "--1", "1.2.3", "nan"}) EXPECT_FALSE(PhpIsNumeric(no)) << no;
}

TEST(EntryValue, GoldenMeanWithPrecision) {
  EXPECT_EQ(MeanValue({"125.1", "121.99", "125.29"}), "124.13");
  EXPECT_EQ(MeanValue({"456.97", "458.02", "449.75"}), "454.91");
  EXPECT_EQ(MeanValue({"123.51", "121.3", "124.52"}), "123.11");
}

TEST(EntryValue, IntegerRuleAndPrecisionDefaults) {
  EXPECT_EQ(MeanValue({"694", "695", "694"}), "694");   // no '.', rounded to an integer
  EXPECT_EQ(MeanValue({"1", "2"}), "2");                // 1.50 -> round() half away from zero
  EXPECT_EQ(MeanValue({"1.5", "2"}), "1.8");            // p = 1 from "1.5": 1.75 -> 1.8
  EXPECT_EQ(MeanValue({"1.1234567891", "1"}), "1.06");  // p = 10 is out of range -> 2
  EXPECT_EQ(MeanValue({"1.25", "2.5"}, 3), "1.875");    // ResultPrecision override
  EXPECT_EQ(MeanValue({"1.25", "2.5"}, 0), "2");
  EXPECT_EQ(MeanValue({"10.5", "abc", "11.5"}), "11.0");  // non-numeric ignored
}

TEST(EntryValue, RawStringLosesTrailingZerosAndIsEmptyWhenEqual) {
  EXPECT_EQ(JoinTrials({"125.10", "122.00", "121.99"}), "125.1:122:121.99");
  Entry single = MakeEntry("A", "694", {"694"});
  EXPECT_EQ(single.raw_string, "");
  Entry three = MakeEntry("A", "124.13", {"125.10", "121.99", "125.29"});
  EXPECT_EQ(three.raw_string, "125.1:121.99:125.29");
}

TEST(Statistics, StandardErrorLabelGolden) {
  EXPECT_EQ(StandardErrorLabel(E("124.13", "125.1:121.99:125.29")), "SE +/- 1.07, N = 3");
  EXPECT_EQ(StandardErrorLabel(E("454.91", "456.97:458.02:449.75")), "SE +/- 2.60, N = 3");
  EXPECT_EQ(StandardErrorLabel(E("694", "")), "");
  EXPECT_EQ(StandardErrorLabel(E("1.234", "1.2:1.268")), "SE +/- 0.034, N = 2");
}

TEST(Statistics, ConfidenceFileGolden) {
  // pts-output/merged/result-file-confidence.txt: Baseline and Tuned 4KB.
  std::vector<double> base = {125.1, 121.99, 125.29}, tuned = {123.51, 121.3, 124.52};
  EXPECT_EQ(PhpNumberFormat(PercentStandardDeviation(base), 2), "1.49");
  EXPECT_EQ(PhpNumberFormat(PercentStandardDeviation(tuned), 2), "1.34");
  auto [lo, hi] = ThreeSigmaLimits(base, 2);
  EXPECT_EQ(PhpFloatToString(lo), "119.59");
  EXPECT_EQ(PhpFloatToString(hi), "128.67");
  auto [lo2, hi2] = ThreeSigmaLimits(tuned, 2);
  EXPECT_EQ(PhpFloatToString(lo2), "119.08");
  EXPECT_EQ(PhpFloatToString(hi2), "127.14");
}

TEST(Statistics, EveryBarEntryOfThePtsGoldenRunsRecomputes) {
  PTSN_REQUIRE_REFERENCE();
  int checked = 0;
  for (const char* rel : {"result-a", "result-b", "dynamic-run-count", "auto-naming"}) {
    std::string path = test::ReferenceDir() + "/pts-output/" + rel + "/composite.xml";
    if (!std::filesystem::exists(path)) continue;
    ResultFile f = ReadResultFile(path);
    for (const Result& r : f.results) {
      if (r.display_format != "BAR_GRAPH") continue;
      for (const Entry& e : r.entries) {
        EXPECT_EQ(MeanValue(EntryTrials(e)), e.value) << path << " " << *e.raw_string;
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 5);
}

TEST(Statistics, BasicsAndMedian) {
  EXPECT_DOUBLE_EQ(Mean({1, 2, 3, 4}), 2.5);
  EXPECT_DOUBLE_EQ(Median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(Median({5, 1, 3}), 3);
  // R: quantile(c(4, 1, 3, 2), c(.25, .75)) gives 1.75 and 3.25.
  EXPECT_EQ(Quartiles({4, 1, 3, 2}), (std::pair<double, double>{1.75, 3.25}));
  EXPECT_EQ(Quartiles({7}), (std::pair<double, double>{7, 7}));
  EXPECT_DOUBLE_EQ(SampleStandardDeviation({5}), 0);
  EXPECT_NEAR(SampleStandardDeviation({2, 4, 4, 4, 5, 5, 7, 9}), 2.138089935, 1e-9);
  EXPECT_NEAR(StandardError({2, 4, 4, 4, 5, 5, 7, 9}), 2.138089935 / std::sqrt(8.0), 1e-9);
}

TEST(Statistics, StudentTQuantiles) {
  // Published two-sided 95 % critical values.
  EXPECT_NEAR(StudentTQuantile(0.95, 1), 12.7062, 1e-4);
  EXPECT_NEAR(StudentTQuantile(0.95, 2), 4.3027, 1e-4);
  EXPECT_NEAR(StudentTQuantile(0.95, 10), 2.2281, 1e-4);
  EXPECT_NEAR(StudentTQuantile(0.95, 30), 2.0423, 1e-4);
  EXPECT_NEAR(StudentTQuantile(0.95, 1000), 1.9623, 1e-4);
  EXPECT_NEAR(StudentTQuantile(0.99, 5), 4.0321, 1e-4);
}

TEST(Statistics, SummaryConfidenceInterval) {
  TrialSummary s = Summarize({125.1, 121.99, 125.29});
  EXPECT_EQ(s.n, 3u);
  EXPECT_DOUBLE_EQ(s.min, 121.99);
  EXPECT_DOUBLE_EQ(s.max, 125.29);
  EXPECT_DOUBLE_EQ(s.median, 125.1);
  double half = 4.302652729911275 * s.se;
  EXPECT_NEAR(s.ci95_low, s.mean - half, 1e-9);
  EXPECT_NEAR(s.ci95_high, s.mean + half, 1e-9);
  EXPECT_NEAR(s.ci95_high - s.ci95_low, 2 * 4.3027 * 1.07, 0.01);
  TrialSummary one = Summarize({5});
  EXPECT_EQ(one.ci95_low, 5);
  EXPECT_EQ(one.ci95_high, 5);
}

TEST(Statistics, OutliersAreFlaggedNotDropped) {
  std::vector<double> v = {100, 101, 99, 100.5, 99.5, 150};
  std::vector<bool> f = OutlierFlags(v);
  ASSERT_EQ(f.size(), v.size());
  EXPECT_EQ(f, (std::vector<bool>{false, false, false, false, false, true}));
  EXPECT_EQ(Summarize(v).n, 6u);  // kept
  // MAD == 0: falls back to the mean absolute deviation.
  EXPECT_EQ(OutlierFlags({10, 10, 10, 10, 10, 30}), (std::vector<bool>{false, false, false, false, false, true}));
  EXPECT_EQ(OutlierFlags({10, 10, 10}), (std::vector<bool>{false, false, false}));
  // With 3 trials the MAD is tiny (0.19 here), so the rule flags the odd one out: |0.6745 * 3.11 / 0.19| = 11.
  EXPECT_EQ(OutlierFlags({125.1, 121.99, 125.29}), (std::vector<bool>{false, true, false}));
  EXPECT_EQ(OutlierFlags({1, 1000}), (std::vector<bool>{false, false}));  // fewer than 3: never flagged
}


// The statistics one function per statistic, each copying and reordering its own vector: the
// reference Summarize must equal.
double ReferenceMedian(std::vector<double> v) {
  if (v.empty()) return 0;
  size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  double hi = v[mid];
  if (v.size() % 2) return hi;
  double lo = *std::max_element(v.begin(), v.begin() + mid);
  return (lo + hi) / 2;
}
std::vector<bool> ReferenceOutlierFlags(const std::vector<double>& v) {
  std::vector<bool> flags(v.size(), false);
  if (v.size() < 3) return flags;
  double median = ReferenceMedian(v);
  std::vector<double> dev;
  for (double x : v) dev.push_back(std::fabs(x - median));
  double mad = ReferenceMedian(dev);
  double scale;
  if (mad > 0) {
    scale = mad / 0.6745;
  } else {
    double mean_ad = Mean(dev);
    if (mean_ad <= 0) return flags;
    scale = 1.253314 * mean_ad;
  }
  for (size_t i = 0; i < v.size(); ++i) flags[i] = std::fabs(v[i] - median) / scale > 3.5;
  return flags;
}
bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Summarize gives the reference's doubles bit for bit: random trials of every
// size, ties, zeros of both signs, huge and tiny values, infinities.
TEST(Statistics, SummarizeEqualsTheOneFunctionPerStatisticReference) {
  std::mt19937_64 rng(99);
  const std::vector<double> specials = {0.0, -0.0, 1e308, -1e308, 5e-324, HUGE_VAL, -HUGE_VAL, 1, 1, 2.5, -2.5};
  for (int round = 0; round < 20000; ++round) {
    std::vector<double> v(round % 4 < 2 ? rng() % 70 : rng() % 9);  // half of them few: the sorted-copy path
    for (double& x : v) {
      switch (rng() % 4) {
        case 0: x = specials[rng() % specials.size()]; break;
        case 1: x = static_cast<double>(rng() % 5); break;  // many ties: MAD 0
        default: x = static_cast<double>(static_cast<int64_t>(rng() % 2000000) - 1000000) / 100;
      }
    }
    if (round % 2) std::erase_if(v, [](double x) { return !std::isfinite(x); });
    const TrialSummary s = Summarize(v);
    ASSERT_EQ(s.n, v.size());
    const double mean = Mean(v);
    for (const TrialSummary* t : {&s}) {
      ASSERT_TRUE(SameBits(t->mean, mean));
      ASSERT_TRUE(SameBits(t->median, ReferenceMedian(v)));
      ASSERT_TRUE(SameBits(t->sd, SampleStandardDeviation(v)));
      ASSERT_TRUE(SameBits(t->percent_sd, PercentStandardDeviation(v)));
      ASSERT_TRUE(SameBits(t->se, StandardError(v)));
      if (!v.empty()) {
        auto [mn, mx] = std::minmax_element(v.begin(), v.end());
        ASSERT_TRUE(SameBits(t->min, *mn));
        ASSERT_TRUE(SameBits(t->max, *mx));
        ASSERT_EQ(t->min_at, static_cast<size_t>(mn - v.begin()));
        ASSERT_EQ(t->max_at, static_cast<size_t>(mx - v.begin()));
      }
      const double half = v.size() >= 2 ? StudentTQuantile(0.95, static_cast<int>(v.size()) - 1) * StandardError(v) : 0;
      ASSERT_TRUE(SameBits(t->ci95_low, v.size() >= 2 ? mean - half : mean));
      ASSERT_TRUE(SameBits(t->ci95_high, v.size() >= 2 ? mean + half : mean));
    }
    ASSERT_EQ(s.outliers, ReferenceOutlierFlags(v));
    ASSERT_EQ(OutlierFlags(v), ReferenceOutlierFlags(v));
    ASSERT_TRUE(SameBits(Median(v), ReferenceMedian(v)));
  }
}

// The label from a known standard error is the label computed from the trials.
TEST(Statistics, StandardErrorLabelFromKnownStandardError) {
  for (const auto& [value, raw] : std::vector<std::pair<std::string, std::string>>{
           {"49.41", "50.7:49.43:48.09"}, {"5", "5"}, {"5", ""}, {"1.500", "1:2"}, {"3", "x:3:4"}, {"0", "0:0:0"},
           {"12", " 12 :+12:1e1"}, {"7", "a:b"}}) {
    const Entry e = E(value, raw);
    EXPECT_EQ(StandardErrorLabel(e, StandardError(NumericTrials(e))), StandardErrorLabel(e)) << raw;
  }
  EXPECT_EQ(StandardErrorLabel(E("49.41", "50.7:49.43:48.09")), "SE +/- 0.75, N = 3");
  EXPECT_EQ(StandardErrorLabel(E("7", "a:b")), "SE +/- 0.00, N = 2");
  Entry no_raw = E("5", "");
  no_raw.raw_string.reset();
  EXPECT_EQ(StandardErrorLabel(no_raw, 1.0), "");
}

}  // namespace
}  // namespace ptsn::results

namespace ptsn::results {
namespace {

TEST(PairedRatio, GeometricMeanOfRoundRatiosWithATInterval) {
  std::vector<double> reference = {100, 110, 90, 105}, other = {50, 57.2, 43.2, 52.5};
  auto r = PairRatio(reference, other);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->pairs, 4u);
  EXPECT_NEAR(r->ratio, 0.49979988, 1e-7);
  EXPECT_NEAR(r->ci_low, 0.47447347, 1e-6);
  EXPECT_NEAR(r->ci_high, 0.52647816, 1e-6);
  EXPECT_FALSE(r->within_noise());
  EXPECT_NEAR(r->half_width_percent(), 5.2026, 1e-3);
}

TEST(PairedRatio, DriftSharedByBothSetUpsCancels) {
  // The machine slows down fourfold over the run; the set-up always costs half. Unpaired, the two
  // sets of trials overlap; paired, the cost is exact.
  std::vector<double> reference = {400, 300, 200, 100}, other = {200, 150, 100, 50};
  auto r = PairRatio(reference, other);
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->ratio, 0.5);
  EXPECT_DOUBLE_EQ(r->ci_low, 0.5);
  EXPECT_DOUBLE_EQ(r->ci_high, 0.5);
  TrialSummary a = Summarize(reference), b = Summarize(other);
  EXPECT_LT(a.ci95_low, b.ci95_high) << "unpaired intervals overlap: 'within noise' by that test";
}

TEST(PairedRatio, SpanningOneIsWithinNoiseAndTooFewPairsIsNothing) {
  auto r = PairRatio(std::vector<double>{100, 100, 100}, std::vector<double>{99, 101, 100});
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->within_noise());
  EXPECT_FALSE(PairRatio(std::vector<double>{100}, std::vector<double>{50}));
  EXPECT_FALSE(PairRatio(std::vector<double>{100, 0}, std::vector<double>{50, 20}));
  EXPECT_EQ(PairRatio(std::vector<double>{1, 2, 3}, std::vector<double>{2, 4})->pairs, 2u);  // extra rounds unpaired
}

}  // namespace
}  // namespace ptsn::results
