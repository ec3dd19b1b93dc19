#include "server/http/body_budget.h"

#include <gtest/gtest.h>

namespace ptsn::server::http {
namespace {

TEST(BodyBudget, SharesTakeInStepsUpToTheTotalAndGiveBack) {
  BodyBudget budget(5 << 20);
  {
    BodyBudget::Share a(&budget), b(&budget);
    EXPECT_TRUE(a.Cover(1000, 16 << 20));
    EXPECT_EQ(budget.held(), 1u << 20);  // a whole step, not 1000 bytes
    EXPECT_TRUE(a.Cover(3 << 20, 16 << 20));
    EXPECT_EQ(budget.held(), 3u << 20);
    EXPECT_FALSE(b.Cover((2 << 20) + 1, 16 << 20)) << "over the total";
    EXPECT_EQ(budget.held(), 3u << 20) << "a refused share takes nothing";
    EXPECT_TRUE(b.Cover(2 << 20, 16 << 20));
    EXPECT_EQ(budget.held(), 5u << 20);
    a.Drop();
    EXPECT_EQ(budget.held(), 2u << 20);
  }
  EXPECT_EQ(budget.held(), 0u) << "destroyed shares give theirs back";
}

TEST(BodyBudget, AStepNeverGoesOverTheRequestsOwnCap) {
  BodyBudget budget(10 << 20);
  BodyBudget::Share s(&budget);
  EXPECT_TRUE(s.Cover(100, 4096));
  EXPECT_EQ(s.taken(), 4096u);
  EXPECT_FALSE(BodyBudget(100).Take(101));
}

}  // namespace
}  // namespace ptsn::server::http
