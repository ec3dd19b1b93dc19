#include "runner/run/run_session.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <deque>
#include <filesystem>
#include <map>
#include <sstream>

#include "results-xml/model/result_xml.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/install/fetcher.h"
#include "runner/sysinfo/system_reader.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace ptsn::run {
namespace {

// Answers from a script, in order; records every question.
class ScriptedPrompter : public Prompter {
 public:
  explicit ScriptedPrompter(bool interactive, std::deque<std::string> answers = {})
      : interactive_(interactive), answers_(std::move(answers)) {}
  bool Interactive() const override { return interactive_; }
  std::string Ask(const std::string& question) override {
    questions.push_back(question);
    if (answers_.empty()) return "";
    std::string a = answers_.front();
    answers_.pop_front();
    return a;
  }
  std::vector<std::string> questions;

 private:
  bool interactive_;
  std::deque<std::string> answers_;
};

EnvLookup FakeEnv(std::map<std::string, std::string> vars) {
  return [vars](const std::string& k) -> std::optional<std::string> {
    auto it = vars.find(k);
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

const std::string kSuite = R"(<?xml version="1.0"?>
<PhoronixTestSuite>
  <SuiteInformation><Title>Session suite</Title><Version>1.0.0</Version><TestType>System</TestType>
    <Description>run_session_test</Description><Maintainer>pts-native</Maintainer></SuiteInformation>
  <Execute><Test>local/options</Test><Mode>BATCH</Mode></Execute>
  <Execute><Test>local/options</Test><Mode>DEFAULTS</Mode></Execute>
  <Execute><Test>local/options</Test><Arguments>-s 9 -m 9</Arguments><Description>Fixed</Description></Execute>
</PhoronixTestSuite>
)";

// local/options (two options of two entries each) and local/trivial from tests/run/profiles,
// and a suite of local/options in its three modes, under a home of its own.
class RunSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("run-session-" + std::to_string(getpid()));
    fs::remove_all(root_);
    MakeDirectories((root_ / "suites/local/session-1.0.0").string());
    WriteFileAtomically((root_ / "suites/local/session-1.0.0/suite-definition.xml").string(), kSuite);
    repo_ = std::make_unique<profile::ProfileRepository>(
        std::vector<std::string>{std::string(PTSN_SOURCE_DIR) + "/tests/run/profiles", (root_ / "suites").string()});
    settings_ = Settings::Load(FakeEnv({{"PTS_NATIVE_CONFIG", "/dev/null"},
                                        {"PTS_NATIVE_HOME", (root_ / "home").string()},
                                        {"PTS_NATIVE_SETTLE_SECONDS", "0"}}));
    reader_ = sysinfo::MakeRootedReader("/");
    fetcher_ = install::MakeOfflineFetcher();
  }
  void TearDown() override { fs::remove_all(root_); }

  RunSession Session(Prompter& prompter, PtsVariables pts = {}) {
    SessionTools tools{*settings_, *repo_, *reader_, processes_, *fetcher_, true,
                       [this](const std::string& name) { ensured_.push_back(name); }};
    return RunSession(std::move(tools), prompter, out_, err_, std::move(pts));
  }
  static std::vector<std::string> Arguments(const std::vector<PlannedTest>& plan) {
    std::vector<std::string> out;
    for (const auto& t : plan) out.push_back(t.option.arguments);
    return out;
  }

  fs::path root_;
  std::optional<Settings> settings_;
  std::unique_ptr<profile::ProfileRepository> repo_;
  std::unique_ptr<sysinfo::SystemReader> reader_;
  exec::PosixProcessRunner processes_;
  std::unique_ptr<install::Fetcher> fetcher_;
  std::vector<std::string> ensured_;
  std::ostringstream out_, err_;
};

TEST_F(RunSessionTest, ResolvesProfilesAndSuitesInTheirModesFetchingEachNameFirst) {
  ScriptedPrompter none(false);
  auto items = Session(none).Resolve({"local/trivial", "local/session"});
  ASSERT_EQ(items.size(), 4u);
  EXPECT_EQ(items[0].profile.identifier, "local/trivial-1.0.0");
  EXPECT_FALSE(items[0].fixed_options);
  ASSERT_TRUE(items[1].fixed_options);
  EXPECT_EQ(items[1].fixed_options->size(), 4u);  // BATCH: every combination of 2 x 2
  ASSERT_TRUE(items[2].fixed_options);
  EXPECT_EQ(items[2].fixed_options->size(), 4u);  // DEFAULTS: both entries of a two-entry option, as PTS
  ASSERT_TRUE(items[3].fixed_options);
  ASSERT_EQ(items[3].fixed_options->size(), 1u);
  EXPECT_EQ((*items[3].fixed_options)[0].arguments, "-s 9 -m 9");
  EXPECT_EQ((*items[3].fixed_options)[0].description, "Fixed");
  EXPECT_EQ(ensured_, (std::vector<std::string>{"local/trivial", "local/session", "local/options", "local/options",
                                                 "local/options"}));
}

TEST_F(RunSessionTest, ANameThatIsNothingHereIsAnErrorWordedByTheCaller) {
  ScriptedPrompter none(false);
  RunSession session = Session(none);
  EXPECT_THROW(session.Resolve({}), Error);
  try {
    session.Resolve({"local/nothing"});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("local/nothing: no such test profile, suite or profile directory"));
  }
  try {
    session.Resolve({"local/nothing"}, [](const std::string& name, const std::vector<std::string>&) {
      return name + ": not a profile, suite, result ID or saved result";
    });
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "local/nothing: not a profile, suite, result ID or saved result");
  }
}

TEST_F(RunSessionTest, PresetsChooseOptionsAndBatchModeRunsWhatTheyLeaveOpen) {
  ScriptedPrompter none(false);
  PtsVariables pts;
  pts.preset_options = "options.size=1MB";
  RunSession session = Session(none, pts);
  auto items = session.Resolve({"local/options"});
  EXPECT_EQ(Arguments(session.Plan(items, true)), (std::vector<std::string>{"-s 1024 -m 1", "-s 1024 -m 2"}));
  // Not batch and cannot ask: the open option is an error naming it and the way to choose it.
  try {
    session.Plan(items, false);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("local/options-1.0.0: option mode"));
    EXPECT_THAT(e.what(), HasSubstr("PRESET_OPTIONS='options.mode=<choice>'"));
  }
  EXPECT_TRUE(none.questions.empty());
}

TEST_F(RunSessionTest, OpenOptionsAreAskedThroughThePrompter) {
  ScriptedPrompter user(true, {"2", "3"});  // 1MB; then "Test All Options"
  RunSession session = Session(user);
  auto plan = session.Plan(session.Resolve({"local/options"}), false);
  EXPECT_EQ(Arguments(plan), (std::vector<std::string>{"-s 1024 -m 1", "-s 1024 -m 2"}));
  ASSERT_EQ(user.questions.size(), 2u);
  EXPECT_THAT(user.questions[0], HasSubstr("Options Test — Block Size:\n  1: 4KB\n  2: 1MB\n  3: Test All Options"));
  EXPECT_THAT(user.questions[1], HasSubstr("Mode:"));
  // No valid answer: the default entry, as PTS takes it.
  ScriptedPrompter vague(true, {"x", ""});
  RunSession again = Session(vague);
  EXPECT_EQ(Arguments(again.Plan(again.Resolve({"local/options"}), false)), (std::vector<std::string>{"-s 4 -m 1"}));
}

TEST_F(RunSessionTest, ADryRunListsWhatWouldBeAskedAndPlansTheDefault) {
  ScriptedPrompter user(true, {"2", "2"});
  RunSession session = Session(user);
  std::vector<std::string> unanswered;
  auto plan = session.Plan(session.Resolve({"local/options"}), false, &unanswered);
  EXPECT_EQ(Arguments(plan), (std::vector<std::string>{"-s 4 -m 1"}));
  ASSERT_EQ(unanswered.size(), 1u);
  EXPECT_THAT(unanswered[0], HasSubstr("option(s) size, mode not chosen"));
  EXPECT_TRUE(user.questions.empty());
}

TEST_F(RunSessionTest, SkipTestsAndPresetsForNoTestOfTheRunAreNoticed) {
  ScriptedPrompter none(false);
  PtsVariables pts;
  pts.skip_tests = "options";
  pts.preset_options = "trivial.nothing=1;options.size=4KB";
  RunSession session = Session(none, pts);
  auto plan = session.Plan(session.Resolve({"local/options", "local/session"}), true);
  EXPECT_TRUE(plan.empty());
  EXPECT_THAT(err_.str(), HasSubstr("local/options-1.0.0: skipped (SKIP_TESTS)"));
  EXPECT_THAT(err_.str(), HasSubstr("trivial.nothing=1 ignored: no test named 'trivial' in this run"));
  // A preset for a test whose options a suite fixes is ignored, said so.
  pts.skip_tests.reset();
  pts.preset_options = "options.size=4KB";
  RunSession suite_only = Session(none, pts);
  suite_only.Plan(suite_only.Resolve({"local/session"}), true);
  EXPECT_THAT(err_.str(), HasSubstr("the suite fixes the options of 'options'"));
  // A preset naming an entry the test has not is an error before anything runs.
  pts.preset_options = "options.size=7";
  RunSession wrong = Session(none, pts);
  EXPECT_THROW(wrong.Plan(wrong.Resolve({"local/options"}), true), Error);
  ScriptedPrompter never(false);
  EXPECT_THROW(Session(never).Run({}, SessionRequest{}, *MakePrinter(PrinterKind::kPlain, out_)), Error);
}

TEST_F(RunSessionTest, InstallsEachProfileOnceAndSaysWhatWasThereAlready) {
  ScriptedPrompter none(false);
  RunSession session = Session(none);
  auto items = session.Resolve({"local/options", "local/options"});
  EXPECT_TRUE(session.Install(items, false, false).empty());
  EXPECT_EQ(out_.str(), "local/options-1.0.0: installed\n");
  out_.str("");
  session.Install(items, false, false);
  EXPECT_EQ(out_.str(), "local/options-1.0.0: already installed\n");
  out_.str("");
  session.Install(items, false, true);
  EXPECT_EQ(out_.str(), "");
}

// The whole run through the session: installed, named as the user answers, run, saved, the text
// view written to OUTPUT_DIR as PTS writes it.
TEST_F(RunSessionTest, RunsAPlanToASavedResultNamedAsTheUserAnswers) {
  ScriptedPrompter user(true, {"2", "1", "session-result", "Box A"});
  PtsVariables pts;
  pts.output_dir = (root_ / "out").string();
  RunSession session = Session(user, pts);
  auto plan = session.Plan(session.Resolve({"local/options"}), false);
  std::ostringstream progress;
  auto printer = MakePrinter(PrinterKind::kPlain, progress);
  SessionRequest request;
  SessionOutcome outcome = session.Run(plan, std::move(request), *printer);
  EXPECT_EQ(outcome.ExitCode(), 0) << progress.str();
  EXPECT_EQ(outcome.save_name, "session-result");
  ASSERT_TRUE(outcome.summary.saved);
  auto file = results::ReadResultFile(outcome.summary.composite_path);
  ASSERT_EQ(file.systems.size(), 1u);
  EXPECT_EQ(file.systems[0].identifier, "Box A");
  ASSERT_EQ(file.results.size(), 1u);
  EXPECT_EQ(file.results[0].arguments, "-s 1024 -m 1");
  ASSERT_EQ(file.results[0].entries.size(), 1u);
  EXPECT_EQ(file.results[0].entries[0].value, "1025");
  ASSERT_EQ(user.questions.size(), 4u);
  EXPECT_THAT(user.questions[2], HasSubstr("Enter a name for the result file"));
  EXPECT_THAT(user.questions[3], HasSubstr("Enter a unique name for this test run"));
  const std::string text = session.SavedResultText(outcome, 80);
  EXPECT_THAT(text, HasSubstr("Box A"));
  EXPECT_TRUE(fs::exists(root_ / "out/session-result.txt"));
}

// Batch mode asks nothing: named from PTS's variables, every open entry run.
TEST_F(RunSessionTest, BatchModeAsksNothing) {
  ScriptedPrompter user(true);
  PtsVariables pts;
  pts.results_name = "batch-result";
  pts.results_identifier = "Batch Box";
  pts.preset_options = "options.mode=Read";
  RunSession session = Session(user, pts);
  auto plan = session.Plan(session.Resolve({"local/options"}), true);
  auto printer = MakePrinter(PrinterKind::kPlain, out_);
  SessionRequest request;
  request.batch = true;
  SessionOutcome outcome = session.Run(plan, std::move(request), *printer);
  EXPECT_EQ(outcome.ExitCode(), 0) << out_.str();
  EXPECT_TRUE(user.questions.empty());
  auto file = results::ReadResultFile(outcome.summary.composite_path);
  EXPECT_EQ(file.results.size(), 2u);
  EXPECT_EQ(file.systems[0].identifier, "Batch Box");
}

// An empty plan (everything skipped, or nothing left to finish) runs nothing and makes no target.
TEST_F(RunSessionTest, TheLoopMakesNoTargetForAnEmptyPlan) {
  TargetsToMake targets;
  targets.specs = targets::ParseTargetList("plain");
  bool asked = false;
  targets.options = [&](targets::TargetSystem&, const std::string&) {
    asked = true;
    return targets::TargetOptions{};
  };
  RunConfig config;
  config.test_dir = (root_ / "scratch").string();
  auto printer = MakePrinter(PrinterKind::kPlain, out_);
  SessionOutcome outcome = RunLoop(config, {}, std::move(targets), *settings_, *reader_, processes_, *printer, out_, true);
  EXPECT_FALSE(asked);
  EXPECT_FALSE(outcome.summary.saved);
  EXPECT_TRUE(outcome.places.empty());
  EXPECT_EQ(outcome.ExitCode(), 0);
}

}  // namespace
}  // namespace ptsn::run
