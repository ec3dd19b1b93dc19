#include "runner/workloads/latency.h"

#include <algorithm>
#include <bit>

namespace ptsn::workloads {

int LatencyHistogram::BucketOf(uint64_t ns) {
  if (ns < kSub) return static_cast<int>(ns);
  int exp = 63 - std::countl_zero(ns);  // >= 4
  int sub = static_cast<int>((ns >> (exp - 4)) & (kSub - 1));
  return (exp - 3) * kSub + sub;
}

uint64_t LatencyHistogram::UpperEdge(int bucket) {
  if (bucket < kSub) return static_cast<uint64_t>(bucket);
  int exp = bucket / kSub + 3, sub = bucket % kSub;
  uint64_t base = (1ull << exp) + (static_cast<uint64_t>(sub) << (exp - 4));
  return base + (1ull << (exp - 4)) - 1;
}

void LatencyHistogram::Record(uint64_t ns) {
  ++buckets_[std::min(BucketOf(ns), kBuckets - 1)];
  ++count_;
  max_ = std::max(max_, ns);
  sum_ += ns;
}

void LatencyHistogram::Merge(const LatencyHistogram& o) {
  for (int i = 0; i < kBuckets; ++i) buckets_[i] += o.buckets_[i];
  count_ += o.count_;
  max_ = std::max(max_, o.max_);
  sum_ += o.sum_;
}

double LatencyHistogram::MeanMicros() const {
  return count_ ? static_cast<double>(sum_ / count_) / 1000.0 : 0.0;
}

double LatencyHistogram::PercentileMicros(double p) const {
  if (count_ == 0) return 0;
  uint64_t rank = static_cast<uint64_t>(p / 100.0 * static_cast<double>(count_) + 0.5);
  rank = std::clamp<uint64_t>(rank, 1, count_);
  uint64_t seen = 0;
  for (int i = 0; i < kBuckets; ++i) {
    seen += buckets_[i];
    if (seen >= rank) return static_cast<double>(std::min(UpperEdge(i), max_)) / 1000.0;
  }
  return MaxMicros();
}

}  // namespace ptsn::workloads
