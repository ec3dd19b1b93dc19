#include "results-xml/views/export_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <cstdio>
#include <map>
#include <random>

#include "results-xml/stats/statistics.h"
#include "results-xml/views/export_common.h"
#include "results-xml/views/export_compare.h"

#include "results-xml/model/comparison_hash.h"
#include "results-xml/views/export_test_fixture.h"

namespace ptsn::results {
namespace {

using Json = nlohmann::ordered_json;
constexpr JsonOptions kStatistics{.extras = JsonOptions::Extras::kStatistics};
constexpr JsonOptions kPtsOnly{.extras = JsonOptions::Extras::kPtsOnly};

TEST(ExportJson, EntriesCarryTrialsAndStatistics) {
  const ResultFile f = test::SmallResultFile();
  const Json j = Json::parse(ResultFileToJson(f, kStatistics));
  const Json& bar = j["results"][ComparisonHash(f.results[0])];
  EXPECT_EQ(bar["identifier"], "local/sample-disk-1.0.0");
  const Json& base = bar["results"]["Baseline"];
  EXPECT_EQ(base["value"], 124.13);
  EXPECT_EQ(base["raw_values"], Json::parse("[125.1, 121.99, 125.29]"));
  EXPECT_EQ(base["test_run_times"], Json::parse("[10.66, 8.05, 7.92]"));
  const Json& st = base["ptsn_statistics"];
  EXPECT_EQ(st["n"], 3);
  EXPECT_NEAR(st["mean"].get<double>(), 124.126667, 1e-6);
  EXPECT_EQ(st["median"], 125.1);
  EXPECT_EQ(st["min"], 121.99);
  EXPECT_EQ(st["max"], 125.29);
  EXPECT_NEAR(st["se"].get<double>(), 1.06974, 1e-5);
  EXPECT_EQ(st["se_label"], "SE +/- 1.07, N = 3");
  EXPECT_LT(st["ci95"][0].get<double>(), 124.12);
  EXPECT_GT(st["ci95"][1].get<double>(), 124.13);
  // Modified Z-score: MAD = 0.19, so 121.99 scores 0.6745 * 3.11 / 0.19 = 11 > 3.5.
  EXPECT_EQ(st["outliers"], Json::parse("[1]"));

  // A monitor series: the value stays a string, statistics cover its samples.
  const Json& series = j["results"][ComparisonHash(f.results[1])]["results"]["Tuned"];
  EXPECT_TRUE(series["value"].is_string());
  EXPECT_EQ(series["ptsn_statistics"]["n"], 7);
  EXPECT_EQ(series["ptsn_statistics"]["min"], 50.5);
  EXPECT_FALSE(series["ptsn_statistics"].contains("ci95"));

  // A failed entry keeps its error under details and has no value (PTS's array_filter).
  const Json& failed = j["results"][ComparisonHash(f.results[3])]["results"]["Baseline"];
  EXPECT_FALSE(failed.contains("value"));
  EXPECT_EQ(failed["details"]["error"], "The test quit with a non-zero exit status.");
  EXPECT_EQ(failed["ptsn_statistics"]["n"], 0);
}

TEST(ExportJson, PhpConventions) {
  const std::string text = ResultFileToJson(test::SmallResultFile(), kPtsOnly);
  EXPECT_NE(text.find("\"scale\": \"MB\\/s\""), std::string::npos);  // escaped slash
  EXPECT_NE(text.find("\n    \"systems\": {\n        \"Baseline\": {"), std::string::npos);  // 4-space indent
  EXPECT_EQ(text.find("ptsn"), std::string::npos);
  ResultFile f;
  f.generated.title = "T\xc3\xa9";
  Result r;
  r.title = "T";
  r.entries = {{"a", "8.00", "8:8.0:8", {}}};
  f.results.push_back(r);
  const std::string j = ResultFileToJson(f, kPtsOnly);
  EXPECT_NE(j.find("\"T\\u00e9\""), std::string::npos);
  EXPECT_NE(j.find("\"value\": 8,"), std::string::npos);  // integral floats print like PHP
  EXPECT_NE(j.find("\"systems\": []"), std::string::npos);
}

// Indentation stays 4 spaces a level however deep a decoded System/JSON nests (the writer
// appends short indents from a table and longer ones piece by piece): with no '/' and no
// floats, PHP's layout is nlohmann's dump(4) of the same document.
TEST(ExportJson, DeepNestingIndentsLikePhp) {
  ResultFile f;
  System s;
  s.identifier = "Deep";
  std::string nested = "[1, {}, [], \"x\"]";
  for (int depth = 0; depth < 24; ++depth) nested = "{\"k" + std::to_string(depth) + "\": " + nested + ", \"n\": 2}";
  s.json = nested;
  f.systems.push_back(s);
  Result r;
  r.title = "T";
  r.entries = {{"Deep", "8", "8:9:10", {}}};
  f.results.push_back(r);
  for (bool statistics : {false, true}) {
    const std::string text = ResultFileToJson(f, statistics ? kStatistics : kPtsOnly);
    const Json parsed = Json::parse(text);
    if (!statistics) {  // (statistics add floats and "\/", which dump() writes otherwise)
      EXPECT_EQ(parsed.dump(4), text);
    }
    EXPECT_EQ(parsed["systems"]["Deep"]["data"], Json::parse(nested));
  }
}

// The writer composes its text in a stage of a few kilobytes: strings longer than it (with
// escapes on both sides of its edges) and documents many times its size come out whole.
TEST(ExportJson, TextLongerThanTheWritersStage) {
  ResultFile f;
  std::string title;
  for (int i = 0; i < 3000; ++i) title += "ab\"cd\n\tef";  // 30,000 bytes, escapes throughout
  f.generated.title = title;
  for (int i = 0; i < 400; ++i) {
    Result r;
    r.title = "T" + std::to_string(i);
    r.identifier = std::string(static_cast<size_t>(i * 37 % 9000), 'x');  // some longer than the stage
    r.entries = {{"A", "8", "8:9:10", {}}, {"B", "12", "", {}}};
    f.results.push_back(r);
  }
  const std::string text = ResultFileToJson(f, kPtsOnly);
  const Json parsed = Json::parse(text);
  EXPECT_EQ(parsed.dump(4), text);  // no '/' and no fractions: PHP's layout is dump(4)'s
  EXPECT_EQ(parsed["title"], title);
  EXPECT_EQ(parsed["results"].size(), 400u);
}

// Every ASCII byte is escaped as json_encode escapes it, in short strings (quoted eight bytes
// at a time into the stage) and long ones (quoted run by run) alike.
TEST(ExportJson, EscapesInShortAndLongStrings) {
  auto escaped = [](unsigned char c) -> std::string {
    switch (c) {
      case '"': return "\\\"";
      case '\\': return "\\\\";
      case '/': return "\\/";
      case '\b': return "\\b";
      case '\f': return "\\f";
      case '\n': return "\\n";
      case '\r': return "\\r";
      case '\t': return "\\t";
    }
    if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      return buf;
    }
    return std::string(1, static_cast<char>(c));
  };
  for (size_t length : {1, 7, 8, 9, 20, 64, 65, 200}) {
    for (int c = 1; c < 0x80; ++c) {
      std::string text(length, 'k');
      text[length / 2] = static_cast<char>(c);
      if (text == "0") continue;  // (PHP's array_filter drops a title of "0")
      std::string expected;
      for (char b : text) expected += escaped(static_cast<unsigned char>(b));
      ResultFile f;
      f.generated.title = text;
      const std::string json = ResultFileToJson(f, kPtsOnly);
      EXPECT_NE(json.find("\"title\": \"" + expected + "\","), std::string::npos) << length << " " << c;
    }
    // UTF-8 among plain bytes: \uXXXX wherever it falls in the string.
    for (size_t at : {size_t{0}, length / 2, length}) {
      std::string text(length, 'k');
      text.insert(at, "\xc3\xa9");
      ResultFile f;
      f.generated.title = text;
      std::string expected = text;
      expected.replace(at, 2, "\\u00e9");
      const std::string json = ResultFileToJson(f, kPtsOnly);
      EXPECT_NE(json.find("\"title\": \"" + expected + "\","), std::string::npos) << length << " " << at;
    }
  }
}

// PHP's keyed array, for few entries (searched in order) and many (hashed) alike: each key
// where it first appeared, holding the last value given it; the values it replaced, in order,
// among ptsn_shadowed_entries.
TEST(ExportJson, RepeatedKeysFewAndMany) {
  for (int systems : {3, 10, 32, 33, 90}) {
    ResultFile f;
    Result r;
    r.title = "T";
    std::vector<std::string> order;                  // keys in first appearance
    std::map<std::string, int> last;                 // key -> last value given it
    std::vector<std::pair<std::string, int>> shadowed;
    for (int i = 0; i < systems; ++i) {
      const std::string key = "S" + std::to_string(i % 7 == 3 ? i / 2 : i);  // some keys come again
      const int value = 100 + i;
      r.entries.push_back({key, std::to_string(value), "", {}});
      if (auto it = last.find(key); it != last.end()) {
        shadowed.emplace_back(key, it->second);
        it->second = value;
      } else {
        order.push_back(key);
        last[key] = value;
      }
    }
    f.results.push_back(r);
    const Json j = Json::parse(ResultFileToJson(f));
    const Json& result = j["results"][ComparisonHash(r)];
    std::vector<std::string> keys;
    for (auto it = result["results"].begin(); it != result["results"].end(); ++it) {
      keys.push_back(it.key());
      EXPECT_EQ(it.value()["value"], last[it.key()]) << systems << " " << it.key();
    }
    EXPECT_EQ(keys, order) << systems;
    ASSERT_EQ(result.contains("ptsn_shadowed_entries") ? result["ptsn_shadowed_entries"].size() : 0u, shadowed.size());
    for (size_t k = 0; k < shadowed.size(); ++k) {
      EXPECT_EQ(result["ptsn_shadowed_entries"][k]["ptsn_key"], shadowed[k].first) << systems;
      EXPECT_EQ(result["ptsn_shadowed_entries"][k]["value"], shadowed[k].second) << systems;
    }
  }
}

TEST(ExportJson, NumbersFromTextPrintAsPhpFloats) {
  // Plain decimals are written from their own digits, everything else through the double: both
  // must print what PHP's json_encode prints for the float.
  ResultFile f;
  Result r;
  r.title = "T";
  r.entries = {{"a", "007.50",
                "8.00:0.00001:-0:-0.000:1e5:007.50:.5:123456789012345678:0.0001:12345678901234567:"
                "1234567890.12345:0.1000000000000000055511:+3: 4:x:-12.5",
                R"({"test-run-times":"8.08:08.0:0.50"})"},
               {"b", "-0.25", "1:2", R"({"test-run-times":"1:2","max-result":"3"})"},
               {"c", "3", "", R"({"test-run-times":"a\/b"})"}};
  f.results.push_back(r);
  const std::string j = ResultFileToJson(f, kPtsOnly);
  EXPECT_NE(j.find("\"value\": 7.5,"), std::string::npos) << j;
  const std::string raw = "\"raw_values\": [\n                        8,\n                        1.0e-5,"
                          "\n                        -0.0,\n                        -0.0,\n                        100000,"
                          "\n                        7.5,\n                        0.5,"
                          "\n                        1.2345678901234568e+17,\n                        0.0001,"
                          "\n                        12345678901234568,\n                        1234567890.12345,"
                          "\n                        0.1,\n                        3,\n                        4,"
                          "\n                        0,\n                        -12.5\n";
  EXPECT_NE(j.find(raw), std::string::npos) << j;
  const Json parsed = Json::parse(j);
  const Json& results = parsed["results"][ComparisonHash(f.results[0])]["results"];
  EXPECT_EQ(results["a"]["test_run_times"], Json::parse("[8.08, 8, 0.5]"));
  EXPECT_FALSE(results["a"].contains("details"));
  EXPECT_EQ(results["b"]["value"], -0.25);
  EXPECT_EQ(results["b"]["max_result"], Json::parse(R"(["3"])"));  // not the fast path: other members
  EXPECT_EQ(results["c"]["test_run_times"], Json::parse("[0]"));    // "a/b" decoded, then not numeric
}

// By default the output is PTS's, byte for byte, where PTS loses nothing; with statistics,
// dropping our keys gives that document back.
TEST(ExportJson, TheDefaultIsPtsDocumentAndStatisticsOnlyAdd) {
  const ResultFile f = test::SmallResultFile();
  const std::string pts = ResultFileToJson(f, kPtsOnly), ours = ResultFileToJson(f);
  EXPECT_EQ(ours, pts);
  EXPECT_EQ(ours.find("ptsn"), std::string::npos);
  Json stats = Json::parse(ResultFileToJson(f, kStatistics));
  EXPECT_EQ(stats["ptsn"]["generator"], "pts-native");
  stats.erase("ptsn");
  size_t removed = 0;
  for (auto& [hash, result] : stats["results"].items())
    for (auto& [system, entry] : result["results"].items()) removed += entry.erase("ptsn_statistics");
  EXPECT_EQ(removed, 7u);  // every entry of the fixture
  EXPECT_EQ(stats, Json::parse(pts));
}

// The verdicts with statistics are the very text every other view of the file shows (issue 50).
TEST(ExportJson, StatisticsCarryTheFilesVerdictsInTheWordsOfEveryView) {
  const ResultFile f = test::SmallResultFile();
  const std::string verdicts = FileVerdictsText(f, {});
  ASSERT_FALSE(verdicts.empty()) << "the fixture has two set-ups";
  EXPECT_EQ(Json::parse(ResultFileToJson(f, kStatistics))["ptsn"]["verdicts"], verdicts);
  // Streamed, the view asks for the whole file and writes the same document.
  auto view = MakeJsonView(kStatistics);
  EXPECT_THROW(view->Head(f), NeedsWholeFile);
}

TEST(ExportJson, NothingIsLostWhenKeysCollide) {
  ResultFile f = test::SmallResultFile();
  f.systems.push_back(f.systems[0]);                            // a merge kept two "Baseline"s
  f.results[0].entries.push_back({"Baseline", "130.5", "130:131", {}});
  f.results.push_back(f.results[2]);                            // same comparison hash twice
  f.results.back().entries[0].value = "7.5";
  const Json j = Json::parse(ResultFileToJson(f));  // the default: PTS's document and what it drops
  EXPECT_FALSE(j.contains("ptsn"));
  EXPECT_EQ(j["ptsn_shadowed_systems"].size(), 1u);
  const Json& bar = j["results"][ComparisonHash(f.results[0])];
  EXPECT_EQ(bar["results"]["Baseline"]["value"], 130.5);       // the later one, as PTS
  ASSERT_EQ(bar["ptsn_shadowed_entries"].size(), 1u);
  EXPECT_EQ(bar["ptsn_shadowed_entries"][0]["value"], 124.13);
  EXPECT_EQ(bar["ptsn_shadowed_entries"][0]["ptsn_key"], "Baseline");
  ASSERT_EQ(j["ptsn_shadowed_results"].size(), 1u);
  EXPECT_EQ(j["ptsn_shadowed_results"][0]["results"]["Tuned"]["value"], 9.5);
  const std::string pts = ResultFileToJson(f, kPtsOnly);  // PTS's, which drops them
  EXPECT_EQ(pts.find("ptsn"), std::string::npos);
  EXPECT_EQ(Json::parse(pts)["results"][ComparisonHash(f.results[0])]["results"]["Baseline"]["value"], 130.5);
}

// The median, min and max are written from the trial's own text when PHP prints it as it is:
// for trials and samples of every kind (trailing zeros, signs, zeros of both signs, exponents,
// spaces, words, more digits than PHP keeps) each prints as formatting the double does.
TEST(ExportJson, StatisticsFromTrialTextPrintAsTheirDoubles) {
  const std::vector<std::string> pieces = {"12.5", "12.50", "-3", "0", "-0", "-0.0", "0.0", "7", "1e3", " 7", "+2",
                                           "0.00012", "0.000012", "123456789012345", "1234567890123456", "99.99",
                                           "abc", "5.", ".5", "-12.25", "100", "1e-7", "3.14159265358979"};
  std::mt19937_64 rng(11);
  ResultFile f;
  std::vector<std::string> expected;  // "median: x, min: y, max: z" per result, in order
  for (int i = 0; i < 3000; ++i) {
    const char sep = i % 4 == 0 ? ',' : ':';
    std::string joined;
    for (size_t k = 0, n = 1 + rng() % 5; k < n; ++k) joined += (k ? std::string(1, sep) : "") + pieces[rng() % pieces.size()];
    Result r;
    r.title = "T" + std::to_string(i);
    Entry e;
    e.identifier = "S";
    if (sep == ',') e.value = joined + ",1";  // a series
    else e.value = "5", e.raw_string = joined;
    const std::vector<double> numbers = EntryNumbers(e);
    if (numbers.empty()) continue;
    const TrialSummary t = Summarize(numbers);
    std::string line;
    for (double v : {t.median, t.min, t.max}) {
      line += line.empty() ? "" : ", ";
      AppendPhpJsonFloat(line, v);
    }
    expected.push_back(line);
    r.entries.push_back(e);
    f.results.push_back(r);
  }
  const std::string text = ResultFileToJson(f, kStatistics);
  auto after = [&](std::string_view key, size_t& from) {
    from = text.find("\"" + std::string(key) + "\": ", from);
    const size_t begin = from + key.size() + 4;
    from = text.find_first_of(",\n", begin);
    return text.substr(begin, from - begin);
  };
  size_t at = 0;
  for (const std::string& line : expected) {
    std::string got = after("median", at);
    got += ", " + after("min", at);
    got += ", " + after("max", at);
    ASSERT_EQ(got, line);
  }
}

}  // namespace
}  // namespace ptsn::results
