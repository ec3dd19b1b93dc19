#include "server/http/fair_gate.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ptsn::server {
namespace {

TEST(FairGate, AdmitsWaitersInArrivalOrderAndNeverMoreThanTheSlots) {
  FairGate gate(1);
  auto first = std::make_unique<FairGate::Pass>(gate.Enter());
  std::mutex mu;
  std::vector<int> order;
  std::atomic<int> inside{0}, most{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 5; ++i) {
    threads.emplace_back([&, i] {
      auto pass = gate.Enter();
      int now = ++inside;
      most = std::max(most.load(), now);
      {
        std::lock_guard lock(mu);
        order.push_back(i);
      }
      --inside;
    });
    // Each thread is queued before the next starts, so arrival order is 0, 1, 2, ... (waited
    // for, not assumed after a sleep: a loaded machine may take any time to start a thread).
    while (gate.Waiting() != static_cast<size_t>(i + 1)) std::this_thread::yield();
  }
  first.reset();
  for (auto& t : threads) t.join();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(most.load(), 1);
}

TEST(FairGate, ZeroSlotsMeansNoLimit) {
  // Enter runs on a thread of its own, so a gate that wrongly limits makes this test fail at the
  // deadline instead of hanging it. The gate and the thread are leaked on failure: a blocked
  // Enter can never be joined.
  auto* gate = new FairGate(0);
  auto* done = new std::atomic<bool>(false);
  std::thread([gate, done] {
    std::vector<FairGate::Pass> held;
    for (int i = 0; i < 100; ++i) held.push_back(gate->Enter());  // 100 at once, none released
    *done = true;
  }).detach();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!*done && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(done->load()) << "FairGate(0) made a caller wait: 0 slots must mean no limit";
  EXPECT_EQ(gate->Waiting(), 0u);
  delete gate;
  delete done;
}

TEST(FairGate, OneSlotMakesTheSecondCallerWait) {
  // The counterpart of the test above, so that it cannot pass by a gate that never waits.
  FairGate gate(1);
  auto first = std::make_unique<FairGate::Pass>(gate.Enter());
  std::atomic<bool> entered{false};
  std::thread second([&] {
    auto pass = gate.Enter();
    entered = true;
  });
  while (gate.Waiting() != 1) std::this_thread::yield();
  EXPECT_FALSE(entered.load());
  first.reset();
  second.join();
  EXPECT_TRUE(entered.load());
}

}  // namespace
}  // namespace ptsn::server
