// Admits at most `slots` callers at once and the rest strictly in arrival order. The server runs
// requests on a pool of worker threads (64 by default), so 50 uploading clients mean 50 busy
// threads; left alone, all of them are runnable at once on 2 cores and the scheduler's time
// slicing gives some requests a long wait (a long p99). Page renders pass through the same gate. Passing the CPU-heavy part of each request through this
// gate keeps about one runnable thread per core and serves requests first come, first served.
// A waiter sleeps on its own WakeFlag, set after the gate's mutex is released: a condition
// variable signalled under the mutex made each woken thread block once more on that mutex.
#pragma once

#include <deque>
#include <mutex>

#include "server/wake_flag.h"

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
    Waiter me;
    {
      std::lock_guard lock(mu_);
      if (free_ > 0 && waiting_.empty()) {
        --free_;
        return Pass(this);
      }
      waiting_.push_back(&me);
    }
    me.admitted.WaitWhile(0);
    return Pass(this);
  }

 private:
  struct Waiter {
    WakeFlag admitted;
  };
  // The slot passes straight to the oldest waiter, so a newcomer can never overtake it.
  void Leave() {
    Waiter* next;
    {
      std::lock_guard lock(mu_);
      if (waiting_.empty()) {
        ++free_;
        return;
      }
      next = waiting_.front();
      waiting_.pop_front();
    }
    next->admitted.Set(1);  // the waiter may be gone as soon as this returns
  }
  std::mutex mu_;
  int free_;
  const bool unlimited_;
  std::deque<Waiter*> waiting_;
};

}  // namespace ptsn::server
