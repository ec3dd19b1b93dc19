// End-to-end: the pts-native binary installs and runs the small profiles in tests/run/profiles/
// in a temporary PTS_NATIVE_HOME, with no network (downloads come from a loopback server).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "results-xml/checks/validate.h"
#include "results-xml/model/result_xml.h"
#include "results-xml/store/result_store.h"
#include "runner/common/shared_dir.h"
#include "runner/install/install_test_support.h"
#include "runner/sysinfo/phodevi_strings.h"
#include "runner/sysinfo/sysinfo.h"
#include "tests/cli/run_binary.h"

namespace fs = std::filesystem;
using ptsn::test::RunPtsNative;

namespace {

std::string Slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Sha256Of(const std::string& text) {
  auto p = fs::temp_directory_path() / ("ptsn-e2e-sha-" + std::to_string(getpid()));
  std::ofstream(p) << text;
  FILE* f = popen(("sha256sum '" + p.string() + "'").c_str(), "r");
  char buf[65] = {0};
  size_t n = fread(buf, 1, 64, f);
  pclose(f);
  fs::remove(p);
  return std::string(buf, n);
}

class RunE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    home_ = fs::temp_directory_path() /
            ("ptsn-e2e-" + std::to_string(getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(home_);
    fs::create_directories(home_);
  }
  void TearDown() override { fs::remove_all(home_); }
  std::string Profile(const std::string& name) {
    return std::string(PTSN_SOURCE_DIR) + "/tests/run/profiles/local/" + name + "-1.0.0";
  }
  // Environment of every run: isolated home, no PTS home, no monitor, no dynamic sleeps.
  std::string Env(const std::string& extra = "") {
    return "env -u MONITOR -u PRESET_OPTIONS -u TEST_RESULTS_DESCRIPTION PTS_NATIVE_HOME='" + home_.string() +
           "' PTS_NATIVE_PTS_HOME='" + (home_ / "no-pts").string() + "' PTS_NATIVE_CONFIG='" +
           (home_ / "none.yaml").string() + "' " + extra;
  }
  ptsn::results::ResultFile Saved(const std::string& name) {
    return ptsn::results::ReadResultFile((home_ / "test-results" / name / "composite.xml").string());
  }
  void ExpectValid(const std::string& name) {
    std::string path = (home_ / "test-results" / name / "composite.xml").string();
    auto file = ptsn::results::ReadResultFile(path);
    for (const auto& issue : ptsn::results::ValidateResultFile(file))
      EXPECT_FALSE(issue.error) << issue.where << ": " << issue.what;
    std::string xsd = ::ptsn::SharedDir() + "/reference/schemas/result-file.xsd";
    if (fs::exists(xsd)) {
      auto errors = ptsn::results::ValidateAgainstSchema(Slurp(path), xsd);
      EXPECT_TRUE(errors.empty()) << ::testing::PrintToString(errors);
    }
  }
  fs::path home_;
};

TEST_F(RunE2E, BatchRunSavesCompositeXmlThatValidates) {
  auto r = RunPtsNative("batch-run " + Profile("trivial"),
                        Env("TEST_RESULTS_NAME='Trivial Run' TEST_RESULTS_IDENTIFIER=Box FORCE_TIMES_TO_RUN=3"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto file = Saved("trivial-run");
  EXPECT_EQ(file.generated.title, "Trivial Run");
  ASSERT_EQ(file.systems.size(), 1u);
  EXPECT_EQ(file.systems[0].identifier, "Box");
  EXPECT_NE(file.systems[0].hardware.find("Processor: "), std::string::npos);
  ASSERT_EQ(file.results.size(), 1u);
  EXPECT_EQ(file.results[0].identifier, "local/trivial-1.0.0");
  EXPECT_EQ(file.results[0].entries.at(0).value, "1.5");
  EXPECT_EQ(file.results[0].entries.at(0).raw_string.value_or(""), "1.5:1.5:1.5");
  ExpectValid("trivial-run");
  // The test log is saved beside it, and the text view was printed at the end.
  bool log = false;
  for (auto& e : fs::recursive_directory_iterator(home_ / "test-results" / "trivial-run" / "test-logs"))
    log |= e.path().filename() == "Box.log";
  EXPECT_TRUE(log);
  EXPECT_NE(r.output.find("Trivial"), std::string::npos);
}

// A <SystemMonitor> sys.time profile: no $LOG_FILE, the result is each trial's wall time; with
// the default minimal test time (2 s) the 0.3 s trials give no result and the reason is printed.
TEST_F(RunE2E, SysTimeProfileRecordsTheRunTime) {
  auto r = RunPtsNative("batch-run " + Profile("timed"),
                        Env("TEST_RESULTS_NAME=timed TEST_RESULTS_IDENTIFIER=Box FORCE_TIMES_TO_RUN=2 "
                            "PTS_NATIVE_MINIMAL_TEST_TIME=0.1"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto file = Saved("timed");
  ASSERT_EQ(file.results.size(), 1u);
  EXPECT_EQ(file.results[0].scale, "Seconds");
  EXPECT_EQ(file.results[0].proportion, "LIB");
  const auto& e = file.results[0].entries.at(0);
  double v = std::stod(e.value);
  EXPECT_GE(v, 0.3) << e.value;
  EXPECT_LT(v, 5.0) << e.value;
  ExpectValid("timed");

  r = RunPtsNative("batch-run " + Profile("timed"),
                   Env("TEST_RESULTS_NAME=short TEST_RESULTS_IDENTIFIER=Box FORCE_TIMES_TO_RUN=1"));
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("less than the minimal test time of 2 s"), std::string::npos) << r.output;
}

// "$HOSTNAME"-style tokens in TEST_RESULTS_IDENTIFIER are filled as PTS fills them.
TEST_F(RunE2E, IdentifierVariablesAreFilled) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  auto r = RunPtsNative("batch-run " + Profile("trivial"),
                        Env("TEST_RESULTS_NAME=vars TEST_RESULTS_IDENTIFIER='$HOSTNAME box' FORCE_TIMES_TO_RUN=1"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto file = Saved("vars");
  ASSERT_EQ(file.systems.size(), 1u);
  EXPECT_EQ(file.systems[0].identifier.find('$'), std::string::npos) << file.systems[0].identifier;
  EXPECT_EQ(file.systems[0].identifier.find("HOSTNAME"), std::string::npos) << file.systems[0].identifier;
  if (std::string(host).find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.") ==
      std::string::npos) {
    EXPECT_EQ(file.systems[0].identifier, std::string(host) + " box");
  }
}

TEST_F(RunE2E, WithoutAnIdentifierTheTestedSubsystemNamesTheRun) {
  // TestType Processor: PTS names the run after the Processor component when it reads as a
  // product name ("AMD EPYC"), else after the date; the description is PTS's sentence.
  auto r = RunPtsNative("batch-run " + Profile("processor"), Env("TEST_RESULTS_NAME=auto FORCE_TIMES_TO_RUN=1"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto file = Saved("auto");
  ASSERT_EQ(file.systems.size(), 1u);
  std::string processor = ptsn::sysinfo::ComponentValue(file.systems[0].hardware, "Processor");
  std::string name = ptsn::sysinfo::TrimSearchQuery(processor);
  if (ptsn::sysinfo::IsVendorString(name)) EXPECT_EQ(file.systems[0].identifier, name);
  else EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(file.systems[0].identifier[0]))) << file.systems[0].identifier;
  EXPECT_NE(file.generated.description.find(" testing "), std::string::npos) << file.generated.description;
  EXPECT_NE(file.generated.description.find("via pts-native"), std::string::npos) << file.generated.description;
  // system-logs/<identifier>/environment-variables holds PATH at least, as PTS's does.
  auto env_log = home_ / "test-results" / "auto" / "system-logs" /
                 ptsn::results::SimplifyForFileHandling(file.systems[0].identifier) / "environment-variables";
  EXPECT_EQ(Slurp(env_log).rfind("PATH=", 0), 0u) << env_log;
}

TEST_F(RunE2E, BatchRunsEveryOptionCombinationWithPtsDescriptions) {
  auto r = RunPtsNative("batch-run " + Profile("options"),
                        Env("TEST_RESULTS_NAME=opts TEST_RESULTS_IDENTIFIER=A FORCE_TIMES_TO_RUN=1"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto file = Saved("opts");
  ASSERT_EQ(file.results.size(), 4u);
  EXPECT_EQ(file.results[0].description, "Block Size: 4KB - Mode: Read");
  EXPECT_EQ(file.results[0].arguments, "-s 4 -m 1");
  EXPECT_EQ(file.results[0].entries[0].value, "5");
  EXPECT_EQ(file.results[3].description, "Block Size: 1MB - Mode: Write");
  EXPECT_EQ(file.results[3].entries[0].value, "1026");
  ExpectValid("opts");
}

TEST_F(RunE2E, PresetOptionsSelectOneCombination) {
  auto r = RunPtsNative("batch-run " + Profile("options"),
                        Env("PRESET_OPTIONS='options.size=1MB;options.mode=Read' TEST_RESULTS_NAME=p "
                            "TEST_RESULTS_IDENTIFIER=A FORCE_TIMES_TO_RUN=1"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto file = Saved("p");
  ASSERT_EQ(file.results.size(), 1u);
  EXPECT_EQ(file.results[0].entries[0].value, "1025");
}

// An entry is matched by Name, then Value, before any index: "mode=1" is the entry whose Value is
// 1 (Read: 1024 + 1), not index 1 (Write: 1026).
TEST_F(RunE2E, PresetChoiceMatchesNamesAndValuesBeforeIndexes) {
  auto r = RunPtsNative("batch-run " + Profile("options"),
                        Env("PRESET_OPTIONS='options.size=1MB;options.mode=1' TEST_RESULTS_NAME=v "
                            "TEST_RESULTS_IDENTIFIER=A FORCE_TIMES_TO_RUN=1"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto file = Saved("v");
  ASSERT_EQ(file.results.size(), 1u);
  EXPECT_EQ(file.results[0].entries[0].value, "1025");
  EXPECT_EQ(file.results[0].description, "Block Size: 1MB - Mode: Read");
}

// A mistake in a preset is one line naming the variable, the profile, the option and what it
// accepts, and nothing is installed or run.
TEST_F(RunE2E, InvalidPresetsFailBeforeAnythingRuns) {
  struct Case {
    std::string env, says;
  } cases[] = {
      {"PRESET_OPTIONS='options.size=ROT13'",
       "PRESET_OPTIONS: local/options option size has no entry 'ROT13' (accepts: 4KB, 1MB (or their values 4, 1024))"},
      {"PRESET_OPTIONS='options.bogus=1'", "PRESET_OPTIONS: local/options has no option 'bogus' (its options: size, mode)"},
      {"PRESET_OPTIONS='garbage'", "PRESET_OPTIONS: 'garbage' is not test.option=choice"},
      {"PRESET_OPTIONS='options.size=1MB;options.mode='", "PRESET_OPTIONS: 'options.mode=' is not test.option=choice"},
      {"PRESET_OPTIONS_VALUES='options.bogus=7'", "PRESET_OPTIONS_VALUES: local/options has no option 'bogus'"},
      {"PRESET_OPTIONS='local/options.size=3'", "PRESET_OPTIONS: local/options option size has no entry '3'"},
  };
  for (const auto& c : cases) {
    for (const char* command : {"batch-run ", "run --non-interactive "}) {
      auto r = RunPtsNative(command + Profile("options"),
                            Env(c.env + " TEST_RESULTS_NAME=bad TEST_RESULTS_IDENTIFIER=A FORCE_TIMES_TO_RUN=1"));
      EXPECT_NE(r.exit_code, 0) << c.env << ": " << r.output;
      EXPECT_NE(r.output.find(c.says), std::string::npos) << c.env << ": " << r.output;
      EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
      EXPECT_FALSE(fs::exists(home_ / "installed-tests")) << c.env;
      EXPECT_FALSE(fs::exists(home_ / "test-results")) << c.env;
    }
  }
}

// Batch mode runs every entry of the options the presets leave open, and presets for tests that
// are not in the run are ignored with a notice.
TEST_F(RunE2E, BatchModeExpandsWhatPresetsLeaveOpen) {
  auto r = RunPtsNative("batch-run " + Profile("options"),
                        Env("PRESET_OPTIONS='options.size=1MB;fio.type=Random Read' TEST_RESULTS_NAME=open "
                            "TEST_RESULTS_IDENTIFIER=A FORCE_TIMES_TO_RUN=1"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("PRESET_OPTIONS: fio.type=Random Read ignored: no test named 'fio' in this run"),
            std::string::npos)
      << r.output;
  auto file = Saved("open");
  ASSERT_EQ(file.results.size(), 2u);
  EXPECT_EQ(file.results[0].description, "Block Size: 1MB - Mode: Read");
  EXPECT_EQ(file.results[1].description, "Block Size: 1MB - Mode: Write");
  // A preset only for another test leaves batch mode's every combination.
  r = RunPtsNative("batch-run " + Profile("options"),
                   Env("PRESET_OPTIONS='fio.type=Random Read' TEST_RESULTS_NAME=all TEST_RESULTS_IDENTIFIER=A "
                       "FORCE_TIMES_TO_RUN=1"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(Saved("all").results.size(), 4u);
}

// Progress reaches a pipe as it happens: the gate profile's second trial waits until this test
// has read the first trial's line (it gives up after 60 s, failing the trial).
TEST_F(RunE2E, PipedProgressShowsEachTrialAsItHappens) {
  for (bool json : {false, true}) {
    fs::path gate = home_ / (json ? "gate-json" : "gate-plain");
    std::string cmd = Env("PTSN_GATE='" + gate.string() + "' TEST_RESULTS_NAME=g TEST_RESULTS_IDENTIFIER=" +
                          (json ? "J" : "P") + " FORCE_TIMES_TO_RUN=2") +
                      " " + PTSN_BINARY + " batch-run " + (json ? "--json-events " : "") + Profile("gate") + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    ASSERT_TRUE(p);
    std::string seen;
    bool opened = false;
    char line[4096];
    while (fgets(line, sizeof line, p)) {
      std::string l = line;
      seen += l;
      bool first_trial = json ? l.find("\"event\":\"trial-finished\"") != std::string::npos &&
                                    l.find("\"trial\":1,") != std::string::npos
                              : l.find("trial 1 of 2: 1") != std::string::npos;
      if (first_trial && !opened) {
        // The second trial is still waiting: nothing of it can have been printed yet.
        EXPECT_EQ(seen.find(json ? "\"trial\":2," : "trial 2 of 2"), std::string::npos) << seen;
        std::ofstream(gate) << "open\n";
        opened = true;
      }
    }
    int status = pclose(p);
    EXPECT_TRUE(opened) << seen;
    EXPECT_EQ(WEXITSTATUS(status), 0) << seen;
    EXPECT_NE(seen.find(json ? "\"value\":\"2\"" : "trial 2 of 2: 2"), std::string::npos) << seen;
  }
}

TEST_F(RunE2E, NonInteractiveRunFailsFastNamingTheMissingAnswer) {
  auto r = RunPtsNative("run --non-interactive " + Profile("options"), Env("FORCE_TIMES_TO_RUN=1"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("option size"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("PRESET_OPTIONS='options.size=<choice>'"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(home_ / "test-results"));
}

TEST_F(RunE2E, SeveralResultBlocksBecomeSeveralResults) {
  auto r = RunPtsNative("batch-run " + Profile("multi"), Env("TEST_RESULTS_NAME=m TEST_RESULTS_IDENTIFIER=A FORCE_TIMES_TO_RUN=2"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto file = Saved("m");
  ASSERT_EQ(file.results.size(), 2u);
  EXPECT_EQ(file.results[0].scale, "MB/s");
  EXPECT_EQ(file.results[0].entries[0].value, "250.5");
  EXPECT_EQ(file.results[1].scale, "ms");
  EXPECT_EQ(file.results[1].proportion, "LIB");
  EXPECT_EQ(file.results[1].entries[0].value, "0.75");
  ExpectValid("m");
}

// A failed test is kept (empty value, the error) beside a test of the run that gave a value; its
// one-line reason is the program's error line, not the tail of its output.
TEST_F(RunE2E, FailingTrialIsRecordedWithReasonAndNoNumber) {
  auto r = RunPtsNative("batch-run " + Profile("failing") + " " + Profile("trivial"),
                        Env("TEST_RESULTS_NAME=f TEST_RESULTS_IDENTIFIER=A FORCE_TIMES_TO_RUN=2"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("trial 1 of 2: FAILED (The test quit with a non-zero exit status (1): error: the benchmark "
                          "could not open /dev/nothing)"),
            std::string::npos)
      << r.output;
  auto file = Saved("f");
  ASSERT_EQ(file.results.size(), 2u);
  const auto& e = file.results[0].entries.at(0);
  EXPECT_EQ(e.value, "");
  auto error = nlohmann::json::parse(e.json.value_or("{}"))["error"].get<std::string>();
  EXPECT_NE(error.find("non-zero exit status (1)"), std::string::npos) << error;
  EXPECT_EQ(file.results[1].entries.at(0).value, "1.5");
}

// A tool that prints its error and then its usage text: the reason is the error.
TEST_F(RunE2E, FailedTrialNamesTheProgramsErrorLine) {
  auto r = RunPtsNative("batch-run " + Profile("usage"), Env("TEST_RESULTS_NAME=u TEST_RESULTS_IDENTIFIER=A FORCE_TIMES_TO_RUN=1"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("trial 1 of 1: FAILED (The test quit with a non-zero exit status (1): fsm-tool: "
                          "/a/very/long/directory/name/for/the/test directory pathname too long (must be less than "
                          "40 bytes)) ["),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("syscall"), std::string::npos) << r.output;
}

// A run that produced nothing adds no system: a saved file stays byte for byte as it was, nothing
// is written beside it, and the run says so instead of "Saved".
TEST_F(RunE2E, ARunThatProducesNothingLeavesTheSavedFileAsItWas) {
  auto r = RunPtsNative("batch-run " + Profile("trivial"), Env("TEST_RESULTS_NAME=keep TEST_RESULTS_IDENTIFIER=A FORCE_TIMES_TO_RUN=1"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  fs::path dir = home_ / "test-results" / "keep";
  auto snapshot = [&] {
    std::string all;
    for (const auto& e : fs::recursive_directory_iterator(dir))
      all += e.path().string() + "\n" + (e.is_regular_file() ? Slurp(e.path()) : "") + "\n";
    return all;
  };
  std::string before = snapshot();
  for (const char* profile : {"failing", "usage"}) {
    r = RunPtsNative("batch-run " + Profile(profile), Env("TEST_RESULTS_NAME=keep TEST_RESULTS_IDENTIFIER=B FORCE_TIMES_TO_RUN=2"));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("Nothing was saved: no test produced a result (" + (dir / "composite.xml").string() +
                            " is unchanged)"),
              std::string::npos)
        << r.output;
    EXPECT_EQ(r.output.find("Saved "), std::string::npos) << r.output;
    EXPECT_EQ(snapshot(), before) << profile;
  }
  // Into a new name: no file at all.
  r = RunPtsNative("batch-run " + Profile("failing"), Env("TEST_RESULTS_NAME=none TEST_RESULTS_IDENTIFIER=B FORCE_TIMES_TO_RUN=1"));
  EXPECT_NE(r.output.find("was not written)"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(home_ / "test-results" / "none"));
}

// Disk tests run in run.test_dir: each in a private directory made there (PTS_NATIVE_TEST_DIR)
// and removed after, with a private $HOME; the System notes name the file system measured.
TEST_F(RunE2E, DiskTestsRunInTheTestDirectoryTheSettingNames) {
  fs::path test_dir = home_ / "elsewhere" / "td", where = home_ / "where.txt";
  auto r = RunPtsNative("batch-run " + Profile("where"),
                        Env("PTS_NATIVE_TEST_DIR='" + test_dir.string() + "' PTSN_WHERE='" + where.string() +
                            "' TEST_RESULTS_NAME=w TEST_RESULTS_IDENTIFIER=A FORCE_TIMES_TO_RUN=1"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::map<std::string, std::string> seen;
  std::istringstream lines(Slurp(where));
  for (std::string line; std::getline(lines, line);) seen[line.substr(0, line.find('='))] = line.substr(line.find('=') + 1);
  fs::path scratch = seen["scratch"];
  EXPECT_EQ(scratch.parent_path(), fs::canonical(test_dir)) << seen["scratch"];
  EXPECT_EQ(seen["data"], "data");
  EXPECT_FALSE(fs::exists(scratch));  // removed with the test
  fs::path install = home_ / "installed-tests" / "local" / "where-1.0.0";
  EXPECT_EQ(fs::path(seen["home"]).parent_path().parent_path(), install) << seen["home"];  // ".../<private>/"
  EXPECT_EQ(seen["pwd"] + "/", seen["home"]);
  EXPECT_FALSE(fs::exists(install / "private-file"));  // what the test writes into ~ stays its own
  EXPECT_TRUE(fs::exists(install / "where"));          // and the install is as it was
  // The notes name the file system of the test directory, from /proc/self/mountinfo.
  auto file = Saved("w");
  auto reader = ptsn::sysinfo::MakeRootedReader("/");
  auto mount = ptsn::sysinfo::MountFor(*reader, fs::canonical(test_dir).string());
  auto notes = nlohmann::json::parse(file.systems.at(0).json.value_or("{}"));
  EXPECT_EQ(notes.value("disk-file-system", ""), mount.type + " on " + mount.device + " at " + mount.mount_point)
      << file.systems.at(0).json.value_or("");
  EXPECT_TRUE(notes.contains("disk-mount-options"));
  // config names the same directory.
  auto config = RunPtsNative("config", Env("PTS_NATIVE_TEST_DIR='" + test_dir.string() + "'"));
  EXPECT_NE(config.output.find(test_dir.string()), std::string::npos) << config.output;
}

// Debian's fs_mark refuses -d paths of 40 bytes or more; the bundled profile runs it in the
// test directory with a relative path, so a long run.test_dir works.
TEST_F(RunE2E, DebianFsMarkRunsInALongTestDirectory) {
  if (std::system("command -v fs_mark >/dev/null 2>&1") != 0) GTEST_SKIP() << "fs_mark not installed (Debian package fsmark)";
  fs::path test_dir = home_ / "a-test-directory-whose-path-is-well-over-forty-bytes";
  auto r = RunPtsNative("batch-run debian/fs-mark",
                        Env("PTS_NATIVE_TEST_DIR='" + test_dir.string() +
                            "' PRESET_OPTIONS_VALUES='fs-mark.test=-s 4096 -n 20' TEST_RESULTS_NAME=fsm "
                            "TEST_RESULTS_IDENTIFIER=A FORCE_TIMES_TO_RUN=1"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto file = Saved("fsm");
  ASSERT_EQ(file.results.size(), 1u);
  EXPECT_GT(std::stod(file.results[0].entries.at(0).value), 0) << r.output;
  EXPECT_TRUE(fs::is_empty(test_dir));  // its files went with the test's scratch directory
}

// Runs into one result name at once keep every result they report saved, and runs of the same
// installed test do not see each other's files; 20 rounds of 2 and of 8 runs.
TEST_F(RunE2E, ConcurrentRunsIntoOneNameKeepEveryResult) {
  for (int round = 0; round < 20; ++round)
    for (int runs : {2, 8}) {
      std::string name = "c" + std::to_string(round) + "-" + std::to_string(runs);
      std::string cmd;
      for (int i = 0; i < runs; ++i) {
        fs::path out = home_ / (name + "-" + std::to_string(i));
        cmd += "(" + Env("TEST_RESULTS_NAME=" + name + " TEST_RESULTS_IDENTIFIER=R" + std::to_string(i) +
                         " FORCE_TIMES_TO_RUN=1") +
               " " + PTSN_BINARY + " batch-run " + Profile(i % 2 ? "trivial" : "where") + " > '" +
               out.string() + ".out' 2>&1; echo $? > '" + out.string() + ".rc') & ";
      }
      cmd += "wait";
      ASSERT_EQ(std::system(("PTSN_WHERE=/dev/null; export PTSN_WHERE; " + cmd).c_str()), 0);
      for (int i = 0; i < runs; ++i) {
        fs::path out = home_ / (name + "-" + std::to_string(i));
        EXPECT_EQ(Slurp(out.string() + ".rc"), "0\n") << Slurp(out.string() + ".out");
        EXPECT_NE(Slurp(out.string() + ".out").find("Saved "), std::string::npos) << Slurp(out.string() + ".out");
      }
      auto file = Saved(name);
      ASSERT_EQ(file.systems.size(), static_cast<size_t>(runs)) << name;
      size_t entries = 0;
      for (const auto& res : file.results) entries += res.entries.size();
      EXPECT_EQ(entries, static_cast<size_t>(runs)) << name;
      ExpectValid(name);
    }
}

// A command in the background: its output in <out>.out, its exit code in <out>.rc.
std::string InBackground(const std::string& command, const fs::path& out) {
  return "(" + command + " > '" + out.string() + ".out' 2>&1; echo $? > '" + out.string() + ".rc') & ";
}

// Edits of a saved result while a run saves into it (issue 48, hole 3): each edit is made under
// the lock the run's saves take, on the file as it is then, so neither undoes the other. Before,
// a rename read the file, the run saved a test, the rename wrote what it had read: the run's
// "Saved" test was gone (or the run's save put the old name back). 4 rounds of a run of 4 tests
// beside 16 renames back and forth.
TEST_F(RunE2E, EditsWhileARunSavesKeepBoth) {
  ASSERT_EQ(RunPtsNative("install " + Profile("options") + " " + Profile("trivial"), Env()).exit_code, 0);
  auto first = RunPtsNative("batch-run " + Profile("trivial"), Env("TEST_RESULTS_NAME=r TEST_RESULTS_IDENTIFIER=B FORCE_TIMES_TO_RUN=1"));
  ASSERT_EQ(first.exit_code, 0) << first.output;
  for (int round = 0; round < 4; ++round) {
    const std::string id = "A" + std::to_string(round);
    std::string renames;
    for (int i = 0; i < 8; ++i)
      renames += std::string(PTSN_BINARY) + " rename-identifier-in-result-file r B C && " + PTSN_BINARY +
                 " rename-identifier-in-result-file r C B && ";
    std::string cmd =
        InBackground(Env("TEST_RESULTS_NAME=r TEST_RESULTS_IDENTIFIER=" + id + " FORCE_TIMES_TO_RUN=1") + " " + PTSN_BINARY +
                         " batch-run " + Profile("options"),
                     home_ / ("run" + id)) +
        InBackground(Env() + " sh -c '" + renames + "true'", home_ / ("edit" + id)) + "wait";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    std::string run = Slurp(home_ / ("run" + id + ".out")), edit = Slurp(home_ / ("edit" + id + ".out"));
    EXPECT_EQ(Slurp(home_ / ("run" + id + ".rc")), "0\n") << run;
    EXPECT_EQ(Slurp(home_ / ("edit" + id + ".rc")), "0\n") << edit;
    auto file = Saved("r");
    std::vector<std::string> systems;
    for (const auto& s : file.systems) systems.push_back(s.identifier);
    ASSERT_FALSE(systems.empty());
    EXPECT_EQ(systems.front(), "B") << ::testing::PrintToString(systems);  // every rename back is kept
    EXPECT_EQ(std::count(systems.begin(), systems.end(), "C"), 0) << ::testing::PrintToString(systems);
    EXPECT_EQ(systems.size(), static_cast<size_t>(round + 2)) << ::testing::PrintToString(systems);
    for (int r = 0; r <= round; ++r) {
      size_t entries = 0;
      for (const auto& res : file.results)
        for (const auto& e : res.entries) entries += e.identifier == "A" + std::to_string(r) && !e.value.empty();
      EXPECT_EQ(entries, 4u) << "A" << r << " after round " << round << "\n" << run;  // all four saved tests
    }
  }
  ExpectValid("r");
}

// Two runs that would save trials as one system of one result at once (issue 48, hole 4):
// before, both said "Saved" for every test and the file kept only the second's trials. Now the
// second is refused before it runs anything, naming the system and who holds it (pid, what it
// does), or, when the first has finished, skips what is already saved. What a run reports saved
// is in the file, in each of 6 rounds.
TEST_F(RunE2E, TwoRunsAsOneSystemAtOnceLoseNothingReportedSaved) {
  ASSERT_EQ(RunPtsNative("install " + Profile("value"), Env()).exit_code, 0);
  int refused = 0;
  for (int round = 0; round < 6; ++round) {
    const std::string name = "same" + std::to_string(round);
    std::string cmd;
    for (int i = 1; i <= 2; ++i)
      cmd += InBackground(Env("PTSN_SLEEP=0.3 PTSN_VALUE=" + std::to_string(i) + " TEST_RESULTS_NAME=" + name +
                              " TEST_RESULTS_IDENTIFIER=S FORCE_TIMES_TO_RUN=2") +
                              " " + PTSN_BINARY + " batch-run " + Profile("value"),
                          home_ / (name + "-" + std::to_string(i)));
    ASSERT_EQ(std::system((cmd + "wait").c_str()), 0);
    auto file = Saved(name);
    ASSERT_EQ(file.results.size(), 1u);
    ASSERT_EQ(file.results[0].entries.size(), 1u);
    const auto& entry = file.results[0].entries[0];
    EXPECT_EQ(entry.identifier, "S");
    int saved = 0;
    for (int i = 1; i <= 2; ++i) {
      fs::path out = home_ / (name + "-" + std::to_string(i));
      std::string text = Slurp(out.string() + ".out");
      if (text.find("Saved ") != std::string::npos) {
        ++saved;
        EXPECT_EQ(entry.value, std::to_string(i)) << "run " << i << " said Saved; the file holds the trials of the other\n"
                                                  << text;
        EXPECT_EQ(entry.raw_string.value_or(""), std::to_string(i) + ":" + std::to_string(i)) << text;
        continue;
      }
      if (text.find("is in use by another process (pid ") != std::string::npos) {
        ++refused;
        EXPECT_NE(text.find(name + "/composite.xml: the system 'S' is in use by another process (pid "), std::string::npos) << text;
        EXPECT_NE(text.find(": a run saving as 'S'); wait until it has finished, or use another identifier"), std::string::npos)
            << text;
        EXPECT_EQ(Slurp(out.string() + ".rc"), "1\n") << text;
      } else {
        EXPECT_NE(text.find("already in"), std::string::npos) << text;  // ran after the other
      }
    }
    EXPECT_EQ(saved, 1) << name;
  }
  EXPECT_GT(refused, 0) << "the two runs never overlapped: the race was not tested";
}

// FORCE_TIMES_TO_RUN of 0, -1 or nothing ran each profile's own count without a word (issue 48):
// now one line naming the variable, before anything is installed or run; a count over 256 runs
// 256 times and says so.
TEST_F(RunE2E, ForceTimesToRunOutOfRangeIsRefusedOrSaid) {
  for (const char* value : {"0", "-1", "''"}) {
    auto r = RunPtsNative("batch-run " + Profile("trivial"), Env("TEST_RESULTS_NAME=n TEST_RESULTS_IDENTIFIER=A FORCE_TIMES_TO_RUN=" + std::string(value)));
    EXPECT_EQ(r.exit_code, 1) << value << ": " << r.output;
    EXPECT_EQ(r.output.rfind("pts-native: error: FORCE_TIMES_TO_RUN", 0), 0u) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
    EXPECT_FALSE(fs::exists(home_ / "installed-tests" / "local" / "trivial-1.0.0")) << value;
    EXPECT_FALSE(fs::exists(home_ / "test-results" / "n")) << value;
  }
  auto r = RunPtsNative("batch-run " + Profile("trivial") + " --dry-run", Env("FORCE_TIMES_TO_RUN=1000000"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("FORCE_TIMES_TO_RUN=1000000: a test runs at most 256 times; each runs 256 times"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("256 trial(s)"), std::string::npos) << r.output;
}

// A result file's temporary copy that a writer killed before its rename left behind (kill -9 mid
// save) is removed by the next save into that result, under its lock (issue 48); before, such
// files stayed for ever.
TEST_F(RunE2E, TheNextSaveRemovesWhatAKilledSaveLeft) {
  auto r = RunPtsNative("batch-run " + Profile("trivial"), Env("TEST_RESULTS_NAME=k TEST_RESULTS_IDENTIFIER=A FORCE_TIMES_TO_RUN=1"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const fs::path dir = home_ / "test-results" / "k";
  for (const char* name : {".composite.xml.tmp-Kx91aQ", ".composite.xml.tmp-0b7ZzP"})
    std::ofstream(dir / name) << "<?xml version=\"1.0\"?><PhoronixTestSuite><Generated><Title>hal";
  r = RunPtsNative("batch-run " + Profile("trivial"), Env("TEST_RESULTS_NAME=k TEST_RESULTS_IDENTIFIER=B FORCE_TIMES_TO_RUN=1"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
  EXPECT_EQ(Saved("k").systems.size(), 2u);
}

// "a/b" and "ab" are one folder (a folder name keeps letters, digits and '-'): the second run says
// whose result it is added to, naming both (issue 48); before, not a word.
TEST_F(RunE2E, TwoNamesOfOneFolderAreSaid) {
  auto r = RunPtsNative("batch-run " + Profile("trivial"), Env("TEST_RESULTS_NAME=a/b TEST_RESULTS_IDENTIFIER=A FORCE_TIMES_TO_RUN=1"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("The result name"), std::string::npos) << r.output;
  r = RunPtsNative("batch-run " + Profile("trivial"), Env("TEST_RESULTS_NAME=ab TEST_RESULTS_IDENTIFIER=B FORCE_TIMES_TO_RUN=1"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("The result name 'ab' is saved in " + (home_ / "test-results" / "ab").string() +
                          ", the result 'a/b' (a folder name keeps letters, digits and '-'): this run is added to it"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(Saved("ab").systems.size(), 2u);
  r = RunPtsNative("batch-run " + Profile("trivial"), Env("TEST_RESULTS_NAME=a/b TEST_RESULTS_IDENTIFIER=C FORCE_TIMES_TO_RUN=1"));
  EXPECT_EQ(r.output.find("The result name"), std::string::npos) << r.output;  // its own name: nothing to say
}

// A trial that fails as fs_mark does on a full disk (why, then how it gave up) shows the line that
// says why, and the last line after it (issue 48); before, only "fopen failed to open: ...".
TEST_F(RunE2E, AFailedTrialShowsTheLineThatSaysWhy) {
  auto r = RunPtsNative("batch-run " + Profile("space"),
                        Env("PTSN_NO_ROOM=1 TEST_RESULTS_NAME=s TEST_RESULTS_IDENTIFIER=A FORCE_TIMES_TO_RUN=1"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("trial 1 of 1: FAILED (The test quit with a non-zero exit status (1): Insufficient free space "
                          "in ./files to create 1000 new files; last line: fopen failed to open: fs_log.txt."),
            std::string::npos)
      << r.output;
}

// Runs of one installed test into different result names at once: each gets its own home,
// scratch and log file ("did not write $LOG_FILE" came from sharing them), so all succeed.
TEST_F(RunE2E, RunsOfOneInstalledTestIntoDifferentNamesAllSucceed) {
  ASSERT_EQ(RunPtsNative("install " + Profile("where"), Env()).exit_code, 0);
  std::string cmd;
  for (int i = 0; i < 8; ++i) {
    fs::path out = home_ / ("d" + std::to_string(i));
    cmd += "(" + Env("PTSN_WHERE=/dev/null TEST_RESULTS_NAME=d" + std::to_string(i) + " TEST_RESULTS_IDENTIFIER=A FORCE_TIMES_TO_RUN=3") +
           " " + PTSN_BINARY + " batch-run " + Profile("where") + " > '" + out.string() + ".out' 2>&1; echo $? > '" +
           out.string() + ".rc') & ";
  }
  ASSERT_EQ(std::system((cmd + "wait").c_str()), 0);
  for (int i = 0; i < 8; ++i) {
    fs::path out = home_ / ("d" + std::to_string(i));
    EXPECT_EQ(Slurp(out.string() + ".rc"), "0\n") << Slurp(out.string() + ".out");
    auto file = Saved("d" + std::to_string(i));
    ASSERT_EQ(file.results.size(), 1u);
    EXPECT_EQ(file.results[0].entries.at(0).value, "1");
  }
}

// The plan's estimated run time: the profile's EstimatedTimePerRun (none here: unknown) until
// this machine has run the test, then its measured trial times, in estimate-run-time and in the
// run's first line.
TEST_F(RunE2E, EstimatesComeFromTrialsMeasuredHere) {
  auto e = RunPtsNative("estimate-run-time " + Profile("trivial"), Env("FORCE_TIMES_TO_RUN=2"));
  ASSERT_EQ(e.exit_code, 0) << e.output;
  EXPECT_NE(e.output.find("local/trivial-1.0.0  1 test(s), 2 trial(s): unknown (unknown)"), std::string::npos) << e.output;
  EXPECT_NE(e.output.find("Estimated run time: unknown for 1 test(s)"), std::string::npos) << e.output;
  EXPECT_FALSE(fs::exists(home_ / "installed-tests"));  // it installs and runs nothing
  auto r = RunPtsNative("batch-run " + Profile("trivial"), Env("TEST_RESULTS_NAME=e TEST_RESULTS_IDENTIFIER=A FORCE_TIMES_TO_RUN=2"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("estimated run time unknown"), std::string::npos) << r.output;
  e = RunPtsNative("estimate-run-time " + Profile("trivial"), Env("FORCE_TIMES_TO_RUN=4"));
  EXPECT_NE(e.output.find("4 trial(s): about "), std::string::npos) << e.output;
  EXPECT_NE(e.output.find("(measured here (same options))"), std::string::npos) << e.output;
  r = RunPtsNative("batch-run " + Profile("trivial"), Env("TEST_RESULTS_NAME=e TEST_RESULTS_IDENTIFIER=B FORCE_TIMES_TO_RUN=2"));
  EXPECT_NE(r.output.find("estimated run time about "), std::string::npos) << r.output;
}

TEST_F(RunE2E, HungTrialIsKilledByTheTimeout) {
  auto start = std::chrono::steady_clock::now();
  auto r = RunPtsNative("batch-run " + Profile("hang"),
                        Env("PTS_NATIVE_TRIAL_TIMEOUT=1 TEST_RESULTS_NAME=h TEST_RESULTS_IDENTIFIER=A FORCE_TIMES_TO_RUN=1"));
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_LT(took, 10);
  EXPECT_NE(r.output.find("timed out after 1 s"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(home_ / "test-results" / "h" / "composite.xml"));  // nothing to save
}

TEST_F(RunE2E, NoisyProgramGetsBoundedDynamicRunsRecordedInTheResult) {
  auto r = RunPtsNative("batch-run --json-events " + Profile("noisy"),
                        Env("PTS_NATIVE_MAX_RUNS=7 TEST_RESULTS_NAME=n TEST_RESULTS_IDENTIFIER=A"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto file = Saved("n");
  const auto& e = file.results.at(0).entries.at(0);
  EXPECT_EQ(std::count(e.raw_string->begin(), e.raw_string->end(), ':'), 6);  // 7 trials
  auto j = nlohmann::json::parse(*e.json);
  EXPECT_EQ(j["runs-added"], 4);
  EXPECT_EQ(j["runs-stopped-by"], "max_runs");
  EXPECT_NE(j["runs-added-reason"].get<std::string>().find("sd 21.7% >= 2.5%"), std::string::npos);
  // --json-events: one JSON object per line.
  std::istringstream lines(r.output);
  int events = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] != '{') continue;
    auto ev = nlohmann::json::parse(line);
    EXPECT_TRUE(ev.contains("event"));
    events++;
  }
  EXPECT_GE(events, 10);
}

TEST_F(RunE2E, KilledRunnerKeepsFinishedTestsAndARerunResumes) {
  std::string cmd = Env("TEST_RESULTS_NAME=k TEST_RESULTS_IDENTIFIER=A FORCE_TIMES_TO_RUN=1") + " " + PTSN_BINARY +
                    " batch-run " + Profile("slow") + " > /dev/null 2>&1 & echo $!";
  FILE* p = popen(cmd.c_str(), "r");
  char buf[32] = {0};
  ASSERT_TRUE(fgets(buf, sizeof buf, p));
  pclose(p);
  pid_t runner = std::atoi(buf);
  fs::path composite = home_ / "test-results" / "k" / "composite.xml";
  for (int i = 0; i < 200 && !fs::exists(composite); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(fs::exists(composite));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // now inside step Two's 20 s trial
  kill(runner, SIGKILL);
  auto file = Saved("k");
  ASSERT_EQ(file.results.size(), 1u);
  EXPECT_EQ(file.results[0].description, "Step: One");
  ExpectValid("k");
  auto rerun = RunPtsNative("batch-run " + Profile("slow"),
                            Env("SLOW_SKIP=1 TEST_RESULTS_NAME=k TEST_RESULTS_IDENTIFIER=A FORCE_TIMES_TO_RUN=1"));
  ASSERT_EQ(rerun.exit_code, 0) << rerun.output;
  EXPECT_NE(rerun.output.find("skipped: already in"), std::string::npos) << rerun.output;
  file = Saved("k");
  ASSERT_EQ(file.results.size(), 2u);
  EXPECT_EQ(file.results[1].entries[0].value, "2");
  ExpectValid("k");
}

TEST_F(RunE2E, MissingDependencyIsReportedBeforeAnythingRuns) {
  auto r = RunPtsNative("batch-run " + Profile("deps"), Env("TEST_RESULTS_NAME=d"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("ptsn-no-such-command"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("pts-native install-dependencies local/deps-1.0.0"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(home_ / "installed-tests" / "local" / "deps-1.0.0"));
}

class DownloadE2E : public RunE2E {
 protected:
  void WriteProfile(const std::vector<std::string>& urls, const std::string& sha,
                    const std::string& file_name = "payload.txt", const std::string& profile = "download-1.0.0") {
    fs::path dir = home_ / "test-profiles" / "local" / profile;
    fs::create_directories(dir);
    for (const char* f : {"test-definition.xml", "results-definition.xml", "install.sh"})
      fs::copy_file(Profile("download") + "/" + f, dir / f, fs::copy_options::overwrite_existing);
    std::string joined;
    for (const auto& u : urls) joined += (joined.empty() ? "" : ", ") + u;
    std::ofstream(dir / "downloads.xml") << "<?xml version=\"1.0\"?>\n<PhoronixTestSuite>\n  <Downloads>\n    <Package>\n"
                                         << "      <URL>" << joined << "</URL>\n      <SHA256>" << sha
                                         << "</SHA256>\n      <FileName>" << file_name << "</FileName>\n    </Package>\n"
                                         << "  </Downloads>\n</PhoronixTestSuite>\n";
  }
  ptsn::install::test::LoopbackServer server_;
};

TEST_F(DownloadE2E, WrongChecksumMirrorIsNamedAndTheRightOneUsed) {
  server_.Serve("/bad/payload.txt", "666\n");
  server_.Serve("/good/payload.txt", "42\n");
  WriteProfile({server_.Url("/bad/payload.txt"), server_.Url("/good/payload.txt")}, Sha256Of("42\n"));
  auto r = RunPtsNative("batch-run local/download", Env("TEST_RESULTS_NAME=dl TEST_RESULTS_IDENTIFIER=A FORCE_TIMES_TO_RUN=1"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(server_.Url("/bad/payload.txt") + ": sha256 is " + Sha256Of("666\n")), std::string::npos) << r.output;
  EXPECT_EQ(Saved("dl").results.at(0).entries.at(0).value, "42");
  EXPECT_TRUE(fs::exists(home_ / "download-cache" / "payload.txt"));
}

TEST_F(DownloadE2E, OnlyWrongChecksumsFailTheInstall) {
  server_.Serve("/bad/payload.txt", "666\n");
  WriteProfile({server_.Url("/bad/payload.txt")}, Sha256Of("42\n"));
  auto r = RunPtsNative("install local/download", Env());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("downloading failed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("sha256 is"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(home_ / "installed-tests" / "local" / "download-1.0.0" / "payload.txt"));
}

TEST_F(DownloadE2E, OfflineOpensNoSocketAndListsWhatIsMissing) {
  server_.Serve("/good/payload.txt", "42\n");
  WriteProfile({server_.Url("/good/payload.txt")}, Sha256Of("42\n"));
  auto r = RunPtsNative("install --offline local/download", Env());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("offline and not in any download cache: payload.txt"), std::string::npos) << r.output;
  EXPECT_TRUE(server_.Requests().empty());
  // With the file in a PTS-style cache directory the offline install succeeds.
  fs::create_directories(home_ / "cache2");
  std::ofstream(home_ / "cache2" / "payload.txt") << "42\n";
  r = RunPtsNative("install --offline local/download", Env("PTS_NATIVE_EXTRA_CACHES='" + (home_ / "cache2").string() + "'"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(server_.Requests().empty());
}

// Issue 48: a profile's FileName is joined to the install folder and the download cache; one
// that climbs out ("../../victim2" reached the file beside PTS_NATIVE_HOME through the download
// cache) or is absolute is refused before anything is fetched, naming the profile and the field.
class HostileFileNameE2E : public DownloadE2E {
 protected:
  // PTS_NATIVE_HOME is outside_/home: "../../victim2" from its download cache is outside_/victim2.
  void SetUp() override {
    DownloadE2E::SetUp();
    fs::remove_all(home_);
    outside_ = home_.string() + "-outside";
    fs::remove_all(outside_);
    home_ = outside_ / "home";
    fs::create_directories(home_);
    std::ofstream(outside_ / "payload") << "pwned\n";
    std::ofstream(outside_ / "victim2") << "important\n";
  }
  void TearDown() override { fs::remove_all(outside_); }
  // Nothing outside the tool's folders changed: the victim as it was, nothing new beside it.
  void ExpectNothingWrittenOutside() {
    EXPECT_EQ(Slurp(outside_ / "victim2"), "important\n");
    EXPECT_EQ(std::distance(fs::directory_iterator(outside_), fs::directory_iterator()), 3);  // home, payload, victim2
    EXPECT_FALSE(fs::exists(home_ / "installed-tests" / "victim2"));
    EXPECT_FALSE(fs::exists(home_ / "victim2"));
  }
  fs::path outside_;
};

TEST_F(HostileFileNameE2E, ClimbingFileNameInstalledOfflineIsRefusedAndWritesNothingOutside) {
  WriteProfile({"file://" + (outside_ / "payload").string()}, Sha256Of("pwned\n"), "../../victim2", "evil-1.0.0");
  auto r = RunPtsNative("install local/evil --offline", Env());
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("local/evil-1.0.0: downloads.xml FileName '../../victim2' leaves the install folder"),
            std::string::npos) << r.output;
  ExpectNothingWrittenOutside();
}

TEST_F(HostileFileNameE2E, AbsoluteFileNameIsRefusedClearly) {
  const std::string absolute = (outside_ / "victim2").string();
  WriteProfile({"file://" + (outside_ / "payload").string()}, Sha256Of("pwned\n"), absolute, "evil-1.0.0");
  auto r = RunPtsNative("install local/evil --offline", Env());
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("local/evil-1.0.0: downloads.xml FileName '" + absolute +
                          "' leaves the install folder (an absolute path)"),
            std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("copy failed"), std::string::npos) << r.output;
  ExpectNothingWrittenOutside();
}

TEST_F(HostileFileNameE2E, ClimbingFileNameOverHttpInBatchRunIsRefusedBeforeAnyRequest) {
  server_.Serve("/payload", "pwned\n");
  WriteProfile({server_.Url("/payload")}, Sha256Of("pwned\n"), "../../victim2", "evil-1.0.0");
  auto r = RunPtsNative("batch-run local/evil", Env("TEST_RESULTS_NAME=evil TEST_RESULTS_IDENTIFIER=A FORCE_TIMES_TO_RUN=1"));
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("local/evil-1.0.0: downloads.xml FileName '../../victim2' leaves the install folder"),
            std::string::npos) << r.output;
  EXPECT_TRUE(server_.Requests().empty());
  ExpectNothingWrittenOutside();
}

// list-installed-tests, make-download-cache and remove-installed-test over one installed test.
TEST_F(DownloadE2E, InstalledTestsTheirDownloadCacheAndRemoval) {
  server_.Serve("/good/payload.txt", "42\n");
  WriteProfile({server_.Url("/good/payload.txt")}, Sha256Of("42\n"));
  auto none = RunPtsNative("list-installed-tests", Env());
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_NE(none.output.find("No tests are installed"), std::string::npos) << none.output;
  ASSERT_EQ(RunPtsNative("install local/download", Env()).exit_code, 0);
  auto list = RunPtsNative("list-installed-tests", Env());
  EXPECT_NE(list.output.find("1 Tests Installed"), std::string::npos) << list.output;
  EXPECT_NE(list.output.find("local/download-1.0.0"), std::string::npos) << list.output;
  // The cache is rebuilt from the install directory (the file is taken from there, verified).
  fs::remove(home_ / "download-cache" / "payload.txt");
  const size_t requests = server_.Requests().size();
  auto cache = RunPtsNative("make-download-cache --offline", Env());
  ASSERT_EQ(cache.exit_code, 0) << cache.output;
  EXPECT_NE(cache.output.find("Caching: payload.txt"), std::string::npos) << cache.output;
  EXPECT_EQ(Slurp(home_ / "download-cache" / "payload.txt"), "42\n");
  auto index = nlohmann::json::parse(Slurp(home_ / "download-cache" / "pts-download-cache.json"));
  const auto& entry = index["phoronix-test-suite"]["download-cache"]["payload.txt"];
  EXPECT_EQ(entry["sha256"], Sha256Of("42\n"));
  EXPECT_EQ(entry["file_size"], 3);
  EXPECT_EQ(entry["associated_tests"], nlohmann::json::array({"local/download-1.0.0"}));
  EXPECT_EQ(index["phoronix-test-suite"]["cached-tests"], nlohmann::json::array({"local/download-1.0.0"}));
  EXPECT_EQ(server_.Requests().size(), requests);  // nothing downloaded: it came from the install
  // Removing asks first: off a terminal without --yes nothing is removed.
  auto refused = RunPtsNative("remove-installed-test local/download < /dev/null", Env());
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_TRUE(fs::exists(home_ / "installed-tests" / "local" / "download-1.0.0"));
  auto removed = RunPtsNative("remove-installed-test local/download --yes", Env());
  EXPECT_EQ(removed.exit_code, 0) << removed.output;
  EXPECT_FALSE(fs::exists(home_ / "installed-tests" / "local" / "download-1.0.0"));
  auto again = RunPtsNative("remove-installed-test local/download --yes", Env());
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.output.find("not installed"), std::string::npos) << again.output;
  EXPECT_NE(RunPtsNative("remove-installed-test ../../etc --yes", Env()).exit_code, 0);
}

// finish-run: the tests a saved run's system lacks (here a failed one, its value empty) run again
// into the same file, under the same system, which is continued and not marked a reproduction.
TEST_F(RunE2E, FinishRunRunsWhatASavedRunIsMissing) {
  const std::string profiles = "PTS_NATIVE_PROFILES_DIR='" + std::string(PTSN_SOURCE_DIR) + "/tests/run/profiles' ";
  ASSERT_EQ(RunPtsNative("batch-run local/trivial", Env(profiles + "TEST_RESULTS_NAME=fin TEST_RESULTS_IDENTIFIER=A "
                                                                  "FORCE_TIMES_TO_RUN=1"))
                .exit_code,
            0);
  auto done = RunPtsNative("finish-run fin --non-interactive", Env(profiles));
  EXPECT_EQ(done.exit_code, 0) << done.output;
  EXPECT_NE(done.output.find("no incomplete test results"), std::string::npos) << done.output;
  // The trial failed: the entry is there without a value.
  const fs::path composite = home_ / "test-results" / "fin" / "composite.xml";
  std::string xml = Slurp(composite);
  xml.replace(xml.find("<Value>1.5</Value>"), 18, "<Value></Value>");
  std::ofstream(composite) << xml;
  auto finished = RunPtsNative("finish-run fin --non-interactive", Env(profiles + "FORCE_TIMES_TO_RUN=1"));
  ASSERT_EQ(finished.exit_code, 0) << finished.output;
  auto file = Saved("fin");
  ASSERT_EQ(file.systems.size(), 1u);
  EXPECT_EQ(file.systems[0].identifier, "A");
  EXPECT_EQ(file.systems[0].notes.value_or("").find("Reproduction"), std::string::npos);
  ASSERT_EQ(file.results.size(), 1u);
  ASSERT_EQ(file.results[0].entries.size(), 1u);
  EXPECT_EQ(file.results[0].entries[0].value, "1.5");
  EXPECT_NE(RunPtsNative("finish-run no-such-result", Env()).exit_code, 0);
}

// `run NAME --dry-run` for every form `run` takes: a name that is none of them says what it is
// not and where each was looked for (not "unknown option --dry-run"); a profile, a suite and a
// saved result print what would run and touch nothing.
TEST_F(RunE2E, RunDryRunWorksForEveryFormAndNamesWhatANameIsNot) {
  const std::string profiles = "PTS_NATIVE_PROFILES_DIR='" + std::string(PTSN_SOURCE_DIR) + "/tests/run/profiles' ";
  for (const std::string name : {"not-an-id", "1110088-AR-XYZ"}) {
    for (const std::string dry : {" --dry-run", ""}) {
      auto r = RunPtsNative("run " + name + dry, Env(profiles));
      EXPECT_NE(r.exit_code, 0) << r.output;
      EXPECT_EQ(r.output.find("unknown option"), std::string::npos) << r.output;
      EXPECT_NE(r.output.find(name + ": not a result ID, a saved result, a test profile or a suite: a result ID has 22 "
                                     "characters"),
                std::string::npos)
          << r.output;
      EXPECT_NE(r.output.find("no saved result of that name in " + (home_ / "test-results").string()), std::string::npos)
          << r.output;
      EXPECT_NE(r.output.find("/tests/run/profiles"), std::string::npos) << "where profiles were looked for: " << r.output;
      EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << "one line: " << r.output;
    }
  }
  // A profile: the test it would run, that it is not installed, the time; nothing installed.
  auto p = RunPtsNative("run local/trivial --dry-run", Env(profiles + "FORCE_TIMES_TO_RUN=2"));
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_NE(p.output.find("Dry run: 1 test(s) would run; nothing is installed, run or saved."), std::string::npos)
      << p.output;
  EXPECT_NE(p.output.find("run      local/trivial-1.0.0"), std::string::npos) << p.output;
  EXPECT_NE(p.output.find("2 trial(s), unknown (unknown); installed first"), std::string::npos) << p.output;
  EXPECT_FALSE(fs::exists(home_ / "installed-tests"));
  EXPECT_FALSE(fs::exists(home_ / "test-results"));
  // An option the run would ask for is named, with how to choose it.
  auto o = RunPtsNative("run local/options --dry-run --non-interactive", Env(profiles));
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("not chosen: planned at the default here"), std::string::npos) << o.output;
  // A suite (the bundled default one): each of its tests.
  auto suite = RunPtsNative("run suites/default --dry-run", Env(profiles));
  ASSERT_EQ(suite.exit_code, 0) << suite.output;
  EXPECT_NE(suite.output.find("run      native/"), std::string::npos) << suite.output;
  EXPECT_NE(suite.output.find("Estimated run time: about "), std::string::npos) << suite.output;
  // batch-run takes it too (every combination).
  EXPECT_EQ(RunPtsNative("batch-run local/trivial --dry-run", Env(profiles)).exit_code, 0);
  EXPECT_FALSE(fs::exists(home_ / "installed-tests"));
  // A saved result: the reproduction's plan (run <saved name> --dry-run), nothing written.
  ASSERT_EQ(RunPtsNative("batch-run local/trivial", Env(profiles + "TEST_RESULTS_NAME=saved TEST_RESULTS_IDENTIFIER=A "
                                                                  "FORCE_TIMES_TO_RUN=1"))
                .exit_code,
            0);
  const std::string before = Slurp(home_ / "test-results" / "saved" / "composite.xml");
  auto saved = RunPtsNative("run saved --dry-run", Env(profiles));
  EXPECT_EQ(saved.exit_code, 0) << saved.output;
  EXPECT_NE(saved.output.find("run      local/trivial-1.0.0"), std::string::npos) << saved.output;
  EXPECT_NE(saved.output.find("Plan: 1 tests"), std::string::npos) << saved.output;
  EXPECT_EQ(Slurp(home_ / "test-results" / "saved" / "composite.xml"), before);
}

// A second system named like the first but for case or punctuation would read as the same one.
TEST_F(RunE2E, NearDuplicateIdentifierIsRefusedBeforeAnythingRuns) {
  ASSERT_EQ(RunPtsNative("batch-run " + Profile("trivial"),
                         Env("TEST_RESULTS_NAME=near TEST_RESULTS_IDENTIFIER='Box One' FORCE_TIMES_TO_RUN=1"))
                .exit_code,
            0);
  const std::string before = Slurp(home_ / "test-results" / "near" / "composite.xml");
  for (const char* near : {"box one", "Box-One", "BOX_ONE."}) {
    auto r = RunPtsNative("batch-run " + Profile("trivial"),
                          Env(std::string("TEST_RESULTS_NAME=near TEST_RESULTS_IDENTIFIER='") + near + "' FORCE_TIMES_TO_RUN=1"));
    EXPECT_NE(r.exit_code, 0) << near;
    EXPECT_NE(r.output.find("differs from the system 'Box One'"), std::string::npos) << r.output;
    EXPECT_EQ(Slurp(home_ / "test-results" / "near" / "composite.xml"), before) << near;
  }
  auto other = RunPtsNative("batch-run " + Profile("trivial"),
                            Env("TEST_RESULTS_NAME=near TEST_RESULTS_IDENTIFIER='Box Two' FORCE_TIMES_TO_RUN=1"));
  EXPECT_EQ(other.exit_code, 0) << other.output;
  EXPECT_EQ(Saved("near").systems.size(), 2u);
}

// Each trial line says what its numbers are.
TEST_F(RunE2E, TrialLinesLabelEachValueWithItsUnit) {
  auto r = RunPtsNative("batch-run " + Profile("multi"), Env("TEST_RESULTS_NAME=lab TEST_RESULTS_IDENTIFIER=A FORCE_TIMES_TO_RUN=1"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("trial 1 of 1: 250.5 MB/s (Read), 0.75 ms (Latency)"), std::string::npos) << r.output;
}

TEST_F(RunE2E, SystemInfoPrintsThePtsStrings) {
  auto r = RunPtsNative("system-info", Env());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Processor: "), std::string::npos);
  EXPECT_NE(r.output.find("Kernel: "), std::string::npos);
}

}  // namespace
