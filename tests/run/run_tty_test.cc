// End-to-end: `pts-native run` under a pseudo-terminal asks the option menu and the names, and
// what was answered lands in the saved result; without a terminal it never waits for an answer.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "results-xml/model/result_xml.h"
#include "tests/cli/run_binary.h"
#include "tests/support/pty_session.h"

namespace fs = std::filesystem;

namespace {

using ptsn::test::PtySession;

class RunTty : public ::testing::Test {
 protected:
  void SetUp() override {
    home_ = fs::temp_directory_path() /
            ("ptsn-tty-" + std::to_string(getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(home_);
    fs::create_directories(home_);
  }
  void TearDown() override { fs::remove_all(home_); }
  std::string Env(const std::string& extra = "") const {
    return "env -u MONITOR -u PRESET_OPTIONS -u PRESET_OPTIONS_VALUES -u TEST_RESULTS_NAME -u TEST_RESULTS_IDENTIFIER "
           "-u TEST_RESULTS_DESCRIPTION PTS_NATIVE_HOME='" +
           home_.string() + "' PTS_NATIVE_PTS_HOME='" + (home_ / "no-pts").string() + "' PTS_NATIVE_CONFIG='" +
           (home_ / "none.yaml").string() + "' " + extra;
  }
  std::string Profile(const std::string& name) const {
    return std::string(PTSN_SOURCE_DIR) + "/tests/run/profiles/local/" + name + "-1.0.0";
  }
  fs::path home_;
};

TEST_F(RunTty, MenuAnswersAndNamesLandInTheResultFile) {
  PtySession s(Env("FORCE_TIMES_TO_RUN=1") + " " + PTSN_BINARY + " run " + Profile("options"));
  ASSERT_TRUE(s.started());
  // Block Size: 1 = 4KB, 2 = 1MB, 3 = Test All Options.
  ASSERT_TRUE(s.WaitFor("Block Size:")) << s.output();
  ASSERT_TRUE(s.WaitFor("3: Test All Options")) << s.output();
  ASSERT_TRUE(s.WaitFor("choice")) << s.output();
  s.Send("2");
  ASSERT_TRUE(s.WaitFor("Mode:")) << s.output();
  ASSERT_TRUE(s.WaitFor("choice")) << s.output();
  s.Send("1,2");
  ASSERT_TRUE(s.WaitFor("Enter a name for the result file")) << s.output();
  s.Send("Tty Run");
  ASSERT_TRUE(s.WaitFor("Enter a unique name for this test run")) << s.output();
  s.Send("Tty Box");
  ASSERT_EQ(s.Finish(), 0) << s.output();

  auto file = ptsn::results::ReadResultFile((home_ / "test-results" / "tty-run" / "composite.xml").string());
  EXPECT_EQ(file.generated.title, "Tty Run");
  ASSERT_EQ(file.systems.size(), 1u);
  EXPECT_EQ(file.systems[0].identifier, "Tty Box");
  ASSERT_EQ(file.results.size(), 2u) << s.output();
  EXPECT_EQ(file.results[0].description, "Block Size: 1MB - Mode: Read");
  EXPECT_EQ(file.results[0].arguments, "-s 1024 -m 1");
  EXPECT_EQ(file.results[0].entries.at(0).value, "1025");
  EXPECT_EQ(file.results[1].description, "Block Size: 1MB - Mode: Write");
  EXPECT_EQ(file.results[1].entries.at(0).value, "1026");
}

TEST_F(RunTty, TestAllOptionsRunsEveryEntry) {
  PtySession s(Env("FORCE_TIMES_TO_RUN=1 TEST_RESULTS_NAME=all TEST_RESULTS_IDENTIFIER=A") + " " + PTSN_BINARY +
               " run " + Profile("options"));
  ASSERT_TRUE(s.started());
  ASSERT_TRUE(s.WaitFor("choice")) << s.output();
  s.Send("3");
  ASSERT_TRUE(s.WaitFor("choice")) << s.output();
  s.Send("2");
  ASSERT_EQ(s.Finish(), 0) << s.output();
  auto file = ptsn::results::ReadResultFile((home_ / "test-results" / "all" / "composite.xml").string());
  ASSERT_EQ(file.results.size(), 2u);
  EXPECT_EQ(file.results[0].description, "Block Size: 4KB - Mode: Write");
  EXPECT_EQ(file.results[1].description, "Block Size: 1MB - Mode: Write");
}

TEST_F(RunTty, WithoutATerminalTheMissingOptionIsNamedAndNothingWaits) {
  // No pty, stdin at EOF, no PRESET_OPTIONS, and not even --non-interactive: it must not prompt.
  auto start = std::chrono::steady_clock::now();
  auto r = ptsn::test::RunPtsNative("run " + Profile("options") + " < /dev/null", Env("FORCE_TIMES_TO_RUN=1"));
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 30);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("option size"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("cannot ask"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(home_ / "test-results"));
  // --non-interactive on a terminal does not ask either.
  PtySession s(Env("FORCE_TIMES_TO_RUN=1") + " " + PTSN_BINARY + " run --non-interactive " + Profile("options"));
  ASSERT_TRUE(s.started());
  EXPECT_NE(s.Finish(30), 0);
  EXPECT_NE(s.output().find("PRESET_OPTIONS='options.size=<choice>'"), std::string::npos) << s.output();
  EXPECT_EQ(s.output().find("choice (numbers"), std::string::npos) << s.output();
}

}  // namespace
