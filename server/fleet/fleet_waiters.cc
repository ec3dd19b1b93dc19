#include "server/fleet/fleet_waiters.h"

#include <vector>

namespace ptsn::server {

FleetWaiters::FleetWaiters() { timer_ = std::thread([this] { TimerLoop(); }); }

FleetWaiters::~FleetWaiters() { Shutdown(); }

void FleetWaiters::Shutdown() {
  std::vector<Wake> wakes;
  {
    std::lock_guard lock(mu_);
    if (stop_ && !timer_.joinable()) return;
    stop_ = true;
    for (auto& [id, e] : entries_) wakes.push_back(std::move(e.wake));
    entries_.clear();
    by_machine_.clear();
    by_deadline_.clear();
  }
  cv_.notify_all();
  if (timer_.joinable()) timer_.join();
  for (auto& w : wakes) w(false);
}

void FleetWaiters::Wait(const std::string& machine, Clock::time_point deadline, Wake wake,
                        std::optional<std::uint64_t> since) {
  std::unique_lock lock(mu_);
  if (stop_ || (since && *since != generation_)) {
    const bool woken = !stop_;
    lock.unlock();
    wake(woken);
    return;
  }
  const std::uint64_t id = next_id_++;
  entries_.emplace(id, Entry{machine, deadline, std::move(wake)});
  by_machine_.emplace(machine, id);
  const bool earliest = by_deadline_.empty() || deadline < by_deadline_.begin()->first;
  by_deadline_.emplace(deadline, id);
  if (earliest) cv_.notify_all();
}

// Takes the waiters in [from, to) out of the registry and calls them (outside the lock).
void FleetWaiters::WakeAll(std::multimap<std::string, std::uint64_t>::iterator from,
                           std::multimap<std::string, std::uint64_t>::iterator to, std::unique_lock<std::mutex>& lock) {
  std::vector<Wake> wakes;
  for (auto it = from; it != to;) {
    auto e = entries_.find(it->second);
    if (e != entries_.end()) {
      auto range = by_deadline_.equal_range(e->second.deadline);
      for (auto d = range.first; d != range.second; ++d)
        if (d->second == it->second) {
          by_deadline_.erase(d);
          break;
        }
      wakes.push_back(std::move(e->second.wake));
      entries_.erase(e);
    }
    it = by_machine_.erase(it);
  }
  lock.unlock();
  for (auto& w : wakes) w(true);
}

std::uint64_t FleetWaiters::Generation() const {
  std::lock_guard lock(mu_);
  return generation_;
}

void FleetWaiters::Notify(const std::string& machine) {
  std::unique_lock lock(mu_);
  ++generation_;
  auto range = by_machine_.equal_range(machine);
  WakeAll(range.first, range.second, lock);
}

void FleetWaiters::NotifyAll() {
  std::unique_lock lock(mu_);
  ++generation_;
  WakeAll(by_machine_.begin(), by_machine_.end(), lock);
}

size_t FleetWaiters::waiting() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

bool FleetWaiters::IsWaiting(const std::string& machine) const {
  std::lock_guard lock(mu_);
  return by_machine_.count(machine) > 0;
}

void FleetWaiters::TimerLoop() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    if (by_deadline_.empty()) {
      cv_.wait(lock);
      continue;
    }
    const auto first = by_deadline_.begin()->first;
    if (Clock::now() < first) {
      cv_.wait_until(lock, first);
      continue;
    }
    std::vector<Wake> wakes;
    while (!by_deadline_.empty() && by_deadline_.begin()->first <= Clock::now()) {
      const std::uint64_t id = by_deadline_.begin()->second;
      by_deadline_.erase(by_deadline_.begin());
      auto e = entries_.find(id);
      if (e == entries_.end()) continue;
      auto range = by_machine_.equal_range(e->second.machine);
      for (auto m = range.first; m != range.second; ++m)
        if (m->second == id) {
          by_machine_.erase(m);
          break;
        }
      wakes.push_back(std::move(e->second.wake));
      entries_.erase(e);
    }
    lock.unlock();
    for (auto& w : wakes) w(false);
    lock.lock();
  }
}

}  // namespace ptsn::server
