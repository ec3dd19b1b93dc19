#include "runner/run/round_count.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ptsn::run {
namespace {

RoundState State(std::vector<std::vector<double>> values) {
  RoundState s;
  s.scheduled = 3;
  s.rounds_done = static_cast<int>(values[0].size());
  s.values = std::move(values);
  s.names = {"plain ext4", "fscrypt AES-256-XTS ext4"};
  return s;
}

// Three instance pairs after their 2 scheduled rounds, B's verdict unknown, room for 8.
RoundState UnknownWithRoomForInstances() {
  RoundState s;
  s.scheduled = 2;
  s.rounds_done = 2;
  s.instances = s.start_instances = 3;
  s.max_instances = 8;
  s.names = {"A", "B", "A #2", "B #2", "A #3", "B #3"};
  s.values = {{100, 100}, {97, 97}, {100, 100}, {103, 103}, {100, 100}, {100, 100}};
  return s;
}

TEST(RoundCount, AddsRoundsUntilThePairedRatioIsPreciseEnough) {
  DynamicRunLimits limits;
  // Noisy machine, steady cost: round ratios 0.50, 0.55, 0.45 -> far from +-2 %.
  auto d = DecideMoreRounds(State({{100, 100, 100}, {50, 55, 45}}), limits, 2);
  EXPECT_TRUE(d.add);
  EXPECT_EQ(d.reason, "fscrypt AES-256-XTS ext4: x0.498 +-25.2 % (goal +-2.0 %)");
  // Steady ratio although the machine drifts fourfold: done after the scheduled rounds.
  d = DecideMoreRounds(State({{400, 200, 100}, {200, 100, 50}}), limits, 2);
  EXPECT_FALSE(d.add);
  EXPECT_EQ(d.reason, "");
}

TEST(RoundCount, NothingBeforeTheScheduledRoundsOrWithOneTargetOrWhenOff) {
  DynamicRunLimits limits;
  RoundState s = State({{100, 100}, {50, 60}});
  EXPECT_FALSE(DecideMoreRounds(s, limits, 2).add);  // 2 of 3 scheduled rounds done
  EXPECT_FALSE(DecideMoreRounds(State({{100, 90, 110}}), limits, 2).add);
  limits.enabled = false;  // FORCE_TIMES_TO_RUN
  EXPECT_FALSE(DecideMoreRounds(State({{100, 100, 100}, {50, 55, 45}}), limits, 2).add);
}

TEST(RoundCount, BoundsStopItAndSaySo) {
  DynamicRunLimits limits;
  limits.max_runs = 3;
  auto d = DecideMoreRounds(State({{100, 100, 100}, {50, 55, 45}}), limits, 2);
  EXPECT_FALSE(d.add);
  EXPECT_EQ(d.stopped_by, "max_runs");
  limits.max_runs = 20;
  RoundState s = State({{100, 100, 100}, {50, 55, 45}});
  s.extra_seconds = 601;
  EXPECT_EQ(DecideMoreRounds(s, limits, 2).stopped_by, "time_budget");
}

TEST(RoundCount, FailedTrialsArePairedOutAndAFailingTargetStopsAsking) {
  DynamicRunLimits limits;
  double nan = std::nan("");
  auto d = DecideMoreRounds(State({{100, nan, 100}, {50, 50, nan}}), limits, 2);
  EXPECT_FALSE(d.add) << "one usable pair of three rounds: more rounds of a failing test do not help";
  d = DecideMoreRounds(State({{100, 100, 100, nan}, {50, 51, 49, 50}}), limits, 2);
  EXPECT_TRUE(d.add);
}

TEST(RoundCount, WithInstancesRoundsAreAddedWhileAVerdictIsUnknown) {
  DynamicRunLimits limits;  // max_runs 20, 3 scheduled: 18 looks, Pocock's level for 20: 99.25 %
  RoundState s;
  s.scheduled = 3;
  s.rounds_done = 3;
  s.names = {"A", "B", "A #2", "B #2", "A #3", "B #3"};
  // Pair summaries log(0.5), log(0.55), log(0.45): different at any level.
  s.values = {{100, 100, 100}, {50, 50, 50}, {100, 100, 100}, {55, 55, 55}, {100, 100, 100}, {45, 45, 45}};
  auto d = DecideMoreRounds(s, limits, 2, 5);
  EXPECT_FALSE(d.add);
  EXPECT_EQ(d.reason, "");
  // Pairs 0.97, 1.03, 1.00: the interval spans 1 and reaches beyond +-5 %: unknown, one more round.
  s.values = {{100, 100, 100}, {97, 97, 97}, {100, 100, 100}, {103, 103, 103}, {100, 100, 100}, {100, 100, 100}};
  d = DecideMoreRounds(s, limits, 2, 5);
  EXPECT_TRUE(d.add);
  EXPECT_EQ(d.reason.rfind("B: unknown: x1.000 [", 0), 0u) << d.reason;
  // The same spread is "same" when +-25 % is close enough.
  EXPECT_FALSE(DecideMoreRounds(s, limits, 2, 25).add);
}

TEST(RoundCount, WithRoomForMoreInstancesAnUnknownVerdictAddsAnInstancePairNotARound) {
  DynamicRunLimits limits;
  RoundState s = UnknownWithRoomForInstances();
  auto d = DecideMoreRounds(s, limits, 2, 5);
  EXPECT_TRUE(d.add_instance);
  EXPECT_FALSE(d.add);
  // FORCE_TIMES_TO_RUN fixes the rounds per instance, not the instances a decision takes.
  limits.enabled = false;
  EXPECT_TRUE(DecideMoreRounds(s, limits, 2, 5).add_instance);
  // Decided: nothing more.
  s.values = {{100, 100}, {50, 50}, {100, 100}, {55, 55}, {100, 100}, {45, 45}};
  EXPECT_FALSE(DecideMoreRounds(s, limits, 2, 5).add_instance);
  // Bounded by max_instances, then by the time budget, and says which.
  s.values = {{100, 100}, {97, 97}, {100, 100}, {103, 103}, {100, 100}, {100, 100}};
  s.instances = 8;
  d = DecideMoreRounds(s, limits, 2, 5);
  EXPECT_FALSE(d.add_instance);
  EXPECT_EQ(d.stopped_by, "max_target_instances");
  s.instances = 3;
  s.extra_seconds = 601;
  EXPECT_EQ(DecideMoreRounds(s, limits, 2, 5).stopped_by, "time_budget");
}

TEST(RoundCount, EachAddedInstancePairIsALookAtPococksLevelForTheLooksAllowed) {
  // Pairs at x0.98, x0.92, x0.95, x0.95: mean log -0.0516, standard error 0.0129, t = 4.0. At one
  // look (95 %, t 3.18 on 3 df) "different"; with 20 looks allowed (Pocock: 99.25 % each, t about
  // 6.6) the interval spans 1: unknown, one more pair.
  DynamicRunLimits limits;
  RoundState s;
  s.scheduled = 1;
  s.rounds_done = 1;
  s.names = {"A", "B", "A #2", "B #2", "A #3", "B #3", "A #4", "B #4"};
  s.values = {{100}, {98}, {100}, {92}, {100}, {95}, {100}, {95}};
  s.instances = s.start_instances = s.max_instances = 4;
  limits.max_runs = 1;  // one look: the plain 95 % interval
  EXPECT_EQ(DecideMoreRounds(s, limits, 2, 1).reason, "") << "different at one look";
  s.max_instances = 23;  // 20 looks
  EXPECT_TRUE(DecideMoreRounds(s, limits, 2, 1).add_instance);
}

TEST(RoundCount, TheLooksAVerdictIsJudgedOverAreTheOnesItsBoundsAllow) {
  DynamicRunLimits limits;
  limits.enabled = false;
  limits.max_runs = 15;
  RoundState s;
  s.scheduled = 3;
  s.instances = s.start_instances = s.max_instances = 6;
  EXPECT_EQ(VerdictLooks(s, limits), 1) << "nothing may be added";
  limits.enabled = true;
  EXPECT_EQ(VerdictLooks(s, limits), 13) << "after the 3 scheduled rounds, 12 more may be added";
  s.max_instances = 10;
  EXPECT_EQ(VerdictLooks(s, limits), 5) << "instance pairs 7..10 are added instead of rounds";
  s.instances = 10;
  EXPECT_EQ(VerdictLooks(s, limits), 5) << "the looks planned, not the ones left";
}

// run.time_budget means the same to extra runs of one target (DecideExtraRuns) and to rounds on
// several (DecideMoreRounds): an extra whose expected time would cross the budget does not start;
// one that ends exactly on it does.
TEST(RoundCount, TheTimeBudgetMeansWhatItMeansForExtraRuns) {
  DynamicRunLimits limits;
  limits.time_budget_seconds = 100;
  // One target, 10 s a trial, noisy: one more run is wanted.
  RunState run;
  run.scheduled = run.runs_done = 3;
  run.values = {100, 50, 150};
  run.run_seconds = {10, 10, 10};
  // Two targets, 5 s a trial: a round, one trial on each, is expected to take 10 s too.
  RoundState rounds = State({{100, 100, 100}, {50, 55, 45}});
  rounds.trials = 6;
  rounds.trials_seconds = 30;
  for (double spent : {0.0, 89.0, 90.0, 90.5, 95.0, 100.0, 101.0}) {
    run.extra_seconds = rounds.extra_seconds = spent;
    const bool fits = spent + 10 <= 100;
    ExtraRunDecision r = DecideExtraRuns(run, limits, {});
    RoundDecision d = DecideMoreRounds(rounds, limits, 2);
    EXPECT_EQ(r.add > 0, fits) << spent;
    EXPECT_EQ(d.add, fits) << spent;
    EXPECT_EQ(r.stopped_by, fits ? "" : "time_budget") << spent;
    EXPECT_EQ(d.stopped_by, fits ? "" : "time_budget") << spent;
  }
}

TEST(RoundCount, AnInstancePairIsMadeOnlyWhenItsExpectedTimeFitsTheBudget) {
  DynamicRunLimits limits;
  limits.time_budget_seconds = 100;
  RoundState s = UnknownWithRoomForInstances();
  s.trials = 12;
  s.trials_seconds = 12 * 5.0;  // 5 s a trial: a pair's 2 targets x 2 rounds, 20 s
  s.last_setup_seconds = 15;    // and the last pair took 15 s to make: 35 s expected
  s.extra_seconds = 65;
  EXPECT_TRUE(DecideMoreRounds(s, limits, 2, 5).add_instance);
  s.extra_seconds = 65.5;
  auto d = DecideMoreRounds(s, limits, 2, 5);
  EXPECT_FALSE(d.add_instance);
  EXPECT_EQ(d.stopped_by, "time_budget");
}

}  // namespace
}  // namespace ptsn::run
