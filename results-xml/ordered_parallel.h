// Producing independent items on several threads while consuming them strictly in order on the
// calling thread: reading many result files in parallel while merging them one at a time, with
// the same output and the same first error as the sequential loop.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "runner/common/spread_threads.h"

namespace ptsn::results {

// Calls produce(i) for every i in [0, count) and consume(i, value) with its result, consume
// always on the calling thread and in index order. With threads <= 1 that is the plain loop
// (produce(0), consume(0), produce(1), ...). Otherwise threads - 1 workers and the calling
// thread (while it waits for the next item in order) run produce, at most `window` items ahead
// of consume, so at most `window` produced values wait besides the one consume has in hand.
// Errors come out as the sequential loop's would: an exception from produce(i) is rethrown when
// consume would have been given item i, so what consume throws for an earlier item, or an
// earlier item's produce error, wins. The remaining work is then abandoned (workers finish the
// item in hand and stop) before the exception leaves this function.
template <typename T>
void ForEachInOrder(size_t count, unsigned threads, size_t window, const std::function<T(size_t)>& produce,
                    const std::function<void(size_t, T&)>& consume) {
  threads = static_cast<unsigned>(std::min<size_t>(threads, count));
  if (threads <= 1) {
    for (size_t i = 0; i < count; ++i) {
      T value = produce(i);
      consume(i, value);
    }
    return;
  }
  window = std::max<size_t>(window, threads);

  struct Slot {
    std::optional<T> value;
    std::exception_ptr error;
    bool ready = false;
  };
  struct Shared {
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<Slot> slots;
    size_t next_claim = 0;  // the next item nobody produces yet
    size_t consumed = 0;    // items handed to consume so far
    bool stop = false;
  } s;
  s.slots.resize(count);
  const size_t limit = window;
  auto claimable = [&] { return s.next_claim < count && s.next_claim < s.consumed + limit; };
  // Produces item `i` (claimed under the lock, which is released meanwhile) into its slot.
  auto make = [&](std::unique_lock<std::mutex>& lock, size_t i) {
    lock.unlock();
    std::optional<T> value;
    std::exception_ptr error;
    try {
      value.emplace(produce(i));
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    s.slots[i].value = std::move(value);
    s.slots[i].error = error;
    s.slots[i].ready = true;
    s.changed.notify_all();
  };

  // Stops and joins the workers however this function is left.
  struct Workers {
    Shared& s;
    std::vector<std::thread> threads;
    ~Workers() {
      {
        std::lock_guard<std::mutex> lock(s.mutex);
        s.stop = true;
      }
      s.changed.notify_all();
      for (std::thread& t : threads) t.join();
    }
  } workers{s, {}};
  ThreadSpreader spreader;
  for (unsigned t = 1; t < threads; ++t) {
    workers.threads.push_back(spreader.Start([&] {
      std::unique_lock<std::mutex> lock(s.mutex);
      for (;;) {
        s.changed.wait(lock, [&] { return s.stop || s.next_claim >= count || claimable(); });
        if (s.stop || s.next_claim >= count) return;
        make(lock, s.next_claim++);
      }
    }));
  }

  for (size_t i = 0; i < count; ++i) {
    std::unique_lock<std::mutex> lock(s.mutex);
    while (!s.slots[i].ready) {
      if (claimable()) make(lock, s.next_claim++);
      else s.changed.wait(lock);
    }
    Slot slot = std::move(s.slots[i]);
    s.slots[i] = Slot{};
    s.consumed = i + 1;
    s.changed.notify_all();
    lock.unlock();
    if (slot.error) std::rethrow_exception(slot.error);
    consume(i, *slot.value);
  }
}

}  // namespace ptsn::results
