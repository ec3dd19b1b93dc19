#include "runner/workloads/clocks.h"

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "runner/common/atomic_file.h"
#include "runner/monitor/proc_parse.h"

namespace ptsn::workloads {

std::uint64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

double ProcessCpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return seconds(ru.ru_utime) + seconds(ru.ru_stime);
}

std::optional<MachineCpu> MachineCpuSeconds() {
  monitor::CpuTimes t;
  std::string stat;
  try {
    stat = ReadFile("/proc/stat");
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (!monitor::ParseProcStatCpu(stat, -1, &t) || t.columns <= monitor::kSoftirq) return std::nullopt;
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  auto s = [&](uint64_t ticks) { return static_cast<double>(ticks) / tick; };
  return MachineCpu{s(t.v[monitor::kUser] + t.v[monitor::kNice]), s(t.v[monitor::kSystem] + t.v[monitor::kIrq]),
                    s(t.v[monitor::kSoftirq])};
}

std::optional<MachineCpu> CpuBetween(const std::optional<MachineCpu>& before, const std::optional<MachineCpu>& after) {
  if (!before || !after) return std::nullopt;
  return MachineCpu{after->user - before->user, after->system - before->system, after->softirq - before->softirq};
}

MachineCpu CpuPerGiB(const MachineCpu& spent, std::uint64_t bytes) {
  const double gib = static_cast<double>(bytes) / (1024.0 * 1024 * 1024);
  if (gib <= 0) return {};
  return {spent.user / gib, spent.system / gib, spent.softirq / gib};
}

}  // namespace ptsn::workloads
