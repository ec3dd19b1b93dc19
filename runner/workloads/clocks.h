// The clocks every workload reads: monotonic nanoseconds for latencies, the process's CPU time
// (user + system, all threads) reported beside the wall time, and the whole machine's CPU time
// from /proc/stat (what a workload's I/O costs includes the kernel's threads: dm-crypt's kcryptd
// workers and the softirqs that complete the I/O run outside the process).
#pragma once

#include <cstdint>
#include <optional>

namespace ptsn::workloads {

std::uint64_t NowNs();
double ProcessCpuSeconds();

// All CPUs' time since boot from /proc/stat's "cpu" line, in seconds: user (with nice), system
// (with irq) and softirq. nullopt when /proc/stat cannot be read.
struct MachineCpu {
  double user = 0, system = 0, softirq = 0;
};
std::optional<MachineCpu> MachineCpuSeconds();
// The time spent from `before` to `after` (nullopt when either is unknown), and that per GiB moved.
std::optional<MachineCpu> CpuBetween(const std::optional<MachineCpu>& before, const std::optional<MachineCpu>& after);
MachineCpu CpuPerGiB(const MachineCpu& spent, std::uint64_t bytes);

}  // namespace ptsn::workloads
