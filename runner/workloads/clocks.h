// The clocks every workload reads: monotonic nanoseconds for latencies, and the process's CPU
// time (user + system, all threads) reported beside the wall time.
#pragma once

#include <cstdint>

namespace ptsn::workloads {

std::uint64_t NowNs();
double ProcessCpuSeconds();

}  // namespace ptsn::workloads
