#include "runner/profile/presets.h"

#include <gtest/gtest.h>

#include "runner/common/error.h"
#include "runner/common/error_of.h"

namespace ptsn::profile {
namespace {

TestOption Opt(const std::string& id, std::vector<OptionEntry> entries) {
  TestOption o;
  o.identifier = id;
  o.display_name = id;
  o.entries = std::move(entries);
  return o;
}

TestProfile Cipher() {
  TestProfile p;
  p.identifier = "native/cipher-1.0.0";
  p.options = {Opt("cipher", {{"AES-256-XTS (512-bit key)", "aes-256-xts", ""}, {"ChaCha20-Poly1305", "chacha20-poly1305", ""}}),
               Opt("threads", {{"1", "1", ""}, {"2", "2", ""}, {"4", "4", ""}}),
               Opt("test", {{"1000 Files, 1MB Size", "-n 1000", ""}, {"5000 Files, 1MB Size", "-n 5000", ""}}),
               Opt("label", {})};
  return p;
}

using ptsn::test::ErrorOf;

TEST(Presets, ParseNamesTheBadEntry) {
  auto presets = ParsePresets(" cipher.threads = 2 ;;native/cipher.cipher=AES-256-XTS", "PRESET_OPTIONS", false);
  ASSERT_EQ(presets.size(), 2u);
  EXPECT_EQ(presets[0].test, "cipher");
  EXPECT_EQ(presets[0].option, "threads");
  EXPECT_EQ(presets[0].choice, "2");
  EXPECT_EQ(presets[1].test, "native/cipher");
  for (const char* bad : {"garbage", "cipher=2", ".threads=2", "cipher.=2", "cipher.threads="}) {
    std::string e = ErrorOf([&] { ParsePresets(std::string("cipher.threads=1;") + bad, "PRESET_OPTIONS", false); });
    EXPECT_NE(e.find("PRESET_OPTIONS: '" + std::string(bad) + "' is not test.option=choice"), std::string::npos) << e;
  }
  // A choice may hold '=' (a verbatim value such as "--mode=fast").
  EXPECT_EQ(ParsePresets("x.y=--mode=fast", "PRESET_OPTIONS_VALUES", true).at(0).choice, "--mode=fast");
}

TEST(Presets, NameWinsOverIndex) {
  TestProfile p = Cipher();
  const TestOption& threads = p.options[1];
  EXPECT_EQ(SelectEntries(threads, "2"), (std::vector<int>{1}));  // named 2, not index 2
  EXPECT_EQ(SelectEntries(threads, "4"), (std::vector<int>{2}));
  EXPECT_EQ(SelectEntries(threads, "0"), std::nullopt);           // numeric entries: no indexes
  EXPECT_EQ(SelectEntries(threads, "3"), std::nullopt);           // N == count is not "all"
  EXPECT_EQ(SelectEntries(threads, "Test All Options"), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(SelectEntries(threads, "4, 1"), (std::vector<int>{0, 2}));
}

TEST(Presets, NameShortNameValueCaseThenIndex) {
  const TestOption cipher = Cipher().options[0];
  EXPECT_EQ(SelectEntries(cipher, "AES-256-XTS (512-bit key)"), (std::vector<int>{0}));
  EXPECT_EQ(SelectEntries(cipher, "AES-256-XTS"), (std::vector<int>{0}));  // as descriptions show it
  EXPECT_EQ(SelectEntries(cipher, "chacha20-poly1305"), (std::vector<int>{1}));
  EXPECT_EQ(SelectEntries(cipher, "chacha20-POLY1305"), (std::vector<int>{1}));
  EXPECT_EQ(SelectEntries(cipher, "1"), (std::vector<int>{1}));  // no numeric entries: an index
  std::string unmatched;
  EXPECT_EQ(SelectEntries(cipher, "AES-256-XTS,ROT13", &unmatched), std::nullopt);
  EXPECT_EQ(unmatched, "ROT13");
  // A Name with a comma is taken whole before the list is split.
  EXPECT_EQ(SelectEntries(Cipher().options[2], "5000 Files, 1MB Size"), (std::vector<int>{1}));
}

TEST(Presets, PicksNameTheProfileTheOptionAndWhatItAccepts) {
  TestProfile p = Cipher();
  auto picks = PicksFromPresets(p, ParsePresets("cipher.threads=2;native/cipher.cipher=ChaCha20-Poly1305;fio.bs=4k;"
                                                "cipher.label=hello", ""));
  EXPECT_EQ(picks["threads"].entries, (std::vector<int>{1}));
  EXPECT_EQ(picks["cipher"].entries, (std::vector<int>{1}));
  EXPECT_EQ(picks["label"].values, (std::vector<std::string>{"hello"}));
  EXPECT_EQ(picks.size(), 3u);  // fio's preset is not for this profile

  std::string e = ErrorOf([&] { PicksFromPresets(p, ParsePresets("cipher.cipher=ROT13", "")); });
  EXPECT_EQ(e, "PRESET_OPTIONS: native/cipher option cipher has no entry 'ROT13' (accepts: AES-256-XTS (512-bit key), "
               "ChaCha20-Poly1305 (or their values aes-256-xts, chacha20-poly1305))");
  e = ErrorOf([&] { PicksFromPresets(p, ParsePresets("cipher.bogus=1", "")); });
  EXPECT_EQ(e, "PRESET_OPTIONS: native/cipher has no option 'bogus' (its options: cipher, threads, test, label)");
  e = ErrorOf([&] { PicksFromPresets(p, ParsePresets("", "cipher.bogus=1")); });
  EXPECT_NE(e.find("PRESET_OPTIONS_VALUES: native/cipher has no option 'bogus'"), std::string::npos) << e;
  e = ErrorOf([&] { PicksFromPresets(p, ParsePresets("cipher.threads=8", "")); });
  EXPECT_EQ(e, "PRESET_OPTIONS: native/cipher option threads has no entry '8' (accepts: 1, 2, 4)");
}

TEST(Presets, ValuesAreVerbatimLists) {
  auto picks = PicksFromPresets(Cipher(), ParsePresets("", "cipher.threads=3,8"));
  EXPECT_TRUE(picks["threads"].entries.empty());
  EXPECT_EQ(picks["threads"].values, (std::vector<std::string>{"3", "8"}));
}

TEST(Presets, SyntaxReadsBackAsTheSameEntry) {
  TestProfile p = Cipher();
  for (const auto& o : p.options)
    for (int i = 0; i < static_cast<int>(o.entries.size()); ++i) {
      std::string text = PresetSyntax(p, o, i);
      auto picks = PicksFromPresets(p, ParsePresets(text, ""));
      EXPECT_EQ(picks[o.identifier].entries, std::vector<int>{i}) << text;
    }
  EXPECT_EQ(PresetSyntax(p, p.options[1], 1), "cipher.threads=2");
  EXPECT_EQ(PresetSyntax(p, p.options[3], -1), "cipher.label=VALUE");
  // Two entries with one Name: the Values tell them apart.
  TestOption twice = Opt("mode", {{"Fast", "-f", ""}, {"Fast", "-F", ""}});
  p.options = {twice};
  EXPECT_EQ(PresetSyntax(p, twice, 1), "cipher.mode=-F");
}

}  // namespace
}  // namespace ptsn::profile
