// 1110088-AR-1110066AR56 reproduced on this machine with PTS's own public profiles
// (../shared/corpus/test-profiles as the local mirror): dbench and FS-Mark run as ORIGINALS —
// pts/dbench-1.0.2 and pts/fs-mark-1.0.3 built from their upstream tarballs by the profiles'
// install.sh — although phoronix-test-suite.com cannot be reached: the tarballs come from the
// Debian source archive by SHA256, and the missing build dependencies are installed with apt-get
// (--yes). Skips, saying why, where deb.debian.org or the packages cannot be had.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "results-xml/model/result_xml.h"
#include "runner/common/atomic_file.h"
#include "runner/common/shared_dir.h"
#include "tests/cli/run_binary.h"

namespace ptsn {
namespace {

namespace fs = std::filesystem;

const std::string kShared = SharedDir();
const std::string kSeed = kShared + "/reference/seed-results/1110088-AR-1110066AR56/composite.xml";
const std::string kProfiles = kShared + "/corpus/test-profiles";

bool DebianReachable() {
  return std::system("curl -sf -m 10 -o /dev/null http://deb.debian.org/debian/dists/bookworm/Release >/dev/null 2>&1") == 0;
}

bool PackagesInstalled() {
  return std::system("dpkg-query -W -f='${Status}\\n' build-essential autoconf libpopt-dev 2>/dev/null | "
                     "grep -c 'install ok installed' | grep -qx 3") == 0;
}

class SeedOriginals : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(kSeed) || !fs::is_directory(kProfiles + "/pts/dbench-1.0.2"))
      GTEST_SKIP() << "../shared (seed result and public profiles) is not beside the checkout";
    if (!DebianReachable()) GTEST_SKIP() << "deb.debian.org cannot be reached: the moved tarballs cannot be fetched";
    if (geteuid() != 0 && !PackagesInstalled())
      GTEST_SKIP() << "build-essential, autoconf and libpopt-dev are missing and installing them needs root";
    root_ = fs::path(::testing::TempDir()) / ("seed-originals-" + std::to_string(getpid()));
    fs::remove_all(root_);
    home_ = (root_ / "home").string();
    env_ = "PTS_NATIVE_PTS_HOME=" + (root_ / "no-pts").string() + " PTS_NATIVE_CONFIG=/dev/null PTS_NATIVE_HOME=" + home_ +
           " PTS_NATIVE_PROFILES_DIR=" + kProfiles + " PTS_NATIVE_SERVER=http://127.0.0.1:9 FORCE_TIMES_TO_RUN=1 " +
           "TEST_RESULTS_IDENTIFIER='This Box' ";
  }
  void TearDown() override {
    if (!root_.empty()) fs::remove_all(root_);
  }
  test::CommandResult Run(const std::string& args) {
    auto r = test::RunPtsNative(args, env_);
    if (std::getenv("PTSN_TEST_VERBOSE")) std::cout << r.output;
    return r;
  }
  fs::path root_;
  std::string home_, env_;
};

TEST_F(SeedOriginals, DbenchAndFsMarkRunAsOriginals) {
  // The plan for the whole published result: the two originals, one line each, and why the
  // others cannot run as originals here.
  MakeDirectories(home_ + "/test-results/1110088-AR-1110066AR56");
  fs::copy_file(kSeed, home_ + "/test-results/1110088-AR-1110066AR56/composite.xml");
  auto plan = Run("run 1110088-AR-1110066AR56 --dry-run --non-interactive --yes");
  ASSERT_EQ(plan.exit_code, 0) << plan.output;
  EXPECT_NE(plan.output.find("run      pts/fs-mark-1.0.3 -s 1048576 -n 1000  (in place of pts/fs-mark-1.0.0)"),
            std::string::npos)
      << plan.output;
  EXPECT_NE(plan.output.find("run      pts/dbench-1.0.2 12  (in place of pts/dbench-1.0.0)"), std::string::npos)
      << plan.output;
  EXPECT_NE(plan.output.find("Plan: 7 tests: 2 original, "), std::string::npos) << plan.output;
  EXPECT_NE(plan.output.find("original: no profile pts/tiobench-1.1.x here"), std::string::npos) << plan.output;

  // Run the two originals (dbench for 5 seconds instead of its default 10 minutes; FS-Mark with
  // the published options) from a copy of the result holding only them.
  auto file = results::ReadResultFile(kSeed);
  std::erase_if(file.results, [](const results::Result& r) {
    return r.identifier != "pts/dbench-1.0.0" && r.identifier != "pts/fs-mark-1.0.0";
  });
  ASSERT_EQ(file.results.size(), 2u);
  for (auto& r : file.results)
    if (r.identifier == "pts/dbench-1.0.0") r.arguments = "1 -t 5";
  MakeDirectories(home_ + "/test-results/seed-originals");
  results::WriteResultFile(home_ + "/test-results/seed-originals/composite.xml", file);
  auto r = Run("run seed-originals --non-interactive --yes");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Plan: 2 tests: 2 original, 0 stand-in, 0 cannot run"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("pts/dbench-1.0.2: installed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("pts/fs-mark-1.0.3: installed"), std::string::npos) << r.output;
  auto saved = results::ReadResultFile(home_ + "/test-results/seed-originals/composite.xml");
  ASSERT_EQ(saved.systems.size(), 5u);
  const std::string notes = saved.systems.back().notes.value_or("");
  EXPECT_NE(notes.find("dbench-4.0.tar.gz was not at its URLs; it came from the Debian archive (bookworm/main): "
                       "http://deb.debian.org/debian/pool/main/d/dbench/dbench_4.0.orig.tar.gz, SHA256 verified."),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find("fs_mark-3.3.tar.gz was not at its URLs; it came from the Debian archive (bookworm/main): "
                       "http://deb.debian.org/debian/pool/main/f/fsmark/fsmark_3.3.orig.tar.gz, SHA256 verified."),
            std::string::npos)
      << notes;
  EXPECT_EQ(notes.find("Stand-ins"), std::string::npos) << notes;
  for (const auto& res : saved.results) {
    if (res.identifier.empty()) continue;
    const results::Entry* mine = nullptr;
    for (const auto& e : res.entries)
      if (e.identifier == "This Box") mine = &e;
    ASSERT_NE(mine, nullptr) << res.title;
    EXPECT_GT(std::atof(mine->value.c_str()), 0) << res.title << ": " << mine->value;
    EXPECT_EQ(mine->json.value_or("").find("stand-in"), std::string::npos) << res.title;
  }
}

}  // namespace
}  // namespace ptsn
