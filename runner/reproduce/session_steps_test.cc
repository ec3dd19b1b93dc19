#include "runner/reproduce/session_steps.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <sstream>

#include "runner/common/error.h"
#include "runner/common/error_of.h"
#include "runner/common/strings.h"
#include "runner/reproduce/append.h"
#include "runner/run/run_targets.h"
#include "runner/targets/fake_system.h"

namespace ptsn::reproduce {
namespace {

// Never asked: every identifier here comes from the options or the environment.
class NoPrompter : public Prompter {
 public:
  bool Interactive() const override { return false; }
  std::string Ask(const std::string& q) override { ADD_FAILURE() << "asked: " << q; return ""; }
};

using ptsn::test::ErrorOf;

// One published XFS system with a result for each of pts/a and pts/b.
results::ResultFile Published() {
  results::ResultFile f;
  f.systems.resize(1);
  f.systems[0].identifier = "XFS plain";
  f.systems[0].software = "OS: Debian, File-System: xfs";
  for (const char* id : {"pts/a-1.0.0", "pts/b-1.0.0"}) {
    results::Result r;
    r.identifier = id;
    r.title = id;
    r.scale = "MB/s";
    r.proportion = "HIB";
    results::Entry e;
    e.identifier = "XFS plain";
    e.value = "100";
    r.entries.push_back(e);
    f.results.push_back(r);
  }
  return f;
}

ReproducePlan PlanOfBoth() {
  ReproducePlan p;
  for (size_t i = 0; i < 2; ++i) {
    PlanItem item;
    item.result_index = i;
    item.kind = PlanKind::kOriginal;
    item.original = i == 0 ? "pts/a-1.0.0" : "pts/b-1.0.0";
    p.items.push_back(item);
  }
  return p;
}

results::Entry Value(const std::string& who, const std::string& value) {
  results::Entry e;
  e.identifier = who;
  e.value = value;
  return e;
}

// Answers every question with `answer`, counting them.
class Answering : public Prompter {
 public:
  explicit Answering(std::string answer) : answer_(std::move(answer)) {}
  bool Interactive() const override { return true; }
  std::string Ask(const std::string& q) override {
    questions.push_back(q);
    return answer_;
  }
  std::vector<std::string> questions;

 private:
  std::string answer_;
};

// A published comparison of an encrypted home and full-disk encryption (no unencrypted system).
results::ResultFile EncryptionComparison() {
  results::ResultFile f = Published();
  f.systems.resize(2);
  f.systems[0].identifier = "Encrypted Home (eCryptfs)";
  f.systems[0].software = "OS: Ubuntu, File-System: ext4";
  f.systems[1].identifier = "Encrypted LVM (dmcrypt)";
  f.systems[1].software = "OS: Ubuntu, File-System: ext4";
  return f;
}

// dm-crypt cannot be made here; eCryptfs is not here either (fscrypt stands for it).
std::string NoDmCryptNoEcryptfs(const targets::TargetSpec& spec) {
  if (spec.kind == targets::Kind::kDmCrypt) return "no device-mapper here";
  if (spec.kind == targets::Kind::kEcryptfs) return "no eCryptfs here";
  return "";
}

}  // namespace

TEST(SessionSteps, OfferTargetsAsksOnceOnATerminalDefaultYes) {
  std::ostringstream out;
  Answering yes("");
  auto specs = OfferTargets(EncryptionComparison(), NoDmCryptNoEcryptfs, yes, false, out);
  ASSERT_EQ(yes.questions.size(), 1u);
  EXPECT_NE(yes.questions[0].find("[Y/n]"), std::string::npos) << yes.questions[0];
  ASSERT_EQ(specs.size(), 2u);
  EXPECT_EQ(specs[0].kind, targets::Kind::kPlain);
  EXPECT_EQ(specs[1].kind, targets::Kind::kFscrypt);
  // The mapping shows what can be built and what cannot, and why.
  EXPECT_NE(out.str().find("->  dm-crypt LUKS2 AES-256-XTS ext4  (dm-crypt); NOT AVAILABLE HERE"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("NOT AVAILABLE HERE: no device-mapper here"), std::string::npos) << out.str();

  std::ostringstream declined;
  Answering no("n");
  EXPECT_TRUE(OfferTargets(EncryptionComparison(), NoDmCryptNoEcryptfs, no, false, declined).empty());
  EXPECT_EQ(no.questions.size(), 1u);
  EXPECT_NE(declined.str().find("Running on this system as it is."), std::string::npos) << declined.str();
}

TEST(SessionSteps, OfferTargetsWithoutATerminalSaysHowInOneLineAndBuildsNothing) {
  for (bool dry_run : {false, true}) {
    std::ostringstream out;
    NoPrompter prompter;
    Answering terminal("y");
    Prompter& asked = dry_run ? static_cast<Prompter&>(terminal) : prompter;
    EXPECT_TRUE(OfferTargets(EncryptionComparison(), NoDmCryptNoEcryptfs, asked, dry_run, out).empty());
    EXPECT_TRUE(terminal.questions.empty()) << "a dry run asks nothing";
    const std::string text = out.str();
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
    EXPECT_NE(text.find("--targets auto builds them"), std::string::npos) << text;
    EXPECT_NE(text.find("--no-targets runs on this system as it is"), std::string::npos) << text;
    EXPECT_NE(text.find("not here: dm-crypt"), std::string::npos) << text;
  }
}

TEST(SessionSteps, NothingIsOfferedWhenOnlyPlainCanBeBuilt) {
  std::ostringstream out;
  Answering yes("y");
  // Published systems with no encryption named map to plain only.
  EXPECT_TRUE(OfferTargets(Published(), nullptr, yes, false, out).empty());
  // Every encrypted set-up unavailable: only the plain reference could be built.
  EXPECT_TRUE(OfferTargets(EncryptionComparison(),
                           [](const targets::TargetSpec& s) { return s.kind == targets::Kind::kPlain ? "" : "no"; },
                           yes, false, out)
                  .empty());
  EXPECT_TRUE(yes.questions.empty());
  EXPECT_EQ(out.str(), "");
}

TEST(SessionSteps, PlanTargetsPrintsAListAsGiven) {
  targets::testing::FakeSystem sys;
  std::ostringstream out;
  auto specs = PlanTargets("plain,dm-crypt", Published(), sys, out);
  ASSERT_EQ(specs.size(), 2u);
  EXPECT_EQ(out.str(), "Targets: " + specs[0].Identifier() + ", " + specs[1].Identifier() + "\n");
  EXPECT_TRUE(sys.log.empty()) << "planning makes nothing";
}

TEST(SessionSteps, PlanTargetsAutoMapsThePublishedSystemsOrSaysWhyNot) {
  targets::testing::FakeSystem sys;
  std::ostringstream out;
  auto specs = PlanTargets("auto", Published(), sys, out);
  ASSERT_EQ(specs.size(), 1u);
  EXPECT_EQ(specs[0].Identifier(), "plain xfs");
  EXPECT_NE(out.str().find("Will create 1 target"), std::string::npos) << out.str();

  sys.texts["/proc/filesystems"] = "nodev\tproc\n\text4\n";  // no XFS here
  std::string error = ErrorOf([&] { PlanTargets("auto", Published(), sys, out); });
  EXPECT_EQ(error.rfind("--targets auto: none of the published set-ups can be made here (plain xfs: ", 0), 0u) << error;
}

TEST(SessionSteps, ResumedOrTargetSystemsAreNamedWithoutAsking) {
  auto file = Published();
  NoPrompter prompter;
  std::vector<targets::TargetSpec> none;
  EXPECT_EQ(NameOurSystems(file, none, {"Mine", "From env", {}}, prompter), std::vector<std::string>{"Mine"});

  auto specs = targets::ParseTargetList("plain,dm-crypt");
  auto ids = NameOurSystems(file, specs, {"", std::nullopt, {}}, prompter);
  EXPECT_EQ(ids, (std::vector<std::string>{specs[0].Identifier(), specs[1].Identifier()}));

  specs = targets::ParseTargetList("plain,dm-crypt");
  ids = NameOurSystems(file, specs, {"", "Lab", {}}, prompter);
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_EQ(ids[0].rfind("Lab: ", 0), 0u) << ids[0];
  EXPECT_EQ(ids[0], specs[0].Identifier()) << "the spec carries the name its results go under";
}

TEST(SessionSteps, ATargetNamedLikeAPublishedSystemIsRefusedUnlessItIsOurs) {
  auto file = Published();
  NoPrompter prompter;
  auto specs = targets::ParseTargetList("XFS plain=plain");
  ASSERT_EQ(specs[0].Identifier(), "XFS plain");
  EXPECT_EQ(ErrorOf([&] { NameOurSystems(file, specs, {}, prompter); }),
            "target XFS plain has the name of a published system; name it (NAME=spec) or set TEST_RESULTS_IDENTIFIER");
  NoteReproduction(file.systems[0], "1110088-AR-1110066AR56", PlanOfBoth());  // an earlier reproduction's system
  EXPECT_EQ(NameOurSystems(file, specs, {}, prompter), std::vector<std::string>{"XFS plain"});
}

TEST(SessionSteps, ItemsToRunIsWhatAnyOfOurSystemsLacksOnceInFileOrder) {
  auto file = Published();
  auto plan = PlanOfBoth();
  file.results[0].entries.push_back(Value("One", "5"));  // One lacks b, Two lacks a
  file.results[1].entries.push_back(Value("Two", "5"));
  auto todo = ItemsToRun(file, plan, {"One", "Two", "New"});  // New lacks both
  ASSERT_EQ(todo.size(), 2u);
  EXPECT_EQ(todo[0].result_index, 0u);
  EXPECT_EQ(todo[1].result_index, 1u);
  file.results[1].entries.push_back(Value("One", "5"));
  file.results[0].entries.push_back(Value("Two", "5"));
  EXPECT_TRUE(ItemsToRun(file, plan, {"Two", "One"}).empty());
}

TEST(SessionSteps, OutcomeComparesEachOfOurSystemsAndSaysWhereItWasSaved) {
  auto file = Published();
  file.results[0].entries.push_back(Value("Mine", "110"));
  std::ostringstream saved;
  PrintOutcome(file, {"/r/composite.xml", true, {"Mine"}, {}, 79}, saved);
  EXPECT_NE(saved.str().find("Mine"), std::string::npos) << saved.str();
  EXPECT_NE(saved.str().find("Mine = 110.0% of XFS plain"), std::string::npos) << saved.str();
  EXPECT_TRUE(EndsWith(saved.str(), "\n\nSaved: /r/composite.xml\n")) << saved.str();

  std::vector<run::TestPlace> places(2);
  places[0].system.identifier = "plain xfs";
  places[1].system.identifier = "dm-crypt";
  file.results[0].entries.push_back(Value("plain xfs", "100"));
  file.results[0].entries.push_back(Value("dm-crypt", "50"));
  const std::string paired = run::PairedTargetView(file, places);
  ASSERT_FALSE(paired.empty());
  std::ostringstream targets;
  PrintOutcome(file, {"/r/composite.xml", true, {"plain xfs", "dm-crypt"}, places, 79}, targets);
  EXPECT_NE(targets.str().find(paired), std::string::npos) << targets.str();
  places.resize(1);  // one target: nothing to set side by side
  std::ostringstream one, none;
  PrintOutcome(file, {"/r/composite.xml", true, {"plain xfs"}, places, 79}, one);
  PrintOutcome(file, {"/r/composite.xml", true, {"plain xfs"}, {}, 79}, none);
  EXPECT_EQ(one.str(), none.str());

  std::ostringstream nothing;
  PrintOutcome(file, {"/r/composite.xml", false, {}, {}, 79}, nothing);
  EXPECT_EQ(nothing.str(), "\nNothing saved (no test produced a result): /r/composite.xml\n");
}

}  // namespace ptsn::reproduce
