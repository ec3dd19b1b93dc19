// Our exports against what the real PTS 10.8.6 printed for the same files
// (../shared/reference/{pts-output,seed-results}/*/result-file-to-*). Skipped without ../shared.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "results-xml/model/result_xml.h"
#include "results-xml/model/test_support.h"
#include "results-xml/views/export_json.h"
#include "results-xml/views/export_text.h"
#include "runner/common/atomic_file.h"

namespace ptsn::results {
namespace {

// Whitespace runs collapse to one space (the goldens went through a shell capture that added a
// trailing newline).
std::string NormalizeWhitespace(const std::string& s) {
  std::string out;
  bool in_space = false;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      in_space = true;
      continue;
    }
    if (in_space && !out.empty()) out += ' ';
    in_space = false;
    out += c;
  }
  return out;
}

struct TextCase {
  const char* dir;  // under shared/reference
  int width;        // the TERMINAL_WIDTH the golden was made with (see the READMEs)
};

class TextGolden : public ::testing::TestWithParam<TextCase> {};

TEST_P(TextGolden, MatchesPtsResultFileToText) {
  PTSN_REQUIRE_REFERENCE();
  const std::string dir = test::ReferenceDir() + "/" + GetParam().dir;
  const ResultFile file = ReadResultFile(dir + "/composite.xml");
  const std::string ours = ResultFileToText(file, GetParam().width);
  const std::string golden = ReadFile(dir + "/result-file-to-text.txt");
  EXPECT_EQ(NormalizeWhitespace(ours), NormalizeWhitespace(golden));
  // Stronger than the goal: byte-identical apart from the capture's extra final newline.
  EXPECT_EQ(ours + "\n", golden);
}

INSTANTIATE_TEST_SUITE_P(
    Reference, TextGolden,
    ::testing::Values(TextCase{"seed-results/1110088-AR-1110066AR56", 79},
                      TextCase{"seed-results/ubuntu-1304-disk-encryption", 79},
                      TextCase{"pts-output/merged", 80}, TextCase{"pts-output/result-a", 80},
                      TextCase{"pts-output/result-b", 80}),
    [](const ::testing::TestParamInfo<TextCase>& p) {
      std::string name = p.param.dir;
      for (char& c : name)
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      return name;
    });

TEST(ConfidenceGolden, MatchesPtsResultFileConfidence) {
  PTSN_REQUIRE_REFERENCE();
  const std::string dir = test::ReferenceDir() + "/pts-output/merged";
  EXPECT_EQ(ResultFileConfidenceText(ReadResultFile(dir + "/composite.xml")) + "\n",
            ReadFile(dir + "/result-file-confidence.txt"));
}

// JSON: PTS's keys only, and our default (these files lose nothing in PTS's keyed objects), equal
// PTS's result-file-to-json byte for byte; with statistics, removing every "ptsn*" key gives the
// same document.
class JsonGolden : public ::testing::TestWithParam<const char*> {};

TEST_P(JsonGolden, CoreEqualsPtsResultFileToJson) {
  PTSN_REQUIRE_REFERENCE();
  const std::string dir = test::ReferenceDir() + "/" + GetParam();
  const ResultFile file = ReadResultFile(dir + "/composite.xml");
  const std::string golden = ReadFile(dir + "/result-file-to-json.json");
  EXPECT_EQ(ResultFileToJson(file, {.extras = JsonOptions::Extras::kPtsOnly}), golden);
  EXPECT_EQ(ResultFileToJson(file), golden);

  auto strip = [](auto& self, nlohmann::ordered_json& j) -> void {
    if (!j.is_object()) return;
    for (auto it = j.begin(); it != j.end();) {
      if (it.key().rfind("ptsn", 0) == 0) {
        it = j.erase(it);
      } else {
        self(self, *it);
        ++it;
      }
    }
  };
  auto ours = nlohmann::ordered_json::parse(ResultFileToJson(file, {.extras = JsonOptions::Extras::kStatistics}));
  ASSERT_TRUE(ours.contains("ptsn"));
  strip(strip, ours);
  EXPECT_EQ(ours, nlohmann::ordered_json::parse(golden));
}

INSTANTIATE_TEST_SUITE_P(Reference, JsonGolden,
                         ::testing::Values("seed-results/1110088-AR-1110066AR56",
                                           "seed-results/ubuntu-1304-disk-encryption", "pts-output/merged",
                                           "pts-output/result-a", "pts-output/result-b"),
                         [](const ::testing::TestParamInfo<const char*>& p) {
                           std::string name = p.param;
                           for (char& c : name)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

}  // namespace
}  // namespace ptsn::results
