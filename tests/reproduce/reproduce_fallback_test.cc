// `run <saved result>` running originals wherever they can be had, hermetically on loopback:
//  * a profile whose download has moved (its URL answers 404) is installed from a fake Debian
//    archive (a Sources.xz index + the pool file, served by a loopback HTTP server) found by
//    SHA256, and the result's System Notes say so; a pool file with another SHA256 is refused;
//    offline, nothing is asked of any server;
//  * a profile whose ExternalDependencies are missing runs as the original once its Debian
//    packages are installed (--yes; apt-get, apt-cache and dpkg-query are fakes on PATH), and
//    falls back to its declared stand-in when they may not be installed (non-interactive).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "results-xml/model/result_xml.h"
#include "runner/common/atomic_file.h"
#include "runner/install/checksum.h"
#include "runner/install/install_test_support.h"
#include "tests/cli/run_binary.h"
#include "tests/reproduce/published_file.h"
#include "tests/support/required.h"

namespace ptsn {
namespace {

namespace fs = std::filesystem;

const std::string kPayload = "4\n";  // the "upstream tarball": install.sh reads the score from it

using testing::Put;

std::string Sha256Of(const std::string& text) {
  auto p = fs::temp_directory_path() / ("ptsn-e2e-sha-" + std::to_string(getpid()));
  std::ofstream(p) << text;
  auto d = install::ComputeDigests(p.string());
  fs::remove(p);
  return d.sha256;
}

// A profile printing "Score: 4<digit>.5"; `downloads` is its downloads.xml body ("" = none).
void WriteProfile(const fs::path& dir, const std::string& title, const std::string& deps, const std::string& downloads,
                  const std::string& install_sh) {
  if (!downloads.empty())
    Put(dir / "downloads.xml", "<?xml version=\"1.0\"?>\n<PhoronixTestSuite><Downloads>" + downloads +
                                   "</Downloads></PhoronixTestSuite>\n");
  Put(dir / "install.sh", install_sh);
  Put(dir / "results-definition.xml",
      "<?xml version=\"1.0\"?>\n<PhoronixTestSuite><ResultsParser><OutputTemplate>Score: #_RESULT_#</OutputTemplate>"
      "</ResultsParser></PhoronixTestSuite>\n");
  Put(dir / "test-definition.xml",
      "<?xml version=\"1.0\"?>\n<PhoronixTestSuite><TestInformation><Title>" + title +
          "</Title><AppVersion>1.0</AppVersion><ResultScale>Points</ResultScale><Proportion>HIB</Proportion>"
          "<Executable>bench</Executable><TimesToRun>2</TimesToRun></TestInformation><TestProfile><Version>1.0.0</Version>"
          "<SupportedPlatforms>Linux</SupportedPlatforms><SoftwareType>Utility</SoftwareType><TestType>System</TestType>"
          "<License>Free</License>" +
          (deps.empty() ? "" : "<ExternalDependencies>" + deps + "</ExternalDependencies>") +
          "<EstimatedTimePerRun>1</EstimatedTimePerRun></TestProfile></PhoronixTestSuite>\n");
}

std::string PrintScore(const std::string& digit_source) {
  return "#!/bin/sh\nv=" + digit_source + "\nprintf '#!/bin/sh\\necho \"Score: 4%s.5\" > \"$LOG_FILE\"\\n' \"$v\" > bench\n"
         "chmod +x bench\n";
}

results::ResultFile Published() {
  return testing::TwoSystemPublished("Originals Wherever They Can", "Built for the reproduce fallback test.",
                                    {{"local/moved-1.0.0", "Moved"}, {"local/popt-1.0.0", "Popt"}});
}

class ReproduceFallback : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("reproduce-fallback-" + std::to_string(getpid()));
    fs::remove_all(root_);
    const std::string sha = Sha256Of(kPayload);
    // The fake Debian archive: the payload under Debian's name, listed by its SHA256.
    server_.Serve("/debian/dists/bookworm/main/source/Sources.xz",
                  install::test::XzCompress(install::test::SourcesParagraph(
                      "moved", "pool/main/m/moved", {{"moved_1.0.orig.tar.gz", sha, kPayload.size()}})));
    server_.Serve("/debian/pool/main/m/moved/moved_1.0.orig.tar.gz", kPayload);

    const fs::path profiles = root_ / "profiles/local";
    WriteProfile(profiles / "moved-1.0.0", "Moved", "",
                 "<Package><URL>" + server_.Url("/gone/payload.tar") + "</URL><SHA256>" + sha +
                     "</SHA256><FileName>payload.tar</FileName></Package>",
                 PrintScore("$(cat payload.tar)"));
    WriteProfile(profiles / "popt-1.0.0", "Popt", "popt", "", PrintScore("7"));
    WriteProfile(profiles / "popt-standin-1.0.0", "Popt Stand-In", "", "", PrintScore("1"));
    Put(root_ / "profiles/stand-ins/local/popt-standin-1.0.0.xml",
        "<?xml version=\"1.0\"?>\n<StandInFor><Test><Profile>local/popt-1.0</Profile><Note>test stand-in</Note></Test>"
        "</StandInFor>\n");

    // apt-get, apt-cache and dpkg-query as fakes: libpopt-dev is "installed" once apt-get says so.
    fake_ = root_ / "fake-apt";
    Put(fake_ / "bin/dpkg-query",
        "#!/bin/sh\nfor a; do last=$a; done\n[ -e \"$FAKE_APT/installed-$last\" ] && printf 'install ok installed'\nexit 0\n");
    Put(fake_ / "bin/apt-cache",
        "#!/bin/sh\nshift\nfor p; do printf '%s:\\n  Installed: (none)\\n  Candidate: 1.0-1\\n' \"$p\"; done\n");
    Put(fake_ / "bin/apt-get",
        "#!/bin/sh\necho \"$@\" >> \"$FAKE_APT/apt-get.log\"\nfor p; do case $p in -*|install|DPkg*) ;; *) touch "
        "\"$FAKE_APT/installed-$p\";; esac; done\n");
    for (const char* tool : {"dpkg-query", "apt-cache", "apt-get"})
      fs::permissions(fake_ / "bin" / tool, fs::perms::owner_all, fs::perm_options::add);

    home_ = (root_ / "home").string();
    MakeDirectories(home_ + "/test-results/pub");
    results::WriteResultFile(home_ + "/test-results/pub/composite.xml", Published());
    env_ = "PATH=" + (fake_ / "bin").string() + ":$PATH FAKE_APT=" + fake_.string() + " PTS_NATIVE_PTS_HOME=" +
           (root_ / "no-pts").string() + " PTS_NATIVE_CONFIG=/dev/null PTS_NATIVE_HOME=" + home_ +
           " PTS_NATIVE_PROFILES_DIR=" + (root_ / "profiles").string() + " PTS_NATIVE_SERVER=http://127.0.0.1:9" +
           " PTS_NATIVE_DEBIAN_MIRROR=" + server_.Url("/debian") + " TEST_RESULTS_IDENTIFIER='This Box' ";
  }
  void TearDown() override { fs::remove_all(root_); }
  test::CommandResult Run(const std::string& args) {
    auto r = test::RunPtsNative(args, env_);
    if (std::getenv("PTSN_TEST_VERBOSE")) std::cout << r.output;
    return r;
  }
  fs::path root_, fake_;
  std::string home_, env_;
  install::test::LoopbackServer server_;
};

TEST_F(ReproduceFallback, OfflineAsksNoServerAndSaysWhatIsMissing) {
  auto r = Run("run pub --non-interactive --offline --dry-run");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("CANNOT RUN local/moved-1.0.0: local/moved-1.0.0: needs download, offline"), std::string::npos)
      << r.output;
  // Packages are never installed offline: the stand-in is planned, and says why.
  EXPECT_NE(r.output.find("STAND-IN local/popt-standin-1.0.0"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("needs Debian packages libpopt-dev (offline;"), std::string::npos) << r.output;
  EXPECT_TRUE(server_.Requests().empty());
}

TEST_F(ReproduceFallback, ADebianFileWithAnotherSha256IsRefused) {
  server_.Serve("/debian/pool/main/m/moved/moved_1.0.orig.tar.gz", "5\n");
  auto r = Run("install local/moved-1.0.0");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("moved_1.0.orig.tar.gz: sha256 is " + Sha256Of("5\n") + ", expected " + Sha256Of(kPayload) +
                          " (refused)"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(home_ + "/installed-tests/local/moved-1.0.0/payload.tar"));
}

TEST_F(ReproduceFallback, OriginalsRunWithMovedDownloadsAndInstalledPackages) {
  if (geteuid() != 0) PTSN_SKIP_UNLESS_REQUIRED("root", "installing packages needs root (the fake apt-get is only run as root)");
  // Non-interactive without --yes: packages are not installed; the stand-in is planned, saying why.
  auto plan = Run("run pub --non-interactive --dry-run");
  EXPECT_EQ(plan.exit_code, 0) << plan.output;
  EXPECT_NE(plan.output.find("run      local/moved-1.0.0"), std::string::npos) << plan.output;
  EXPECT_NE(plan.output.find("STAND-IN local/popt-standin-1.0.0"), std::string::npos) << plan.output;
  EXPECT_NE(plan.output.find("needs Debian packages libpopt-dev (--yes or install.dependencies=yes installs them"),
            std::string::npos)
      << plan.output;
  EXPECT_FALSE(fs::exists(fake_ / "apt-get.log"));

  // --yes: both originals planned and run; the package installed first, the moved file fetched
  // from the archive by its SHA256 and named in the System Notes.
  auto r = Run("run pub --non-interactive --yes");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("run      local/popt-1.0.0\n         (installs Debian packages libpopt-dev first)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("(should installing fail: STAND-IN local/popt-standin-1.0.0)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Plan: 2 tests: 2 original, 0 stand-in, 0 cannot run"), std::string::npos) << r.output;
  std::ifstream log(fake_ / "apt-get.log");
  std::string apt_args;
  std::getline(log, apt_args);
  EXPECT_EQ(apt_args, "install -y -q -o DPkg::Lock::Timeout=300 libpopt-dev");
  auto file = results::ReadResultFile(home_ + "/test-results/pub/composite.xml");
  ASSERT_EQ(file.results.size(), 2u);
  ASSERT_EQ(file.results[0].entries.size(), 3u);
  EXPECT_EQ(file.results[0].entries[2].value, "44.5") << "the moved download's content";
  ASSERT_EQ(file.results[1].entries.size(), 3u);
  EXPECT_EQ(file.results[1].entries[2].value, "47.5") << "the original, not the stand-in";
  EXPECT_EQ(file.results[1].entries[2].json.value_or("").find("stand-in"), std::string::npos);
  ASSERT_EQ(file.systems.size(), 3u);
  const std::string notes = file.systems[2].notes.value_or("");
  EXPECT_NE(notes.find("Test downloads not at their URLs: local/moved-1.0.0: payload.tar was not at its URLs; it came "
                       "from the Debian archive (bookworm/main): " +
                       server_.Url("/debian/pool/main/m/moved/moved_1.0.orig.tar.gz") + ", SHA256 verified."),
            std::string::npos)
      << notes;
  EXPECT_EQ(notes.find("Stand-ins"), std::string::npos) << notes;
}

TEST_F(ReproduceFallback, AnOriginalThatFailsToInstallFallsBackToItsStandIn) {
  if (geteuid() != 0) PTSN_SKIP_UNLESS_REQUIRED("root", "installing packages needs root (the fake apt-get is only run as root)");
  // apt-get fails: the original cannot be had after all, so its stand-in runs, and says why.
  Put(fake_ / "bin/apt-get", "#!/bin/sh\necho 'E: Sub-process /usr/bin/dpkg returned an error code (1)'\nexit 100\n");
  fs::permissions(fake_ / "bin/apt-get", fs::perms::owner_all, fs::perm_options::add);
  auto r = Run("run pub --non-interactive --yes");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Original not installed (local/popt-1.0.0: apt-get install -y libpopt-dev failed: E: "
                          "Sub-process /usr/bin/dpkg returned an error code (1)); using the stand-in "
                          "local/popt-standin-1.0.0 for local/popt-1.0"),
            std::string::npos)
      << r.output;
  auto file = results::ReadResultFile(home_ + "/test-results/pub/composite.xml");
  ASSERT_EQ(file.results[1].entries.size(), 3u);
  EXPECT_EQ(file.results[1].entries[2].value, "41.5");
  EXPECT_NE(file.results[1].entries[2].json.value_or("").find("stand-in"), std::string::npos);
  EXPECT_NE(file.systems[2].notes.value_or("").find("Stand-ins (not the original programs): local/popt-standin-1.0.0"),
            std::string::npos);
}

}  // namespace
}  // namespace ptsn
