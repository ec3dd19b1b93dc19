#include "server/http/rate_limit.h"

#include <algorithm>
#include <chrono>

namespace ptsn::server {

RateLimiter::RateLimiter(double per_second, double burst, Clock clock)
    : rate_(per_second), burst_(std::max(burst, 1.0)), clock_(std::move(clock)) {}

double RateLimiter::SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool RateLimiter::Allow(const std::string& key) {
  if (rate_ <= 0) return true;
  double now = clock_();
  std::lock_guard lock(mu_);
  // Forget idle full buckets now and then so the map cannot grow without bound.
  if (buckets_.size() > 100000) {
    std::erase_if(buckets_, [&](const auto& kv) { return now - kv.second.updated > burst_ / rate_; });
  }
  auto [it, fresh] = buckets_.try_emplace(key, Bucket{burst_, now});
  Bucket& b = it->second;
  if (!fresh) b.tokens = std::min(burst_, b.tokens + (now - b.updated) * rate_);
  b.updated = now;
  if (b.tokens < 1) return false;
  b.tokens -= 1;
  return true;
}

}  // namespace ptsn::server
