#include "server/http/rate_limit.h"

#include <gtest/gtest.h>

namespace ptsn::server {
namespace {

TEST(RateLimiter, BurstThenRefillPerKey) {
  double now = 0;
  RateLimiter limiter(2, 3, [&] { return now; });
  EXPECT_TRUE(limiter.Allow("a"));
  EXPECT_TRUE(limiter.Allow("a"));
  EXPECT_TRUE(limiter.Allow("a"));
  EXPECT_FALSE(limiter.Allow("a"));
  EXPECT_TRUE(limiter.Allow("b"));  // other clients are not affected
  now = 0.5;                        // one token back at 2/s
  EXPECT_TRUE(limiter.Allow("a"));
  EXPECT_FALSE(limiter.Allow("a"));
  now = 100;  // refills only up to the burst
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(limiter.Allow("a"));
  EXPECT_FALSE(limiter.Allow("a"));
}

TEST(RateLimiter, ZeroRateMeansUnlimited) {
  RateLimiter limiter(0, 1, [] { return 0.0; });
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(limiter.Allow("a"));
}

}  // namespace
}  // namespace ptsn::server
