#include "results-xml/views/export_csv.h"

#include <gtest/gtest.h>

#include "results-xml/model/result_xml.h"
#include "results-xml/model/test_support.h"
#include "results-xml/views/export_test_fixture.h"
#include "runner/common/atomic_file.h"
#include "runner/common/strings.h"

namespace ptsn::results {
namespace {

// Minimal RFC 4180 reader for checking our output.
std::vector<std::vector<std::string>> ParseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1, std::vector<std::string>(1));
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') rows.back().back() += '"', ++i;
      else if (c == '"') quoted = false;
      else rows.back().back() += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().emplace_back();
    } else if (c == '\n') {
      rows.emplace_back(1);
    } else {
      rows.back().back() += c;
    }
  }
  if (rows.back().size() == 1 && rows.back()[0].empty()) rows.pop_back();
  return rows;
}

TEST(ExportCsv, DenseMatrixWithEmptyCells) {
  const std::string csv = ResultFileToCsv(test::SmallResultFile());
  EXPECT_EQ(csv,
            "Title,Description,Scale,Proportion,Baseline,Tuned\n"
            "Sample Disk,Block Size: 4KB,MB/s,HIB,124.13,123.11\n"
            // Series: round(mean, 2) printed as a PHP float.
            "Sample Disk,CPU Usage (Summary) Monitor,Percent,LIB,87.65,73.45\n"
            // Baseline lacks this result, and failed the next one: empty cells either way.
            "Sample Disk,Block Size: 64KB,MB/s,LIB,,9.5\n"
            "Sample Disk,Block Size: 1MB,MB/s,LIB,,1456.9\n");
  for (const auto& row : ParseCsv(csv)) EXPECT_EQ(row.size(), 6u);
}

TEST(ExportCsv, QuotesFieldsThatNeedIt) {
  std::string out;
  AppendCsvField(out, "a, \"b\"");
  EXPECT_EQ(out, "\"a, \"\"b\"\"\"");
  ResultFile f;
  f.systems.push_back({.identifier = "Encrypted Home (eCryptfs): Stock, \"AES\""});
  Result r;
  r.title = "T";
  r.entries = {{"Encrypted Home (eCryptfs): Stock, \"AES\"", "1", {}, {}}};
  f.results.push_back(r);
  auto rows = ParseCsv(ResultFileToCsv(f));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][4], "Encrypted Home (eCryptfs): Stock, \"AES\"");
  EXPECT_EQ(rows[1][4], "1");
}

TEST(ExportCsv, RawCsvHasEveryTrial) {
  auto rows = ParseCsv(ResultFileRawToCsv(test::SmallResultFile()));
  ASSERT_GE(rows.size(), 2u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"Title", "Description", "Scale", "Proportion", "System", "Trial", "Value"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"Sample Disk", "Block Size: 4KB", "MB/s", "HIB", "Baseline", "1", "125.1"}));
  size_t trials = 0;
  for (const auto& r : rows) trials += r[4] == "Tuned" && r[1] == "Block Size: 1MB";
  EXPECT_EQ(trials, 2u);  // 1400.1:1513.7
  size_t failed = 0;
  for (const auto& r : rows) failed += r[4] == "Baseline" && r[1] == "Block Size: 1MB";
  EXPECT_EQ(failed, 0u);  // a failed entry has no trials
}

// PTS's result-file-to-csv puts the same numbers in a different frame: a title line, a
// hardware/software table, then `"Title - Description (Scale)",PROPORTION,v1,v2...`. We keep
// the numbers and drop the frame (see export_csv.h); every result cell must agree.
TEST(ExportCsvGolden, CellsEqualPtsResultFileToCsv) {
  PTSN_REQUIRE_REFERENCE();
  for (const char* dir : {"merged", "result-a", "result-b"}) {
    SCOPED_TRACE(dir);
    const std::string base = test::ReferenceDir() + "/pts-output/" + dir;
    const ResultFile file = ReadResultFile(base + "/composite.xml");
    const auto ours = ParseCsv(ResultFileToCsv(file));

    // PTS rows of results: after the second header line (" ,,..."), up to the blank line.
    std::vector<std::vector<std::string>> pts;
    int headers = 0;
    for (const auto& line : Split(ReadFile(base + "/result-file-to-csv.csv"), '\n')) {
      if (StartsWith(line, " ,,")) {
        ++headers;
        continue;
      }
      if (headers == 2 && !line.empty()) {
        // The quoted label holds no quotes in these files; split the rest at ','.
        const size_t close = line.find("\",");
        ASSERT_NE(close, std::string::npos) << line;
        auto cells = Split(line.substr(close + 2), ',');
        pts.push_back(cells);
      }
    }
    ASSERT_EQ(pts.size() + 1, ours.size());
    for (size_t i = 0; i < pts.size(); ++i) {
      const auto& o = ours[i + 1];
      EXPECT_EQ(pts[i][0], o[3]) << "proportion of row " << i;
      EXPECT_EQ(std::vector<std::string>(pts[i].begin() + 1, pts[i].end()),
                std::vector<std::string>(o.begin() + 4, o.end()))
          << "values of row " << i;
    }
  }
}

}  // namespace
}  // namespace ptsn::results
