// The bytes of request bodies held in memory at once, by all requests together. A limit per
// request alone let 100 connections, each holding an unfinished 15 MiB body, take 1.5 GB
// (issue 31); with a total the server refuses (503) the request that would go over it instead.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>

namespace ptsn::server::http {

class BodyBudget {
 public:
  explicit BodyBudget(size_t total) : total_(total) {}
  BodyBudget(const BodyBudget&) = delete;
  BodyBudget& operator=(const BodyBudget&) = delete;

  // Takes `bytes` more; false (and nothing taken) when that would go over the total.
  bool Take(size_t bytes) {
    size_t held = held_.load(std::memory_order_relaxed);
    do {
      if (bytes > total_ || held > total_ - bytes) return false;
    } while (!held_.compare_exchange_weak(held, held + bytes, std::memory_order_relaxed));
    return true;
  }
  void Give(size_t bytes) { held_.fetch_sub(bytes, std::memory_order_relaxed); }
  size_t held() const { return held_.load(std::memory_order_relaxed); }
  size_t total() const { return total_; }

  // One request's part, given back when it is dropped or destroyed.
  class Share {
   public:
    explicit Share(BodyBudget* budget = nullptr) : budget_(budget) {}
    ~Share() { Drop(); }
    Share(const Share&) = delete;
    Share& operator=(const Share&) = delete;
    // Makes room for a body of `bytes` (taken in whole steps, not per chunk read, up to `cap`);
    // false when the budget has not got it.
    bool Cover(size_t bytes, size_t cap) {
      if (bytes <= taken_ || !budget_) return true;
      size_t want = std::max(bytes, std::min(cap, (bytes + kStep - 1) / kStep * kStep));
      if (!budget_->Take(want - taken_)) return false;
      taken_ = want;
      return true;
    }
    void Drop() {
      if (budget_ && taken_) budget_->Give(taken_);
      taken_ = 0;
    }
    size_t taken() const { return taken_; }

   private:
    static constexpr size_t kStep = 1 << 20;
    BodyBudget* budget_;
    size_t taken_ = 0;
  };

 private:
  const size_t total_;
  std::atomic<size_t> held_{0};
};

}  // namespace ptsn::server::http
