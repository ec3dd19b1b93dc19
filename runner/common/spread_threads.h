// Starting worker threads where they can run at the same time as the thread that starts them.
//
// Linux often queues a new thread on its creator's CPU and moves it to an idle CPU only at a
// later load balance, milliseconds afterwards. On this project's 2-vCPU test machine, 5 of 6
// text exports had their second thread share the first thread's CPU for 4-8 ms of a 20 ms run
// (perf record --sample-cpu), so two threads did little better than one.
// ThreadSpreader puts each new thread on one of the other CPUs the process may use before it
// runs any work, then gives it back the whole set, so the scheduler can still move it later
// (widening a thread's CPU set never moves it).
#pragma once

#include <sched.h>

#include <functional>
#include <thread>
#include <vector>

namespace ptsn {

class ThreadSpreader {
 public:
  // Reads the calling thread's CPU and allowed CPU set now.
  ThreadSpreader();

  // A thread running `work`, started on the next of the other allowed CPUs in turn. With no
  // other CPU allowed (or one the kernel refuses), the kernel places it as std::thread would.
  std::thread Start(std::function<void()> work);

  // The CPUs Start places threads on, in turn: the allowed ones but the caller's.
  const std::vector<int>& others() const { return others_; }

 private:
  cpu_set_t allowed_;
  std::vector<int> others_;
  size_t next_ = 0;
};

}  // namespace ptsn
