// Parsers for the /proc and /sys texts the sensors read. Pure functions over string_views that
// allocate nothing on the per-sample paths (ParseProcStatCpu, MeminfoKb, ParseDiskstats,
// KeyedValue, ParseNumber), so the sampler can call them on every tick.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptsn::monitor {

// The columns of a "cpu"/"cpuN" line of /proc/stat, in USER_HZ ticks.
enum CpuColumn { kUser, kNice, kSystem, kIdle, kIowait, kIrq, kSoftirq, kSteal, kGuest, kGuestNice, kCpuColumns };
struct CpuTimes {
  std::array<uint64_t, kCpuColumns> v{};
  int columns = 0;  // how many the kernel printed (old kernels print fewer)
};

// The summary line ("cpu ", cpu == -1) or the line of CPU `cpu` ("cpu3 "). False when the line
// is absent (an offline CPU has no line).
bool ParseProcStatCpu(std::string_view stat, int cpu, CpuTimes* out);
// How many "cpuN" lines there are (allocation-free; the online CPU count).
int CountProcStatCpus(std::string_view stat);
// The CPU numbers that have a line in /proc/stat (the online CPUs), in file order.
std::vector<int> ProcStatCpus(std::string_view stat);

// A "Key:   123 kB" value of /proc/meminfo, in kB.
std::optional<uint64_t> MeminfoKb(std::string_view meminfo, std::string_view key);

// One device's counters from /proc/diskstats (fields after the name: reads completed, reads
// merged, sectors read, ms reading, writes completed, writes merged, sectors written, ...).
struct DiskCounters {
  uint64_t sectors_read = 0;
  uint64_t sectors_written = 0;
};
bool ParseDiskstats(std::string_view diskstats, std::string_view device, DiskCounters* out);
// The device name of major:minor in /proc/diskstats ("254 0 vda ..." -> "vda").
std::optional<std::string> DiskstatsName(std::string_view diskstats, unsigned major, unsigned minor);

// The mount that holds an absolute path, from /proc/self/mountinfo (longest mount point that
// is a prefix of the path; later mounts shadow earlier ones).
struct MountEntry {
  unsigned major = 0, minor = 0;
  std::string mount_point, fs_type, source;
};
std::optional<MountEntry> MountOfPath(std::string_view mountinfo, std::string_view absolute_path);
// Mount point of the cgroup2 hierarchy ("/sys/fs/cgroup" or "/sys/fs/cgroup/unified").
std::optional<std::string> Cgroup2MountPoint(std::string_view mountinfo);
// The v2 path of a process from /proc/<pid>/cgroup ("0::/user.slice/x.scope" -> that path).
std::optional<std::string> Cgroup2Path(std::string_view proc_cgroup);

// "key value" lines (cgroup cpu.stat): the value of `key`.
std::optional<uint64_t> KeyedValue(std::string_view text, std::string_view key);

// A number at the start of `text` (after blanks), e.g. a sysfs attribute "48000\n".
std::optional<double> ParseNumber(std::string_view text);

// The "cpu MHz" of processor `cpu` in /proc/cpuinfo.
std::optional<double> CpuinfoMhz(std::string_view cpuinfo, int cpu);

// Difference of two readings of a counter that may wrap: a counter below its previous value
// wrapped at 2^32 when the previous value fitted in 32 bits (unsigned long on 32-bit kernels),
// else at `wrap_at` when that is given (RAPL's max_energy_range_uj), else at 2^64.
uint64_t CounterDelta(uint64_t previous, uint64_t current, uint64_t wrap_at = 0);

}  // namespace ptsn::monitor
