#include "runner/reproduce/consent.h"

#include <gtest/gtest.h>

#include <cctype>

#include <deque>

#include "results-xml/model/comparison_hash.h"
#include "runner/common/error.h"
#include "runner/common/error_of.h"
#include "runner/reproduce/append.h"

namespace ptsn::reproduce {

namespace {

class ScriptedPrompter : public Prompter {
 public:
  bool interactive = true;
  std::deque<std::string> answers;
  std::vector<std::string> questions;
  bool Interactive() const override { return interactive; }
  std::string Ask(const std::string& q) override {
    questions.push_back(q);
    if (answers.empty()) return "";
    std::string a = answers.front();
    answers.pop_front();
    return a;
  }
};

results::ResultFile File() {
  results::ResultFile f;
  results::System pub;
  pub.identifier = "Published";
  f.systems.push_back(pub);
  for (const char* id : {"pts/a-1.0.0", "pts/b-1.0.0"}) {
    results::Result r;
    r.identifier = id;
    r.title = id;
    results::Entry e;
    e.identifier = "Published";
    e.value = "1";
    r.entries.push_back(e);
    f.results.push_back(r);
  }
  return f;
}

ReproducePlan Plan(bool b_unavailable) {
  ReproducePlan p;
  PlanItem a;
  a.result_index = 0;
  a.kind = PlanKind::kOriginal;
  a.original = "pts/a-1.0.0";
  PlanItem b;
  b.result_index = 1;
  b.kind = b_unavailable ? PlanKind::kUnavailable : PlanKind::kOriginal;
  b.original = "pts/b-1.0.0";
  b.reason = "no profile pts/b-1.0.x here";
  p.items = {a, b};
  return p;
}

using ptsn::test::ErrorOf;

}  // namespace

TEST(Consent, UnavailableTestsNeedConsent) {
  auto file = File();
  ScriptedPrompter p;
  p.interactive = false;
  std::string err = ErrorOf([&] { RequireConsentToSkip(file, Plan(true), false, p); });
  EXPECT_NE(err.find("1 tests cannot run here (pass --skip-unavailable"), std::string::npos) << err;
  EXPECT_NE(err.find("pts/b-1.0.0]: no profile pts/b-1.0.x here"), std::string::npos) << err;
  EXPECT_EQ(ErrorOf([&] { RequireConsentToSkip(file, Plan(true), true, p); }), "no error");
  EXPECT_EQ(ErrorOf([&] { RequireConsentToSkip(file, Plan(false), false, p); }), "no error");
  EXPECT_TRUE(p.questions.empty());
  p.interactive = true;
  p.answers = {"y"};
  EXPECT_EQ(ErrorOf([&] { RequireConsentToSkip(file, Plan(true), false, p); }), "no error");
  p.answers = {"n"};
  EXPECT_NE(ErrorOf([&] { RequireConsentToSkip(file, Plan(true), false, p); }).find("not started"), std::string::npos);
}

TEST(Consent, IdentifierFromEnvironmentOrAskedNeverAPublishedOne) {
  auto file = File();
  ScriptedPrompter p;
  p.interactive = false;
  EXPECT_EQ(ChooseIdentifier(file, std::string(" Mine "), p), "Mine");
  // Nobody to ask: the time names this system, as batch-run names one ("2026-12-01 20:30").
  const std::string by_time = ChooseIdentifier(file, std::nullopt, p);
  ASSERT_EQ(by_time.size(), 16u) << by_time;
  EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(by_time[0])) && by_time[4] == '-' && by_time[10] == ' ' &&
              by_time[13] == ':')
      << by_time;
  EXPECT_NE(ErrorOf([&] { ChooseIdentifier(file, std::string("Published"), p); }).find("is a published system"),
            std::string::npos);
  p.interactive = true;
  p.answers = {"Published", "Mine"};
  EXPECT_EQ(ChooseIdentifier(file, std::nullopt, p), "Mine");
  EXPECT_EQ(p.questions.size(), 2u);
  // A system an earlier reproduction left is ours to resume.
  results::System mine;
  mine.identifier = "Mine";
  NoteReproduction(mine, "X", ReproducePlan{});
  file.systems.push_back(mine);
  EXPECT_EQ(ChooseIdentifier(file, std::string("Mine"), p), "Mine");
}

TEST(Consent, IdentifierIsCleanedAsPtsCleansIt) {
  auto file = File();
  ScriptedPrompter p;
  p.interactive = false;
  EXPECT_EQ(ChooseIdentifier(file, std::string("  My  Box (tuned) & more "), p), "My Box tuned more");
  EXPECT_EQ(ChooseIdentifier(file, std::string("$HOSTNAME run"), p, {{"HOSTNAME", "buildbox"}}), "buildbox run");
  // "Published" is a published system: a typed "(Published)" cleans to it and is refused too.
  EXPECT_NE(ErrorOf([&] { ChooseIdentifier(file, std::string("(Published)"), p); }).find("is a published system"),
            std::string::npos);
  // One that differs from a published system only in case, spacing or punctuation is refused too.
  for (const char* near : {"published", "PUBLISHED", "Pub-lished", "Pub lished."})
    EXPECT_NE(ErrorOf([&] { ChooseIdentifier(file, std::string(near), p); }).find("differs from the system 'Published' only"),
              std::string::npos)
        << near;
  EXPECT_NE(ErrorOf([&] { ChooseIdentifier(file, std::string("((()))"), p); }).find("empty once cleaned"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { ChooseIdentifier(file, std::string("0"), p); }).find("empty once cleaned"),
            std::string::npos);
  p.interactive = true;
  p.answers = {"<>", "  Laptop   (2) "};
  EXPECT_EQ(ChooseIdentifier(file, std::nullopt, p), "Laptop 2");
}

TEST(Consent, ResumeRunsOnlyWhatIsMissing) {
  auto file = File();
  auto plan = Plan(false);
  EXPECT_EQ(RemainingItems(file, plan, "Mine").size(), 2u);
  results::Entry e;
  e.identifier = "Mine";
  e.value = "5";
  file.results[0].entries.push_back(e);
  auto left = RemainingItems(file, plan, "Mine");
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].original, "pts/b-1.0.0");
  EXPECT_EQ(RemainingItems(file, Plan(true), "Other").size(), 1u);  // unavailable ones never run
}

// finish-run's choice and a resumed run's plan agree: a system is incomplete exactly when
// RemainingItems would still run something for it, a stand-in kept apart counting as done.
TEST(Consent, IncompleteSystemsAgreeWithRemainingItems) {
  auto file = File();
  auto plan = Plan(false);
  plan.items[1].original_hash = results::ComparisonHash(file.results[1]);
  results::System mine;
  mine.identifier = "Mine";
  file.systems.push_back(mine);
  results::Entry e;
  e.identifier = "Mine";
  e.value = "5";
  file.results[0].entries.push_back(e);
  EXPECT_EQ(IncompleteSystems(file), std::vector<std::string>{"Mine"});
  EXPECT_EQ(RemainingItems(file, plan, "Mine").size(), 1u);
  // pts/b's stand-in ran in another unit: its own Result, pointing at pts/b's hash.
  results::Result apart;
  apart.identifier = "native/x-1.0.0";
  apart.scale = "MiB/s";
  e.json = R"({"stand-in":"native\/x-1.0.0 for pts\/b-1.0","stand-in-for":")" + plan.items[1].original_hash + "\"}";
  apart.entries = {e};
  file.results.push_back(apart);
  EXPECT_TRUE(HasValueFor(file, 1, "Mine"));
  EXPECT_TRUE(RemainingItems(file, plan, "Mine").empty());
  EXPECT_TRUE(IncompleteSystems(file).empty()) << "the published system lacks nothing either";
  // An empty value (a failed trial) is not done, for either.
  file.results.back().entries[0].value = "";
  EXPECT_EQ(IncompleteSystems(file), std::vector<std::string>{"Mine"});
  EXPECT_EQ(RemainingItems(file, plan, "Mine").size(), 1u);
}

}  // namespace ptsn::reproduce
