// A small thread-safe cache of immutable values with a time to live and a bound on entries
// (oldest inserted goes first). The server keeps stored results (their bytes and ready answers)
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
  // ttl_seconds <= 0 or max_entries == 0 disables the cache (Get always misses).
  TtlCache(double ttl_seconds, size_t max_entries, Clock clock)
      : ttl_(ttl_seconds), max_(max_entries), clock_(std::move(clock)) {}

  std::shared_ptr<const V> Get(const std::string& key) {
    if (!enabled()) return nullptr;
    std::lock_guard lock(mu_);
    auto it = map_.find(key);
    if (it == map_.end()) return nullptr;
    if (it->second.expires <= clock_()) {
      order_.erase(it->second.pos);
      map_.erase(it);
      return nullptr;
    }
    return it->second.value;
  }

  void Put(const std::string& key, std::shared_ptr<const V> value) {
    if (!enabled()) return;
    std::lock_guard lock(mu_);
    auto it = map_.find(key);
    if (it != map_.end()) {
      order_.erase(it->second.pos);
      map_.erase(it);
    }
    order_.push_back(key);
    map_.emplace(key, Entry{std::move(value), clock_() + ttl_, std::prev(order_.end())});
    while (map_.size() > max_) {
      map_.erase(order_.front());
      order_.pop_front();
    }
  }

  void Erase(const std::string& key) {
    std::lock_guard lock(mu_);
    auto it = map_.find(key);
    if (it == map_.end()) return;
    order_.erase(it->second.pos);
    map_.erase(it);
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
  };
  const double ttl_;
  const size_t max_;
  Clock clock_;
  std::mutex mu_;
  std::unordered_map<std::string, Entry> map_;
  std::list<std::string> order_;
};

}  // namespace ptsn::server
