#include "runner/profile/profile_repository.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "runner/common/error.h"
#include "runner/common/error_of.h"
#include "runner/profile/profile_loader.h"
#include "runner/profile/validate.h"

namespace ptsn::profile {
namespace {

namespace fs = std::filesystem;
const std::string kRoot = std::string(PTSN_SOURCE_DIR) + "/runner/profile/testdata/profiles";

using ptsn::test::ErrorOf;

TEST(ProfileRepository, ResolvesNamesLikePts) {
  ProfileRepository repo({kRoot});
  EXPECT_EQ(repo.FindProfile("local/mini-1.0.2")->identifier, "local/mini-1.0.2");
  EXPECT_EQ(repo.FindProfile("local/mini")->identifier, "local/mini-2.0.0");      // newest
  EXPECT_EQ(repo.FindProfile("local/mini-1.0")->identifier, "local/mini-1.0.2");  // newest 1.0.x
  EXPECT_EQ(repo.FindProfile("local/mini-1.1")->identifier, "local/mini-1.1.0");
  EXPECT_EQ(repo.FindProfile("mini")->identifier, "local/mini-2.0.0");  // local before pts
  EXPECT_EQ(repo.FindProfile("pts/mini")->identifier, "pts/mini-3.0.0");
  EXPECT_EQ(repo.FindProfile("other")->identifier, "pts/other-1.0.0");
  EXPECT_FALSE(repo.FindProfile("local/nothing"));
  EXPECT_FALSE(repo.FindProfile("local/mini-9.9"));
  EXPECT_EQ(repo.FindProfile(kRoot + "/pts/other-1.0.0")->identifier, "pts/other-1.0.0");  // a directory
}

TEST(ProfileRepository, EarlierRootsWin) {
  fs::path tmp = fs::temp_directory_path() / ("ptsn-repo-" + std::to_string(getpid()));
  fs::create_directories(tmp / "pts");
  fs::copy(kRoot + "/pts/other-1.0.0", tmp / "pts/other-1.0.0", fs::copy_options::recursive);
  ProfileRepository repo({tmp.string(), kRoot});
  EXPECT_EQ(repo.FindProfile("pts/other-1.0.0")->directory, (tmp / "pts/other-1.0.0").string());
  fs::remove_all(tmp);
}

TEST(ProfileRepository, LoadsEveryPart) {
  ProfileRepository repo({kRoot});
  TestProfile p = repo.LoadProfile("local/mini");
  EXPECT_EQ(p.title, "Mini 2.0.0");
  EXPECT_EQ(p.BaseName(), "mini");
  EXPECT_EQ(p.IdentifierWithoutVersion(), "local/mini");
  EXPECT_EQ(p.test_type, "Disk");
  EXPECT_EQ(p.times_to_run, 3);
  EXPECT_EQ(p.external_dependencies, (std::vector<std::string>{"build-utilities", "python"}));
  EXPECT_EQ(p.default_arguments, "--dir scratch");
  ASSERT_EQ(p.options.size(), 2u);
  EXPECT_EQ(p.options[0].identifier, "block-size");
  EXPECT_EQ(p.options[0].prefix, "--bs=");
  EXPECT_EQ(p.options[0].postfix, "k");
  EXPECT_EQ(p.options[0].DefaultIndex(), 1);
  ASSERT_EQ(p.options[0].entries.size(), 3u);
  EXPECT_EQ(p.options[0].entries[1].name, "64KB (large)");
  ASSERT_EQ(p.results.parsers.size(), 1u);
  EXPECT_EQ(p.results.parsers[0].line_hint, "Speed:");
  ASSERT_EQ(p.downloads.size(), 2u);
  EXPECT_EQ(p.downloads[0].urls.size(), 2u);
  EXPECT_EQ(p.downloads[0].file_name, "mini-2.0.tar.gz");
  EXPECT_EQ(p.downloads[0].file_size, 12345);
  EXPECT_EQ(p.downloads[0].platform_specific, (std::vector<std::string>{"Linux", "BSD"}));
  EXPECT_EQ(p.downloads[1].file_name, "extra-renamed.bin");
  EXPECT_TRUE(p.downloads[1].optional);
  EXPECT_EQ(p.downloads[1].architecture_specific, (std::vector<std::string>{"x86_64"}));
  EXPECT_EQ(fs::path(p.ScriptPath("install")).filename(), "install_linux.sh");  // OS-specific wins
  EXPECT_EQ(fs::path(p.ScriptPath("pre")).filename(), "pre.sh");
  EXPECT_EQ(p.ScriptPath("post"), "");
}

TEST(ProfileRepository, ExtendsInheritsEmptyElementsAndResults) {
  ProfileRepository repo({kRoot});
  TestProfile p = repo.LoadProfile("local/child");
  EXPECT_EQ(p.title, "Child");
  EXPECT_EQ(p.result_scale, "MB/s");  // empty in the child: asked of the parent
  EXPECT_EQ(p.test_type, "Disk");
  EXPECT_EQ(p.default_arguments, "--dir scratch");
  EXPECT_TRUE(p.options.empty());  // options are never inherited
  EXPECT_EQ(p.extends_chain, (std::vector<std::string>{"local/mini-1.0.2"}));
  EXPECT_TRUE(p.results.present());
  EXPECT_NE(p.results.path.find("mini-1.0.2"), std::string::npos);
}

TEST(ProfileRepository, BadProfilesGiveOneClearLine) {
  ProfileRepository repo({kRoot});
  std::string cycle = ErrorOf([&] { repo.LoadProfile("local/cycle-a"); });
  EXPECT_NE(cycle.find("test-definition.xml: TestProfile/Extends: inheritance cycle local/cycle-a-1.0.0 -> local/cycle-b-1.0.0 -> local/cycle-a-1.0.0"), std::string::npos) << cycle;
  std::string orphan = ErrorOf([&] { repo.LoadProfile("local/orphan"); });
  EXPECT_NE(orphan.find("TestProfile/Extends: parent profile 'local/does-not-exist' not found"), std::string::npos) << orphan;
  std::string unknown = ErrorOf([&] { repo.LoadProfile("local/unknown-element"); });
  EXPECT_NE(unknown.find("test-definition.xml: TestProfile/FavouriteColour (line"), std::string::npos) << unknown;
  std::string menu = ErrorOf([&] { repo.LoadProfile("local/empty-menu"); });
  EXPECT_NE(menu.find("TestSettings/Option[1]/Menu"), std::string::npos) << menu;
  EXPECT_NE(menu.find("without any Entry"), std::string::npos) << menu;
  std::string malformed = ErrorOf([&] { repo.LoadProfile("local/malformed"); });
  EXPECT_NE(malformed.find("malformed-1.0.0/test-definition.xml:5: malformed XML"), std::string::npos) << malformed;
  std::string entity = ErrorOf([&] { repo.LoadProfile("local/entity"); });
  EXPECT_NE(entity.find("entity declarations are not allowed"), std::string::npos) << entity;
  std::string none = ErrorOf([&] { repo.LoadProfile("local/no-results"); });
  EXPECT_NE(none.find("results-definition.xml: missing"), std::string::npos) << none;
  std::string missing = ErrorOf([&] { repo.LoadProfile("local/nothing"); });
  EXPECT_NE(missing.find("test profile 'local/nothing' not found"), std::string::npos) << missing;
}

TEST(ProfileRepository, BulkLoadKeepsGoingPastBadProfiles) {
  ProfileRepository repo({kRoot});
  BulkLoadReport r = LoadAllProfiles(repo);
  EXPECT_EQ(r.loaded.size(), 7u);    // mini x4, child, pts/mini, pts/other
  EXPECT_EQ(r.rejected.size(), 8u);  // cycle x2, orphan, unknown, empty menu, malformed, entity, no results
}

TEST(ProfileRepository, Suites) {
  ProfileRepository repo({kRoot});
  auto suites = repo.ListSuites();
  ASSERT_EQ(suites.size(), 1u);
  TestSuite s = repo.LoadSuite("local/mini-suite");
  EXPECT_EQ(s.title, "Mini Suite");
  ASSERT_EQ(s.executes.size(), 2u);
  EXPECT_EQ(s.executes[0].test, "local/mini");
  EXPECT_EQ(s.executes[0].description, "Block Size: 4KB - Mode: Read");
  EXPECT_EQ(s.executes[1].mode, "BATCH");
  EXPECT_EQ(s.executes[1].option_select, "mode=Write");
  ValidationReport v = ValidateSuite(repo, "local/mini-suite", "");
  EXPECT_TRUE(v.loaded);
  EXPECT_TRUE(v.issues.empty());
}

TEST(Validate, StructuralChecksNameFileAndElement) {
  ProfileRepository repo({kRoot});
  TestProfile p = repo.LoadProfile("local/mini-1.0.0");
  p.proportion = "BIGGER";
  p.options[0].default_entry_raw = "9";
  auto issues = StructuralChecks(p);
  ASSERT_EQ(issues.size(), 2u);
  EXPECT_NE(issues[0].ToString().find("test-definition.xml: TestInformation/Proportion: 'BIGGER'"), std::string::npos);
  EXPECT_NE(issues[1].ToString().find("TestSettings/Option[1]/DefaultEntry"), std::string::npos);
  ValidationReport bad = ValidateProfile(repo, "local/cycle-a", "");
  EXPECT_FALSE(bad.loaded);
  EXPECT_NE(bad.error.find("cycle"), std::string::npos);
}

TEST(Validate, SchemasWhenPresent) {
  std::string schemas = DefaultSchemaDirectory("");
  if (schemas.empty()) GTEST_SKIP() << "PTS schemas (../shared/reference/schemas) are absent";
  ProfileRepository repo({kRoot});
  ValidationReport ok = ValidateProfile(repo, "local/mini-2.0.0", schemas);
  EXPECT_TRUE(ok.loaded);
  for (const auto& i : ok.issues) ADD_FAILURE() << i.ToString();
  auto issues = ValidateAgainstSchema(kRoot + "/local/unknown-element-1.0.0/test-definition.xml",
                                      schemas + "/test-profile.xsd");
  ASSERT_FALSE(issues.empty());
  EXPECT_NE(issues[0].ToString().find("FavouriteColour"), std::string::npos) << issues[0].ToString();
}

}  // namespace
}  // namespace ptsn::profile
