#include "server/http/ttl_cache.h"

#include <gtest/gtest.h>

namespace ptsn::server {
namespace {

TEST(TtlCache, ServesUntilTheTtlThenMisses) {
  double now = 100;
  TtlCache<std::string> cache(5, 10, [&] { return now; });
  cache.Put("a", std::make_shared<const std::string>("alpha"));
  ASSERT_NE(cache.Get("a"), nullptr);
  EXPECT_EQ(*cache.Get("a"), "alpha");
  now = 104.9;
  EXPECT_NE(cache.Get("a"), nullptr);
  now = 105;
  EXPECT_EQ(cache.Get("a"), nullptr);
  EXPECT_EQ(cache.size(), 0u);
}

TEST(TtlCache, DropsTheOldestInsertedBeyondTheBound) {
  double now = 0;
  TtlCache<int> cache(60, 2, [&] { return now; });
  cache.Put("a", std::make_shared<const int>(1));
  cache.Put("b", std::make_shared<const int>(2));
  cache.Put("a", std::make_shared<const int>(3));  // re-insert: now the newest
  cache.Put("c", std::make_shared<const int>(4));
  EXPECT_EQ(cache.Get("b"), nullptr);
  ASSERT_NE(cache.Get("a"), nullptr);
  EXPECT_EQ(*cache.Get("a"), 3);
  EXPECT_EQ(*cache.Get("c"), 4);
}

TEST(TtlCache, EraseAndDisabled) {
  double now = 0;
  TtlCache<int> cache(60, 4, [&] { return now; });
  cache.Put("a", std::make_shared<const int>(1));
  cache.Erase("a");
  EXPECT_EQ(cache.Get("a"), nullptr);
  TtlCache<int> off(0, 4, [&] { return now; });
  off.Put("a", std::make_shared<const int>(1));
  EXPECT_EQ(off.Get("a"), nullptr);
}

}  // namespace
}  // namespace ptsn::server
