// Token-bucket rate limit per client address, for requests that write (uploads, deletes) and
// for failed authentication. The clock is injected so tests need not sleep.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>

namespace ptsn::server {

class RateLimiter {
 public:
  using Clock = std::function<double()>;  // seconds, monotonic
  // `per_second` <= 0 disables the limit.
  RateLimiter(double per_second, double burst, Clock clock = SteadySeconds);
  // True when `key` may make one more request now (and takes a token).
  bool Allow(const std::string& key);
  static double SteadySeconds();

 private:
  struct Bucket {
    double tokens;
    double updated;
  };
  double rate_, burst_;
  Clock clock_;
  std::mutex mu_;
  std::unordered_map<std::string, Bucket> buckets_;
};

}  // namespace ptsn::server
