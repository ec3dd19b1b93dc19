// Admits at most `slots` callers at once and the rest strictly in arrival order. The server runs
// requests on a pool of worker threads (64 by default), so 50 uploading clients mean 50 busy
// threads; left alone, all of them are runnable at once on 2 cores and the scheduler's time
// slicing gives some requests a long wait (a long p99). Page renders pass through the same gate. Passing the CPU-heavy part of each request through this
// gate keeps about one runnable thread per core and serves requests first come, first served.
// Each waiter sleeps on a condition variable of its own, so a slot wakes exactly the caller it
// passes to.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>

namespace ptsn::server {

class FairGate {
 public:
  // slots <= 0: no limit (Enter never waits).
  explicit FairGate(int slots) : free_(slots), unlimited_(slots <= 0) {}

  class Pass {
   public:
    explicit Pass(FairGate* gate) : gate_(gate) {}
    Pass(Pass&& o) noexcept : gate_(o.gate_) { o.gate_ = nullptr; }
    Pass(const Pass&) = delete;
    Pass& operator=(const Pass&) = delete;
    ~Pass() {
      if (gate_) gate_->Leave();
    }

   private:
    FairGate* gate_;
  };

  Pass Enter() {
    if (unlimited_) return Pass(nullptr);
    std::unique_lock lock(mu_);
    if (free_ > 0 && waiting_.empty()) {
      --free_;
      return Pass(this);
    }
    Waiter me;
    waiting_.push_back(&me);
    me.wake.wait(lock, [&] { return me.admitted; });
    return Pass(this);
  }

  // How many callers are queued now (for tests and status pages; stale as soon as it returns).
  size_t Waiting() {
    std::lock_guard lock(mu_);
    return waiting_.size();
  }

 private:
  struct Waiter {
    std::condition_variable wake;
    bool admitted = false;
  };
  // The slot passes straight to the oldest waiter, so a newcomer can never overtake it.
  void Leave() {
    std::lock_guard lock(mu_);
    if (waiting_.empty()) {
      ++free_;
      return;
    }
    Waiter* next = waiting_.front();
    waiting_.pop_front();
    next->admitted = true;
    next->wake.notify_one();  // under the mutex: the waiter cannot return (and go) before this is done
  }
  std::mutex mu_;
  int free_;
  const bool unlimited_;
  std::deque<Waiter*> waiting_;
};

}  // namespace ptsn::server
