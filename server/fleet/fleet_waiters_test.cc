#include "server/fleet/fleet_waiters.h"

#include <gtest/gtest.h>

#include <future>
#include <memory>

namespace ptsn::server {
namespace {

using namespace std::chrono_literals;

struct Outcome {
  std::shared_ptr<std::promise<bool>> done = std::make_shared<std::promise<bool>>();
  std::future<bool> result = done->get_future();
  FleetWaiters::Wake wake() {
    return [d = done](bool woken) { d->set_value(woken); };
  }
  bool ready() { return result.wait_for(0s) == std::future_status::ready; }
};

TEST(FleetWaitersTest, NotifyWakesOnlyThatMachinesWaiters) {
  FleetWaiters w;
  Outcome a, b;
  w.Wait("a", FleetWaiters::Clock::now() + 1h, a.wake());
  w.Wait("b", FleetWaiters::Clock::now() + 1h, b.wake());
  EXPECT_TRUE(w.IsWaiting("a"));
  w.Notify("a");
  ASSERT_TRUE(a.ready());
  EXPECT_TRUE(a.result.get());
  EXPECT_FALSE(b.ready());
  EXPECT_FALSE(w.IsWaiting("a"));
  EXPECT_EQ(w.waiting(), 1u);
}

TEST(FleetWaitersTest, TheDeadlineWakesWithFalse) {
  FleetWaiters w;
  Outcome a;
  w.Wait("a", FleetWaiters::Clock::now() + 10ms, a.wake());
  EXPECT_FALSE(a.result.get());
  EXPECT_EQ(w.waiting(), 0u);
}

// A job created after the poll looked for work and before it parked is not missed.
TEST(FleetWaitersTest, ANotifyBeforeTheWaitIsNotLost) {
  FleetWaiters w;
  const auto looked = w.Generation();
  w.Notify("a");  // nobody waiting yet
  Outcome a, b;
  w.Wait("a", FleetWaiters::Clock::now() + 1h, a.wake(), looked);
  ASSERT_TRUE(a.ready()) << "parked until the deadline although a job came in meanwhile";
  EXPECT_TRUE(a.result.get());
  w.Wait("b", FleetWaiters::Clock::now() + 1h, b.wake(), w.Generation());
  EXPECT_FALSE(b.ready());
}

TEST(FleetWaitersTest, ShutdownAnswersEveryoneAndLaterWaits) {
  FleetWaiters w;
  Outcome a, later;
  w.Wait("a", FleetWaiters::Clock::now() + 1h, a.wake());
  w.Shutdown();
  ASSERT_TRUE(a.ready());
  EXPECT_FALSE(a.result.get());
  w.Wait("a", FleetWaiters::Clock::now() + 1h, later.wake());
  ASSERT_TRUE(later.ready());
  EXPECT_FALSE(later.result.get());
}

}  // namespace
}  // namespace ptsn::server
