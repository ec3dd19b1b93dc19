#include "runner/workloads/latency.h"

#include <gtest/gtest.h>

namespace ptsn::workloads {
namespace {

TEST(Latency, PercentilesWithinBucketResolution) {
  LatencyHistogram h;
  for (uint64_t i = 1; i <= 1000; ++i) h.Record(i * 1000);  // 1..1000 us
  EXPECT_EQ(h.count(), 1000u);
  EXPECT_NEAR(h.MeanMicros(), 500.5, 0.01);
  EXPECT_NEAR(h.PercentileMicros(50), 500, 500 * 0.07);
  EXPECT_NEAR(h.PercentileMicros(99), 990, 990 * 0.07);
  EXPECT_DOUBLE_EQ(h.MaxMicros(), 1000);
  EXPECT_LE(h.PercentileMicros(100), 1000);
}

TEST(Latency, MergeAndEmpty) {
  LatencyHistogram a, b;
  EXPECT_EQ(a.PercentileMicros(50), 0);
  a.Record(10);
  b.Record(5000000);
  a.Merge(b);
  EXPECT_EQ(a.count(), 2u);
  EXPECT_NEAR(a.PercentileMicros(100), 5000, 5000 * 0.07);
  EXPECT_NEAR(a.PercentileMicros(1), 0.01, 0.001);
}

}  // namespace
}  // namespace ptsn::workloads
