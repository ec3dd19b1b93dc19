// End-to-end: the pts-native binary installs and runs the small profiles in tests/run/profiles/
// in a temporary PTS_NATIVE_HOME, with no network (downloads come from a loopback server).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "results-xml/result_store.h"
#include "results-xml/result_xml.h"
#include "results-xml/validate.h"
#include "runner/install/install_test_support.h"
#include "runner/sysinfo/phodevi_strings.h"
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
    std::string xsd = std::string(PTSN_SHARED_DIR) + "/reference/schemas/result-file.xsd";
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

TEST_F(RunE2E, FailingTrialIsRecordedWithReasonAndNoNumber) {
  auto r = RunPtsNative("batch-run " + Profile("failing"), Env("TEST_RESULTS_NAME=f TEST_RESULTS_IDENTIFIER=A FORCE_TIMES_TO_RUN=2"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("could not open /dev/nothing"), std::string::npos) << r.output;
  auto file = Saved("f");
  ASSERT_EQ(file.results.size(), 1u);
  const auto& e = file.results[0].entries.at(0);
  EXPECT_EQ(e.value, "");
  auto error = nlohmann::json::parse(e.json.value_or("{}"))["error"].get<std::string>();
  EXPECT_NE(error.find("non-zero exit status (1)"), std::string::npos) << error;
}

TEST_F(RunE2E, HungTrialIsKilledByTheTimeout) {
  auto start = std::chrono::steady_clock::now();
  auto r = RunPtsNative("batch-run " + Profile("hang"),
                        Env("PTS_NATIVE_TRIAL_TIMEOUT=1 TEST_RESULTS_NAME=h TEST_RESULTS_IDENTIFIER=A FORCE_TIMES_TO_RUN=1"));
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_LT(took, 10);
  EXPECT_NE(r.output.find("timed out after 1 s"), std::string::npos) << r.output;
  EXPECT_EQ(Saved("h").results.at(0).entries.at(0).value, "");
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
  void WriteProfile(const std::vector<std::string>& urls, const std::string& sha) {
    fs::path dir = home_ / "test-profiles" / "local" / "download-1.0.0";
    fs::create_directories(dir);
    for (const char* f : {"test-definition.xml", "results-definition.xml", "install.sh"})
      fs::copy_file(Profile("download") + "/" + f, dir / f, fs::copy_options::overwrite_existing);
    std::string joined;
    for (const auto& u : urls) joined += (joined.empty() ? "" : ", ") + u;
    std::ofstream(dir / "downloads.xml") << "<?xml version=\"1.0\"?>\n<PhoronixTestSuite>\n  <Downloads>\n    <Package>\n"
                                         << "      <URL>" << joined << "</URL>\n      <SHA256>" << sha
                                         << "</SHA256>\n      <FileName>payload.txt</FileName>\n    </Package>\n"
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
