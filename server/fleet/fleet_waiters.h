// Agents waiting for work (long-polls), woken when a job for their machine is created. A waiter
// is a callback, not a thread: `wake` runs once, on the thread that notifies or on the timer
// thread at the deadline, and the HTTP layer keeps the parked request's connection suspended
// meanwhile (http::AsyncHandler), so an idle agent costs a socket, not a thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
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

  // `since`: a Generation() read before the caller looked for work; when any Notify came after
  // it, `wake` runs at once (true), so a job created between that look and this wait is not
  // missed until the deadline. Spurious at worst: the woken agent only polls again.
  void Wait(const std::string& machine, Clock::time_point deadline, Wake wake,
            std::optional<std::uint64_t> since = std::nullopt);
  std::uint64_t Generation() const;
  void Notify(const std::string& machine);
  void NotifyAll();

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
  std::uint64_t generation_ = 0;  // Notify/NotifyAll calls so far
  bool stop_ = false;
  std::thread timer_;
};

}  // namespace ptsn::server
