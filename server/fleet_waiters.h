// Agents waiting for work (long-polls), woken when a job for their machine is created. A waiter
// is a callback, not a thread: `wake` runs once, on the thread that notifies or on the timer
// thread at the deadline, so a transport that can park a request without a thread (answering it
// later) can wait on this without pinning a thread per idle agent. Today's transport
// (cpp-httplib, a thread per connection) blocks its request thread on a promise instead.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace ptsn::server {

class FleetWaiters {
 public:
  using Clock = std::chrono::steady_clock;
  // woken = true: Notify reached it; false: the deadline passed (or the registry is stopping).
  using Wake = std::function<void(bool woken)>;

  FleetWaiters();
  ~FleetWaiters();  // Shutdown()
  // Wakes everyone still waiting with false; later waits are woken at once (the server stops).
  void Shutdown();

  void Wait(const std::string& machine, Clock::time_point deadline, Wake wake);
  void Notify(const std::string& machine);
  void NotifyAll();
  // Blocks the calling thread until woken or the deadline (the cpp-httplib adapter).
  bool WaitBlocking(const std::string& machine, Clock::time_point deadline);

  size_t waiting() const;
  bool IsWaiting(const std::string& machine) const;

 private:
  struct Entry {
    std::string machine;
    Clock::time_point deadline;
    Wake wake;
  };
  void TimerLoop();
  void WakeAll(std::multimap<std::string, std::uint64_t>::iterator from,
               std::multimap<std::string, std::uint64_t>::iterator to, std::unique_lock<std::mutex>& lock);

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::uint64_t, Entry> entries_;                  // id → waiter
  std::multimap<std::string, std::uint64_t> by_machine_;
  std::multimap<Clock::time_point, std::uint64_t> by_deadline_;
  std::uint64_t next_id_ = 1;
  bool stop_ = false;
  std::thread timer_;
};

}  // namespace ptsn::server
