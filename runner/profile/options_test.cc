#include "runner/profile/options.h"

#include <gtest/gtest.h>

#include "runner/profile/php_compat.h"

namespace ptsn::profile {
namespace {

TestOption Opt(const std::string& id, const std::string& display, std::vector<OptionEntry> entries,
               const std::string& prefix = "", const std::string& postfix = "", const std::string& def = "") {
  TestOption o;
  o.identifier = id;
  o.display_name = display;
  o.entries = std::move(entries);
  o.prefix = prefix;
  o.postfix = postfix;
  o.default_entry_raw = def;
  return o;
}

std::vector<TestOption> FioLike() {
  return {Opt("type", "Type", {{"Random Read", "randread", ""}, {"Sequential Write", "write", ""}}),
          Opt("bs", "Block Size", {{"4KB", "4k", ""}, {"2MB (big)", "2m", ""}, {"64KB", "64k", ""}}, "--bs=", "", "3"),
          Opt("target", "Disk Target", {{"Default Test Directory", "", ""}})};
}

TEST(Options, EntryValueAndDescription) {
  TestOption o = Opt("q", "Quality", {{"Quality 100 (slow)", "100", ""}, {"(x) odd", "1", ""}, {"", "2", ""}}, "-q ", "!");
  EXPECT_EQ(OptionEntryValue(o, 0), "-q 100!");
  EXPECT_EQ(OptionEntryDescription(o, 0), "Quality: Quality 100");  // cut before "(...)"
  EXPECT_EQ(OptionEntryDescription(o, 1), "Quality: (x) odd");      // '(' at position 0 is kept
  EXPECT_EQ(OptionEntryDescription(o, 2), "");                      // PTS gives null
}

TEST(Options, BatchIsTheCartesianProductFirstOptionSlowest) {
  auto combos = BatchOptions(FioLike());
  ASSERT_EQ(combos.size(), 6u);
  EXPECT_EQ(combos[0].arguments, "randread --bs=4k");  // empty last value vanishes in the trim
  EXPECT_EQ(combos[0].description, "Type: Random Read - Block Size: 4KB - Disk Target: Default Test Directory");
  EXPECT_EQ(combos[1].description, "Type: Random Read - Block Size: 2MB - Disk Target: Default Test Directory");
  EXPECT_EQ(combos[3].arguments, "write --bs=4k");
}

TEST(Options, DelimiterQuirks) {
  // Empty middle value: double space / double delimiter; empty last description: dangling " -".
  EXPECT_EQ(ComputeAllCombinations({{"a"}, {""}, {"b"}}, " "), (std::vector<std::string>{"a  b"}));
  EXPECT_EQ(ComputeAllCombinations({{"A"}, {""}, {"B"}}, " - "), (std::vector<std::string>{"A -  - B"}));
  EXPECT_EQ(ComputeAllCombinations({{"A"}, {""}}, " - "), (std::vector<std::string>{"A -"}));
  EXPECT_EQ(ComputeAllCombinations({{""}, {"B"}}, " - "), (std::vector<std::string>{"B"}));
  EXPECT_EQ(ComputeAllCombinations({{"0"}, {"B"}}, " "), (std::vector<std::string>{"0B"}));  // PHP empty("0")
  EXPECT_TRUE(ComputeAllCombinations({{"a"}, {}}, " ").empty());  // a free-text option in batch mode
}

TEST(Options, DefaultsTakeBothEntriesOfTwoEntryOptions) {
  auto combos = DefaultOptions(FioLike());
  ASSERT_EQ(combos.size(), 2u);
  EXPECT_EQ(combos[0].arguments, "randread --bs=64k");  // DefaultEntry 3
  EXPECT_EQ(combos[1].arguments, "write --bs=64k");
  TestOption bad = Opt("x", "X", {{"a", "1", ""}, {"b", "2", ""}, {"c", "3", ""}}, "", "", "7");
  EXPECT_EQ(bad.DefaultIndex(), 2);  // an invalid DefaultEntry makes the LAST entry the default
  EXPECT_EQ(Opt("x", "X", {{"a", "1", ""}, {"b", "2", ""}}, "", "", "0").DefaultIndex(), 0);
}

TEST(Options, PickedOptionsTakeTheDefaultOrEveryEntryOfAnOpenOption) {
  auto opts = FioLike();
  OptionPicks picks{{"type", {{1}, {}}}};
  auto combos = PickedOptions(opts, picks, OpenOptions::kDefault);
  ASSERT_EQ(combos.size(), 1u);
  EXPECT_EQ(combos[0].arguments, "write --bs=64k");  // bs open: its DefaultEntry 3
  EXPECT_EQ(combos[0].description, "Type: Sequential Write - Block Size: 64KB - Disk Target: Default Test Directory");
  combos = PickedOptions(opts, picks, OpenOptions::kEvery);
  ASSERT_EQ(combos.size(), 3u);  // bs open: all three, in menu order
  EXPECT_EQ(combos[0].arguments, "write --bs=4k");
  EXPECT_EQ(combos[2].arguments, "write --bs=64k");
  // With nothing picked, kEvery is batch mode's expansion.
  EXPECT_EQ(PickedOptions(opts, {}, OpenOptions::kEvery), BatchOptions(opts));
}

TEST(Options, PickedValuesAreVerbatim) {
  OptionPicks picks{{"bs", {{}, {"16k", "1m"}}}};
  auto combos = PickedOptions(FioLike(), picks, OpenOptions::kDefault);
  ASSERT_EQ(combos.size(), 2u);
  EXPECT_EQ(combos[0].arguments, "randread --bs=16k");
  EXPECT_EQ(combos[0].description, "Type: Random Read - Block Size: 16k - Disk Target: Default Test Directory");
}

TEST(Options, SuiteOptionSelect) {
  auto combos = BatchOptions(FioLike(), "type=Random Read,bs=4KB,bs=64KB");
  ASSERT_EQ(combos.size(), 2u);
  EXPECT_EQ(combos[1].arguments, "randread --bs=64k");
}

TEST(Options, PtsTestArguments) {
  EXPECT_EQ(PtsTestArguments(" -d scratch", "-L 20 -n 1000", ""), "-d scratch -L 20 -n 1000");
  EXPECT_EQ(PtsTestArguments("", "b1 6", " 2"), "b1 6  2");  // pts/cryptopp: inner double space kept
  EXPECT_EQ(PtsTestArguments("-x", "-x -y", ""), "-x  -y");   // Default/Arguments removed from extra
}

TEST(Options, MachineDependentMenus) {
  std::vector<TestOption> opts = {
      Opt("cpu-threads", "Threads", {{"x", "x", "m0"}}),
      Opt("ram-capacity", "RAM", {}),
      Opt("auto-disk-mount-points", "Disk", {}),
      Opt("renderer", "Renderer", {{"Direct3D 11", "d3d", ""}, {"OpenGL", "gl", ""}, {"Vulkan", "vk", ""}}),
      Opt("only-cuda", "GPU", {{"NVIDIA CUDA", "cuda", ""}}),
  };
  MachineFacts f;
  f.logical_cores = 6;
  f.memory_mb = 3000;
  f.disk_mount_points = {"/", "/data"};
  f.vulkan = false;
  auto errors = AutoProcessOptions(&opts, f, {});
  ASSERT_EQ(opts[0].entries.size(), 4u);  // 1 2 4 6
  EXPECT_EQ(opts[0].entries[3].name, "6");
  EXPECT_EQ(opts[0].entries[0].message, "m0");  // messages stay by position, as in PTS
  ASSERT_EQ(opts[1].entries.size(), 7u);         // 32MB .. 2GB
  EXPECT_EQ(opts[1].entries[5].name, "1GB");
  EXPECT_EQ(opts[1].entries[6].value, "2048");
  ASSERT_EQ(opts[2].entries.size(), 3u);
  EXPECT_EQ(opts[2].entries[0].name, "Default Test Directory");
  ASSERT_EQ(opts[3].entries.size(), 1u);
  EXPECT_EQ(opts[3].entries[0].name, "OpenGL");
  EXPECT_TRUE(opts[4].entries.empty());
  EXPECT_EQ(errors, (std::vector<std::string>{"No supported options found for only-cuda"}));
}

TEST(Options, ResolutionMenusReplaceWidthThenHeightLikeStrReplace) {
  // PTS: str_replace('$VIDEO_WIDTH', w, ...) then str_replace('$VIDEO_HEIGHT', h, ...) on Name and
  // Value of the single entry, once per mode; odd '$' placements must come out the same.
  const std::string name = "$VIDEO_WIDTH x $VIDEO_HEIGHT $$VIDEO_HEIGHT$ $VIDEO_$VIDEO_WIDTHHEIGHT $VIDEO_";
  const std::string value = "-w $VIDEO_WIDTH$VIDEO_WIDTH -h $VIDEO_HEIGHT$";
  std::vector<TestOption> opts = {Opt("auto-resolution", "Resolution", {{name, value, "pick one"}})};
  MachineFacts f;  // no screen: PTS's fixed list of 13 modes
  ASSERT_TRUE(AutoProcessOptions(&opts, f, {}).empty());
  ASSERT_EQ(opts[0].entries.size(), 13u);
  auto php = [](const std::string& s, int w, int h) {
    return php::StrReplace(php::StrReplace(s, "$VIDEO_WIDTH", std::to_string(w)), "$VIDEO_HEIGHT", std::to_string(h));
  };
  EXPECT_EQ(opts[0].entries[0].name, php(name, 800, 600));
  EXPECT_EQ(opts[0].entries[0].name, "800 x 600 $600$ $VIDEO_800HEIGHT $VIDEO_");
  EXPECT_EQ(opts[0].entries[12].value, php(value, 3840, 2160));
  EXPECT_EQ(opts[0].entries[0].message, "pick one");  // messages stay by position
  EXPECT_EQ(opts[0].entries[1].message, "");
}

TEST(Options, DroppedEntriesShiftNamesButNotMessages) {
  std::vector<TestOption> opts = {
      Opt("api", "API", {{"Vulkan", "vk", "m1"}, {"OpenGL", "gl", "m2"}, {"OpenCL", "cl", "m3"}}),
      Opt("plain", "Plain", {{"A", "a", "ma"}, {"B", "b", "mb"}}),
  };
  std::vector<TestOption> untouched = {opts[1]};
  MachineFacts f;
  f.vulkan = false;
  EXPECT_TRUE(AutoProcessOptions(&opts, f, {}).empty());
  ASSERT_EQ(opts[0].entries.size(), 2u);
  EXPECT_EQ(opts[0].entries[0].name, "OpenGL");
  EXPECT_EQ(opts[0].entries[0].value, "gl");
  EXPECT_EQ(opts[0].entries[0].message, "m1");  // PTS keeps the messages array as it was
  EXPECT_EQ(opts[0].entries[1].name, "OpenCL");
  EXPECT_EQ(opts[0].entries[1].message, "m2");
  EXPECT_EQ(opts[1], untouched[0]);  // nothing to drop: left exactly as it was
}

}  // namespace
}  // namespace ptsn::profile
