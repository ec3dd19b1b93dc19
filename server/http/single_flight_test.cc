#include "server/http/single_flight.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

namespace ptsn::server {
namespace {

TEST(SingleFlight, ConcurrentCallersOfOneKeyShareOneComputation) {
  SingleFlight<int> flight;
  std::atomic<int> computed{0}, started{0};
  std::vector<std::thread> callers;
  std::vector<int> got(8, 0);
  for (int i = 0; i < 8; ++i) {
    callers.emplace_back([&, i] {
      ++started;
      got[i] = *flight.Do("page", [&] {
        ++computed;
        // Long enough for every other caller to arrive while this one computes.
        while (started.load() < 8) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        return std::make_shared<const int>(42);
      });
    });
  }
  for (auto& t : callers) t.join();
  EXPECT_EQ(computed.load(), 1);
  for (int v : got) EXPECT_EQ(v, 42);
  EXPECT_EQ(flight.in_flight(), 0u);
  // Landed: the next caller computes again (caching is the caller's business).
  flight.Do("page", [&] { ++computed; return std::make_shared<const int>(1); });
  EXPECT_EQ(computed.load(), 2);
}

TEST(SingleFlight, AFailureReachesEveryWaiterAndIsNotKept) {
  SingleFlight<int> flight;
  EXPECT_THROW(flight.Do("bad", []() -> std::shared_ptr<const int> { throw std::runtime_error("no page 9"); }),
               std::runtime_error);
  EXPECT_EQ(*flight.Do("bad", [] { return std::make_shared<const int>(7); }), 7);
}

}  // namespace
}  // namespace ptsn::server
