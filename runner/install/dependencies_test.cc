#include "runner/install/dependencies.h"

#include <gtest/gtest.h>

#include <set>

#include <unistd.h>

#include "runner/common/error.h"
#include "runner/profile/profile_repository.h"
#include "tests/support/required.h"

namespace ptsn::install {
namespace {

TEST(DependenciesTest, MapsGenericNamesAndFindsMissingOnes) {
  std::set<std::string> installed = {"build-essential", "autoconf", "automake", "libtool", "pkg-config"};
  auto check = CheckDependencies({"build-utilities", "fio", "sqlite", "no-such-generic"}, {"fio", "sh"},
                                 [&](const std::string& p) { return installed.count(p) > 0; },
                                 [](const std::string& c) { return c == "sh"; });
  EXPECT_EQ(check.missing_packages, (std::vector<std::string>{"fio", "sqlite3"}));
  EXPECT_EQ(check.unknown_names, std::vector<std::string>{"no-such-generic"});
  EXPECT_EQ(check.missing_commands, std::vector<std::string>{"fio"});
  EXPECT_EQ(AptGetCommand(check.missing_packages, false), "sudo apt-get install -y fio sqlite3");
  EXPECT_EQ(AptGetCommand(check.missing_packages, true), "apt-get install -y fio sqlite3");
}

TEST(DependenciesTest, TableCoversTheMostUsedCorpusNames) {
  for (const char* n : {"build-utilities", "cmake", "python", "fortran-compiler", "zlib-development", "p7zip"})
    EXPECT_FALSE(DebianPackagesFor(n).empty()) << n;
}

// install-dependencies can install what every bundled profile needs.
TEST(DependenciesTest, EveryBundledProfileNeedsOnlyNamesWithDebianPackages) {
  profile::ProfileRepository repo({std::string(PTSN_SOURCE_DIR) + "/profiles"});
  int profiles = 0;
  for (const auto& ref : repo.ListProfiles()) {
    auto p = repo.LoadProfile(ref.identifier);
    for (const auto* names : {&p.external_dependencies, &p.system_dependencies})
      for (const auto& n : *names) EXPECT_FALSE(DebianPackagesFor(n).empty()) << ref.identifier << " needs " << n;
    ++profiles;
  }
  EXPECT_GE(profiles, 19);
  EXPECT_EQ(DebianPackagesFor("fs_mark"), std::vector<std::string>{"fsmark"});
  EXPECT_EQ(DebianPackagesFor("postmark"), std::vector<std::string>{"postmark"});
  EXPECT_EQ(DebianPackagesFor("dbench"), std::vector<std::string>{"dbench"});
}

TEST(DependenciesTest, TheMapIsDataAndMalformedLinesAreNamed) {
  EXPECT_EQ(DebianPackagesFor("popt"), std::vector<std::string>{"libpopt-dev"});
  EXPECT_EQ(DebianPackagesFor(" Build-Utilities "), (std::vector<std::string>{"build-essential", "autoconf"}));
  auto m = ParseDependencyMap("# comment\nfoo: a b  # trailing\n\nbar:\n", "x.txt");
  EXPECT_EQ(m["foo"], (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(m.count("bar") && m["bar"].empty());
  try {
    ParseDependencyMap("ok: a\nno colon here\n", "x.txt");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "x.txt:2: expected 'generic-name: package ...'");
  }
  EXPECT_THROW(ParseDependencyMap("x: a;rm\n", "x.txt"), Error) << "never a shell word";
}

TEST(DependenciesTest, EveryMappedPackageIsKnownToApt) {
  if (!UnavailablePackages({"dpkg"}).empty()) GTEST_SKIP() << "apt-cache has no package lists here (apt-get update)";
  std::vector<std::string> all;
  for (const auto& [name, packages] : DebianDependencyMap()) all.insert(all.end(), packages.begin(), packages.end());
  EXPECT_EQ(UnavailablePackages(all), std::vector<std::string>{}) << "debian-packages.txt names packages apt lacks";
  EXPECT_EQ(UnavailablePackages({"ptsn-no-such-package", "bad;name"}),
            (std::vector<std::string>{"bad;name", "ptsn-no-such-package"}));
}

TEST(DependenciesTest, Policy) {
  EXPECT_EQ(ParseDependencyPolicy("ask"), DependencyPolicy::kAsk);
  EXPECT_EQ(ParseDependencyPolicy("YES"), DependencyPolicy::kYes);
  EXPECT_EQ(ParseDependencyPolicy("no"), DependencyPolicy::kNo);
  EXPECT_THROW(ParseDependencyPolicy("maybe"), Error);
}

TEST(DependenciesTest, OnePackagePolicyForEveryCommand) {
  EXPECT_EQ(DecidePackagePolicy(DependencyPolicy::kYes, true, true, true).why_not, "offline");
  EXPECT_EQ(DecidePackagePolicy(DependencyPolicy::kNo, false, true, true).why_not, "install.dependencies is no")
      << "batch mode or --yes do not override a no";
  if (geteuid() != 0 || !CommandExists("apt-get")) PTSN_SKIP_UNLESS_REQUIRED("root", "the rest needs root and apt-get");
  auto approved = DecidePackagePolicy(DependencyPolicy::kAsk, false, true, false);
  EXPECT_TRUE(approved.may_install);
  EXPECT_FALSE(approved.ask_first);
  auto asked = DecidePackagePolicy(DependencyPolicy::kAsk, false, false, true);
  EXPECT_TRUE(asked.may_install);
  EXPECT_TRUE(asked.ask_first);
  auto nobody = DecidePackagePolicy(DependencyPolicy::kAsk, false, false, false);
  EXPECT_FALSE(nobody.may_install);
  EXPECT_EQ(nobody.why_not, "--yes or install.dependencies=yes installs them");
  EXPECT_FALSE(DecidePackagePolicy(DependencyPolicy::kYes, false, false, false).ask_first);
}

TEST(DependenciesTest, RealProbesAnswer) {
  EXPECT_TRUE(CommandExists("sh"));
  EXPECT_FALSE(CommandExists("ptsn-surely-not-a-command"));
  EXPECT_TRUE(CommandExists("/bin/sh"));
}

}  // namespace
}  // namespace ptsn::install
