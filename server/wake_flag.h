// One thread sleeps until another sets a value: a futex on a 32-bit word, nothing else. The FairGate
// and the GroupCommitter hand work from thread to thread with it, outside their mutexes, so a woken
// thread never blocks again on the mutex its waker held. (std::atomic::wait spins and calls
// sched_yield first: with 50 waiting threads on 2 cores that was more context switches, not fewer.)
// Set() may run after the waiter has returned and its WakeFlag is gone: FUTEX_WAKE uses only the
// address and reads nothing behind it.
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>

namespace ptsn::server {

class WakeFlag {
 public:
  explicit WakeFlag(int value = 0) : value_(value) {}
  int Get() const { return value_.load(std::memory_order_acquire); }
  // Returns the first value other than `current` seen.
  int WaitWhile(int current) {
    int v;
    while ((v = Get()) == current)
      syscall(SYS_futex, reinterpret_cast<int*>(&value_), FUTEX_WAIT_PRIVATE, current, nullptr, nullptr, 0);
    return v;
  }
  void Set(int value) {
    value_.store(value, std::memory_order_release);
    syscall(SYS_futex, reinterpret_cast<int*>(&value_), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
  }
  // Before any other thread can see the flag (no wake needed).
  void Init(int value) { value_.store(value, std::memory_order_relaxed); }

 private:
  static_assert(sizeof(std::atomic<int>) == sizeof(int), "a futex word");
  std::atomic<int> value_;
};

}  // namespace ptsn::server
