#include "runner/exec/process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace ptsn::exec {
namespace {

class ProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ptsn-exec-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  ProcessSpec Shell(const std::string& script) {
    ProcessSpec spec;
    spec.argv = {"/bin/sh", "-c", script};
    spec.env = {{"PATH", "/usr/bin:/bin"}};
    spec.working_directory = dir_.string();
    spec.output_path = (dir_ / "out.log").string();
    return spec;
  }
  fs::path dir_;
  PosixProcessRunner runner_{0.2};
};

TEST_F(ProcessTest, PassesEnvironmentWorkingDirectoryAndCapturesBothStreams) {
  auto spec = Shell("echo \"$GREETING\"; pwd; echo err >&2; exit 3");
  spec.env["GREETING"] = "hello world";
  auto out = runner_.Run(spec);
  EXPECT_EQ(out.status, ProcessStatus::kExited);
  EXPECT_EQ(out.exit_code, 3);
  EXPECT_FALSE(out.ok());
  EXPECT_EQ(Slurp(dir_ / "out.log"), "hello world\n" + fs::canonical(dir_).string() + "\nerr\n");
}

TEST_F(ProcessTest, OnlyTheGivenEnvironmentIsVisible) {
  setenv("PTSN_SHOULD_NOT_LEAK", "1", 1);
  auto out = runner_.Run(Shell("echo \"[${PTSN_SHOULD_NOT_LEAK:-}]\""));
  EXPECT_TRUE(out.ok());
  EXPECT_EQ(Slurp(dir_ / "out.log"), "[]\n");
}

TEST_F(ProcessTest, AppendModeKeepsEarlierOutput) {
  auto spec = Shell("echo one");
  runner_.Run(spec);
  spec = Shell("echo two");
  spec.append_output = true;
  runner_.Run(spec);
  EXPECT_EQ(Slurp(dir_ / "out.log"), "one\ntwo\n");
}

TEST_F(ProcessTest, TimeoutKillsTheWholeProcessGroup) {
  // The background grandchild would outlive a kill of only the shell.
  auto spec = Shell("sleep 30 & echo $! > grandchild.pid; wait");
  // Long enough for the shell to have started its grandchild and written its pid even on a
  // loaded machine (at 0.3 s it could be killed first, leaving nothing to check).
  spec.timeout_seconds = 1.5;
  auto start = std::chrono::steady_clock::now();
  auto out = runner_.Run(spec);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(out.status, ProcessStatus::kTimedOut);
  EXPECT_LT(took, 6.5);
  std::string pid_text = Slurp(dir_ / "grandchild.pid");
  ASSERT_NE(pid_text.find_first_of("0123456789"), std::string::npos) << "the shell was killed before it started the grandchild";
  pid_t grandchild = std::stoi(pid_text);
  // Gone, or a zombie waiting for whoever reaps orphans here (PID 1 in a container may not).
  usleep(50000);
  std::string stat = Slurp("/proc/" + std::to_string(grandchild) + "/stat");
  bool alive = !stat.empty() && stat.find(") Z") == std::string::npos;
  EXPECT_FALSE(alive) << "grandchild " << grandchild << " survived: " << stat;
  EXPECT_NE(out.Describe().find("timed out"), std::string::npos);
}

TEST_F(ProcessTest, CrashIsReportedAsSignal) {
  auto out = runner_.Run(Shell("kill -SEGV $$"));
  EXPECT_EQ(out.status, ProcessStatus::kSignaled);
  EXPECT_EQ(out.signal, SIGSEGV);
  EXPECT_NE(out.Describe().find("signal 11"), std::string::npos);
}

TEST_F(ProcessTest, MissingProgramIsASpawnFailureNotAnExitCode) {
  ProcessSpec spec;
  spec.argv = {"ptsn-no-such-program"};
  spec.env = {{"PATH", "/nonexistent"}};
  auto out = runner_.Run(spec);
  EXPECT_EQ(out.status, ProcessStatus::kSpawnFailed);
  EXPECT_NE(out.error.find("ptsn-no-such-program"), std::string::npos);
}

TEST_F(ProcessTest, BadWorkingDirectoryIsASpawnFailure) {
  auto spec = Shell("true");
  spec.working_directory = (dir_ / "missing").string();
  auto out = runner_.Run(spec);
  EXPECT_EQ(out.status, ProcessStatus::kSpawnFailed);
  EXPECT_NE(out.error.find("missing"), std::string::npos);
}

TEST_F(ProcessTest, PathLookupUsesTheChildPath) {
  fs::create_directories(dir_ / "bin");
  std::ofstream(dir_ / "bin" / "hello") << "#!/bin/sh\necho from-child-path\n";
  fs::permissions(dir_ / "bin" / "hello", fs::perms::owner_all);
  ProcessSpec spec;
  spec.argv = {"hello"};
  spec.env = {{"PATH", (dir_ / "bin").string()}};
  spec.output_path = (dir_ / "out.log").string();
  EXPECT_TRUE(runner_.Run(spec).ok());
  EXPECT_EQ(Slurp(dir_ / "out.log"), "from-child-path\n");
}

TEST(ExitStatusFile, ReadsAndDeletes) {
  auto p = fs::temp_directory_path() / ("ptsn-status-" + std::to_string(getpid()));
  EXPECT_FALSE(TakeExitStatusFile(p.string()).has_value());
  std::ofstream(p) << "0\n";
  EXPECT_EQ(TakeExitStatusFile(p.string()), 0);
  EXPECT_FALSE(fs::exists(p));
  std::ofstream(p) << "2";
  EXPECT_EQ(TakeExitStatusFile(p.string()), 2);
  std::ofstream(p) << "garbage";
  EXPECT_EQ(TakeExitStatusFile(p.string()), 1);
}

TEST(LastLinesTest, KeepsTheTailWithoutBlankLines) {
  auto p = fs::temp_directory_path() / ("ptsn-lines-" + std::to_string(getpid()));
  std::ofstream(p) << "a\nb\n\nc\nd\n\n";
  EXPECT_EQ(LastLines(p.string(), 2), "c\nd");
  EXPECT_EQ(LastLines(p.string(), 10), "a\nb\nc\nd");
  fs::remove(p);
  EXPECT_EQ(LastLines(p.string(), 2), "");
}

// The reason a failed trial shows is the program's own error line, not the tail of its usage text.
TEST(ErrorLineTest, PicksTheLineThatSaysWhy) {
  // Debian's fs_mark on a long directory: the error, then 20 lines of usage.
  EXPECT_EQ(ErrorLineOf("fs_mark: /root/.local/share/pts-native/scratch/1-1/fsmark directory pathname too long "
                        "(must be less than 40 bytes)\nUsage: fs_mark\n\t-h <print usage and exit>\n"
                        "\t[-w number (of bytes per write() syscall)]\n"),
            "fs_mark: /root/.local/share/pts-native/scratch/1-1/fsmark directory pathname too long "
            "(must be less than 40 bytes)");
  EXPECT_EQ(ErrorLineOf("starting\n  ERROR: could not open /dev/x  \ncleaning up\n"), "ERROR: could not open /dev/x");
  EXPECT_EQ(ErrorLineOf("bonnie++: bad option\nusage: bonnie++ [-d scratch-dir]\n"), "bonnie++: bad option");
  EXPECT_EQ(ErrorLineOf("prog 1.0\nUsage: prog -d DIR\n  -d DIR  where\n"), "Usage: prog -d DIR");
  EXPECT_EQ(ErrorLineOf("step 1\nstep 2\n\n"), "step 2");
  EXPECT_EQ(ErrorLineOf(""), "");
  // fs_mark on a full disk: why, then how it gave up; both are shown, the why first.
  EXPECT_EQ(ErrorLineOf("fs_mark: starting\nInsufficient free space in ./files to create 1000 new files\n"
                        "fopen failed to open: fs_log.txt.8871\n"),
            "Insufficient free space in ./files to create 1000 new files; last line: fopen failed to open: fs_log.txt.8871");
  EXPECT_EQ(ErrorLineOf("write: No space left on device\nwrite: No space left on device\n"), "write: No space left on device");
  EXPECT_EQ(ErrorLineOf("copying\nERROR: disk quota exceeded\nfailed after 3 files\ndone\n"), "ERROR: disk quota exceeded");
  EXPECT_EQ(ErrorLineOf("mkdir: cannot create directory 'x': Read-only file system\n"),
            "mkdir: cannot create directory 'x': Read-only file system");
  EXPECT_EQ(ErrorLineOf("need 4 GB, not enough memory\n"), "need 4 GB, not enough memory");
  auto p = fs::temp_directory_path() / ("ptsn-errline-" + std::to_string(getpid()));
  std::ofstream(p) << "x\nmkdir: cannot create directory '/nope': Permission denied\ny\n";
  EXPECT_EQ(ErrorLine(p.string()), "mkdir: cannot create directory '/nope': Permission denied");
  fs::remove(p);
  EXPECT_EQ(ErrorLine(p.string()), "");
}

}  // namespace
}  // namespace ptsn::exec
