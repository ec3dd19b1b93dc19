// A result file written onto a file system that is full: the write fails with ENOSPC part way,
// and the user must get one line naming the file, a non-zero exit, the previous file byte for byte
// and no temporary file left behind. /dev/full cannot stand in for this (it is not a directory,
// so the temp file is never created and the ENOSPC path is never reached); a small private tmpfs
// is. The mount lives in a mount namespace of this test process only (unshare), so nothing leaks
// to the host even if the test dies. Needs root (CI runs as root); skips with the reason otherwise.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include "results-xml/model/result_xml.h"
#include "results-xml/views/export_test_fixture.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "tests/cli/run_binary.h"
#include "tests/support/required.h"

namespace fs = std::filesystem;

namespace {

std::string Quote(const std::string& s) { return "'" + s + "'"; }

// A result file of `n` results, about n * 600 bytes of XML.
std::string BigResultXml(int n) {
  auto file = ptsn::results::test::SmallResultFile();
  auto bar = file.results.front();
  file.results.clear();
  for (int i = 0; i < n; ++i) {
    bar.arguments = "--bs=" + std::to_string(i) + "k";
    bar.description = "Block Size: " + std::to_string(i) + "KB";
    file.results.push_back(bar);
  }
  return ptsn::results::SerializeResultFile(file);
}

class FullDisk : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) PTSN_SKIP_UNLESS_REQUIRED("root", "mounting a small tmpfs needs root");
    // A private mount namespace: the tmpfs is invisible outside this process and its children.
    if (unshare(CLONE_NEWNS) != 0) PTSN_SKIP_UNLESS_REQUIRED("root", std::string("unshare(CLONE_NEWNS): ") + std::strerror(errno));
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
      PTSN_SKIP_UNLESS_REQUIRED("root", std::string("making / private: ") + std::strerror(errno));
    work_ = fs::path(::testing::TempDir()) / ("ptsn_full_disk_" + std::to_string(getpid()));
    fs::remove_all(work_);
    fs::create_directories(work_ / "disk");
    if (mount("tmpfs", (work_ / "disk").c_str(), "tmpfs", 0, "size=1m") != 0)
      PTSN_SKIP_UNLESS_REQUIRED("root", std::string("mount tmpfs: ") + std::strerror(errno));
    mounted_ = true;
    env_ = "PTS_NATIVE_CONFIG=/nonexistent/config.yaml PTS_NATIVE_RESULTS_DIR=" + Quote((work_ / "results").string()) +
           " PTS_NATIVE_PTS_HOME=" + Quote((work_ / "pts").string()) + " PTS_NATIVE_RESULT_XSD=";
  }
  void TearDown() override {
    if (mounted_) umount2((work_ / "disk").c_str(), MNT_DETACH);
    std::error_code ec;
    if (!work_.empty()) fs::remove_all(work_, ec);
  }

  // Fills the tmpfs until `leave` bytes are free.
  void FillLeaving(size_t leave) {
    struct statvfs st {};
    ASSERT_EQ(statvfs((work_ / "disk").c_str(), &st), 0);
    size_t free_bytes = static_cast<size_t>(st.f_bavail) * st.f_frsize;
    ASSERT_GT(free_bytes, leave);
    ptsn::WriteFileAtomically((work_ / "disk" / "filler").string(), std::string(free_bytes - leave, 'x'));
  }

  size_t FilesIn(const fs::path& dir) {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir)) n += e.is_regular_file();
    return n;
  }

  fs::path work_;
  bool mounted_ = false;
  std::string env_;
};

TEST_F(FullDisk, AtomicWriteKeepsThePreviousFile) {
  std::string target = (work_ / "disk" / "out.xml").string();
  ptsn::WriteFileAtomically(target, "previous\n");
  FillLeaving(16 * 1024);
  try {
    ptsn::WriteFileAtomically(target, std::string(200 * 1024, 'y'));
    FAIL() << "a 200 KB write into 16 KB of free space succeeded";
  } catch (const ptsn::Error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find(target), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  EXPECT_EQ(ptsn::ReadFile(target), "previous\n");
  EXPECT_EQ(FilesIn(work_ / "disk"), 2u) << "a temporary file was left behind";
}

TEST_F(FullDisk, MergeResultsOntoAFullDisk) {
  fs::create_directories(work_ / "in");
  std::string a = (work_ / "in" / "a.xml").string(), b = (work_ / "in" / "b.xml").string();
  ptsn::WriteFileAtomically(a, BigResultXml(400));
  auto other = BigResultXml(400);
  // Other systems in b, so the merge has no identifier clash to report.
  for (const std::string from : {"Baseline", "Tuned"})
    for (size_t at = other.find(">" + from + "<"); at != std::string::npos; at = other.find(">" + from + "<", at))
      other.replace(at + 1, from.size(), from + "-B");
  ptsn::WriteFileAtomically(b, other);
  std::string target = (work_ / "disk" / "merged.xml").string();
  ptsn::WriteFileAtomically(target, "previous merge\n");
  FillLeaving(32 * 1024);

  auto r = ptsn::test::RunPtsNative("merge-results " + Quote(a) + " " + Quote(b) + " -o " + Quote(target), env_);
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(target), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("No space left on device"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << "more than one line: " << r.output;
  EXPECT_EQ(ptsn::ReadFile(target), "previous merge\n");
  EXPECT_EQ(FilesIn(work_ / "disk"), 2u) << "a temporary file was left behind";

  // With room again, the same command succeeds: the failure was the disk, not the input.
  fs::remove(work_ / "disk" / "filler");
  r = ptsn::test::RunPtsNative("merge-results " + Quote(a) + " " + Quote(b) + " -o " + Quote(target), env_);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GT(fs::file_size(target), 64u * 1024);
}

TEST_F(FullDisk, ExportOntoAFullDisk) {
  fs::create_directories(work_ / "in");
  std::string in = (work_ / "in" / "a.xml").string();
  ptsn::WriteFileAtomically(in, BigResultXml(400));
  for (const char* format : {"text", "csv", "json"}) {
    std::string target = (work_ / "disk" / (std::string("out.") + format)).string();
    ptsn::WriteFileAtomically(target, "previous\n");
    FillLeaving(8 * 1024);
    auto r = ptsn::test::RunPtsNative(std::string("result-file-to-") + format + " " + Quote(in) + " -o " + Quote(target),
                                      env_);
    EXPECT_NE(r.exit_code, 0) << format << ": " << r.output;
    EXPECT_NE(r.output.find(target), std::string::npos) << format << ": " << r.output;
    EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << format << ": more than one line: " << r.output;
    EXPECT_EQ(ptsn::ReadFile(target), "previous\n") << format;
    fs::remove(work_ / "disk" / "filler");
    fs::remove(target);
  }
}

// A trial that fails on a full disk says the disk is full, naming the folder, beside the line of
// its output that says why (issue 48): before, "The test quit with a non-zero exit status (1)" and
// the program's last line. The test directory is the full tmpfs; home and results have room.
TEST_F(FullDisk, AFailedTrialSaysTheDiskIsFull) {
  const std::string profile = std::string(PTSN_SOURCE_DIR) + "/tests/run/profiles/local/space-1.0.0";
  const std::string env = "env -u MONITOR -u PRESET_OPTIONS " + env_ + " PTS_NATIVE_HOME=" + Quote((work_ / "home").string()) + " PTS_NATIVE_TEST_DIR=" +
                          Quote((work_ / "disk" / "td").string()) + " TEST_RESULTS_IDENTIFIER=A FORCE_TIMES_TO_RUN=1";
  auto r = ptsn::test::RunPtsNative("batch-run " + profile, env + " TEST_RESULTS_NAME=room");
  ASSERT_EQ(r.exit_code, 0) << "with room it runs: " << r.output;
  fs::remove_all(work_ / "disk" / "td");
  fs::create_directories(work_ / "disk" / "td");
  FillLeaving(0);
  r = ptsn::test::RunPtsNative("batch-run " + profile, env + " TEST_RESULTS_NAME=full");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("FAILED (The test quit with a non-zero exit status (1): the disk is full: 0 bytes free in " +
                          (work_ / "disk" / "td").string()),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("; Insufficient free space in ./files to create 1000 new files; last line: fopen failed"),
            std::string::npos)
      << r.output;
}

}  // namespace
