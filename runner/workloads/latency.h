// Latency percentiles without storing every sample: a log-linear histogram (16 sub-buckets per
// power of two, so any percentile is within ~6 % of the true value), cheap enough to record
// every I/O and mergeable across threads.
#pragma once

#include <array>
#include <cstdint>

namespace ptsn::workloads {

class LatencyHistogram {
 public:
  void Record(uint64_t nanoseconds);
  void Merge(const LatencyHistogram& other);
  uint64_t count() const { return count_; }
  double MeanMicros() const;
  // p in [0, 100]; microseconds, the upper edge of the bucket holding that rank. 0 when empty.
  double PercentileMicros(double p) const;
  double MaxMicros() const { return static_cast<double>(max_) / 1000.0; }

 private:
  static constexpr int kSub = 16;
  static constexpr int kBuckets = 64 * kSub;
  static int BucketOf(uint64_t ns);
  static uint64_t UpperEdge(int bucket);
  std::array<uint64_t, kBuckets> buckets_{};
  uint64_t count_ = 0;
  uint64_t max_ = 0;
  long double sum_ = 0;
};

}  // namespace ptsn::workloads
