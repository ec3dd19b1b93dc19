#include "runner/common/spread_threads.h"

#include <gtest/gtest.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>

namespace ptsn {
namespace {

int AllowedCount() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
}

TEST(ThreadSpreader, OthersAreTheAllowedCpusButTheCallers) {
  if (AllowedCount() < 2) GTEST_SKIP() << "needs two allowed CPUs, this process has " << AllowedCount();
  // Pinned to one CPU, the caller's CPU is known while the spreader reads it.
  cpu_set_t all, one;
  CPU_ZERO(&all);
  ASSERT_EQ(0, sched_getaffinity(0, sizeof all, &all));
  int first = 0;
  while (!CPU_ISSET(first, &all)) ++first;
  std::vector<int> others;
  std::thread([&] {
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    ASSERT_EQ(0, sched_setaffinity(0, sizeof one, &one));
    others = ThreadSpreader().others();  // pinned to `first`: nothing else allowed
    ASSERT_EQ(0, sched_setaffinity(0, sizeof all, &all));
    others = ThreadSpreader().others();
  }).join();
  EXPECT_EQ(static_cast<size_t>(CPU_COUNT(&all) - 1), others.size());
  for (int cpu : others) EXPECT_TRUE(CPU_ISSET(cpu, &all)) << cpu;
  EXPECT_TRUE(std::is_sorted(others.begin(), others.end()));
}

TEST(ThreadSpreader, ThreadsStartOnAnotherCpuAndGetTheWholeSetBack) {
  if (AllowedCount() < 2) GTEST_SKIP() << "needs two allowed CPUs, this process has " << AllowedCount();
  cpu_set_t all;
  CPU_ZERO(&all);
  ASSERT_EQ(0, sched_getaffinity(0, sizeof all, &all));
  // Without the spreader Linux starts most of these on the caller's CPU (see the header). With
  // it each starts on its CPU; the scheduler may in principle move one in the microseconds
  // between the widening and sched_getcpu, hence 8 of 10 rather than all.
  int placed = 0;
  for (int round = 0; round < 10; ++round) {
    ThreadSpreader spreader;
    ASSERT_FALSE(spreader.others().empty());
    const int target = spreader.others().front();
    int started_on = -1;
    cpu_set_t during;
    CPU_ZERO(&during);
    spreader
        .Start([&] {
          started_on = sched_getcpu();
          sched_getaffinity(0, sizeof during, &during);
        })
        .join();
    if (started_on == target) ++placed;
    EXPECT_TRUE(CPU_EQUAL(&all, &during)) << "the thread kept a narrowed CPU set";
  }
  EXPECT_GE(placed, 8);
}

TEST(ThreadSpreader, WithOneCpuAllowedTheWorkStillRuns) {
  std::atomic<bool> ran{false};
  std::thread([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    ASSERT_EQ(0, sched_setaffinity(0, sizeof one, &one));
    ThreadSpreader spreader;
    EXPECT_TRUE(spreader.others().empty());
    spreader.Start([&] { ran = true; }).join();
  }).join();
  EXPECT_TRUE(ran);
}

}  // namespace
}  // namespace ptsn
