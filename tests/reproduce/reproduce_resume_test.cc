// Resuming a reproduction whose stand-in was kept apart (it measures in another unit than the
// original, so it has a Result of its own): `finish-run` and `run` again plan only what has not
// run, count the kept-apart stand-in as the test it stands in for, and never plan the stand-in's
// own Result as a test of its own.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "results-xml/model/result_xml.h"
#include "runner/common/atomic_file.h"
#include "runner/reproduce/append.h"
#include "runner/reproduce/consent.h"
#include "tests/cli/run_binary.h"
#include "tests/reproduce/published_file.h"

namespace ptsn {
namespace {

namespace fs = std::filesystem;
using testing::Put;

// A profile whose executable runs `script` (it writes "Score: N" to $LOG_FILE), in `scale`.
void PutProfile(const fs::path& dir, const std::string& title, const std::string& scale, const std::string& script) {
  Put(dir / "install.sh", "#!/bin/sh\ncat > run-it <<'SCRIPT'\n#!/bin/sh\n" + script + "\nSCRIPT\nchmod +x run-it\n");
  Put(dir / "results-definition.xml",
      "<?xml version=\"1.0\"?>\n<PhoronixTestSuite><ResultsParser><OutputTemplate>Score: #_RESULT_#</OutputTemplate>"
      "</ResultsParser></PhoronixTestSuite>\n");
  Put(dir / "test-definition.xml",
      "<?xml version=\"1.0\"?>\n<PhoronixTestSuite><TestInformation><Title>" + title +
          "</Title><AppVersion>1.0</AppVersion><ResultScale>" + scale +
          "</ResultScale><Proportion>HIB</Proportion><Executable>run-it</Executable><TimesToRun>1</TimesToRun>"
          "</TestInformation><TestProfile><Version>1.0.0</Version><SupportedPlatforms>Linux</SupportedPlatforms>"
          "<SoftwareType>Utility</SoftwareType><TestType>System</TestType><License>Free</License>"
          "<EstimatedTimePerRun>1</EstimatedTimePerRun></TestProfile><TestSettings><Option><DisplayName>N</DisplayName>"
          "<Identifier>n</Identifier><ArgumentPrefix>--n </ArgumentPrefix><Menu><Entry><Name>3</Name><Value>3</Value>"
          "</Entry><Entry><Name>7</Name><Value>7</Value></Entry></Menu></Option></TestSettings></PhoronixTestSuite>\n");
}

size_t EntriesOf(const results::Result& r, const std::string& identifier) {
  size_t n = 0;
  for (const auto& e : r.entries) n += e.identifier == identifier;
  return n;
}

TEST(ReproduceResume, KeptApartStandInsRunOnceAcrossFinishRunAndResume) {
  const fs::path root = fs::path(::testing::TempDir()) / ("reproduce-resume-" + std::to_string(getpid()));
  fs::remove_all(root);
  const fs::path profiles = root / "profiles";
  PutProfile(profiles / "local/tiny-1.0.0", "Tiny", "Points", "echo \"Score: 43.$$\" > \"$LOG_FILE\"");
  // Stands in for "Seconds, lower is better" in MiB/s: kept apart from the original.
  PutProfile(profiles / "local/unit-standin-1.0.0", "Unit Stand-in", "MiB/s", "echo \"Score: 47.$$\" > \"$LOG_FILE\"");
  Put(profiles / "stand-ins/local/unit-standin-1.0.0.xml",
      "<?xml version=\"1.0\"?>\n<StandInFor><Test><Profile>pts/slow-thing-1.0</Profile><Arguments>-n (\\d+)</Arguments>"
      "<UseArguments>--n $1</UseArguments><UseDescription>N: $1</UseDescription><Note>another unit</Note></Test>"
      "</StandInFor>\n");
  // Fails until the file $FLAKY_OK exists: the first run ends incomplete, as an interrupted one.
  const std::string flaky_ok = (root / "flaky-ok").string();
  PutProfile(profiles / "local/flaky-1.0.0", "Flaky", "Points",
             "[ -e \"$FLAKY_OK\" ] || { echo 'flaky: failing on purpose' >&2; exit 1; }\necho 'Score: 41.5' > \"$LOG_FILE\"");

  auto published = testing::TwoSystemPublished("Resume Published", "Built for the reproduce resume test.",
                                               {{"local/tiny-1.0.0", "Tiny"}, {"pts/slow-thing-1.0.0", "Slow Thing"},
                                                {"local/flaky-1.0.0", "Flaky"}});
  for (auto& r : published.results) r.arguments = r.identifier == "pts/slow-thing-1.0.0" ? "-n 7" : "--n 3";
  published.results[1].scale = "Seconds";
  published.results[1].proportion = "LIB";
  const std::string home = (root / "home").string(), saved = home + "/test-results/resume-pub/composite.xml";
  MakeDirectories(home + "/test-results/resume-pub");
  results::WriteResultFile(saved, published);
  const std::string env = "PTS_NATIVE_PTS_HOME=" + (root / "no-pts").string() + " PTS_NATIVE_CONFIG=/dev/null PTS_NATIVE_HOME=" +
                          home + " PTS_NATIVE_PROFILES_DIR=" + profiles.string() + " FLAKY_OK=" + flaky_ok +
                          " FORCE_TIMES_TO_RUN=1 PTS_NATIVE_SERVER=http://127.0.0.1:9 ";
  const std::string box = env + "TEST_RESULTS_IDENTIFIER='This Box' ";

  auto first = test::RunPtsNative("run resume-pub --non-interactive --offline", box);
  EXPECT_EQ(first.exit_code, 1) << first.output;
  auto file = results::ReadResultFile(saved);
  ASSERT_EQ(file.results.size(), 4u) << first.output;
  EXPECT_EQ(file.results[2].identifier, "local/unit-standin-1.0.0") << "kept apart, right after the original";
  EXPECT_EQ(EntriesOf(file.results[1], "This Box"), 0u) << "nothing on the original's axis";
  EXPECT_TRUE(reproduce::HasValueFor(file, 1, "This Box"));
  EXPECT_FALSE(reproduce::HasValueFor(file, 3, "This Box"));
  EXPECT_EQ(reproduce::IncompleteSystems(file), std::vector<std::string>{"This Box"})
      << "the published systems lack nothing: the stand-in's own Result is not a test";

  // finish-run: the plan is the published tests only, and only the failed one runs.
  Put(flaky_ok, "");
  auto finish = test::RunPtsNative("finish-run resume-pub --non-interactive --offline", env);
  if (std::getenv("PTSN_TEST_VERBOSE")) std::cout << first.output << finish.output;
  EXPECT_EQ(finish.exit_code, 0) << finish.output;
  EXPECT_NE(finish.output.find("Plan: 3 tests: 2 original, 1 stand-in"), std::string::npos) << finish.output;
  EXPECT_EQ(finish.output.find("run      local/unit-standin-1.0.0"), std::string::npos) << finish.output;
  EXPECT_NE(finish.output.find("Running 1 test(s)"), std::string::npos) << finish.output;
  file = results::ReadResultFile(saved);
  ASSERT_EQ(file.results.size(), 4u);
  EXPECT_EQ(EntriesOf(file.results[2], "This Box"), 1u);
  EXPECT_EQ(file.results[3].entries.back().value, "41.5");
  EXPECT_TRUE(reproduce::IncompleteSystems(file).empty());

  // Nothing is left: finish-run says so, and running it again as This Box runs nothing.
  auto again = test::RunPtsNative("finish-run resume-pub --non-interactive --offline", env);
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("no incomplete test results"), std::string::npos) << again.output;
  auto resumed = test::RunPtsNative("run resume-pub --non-interactive --offline", box);
  EXPECT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("Nothing left to run for This Box"), std::string::npos) << resumed.output;

  // Another system runs the stand-in once, as the test it stands in for.
  auto other = test::RunPtsNative("run resume-pub --non-interactive --offline", env + "TEST_RESULTS_IDENTIFIER='Other Box' ");
  EXPECT_EQ(other.exit_code, 0) << other.output;
  EXPECT_NE(other.output.find("Running 3 test(s)"), std::string::npos) << other.output;
  const std::string stand_in_runs = "Test 2 of 3: local/unit-standin-1.0.0";
  EXPECT_NE(other.output.find(stand_in_runs), std::string::npos) << other.output;
  EXPECT_EQ(other.output.find(stand_in_runs), other.output.rfind(stand_in_runs)) << "once: " << other.output;
  EXPECT_EQ(other.output.find(" of 4"), std::string::npos) << other.output;
  file = results::ReadResultFile(saved);
  ASSERT_EQ(file.results.size(), 4u);
  EXPECT_EQ(EntriesOf(file.results[2], "Other Box"), 1u);
  EXPECT_EQ(EntriesOf(file.results[1], "Other Box"), 0u);
  fs::remove_all(root);
}

}  // namespace
}  // namespace ptsn
