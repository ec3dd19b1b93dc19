#include "results-xml/views/export_text.h"

#include <gtest/gtest.h>

#include "results-xml/views/export_test_fixture.h"

namespace ptsn::results {
namespace {

std::string Bars(size_t n) { return std::string(n, '='); }

TEST(ExportText, SmallFileAtDefaultWidth) {
  const std::string hw = "\tProcessor: AMD EPYC (2 Cores), Memory: 24GB, Disk: 252GB\n\n";
  const std::string sw = "\tOS: Debian 12, Kernel: 6.18.44 (x86_64), File-System: ext4\n\n";
  const std::string expected =
      "Sample Disk Golden A\nGolden run A.\n\n\n"
      "Baseline: \n\n" + hw + sw + "Tuned: \n\n" + hw + sw +
      // Bar: 79 columns minus "Baseline . 124.13 |" (19) = 60; 123.11/124.13*60 = 59.5 → 60.
      "\nSample Disk 1.0\nBlock Size: 4KB\nMB/s > Higher Is Better\n"
      "Baseline . 124.13 |" + Bars(60) + "\n"
      "Tuned .... 123.11 |" + Bars(60) + "\n\n"
      // Line graph: max 100 * 1.03 > 100 → precision 0; AVG padded to strlen("103").
      "\nSample Disk 1.0\nCPU Usage (Summary) Monitor\nPercent < Lower Is Better\n"
      "Baseline . MIN: 75  AVG: 88   MAX: 100 \n"
      "Tuned .... MIN: 51  AVG: 73   MAX: 100 \n\n"
      // Smallest value < 10: keeps its own precision.
      "\nSample Disk 1.0\nBlock Size: 64KB\nMB/s < Lower Is Better\n"
      "Tuned . 9.5 |" + Bars(66) + "\n\n"
      // A failed (empty) entry is not printed but still widens the identifier column.
      "\nSample Disk 1.0\nBlock Size: 1MB\nMB/s < Lower Is Better\n"
      "Tuned .... 1456.9 |" + Bars(60) + "\n\n";
  EXPECT_EQ(ResultFileToText(test::SmallResultFile()), expected);
}

TEST(ExportText, WideTerminalIndentsResultBlocks) {
  std::string text = ResultFileToText(test::SmallResultFile(), 100);
  EXPECT_NE(text.find("\n    Sample Disk 1.0\n    Block Size: 4KB\n    MB/s > Higher Is Better\n"
                      "    Baseline . 124.13 |" + Bars(100 - 23) + "\n"),
            std::string::npos)
      << text;
}

TEST(ExportText, PrecisionDropsToTwoDecimalsAboveTen) {
  Result r;
  r.title = "T";
  r.scale = "ms";
  r.proportion = "LIB";
  r.entries = {{"a", "12.3456", "", {}}, {"b", "25", "", {}}};
  std::string out;
  AppendResultText(out, r, 40, "");
  // Every numeric value is reformatted to the block's precision ("25" → "25.00");
  // "a . 12.35 |" is 11 columns → 29 bars at the maximum; 12.35/25*29 = 14.3 → 14.
  EXPECT_EQ(out, "\nT\n\nms < Lower Is Better\na . 12.35 |" + Bars(14) + "\nb . 25.00 |" + Bars(29));
}

TEST(ExportText, BoxPlotWhenSeveralBrandIdentifiersAndRoom) {
  Result r;
  r.title = "CPU Usage Monitor";
  r.scale = "Percent";
  r.display_format = "LINE_GRAPH";
  r.entries = {{"Intel Core", "10,20,30,40,50", "", {}}, {"AMD Ryzen", "5,15,25", "", {}}};
  std::string out;
  AppendResultText(out, r, 120, "");
  // Rows are "<id> MIN..MAX " then a plot filling the terminal width.
  auto first = out.find("Intel Core . MIN: 10.0  AVG: 30.0  MAX: 50.0 ");
  ASSERT_NE(first, std::string::npos) << out;
  auto eol = out.find('\n', first);
  std::string row = out.substr(first, eol == std::string::npos ? std::string::npos : eol - first);
  EXPECT_EQ(row.size(), 120u);
  EXPECT_NE(row.find('X'), std::string::npos);
  EXPECT_NE(row.find('#'), std::string::npos);
}

}  // namespace
}  // namespace ptsn::results
