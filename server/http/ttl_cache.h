// A small thread-safe cache of immutable values with a time to live, a bound on entries and
// optionally one on their bytes (`Cost`; oldest inserted goes first). The server keeps stored results (their bytes and ready answers)
// and token → user lookups in it, so repeated fetches and uploads do not go to the database.
// Results never change once stored; the TTL bounds how long a delete made by ANOTHER server
// process sharing the database can still be served from here (this process's deletes Erase).
#pragma once

#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace ptsn::server {

template <typename V>
class TtlCache {
 public:
  using Clock = std::function<double()>;  // seconds, monotonic
  using Cost = std::function<size_t(const V&)>;  // bytes a value holds
  // ttl_seconds <= 0 or max_entries == 0 disables the cache (Get always misses). With `cost`,
  // the values together hold at most `max_bytes` (one larger than that is not kept).
  TtlCache(double ttl_seconds, size_t max_entries, Clock clock, size_t max_bytes = 0, Cost cost = {})
      : ttl_(ttl_seconds), max_(max_entries), clock_(std::move(clock)), max_bytes_(max_bytes), cost_(std::move(cost)) {}

  std::shared_ptr<const V> Get(const std::string& key) {
    if (!enabled()) return nullptr;
    std::lock_guard lock(mu_);
    auto it = map_.find(key);
    if (it == map_.end()) return nullptr;
    if (it->second.expires <= clock_()) {
      EraseLocked(it);
      return nullptr;
    }
    return it->second.value;
  }

  void Put(const std::string& key, std::shared_ptr<const V> value) {
    if (!enabled()) return;
    const size_t bytes = cost_ ? cost_(*value) : 0;
    if (cost_ && bytes > max_bytes_) return;
    std::lock_guard lock(mu_);
    auto it = map_.find(key);
    if (it != map_.end()) EraseLocked(it);
    order_.push_back(key);
    map_.emplace(key, Entry{std::move(value), clock_() + ttl_, std::prev(order_.end()), bytes});
    bytes_ += bytes;
    while (map_.size() > max_ || (cost_ && bytes_ > max_bytes_)) EraseLocked(map_.find(order_.front()));
  }

  void Erase(const std::string& key) {
    std::lock_guard lock(mu_);
    auto it = map_.find(key);
    if (it != map_.end()) EraseLocked(it);
  }

  // Drops every entry whose key `pred` accepts.
  template <typename Pred>
  void EraseIf(const Pred& pred) {
    std::lock_guard lock(mu_);
    for (auto it = map_.begin(); it != map_.end();) {
      auto next = std::next(it);
      if (pred(it->first)) EraseLocked(it);
      it = next;
    }
  }

  size_t bytes() {
    std::lock_guard lock(mu_);
    return bytes_;
  }

  size_t size() {
    std::lock_guard lock(mu_);
    return map_.size();
  }

 private:
  bool enabled() const { return ttl_ > 0 && max_ > 0; }
  struct Entry {
    std::shared_ptr<const V> value;
    double expires;
    std::list<std::string>::iterator pos;
    size_t bytes;
  };
  void EraseLocked(typename std::unordered_map<std::string, Entry>::iterator it) {
    bytes_ -= it->second.bytes;
    order_.erase(it->second.pos);
    map_.erase(it);
  }
  const double ttl_;
  const size_t max_;
  Clock clock_;
  const size_t max_bytes_;
  Cost cost_;
  size_t bytes_ = 0;
  std::mutex mu_;
  std::unordered_map<std::string, Entry> map_;
  std::list<std::string> order_;
};

}  // namespace ptsn::server
