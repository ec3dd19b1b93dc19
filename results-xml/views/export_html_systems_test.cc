// The systems table puts what differs first and what all systems share once (issue 49).
#include "results-xml/views/export_html_systems.h"

#include <gtest/gtest.h>

namespace ptsn::results {
namespace {

ResultFile FourSetUps() {
  ResultFile f;
  for (const char* name : {"Home: Stock", "Home: AES-NI", "LVM: Stock", "LVM: AES-NI"}) {
    System s;
    s.identifier = name;
    s.hardware = "Processor: Intel Core i5-2520M, Motherboard: HP 161C";
    s.software = std::string("Kernel: 3.0.0-12-generic, File-System: ") + (name[0] == 'H' ? "ext4 (ecryptfs)" : "ext4");
    s.timestamp = "2011-10-05 13:17:00";
    s.notes = std::string("Disk Scheduler: CFQ. Compiz was running.") + (std::string(name).ends_with("Stock") ? " SpeedStep was enabled." : "");
    f.systems.push_back(s);
  }
  return f;
}

TEST(SystemsTable, DifferingRowsFirstAndSharedOnesOnce) {
  const SystemsComparison c = CompareSystems(FourSetUps());
  ASSERT_EQ(c.differing.size(), 2u);
  EXPECT_EQ(c.differing[0].name, "File-System");
  EXPECT_EQ(c.differing[0].values, (std::vector<std::string>{"ext4 (ecryptfs)", "ext4 (ecryptfs)", "ext4", "ext4"}));
  // Of the notes, only the part that differs is set beside each other; the rest is shared.
  EXPECT_EQ(c.differing[1].name, "System Notes");
  EXPECT_EQ(c.differing[1].values, (std::vector<std::string>{"SpeedStep was enabled.", "", "SpeedStep was enabled.", ""}));
  const std::vector<std::pair<std::string, std::string>> same = {
      {"Processor", "Intel Core i5-2520M"}, {"Motherboard", "HP 161C"}, {"Kernel", "3.0.0-12-generic"},
      {"System Notes", "Disk Scheduler: CFQ. Compiz was running."}, {"Tested", "2011-10-05 13:17:00"}};
  EXPECT_EQ(c.same, same);
}

TEST(SystemsTable, HtmlSpansTheSharedCellsAndSdtShowsEveryCell) {
  std::string compact, full;
  AppendSystemsHtml(compact, FourSetUps(), false);
  AppendSystemsHtml(full, FourSetUps(), true);
  EXPECT_NE(compact.find("What differs between the systems: File-System, System Notes."), std::string::npos) << compact;
  EXPECT_NE(compact.find("<tr class=\"same\"><th>Processor</th><td colspan=\"4\">Intel Core i5-2520M</td></tr>"),
            std::string::npos) << compact;
  EXPECT_LT(compact.find("File-System"), compact.find("Processor"));
  // Every cell of the full table, the notes apart.
  size_t count = 0;
  for (size_t at = full.find("Intel Core i5-2520M"); at != std::string::npos; at = full.find("Intel Core i5-2520M", at + 1)) ++count;
  EXPECT_EQ(count, 4u);
  EXPECT_NE(full.find("<h2>System Notes</h2>"), std::string::npos);
  EXPECT_EQ(full.find("colspan"), std::string::npos);
}

TEST(SystemsTable, NotesSplitAtSentencesAndPtsSeparators) {
  ResultFile f = FourSetUps();
  f.systems.resize(2);
  f.systems[0].json = R"({"cpu-scaling-governor":"performance","cpu-microcode":"0x1"})";
  f.systems[1].json = R"({"cpu-scaling-governor":"powersave","cpu-microcode":"0x1"})";
  const SystemsComparison c = CompareSystems(f);
  auto row = std::find_if(c.differing.begin(), c.differing.end(), [](const SystemsRow& r) { return r.name == "Processor Notes"; });
  ASSERT_NE(row, c.differing.end());
  EXPECT_EQ(row->values, (std::vector<std::string>{"Scaling Governor: performance", "Scaling Governor: powersave"}));
  auto shared = std::find_if(c.same.begin(), c.same.end(), [](const auto& s) { return s.first == "Processor Notes"; });
  ASSERT_NE(shared, c.same.end());
  EXPECT_EQ(shared->second, "CPU Microcode: 0x1");
}

}  // namespace
}  // namespace ptsn::results
