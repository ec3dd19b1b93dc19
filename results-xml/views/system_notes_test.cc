#include "results-xml/views/system_notes.h"

#include <gtest/gtest.h>

#include "results-xml/model/result_xml.h"
#include "results-xml/model/test_support.h"
#include "results-xml/views/export_html.h"
#include "runner/common/atomic_file.h"

namespace ptsn::results {
namespace {

using Sections = std::vector<std::pair<std::string, std::string>>;

TEST(SystemNotes, GoldenSystemAsPtsGroupsIt) {
  PTSN_REQUIRE_REFERENCE();
  const ResultFile f = ReadResultFile(test::ReferenceDir() + "/pts-output/merged/composite.xml");
  const Sections notes = SystemNoteSections(f.systems.at(0));
  ASSERT_EQ(notes.size(), 4u);
  EXPECT_EQ(notes[0], (std::pair<std::string, std::string>{"Kernel", "Transparent Huge Pages: madvise"}));
  EXPECT_EQ(notes[1], (std::pair<std::string, std::string>{"Environment", "NVPL_BLAS_DEBUG_CPU_TYPE=1"}));
  EXPECT_EQ(notes[2].first, "Disk");
  EXPECT_EQ(notes[2].second.substr(0, 30), "MQ-DEADLINE / discard,relatime");
  EXPECT_EQ(notes[2].second.substr(notes[2].second.size() - 19), " / Block Size: 4096");
  EXPECT_EQ(notes[3].first, "Security");
  // PTS's own HTML export draws the same sections, in the same order, in its systems graph
  // ("Kernel Details", "- Transparent Huge Pages: madvise", ...).
  const std::string pts_html = ReadFile(test::ReferenceDir() + "/pts-output/merged/result-file-to-html.html");
  size_t at = 0;
  for (const auto& [section, text] : notes) {
    at = pts_html.find(">" + section + " Details<", at);
    ASSERT_NE(at, std::string::npos) << section;
    EXPECT_NE(pts_html.find("- " + text.substr(0, 25), at), std::string::npos) << section;
  }
  // Ours shows them under "System Notes", as PTS's HTML report words them, with the full systems
  // table (sdt); the compact one makes them rows of the systems table.
  EXPECT_NE(ResultFileToHtml(f).find("<th>Kernel Notes</th>"), std::string::npos);
  HtmlView detailed;
  detailed.options.detailed_systems = true;
  const std::string ours = ResultFileToHtml(f, detailed);
  EXPECT_NE(ours.find("<h2>System Notes</h2><p class=\"notes\"><b>Baseline</b><br><strong>Kernel Notes:</strong> "
                      "Transparent Huge Pages: madvise<br><strong>Environment Notes:</strong> NVPL_BLAS_DEBUG_CPU_TYPE=1<br>"),
            std::string::npos);
}

TEST(SystemNotes, GroupingAndWordingOfPtsAnalyzer) {
  System s;
  s.json = R"({"cpu-scaling-governor":"acpi-cpufreq ondemand","cpu-microcode":"0xa201016","kernel-parameters":"quiet",)"
           R"("kernel-extra-details":"THP: never","disk-scheduler":"NONE","disk-mount-options":"rw","disk-details":"",)"
           R"("python":"Python 3.11.2","graphics-aa":"4x AA","bar1-visible-vram":"256MiB","extra_key-name":"x","empty":""})";
  s.notes = "Run in a VM.";
  const Sections want = {{"Kernel", "quiet - THP: never"},
                         {"Disk", "NONE / rw"},
                         {"Processor", "Scaling Governor: acpi-cpufreq ondemand - CPU Microcode: 0xa201016"},
                         {"Graphics", "4x AA - BAR1 / Visible vRAM Size: 256MiB"},
                         {"System", "Run in a VM."},
                         {"Python", "Python 3.11.2"},
                         {"Extra Key Name", "x"}};
  EXPECT_EQ(SystemNoteSections(s), want);
  System broken;
  broken.json = "{not json";
  EXPECT_EQ(SystemNoteSections(broken), (Sections{{"System JSON", "{not json"}}));
  EXPECT_TRUE(SystemNoteSections(System{}).empty());
}

}  // namespace
}  // namespace ptsn::results
