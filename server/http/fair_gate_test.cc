#include "server/http/fair_gate.h"

#include <gtest/gtest.h>

#include <atomic>
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
  FairGate gate(0);
  auto a = gate.Enter();
  auto b = gate.Enter();  // would deadlock if limited
  SUCCEED();
}

}  // namespace
}  // namespace ptsn::server
