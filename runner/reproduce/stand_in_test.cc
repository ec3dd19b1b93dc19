#include "runner/reproduce/stand_in.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/error_of.h"

namespace ptsn::reproduce {

namespace {
const char* kFsMark = R"(<?xml version="1.0"?>
<StandInFor>
  <Test>
    <Profile>pts/fs-mark-1.0</Profile>
    <Arguments>-s (\d+) -n (\d+)</Arguments>
    <UseArguments>--size $1 --files $2</UseArguments>
    <UseDescription>Files: $2, Size: $1</UseDescription>
    <Note>fsync per file, one thread</Note>
  </Test>
  <Test>
    <Profile>pts/postmark</Profile>
  </Test>
</StandInFor>)";
}  // namespace

TEST(StandIn, ParsesRulesAndSubstitutesCaptures) {
  auto rules = ParseStandInDeclaration(kFsMark, "native/fs-files-1.0.0", "x/stand-in-for.xml");
  ASSERT_EQ(rules.size(), 2u);
  auto all = FindStandIns(rules, "pts/fs-mark-1.0.0", " -s 1048576 -n 1000 ");
  ASSERT_EQ(all.size(), 1u);
  auto* m = &all[0];
  EXPECT_EQ(m->arguments, "--size 1048576 --files 1000");
  EXPECT_EQ(m->description, "Files: 1000, Size: 1048576");
  EXPECT_EQ(m->rule->note, "fsync per file, one thread");
  // Whole-string match: extra options the stand-in does not model are not covered.
  EXPECT_TRUE(FindStandIns(rules, "pts/fs-mark-1.0.0", "-s 1048576 -n 5000 -t 4").empty());
  // Another major.minor is another test.
  EXPECT_TRUE(FindStandIns(rules, "pts/fs-mark-1.1.0", "-s 1048576 -n 1000").empty());
  // No Arguments pattern = any arguments, passed through unchanged.
  auto pm = FindStandIns(rules, "pts/postmark-1.1.0", "");
  ASSERT_EQ(pm.size(), 1u);
  EXPECT_EQ(pm[0].arguments, "");
}

TEST(StandIn, LabelNamesBothProfiles) {
  EXPECT_EQ(StandInLabel("native/fs-files-1.0.0", "pts/fs-mark-1.0.3"), "native/fs-files-1.0.0 for pts/fs-mark-1.0");
  EXPECT_TRUE(ProfileCovers("pts/fs-mark-1.0", "pts/fs-mark-1.0.3"));
  EXPECT_FALSE(ProfileCovers("pts/fs-mark-1.0", "pts/fs-mark-1.01.0"));
  EXPECT_FALSE(ProfileCovers("pts/fs", "pts/fs-mark-1.0.0"));
}

TEST(StandIn, BadDeclarationsNameTheFile) {
  auto message = [](const std::string& xml) {
    return test::ErrorOf([&] { ParseStandInDeclaration(xml, "native/x-1.0.0", "p/stand-in-for.xml"); });
  };
  EXPECT_NE(message("<StandInFor><Test>").find("p/stand-in-for.xml: not well-formed"), std::string::npos);
  EXPECT_NE(message("<Other/>").find("root element"), std::string::npos);
  EXPECT_NE(message("<StandInFor><Test><Arguments>x</Arguments></Test></StandInFor>").find("no <Profile>"),
            std::string::npos);
  EXPECT_NE(message("<StandInFor><Test><Profile>a/b</Profile><Arguments>(</Arguments></Test></StandInFor>")
                .find("not a valid regular expression"),
            std::string::npos);
  // External entities are never fetched or expanded.
  std::string xxe = "<?xml version=\"1.0\"?><!DOCTYPE s [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>"
                    "<StandInFor><Test><Profile>&e;</Profile></Test></StandInFor>";
  EXPECT_NE(message(xxe).find("DOCTYPE is not allowed"), std::string::npos);
}

TEST(StandIn, LoadsDeclarationsFromTheStandInsDirectoryOfEachProfileTree) {
  namespace fs = std::filesystem;
  fs::path root = fs::path(::testing::TempDir()) / "standin-tree";
  fs::remove_all(root);
  MakeDirectories((root / "native/fs-files-1.0.0").string());
  MakeDirectories((root / "stand-ins/native").string());
  WriteFileAtomically((root / "stand-ins/native/fs-files-1.0.0.xml").string(), kFsMark);
  WriteFileAtomically((root / "stand-ins/native/notes.txt").string(), "not a declaration");
  // The old place, inside the profile (PTS's validate-test-profile refuses it there), is not read.
  WriteFileAtomically((root / "native/fs-files-1.0.0/stand-in-for.xml").string(), kFsMark);
  auto rules = LoadStandIns({root.string(), (root / "missing").string()});
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0].stand_in_profile, "native/fs-files-1.0.0");
  EXPECT_EQ(rules[0].declared_in, (root / "stand-ins/native/fs-files-1.0.0.xml").string());
  fs::remove_all(root);
}

TEST(StandIn, BundledProfilesCarryNoDeclarationInsideThemAndEachDeclarationNamesABundledProfile) {
  namespace fs = std::filesystem;
  const fs::path profiles = fs::path(PTSN_SOURCE_DIR) / "profiles";
  for (const auto& f : fs::recursive_directory_iterator(profiles))
    EXPECT_NE(f.path().filename(), "stand-in-for.xml") << f.path();
  auto rules = LoadStandIns({profiles.string()});
  EXPECT_GE(rules.size(), 10u);
  for (const auto& r : rules)
    EXPECT_TRUE(fs::is_regular_file(profiles / r.stand_in_profile / "test-definition.xml")) << r.declared_in;
}

}  // namespace ptsn::reproduce
