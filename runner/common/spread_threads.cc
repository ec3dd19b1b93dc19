#include "runner/common/spread_threads.h"

#include <pthread.h>

#include <atomic>
#include <memory>

namespace ptsn {

ThreadSpreader::ThreadSpreader() {
  CPU_ZERO(&allowed_);
  if (sched_getaffinity(0, sizeof allowed_, &allowed_) != 0) return;
  const int here = sched_getcpu();
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &allowed_) && cpu != here) others_.push_back(cpu);
}

std::thread ThreadSpreader::Start(std::function<void()> work) {
  if (others_.empty()) return std::thread(std::move(work));
  const int cpu = others_[next_++ % others_.size()];
  // The new thread waits until it has been moved: widening its set before the move would be
  // undone by the move, and would pin it to one CPU for its whole life.
  auto placed = std::make_shared<std::atomic<bool>>(false);
  std::thread thread([placed, allowed = allowed_, work = std::move(work)] {
    placed->wait(false);
    sched_setaffinity(0, sizeof allowed, &allowed);
    work();
  });
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  // A refusal (the CPU went offline, a cgroup narrowed the set) leaves the thread where the kernel
  // put it, which is what std::thread alone would have done.
  pthread_setaffinity_np(thread.native_handle(), sizeof one, &one);
  placed->store(true, std::memory_order_release);
  placed->notify_one();
  return thread;
}

}  // namespace ptsn
