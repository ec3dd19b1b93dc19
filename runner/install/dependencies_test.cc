#include "runner/install/dependencies.h"

#include <gtest/gtest.h>

#include <set>

#include "runner/profile/profile_repository.h"

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

TEST(DependenciesTest, RealProbesAnswer) {
  EXPECT_TRUE(CommandExists("sh"));
  EXPECT_FALSE(CommandExists("ptsn-surely-not-a-command"));
  EXPECT_TRUE(CommandExists("/bin/sh"));
}

}  // namespace
}  // namespace ptsn::install
