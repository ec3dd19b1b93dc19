// Block I/O workloads on files in a scratch directory: sequential write/read with a record and
// file size (IOzone-like), random read/write by several threads on a file each (Threaded I/O
// Tester-like), and fio's IOMeter file-server mix (weighted block sizes, 80 % reads). Each thread
// owns one file; I/O goes through pread/pwrite, or io_uring (else libaio) when --iodepth > 1.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runner/workloads/clocks.h"
#include "runner/workloads/latency.h"
#include "runner/workloads/report.h"

namespace ptsn::workloads {

enum class DiskPattern { kSeqWrite, kSeqRead, kRandRead, kRandWrite, kFileServer };
enum class FsyncPolicy { kNone, kEnd, kEvery };
// kAuto: psync at --iodepth 1; deeper queues use io_uring, else libaio, else psync (and say why).
enum class DiskEngine { kAuto, kPsync, kIoUring, kLibaio };

DiskPattern ParseDiskPattern(const std::string& text);   // throws naming the choices
const char* DiskPatternName(DiskPattern p);
FsyncPolicy ParseFsyncPolicy(const std::string& text);    // none | end | every
const char* FsyncPolicyName(FsyncPolicy p);
DiskEngine ParseDiskEngine(const std::string& text);      // auto | psync | io_uring | libaio
const char* DiskEngineName(DiskEngine e);

struct DiskOptions {
  DiskPattern pattern = DiskPattern::kSeqWrite;
  uint64_t block_size = 1 << 20;  // record size; ignored by kFileServer (its own mix)
  uint64_t size = 256ull << 20;   // file size per thread
  std::string dir;                // the directory under test; a scratch subdirectory is made in it
  bool direct = false;            // O_DIRECT
  FsyncPolicy fsync = FsyncPolicy::kEnd;  // writes: fsync at the end (timed) by default
  int threads = 1;
  int iodepth = 1;                // > 1: that many requests in flight per thread (async engine)
  DiskEngine engine = DiskEngine::kAuto;
  bool zero_data = false;         // default: incompressible random data
  bool keep_cache = false;        // reads: do not drop the laid-out file from the page cache
  // Read patterns: read this existing file (its first `size` bytes) instead of laying out one in a
  // scratch directory — so another tool (fio) and this engine can read the very same blocks. The
  // file is opened read-only and left in place; one thread only.
  std::string file;
};

// The engine a run uses and the label its report shows, e.g. "libaio (io_uring unavailable: ...)".
struct EngineChoice {
  DiskEngine engine = DiskEngine::kPsync;
  std::string label;
};
// Returns "" when `engine` can queue `depth` requests here, else why not.
using EngineProbe = std::function<std::string(DiskEngine engine, unsigned depth)>;
std::string ProbeEngine(DiskEngine engine, unsigned depth);  // the real kernel check
// Throws ptsn::Error when an engine asked for by name is unavailable or does not fit the options.
EngineChoice ChooseEngine(const DiskOptions& options, const EngineProbe& probe);

struct DiskStats {
  uint64_t bytes = 0;
  uint64_t ops = 0;
  uint64_t read_ops = 0, write_ops = 0;
  double seconds = 0;       // wall time of the timed phase
  double cpu_seconds = 0;   // user + system time of this process from the workers' release to the last one's end
  std::string engine;       // EngineChoice::label
  LatencyHistogram latency;
  std::vector<std::string> files;  // the data files (gone after the run; for tests)
  std::vector<uint64_t> file_sizes;
  // Read patterns: bytes of the data read that sat in the page cache when the timed phase began
  // (0 for a cold read, fio's default; all of it with --keep-cache on a just-written file); unset
  // when the kernel could not tell (mmap/mincore failed) or the pattern only writes.
  std::optional<uint64_t> cached_at_start;
  // The whole machine's CPU time over the timed phase (MachineCpuSeconds), unset when /proc/stat
  // cannot be read: the encryption's cost includes kernel threads outside this process.
  std::optional<MachineCpu> machine_cpu;
};

// Bytes of the first `size` bytes of the open file `fd` that are in the page cache (mincore over a
// read-only mapping, which reads nothing in); nullopt when the kernel cannot tell.
std::optional<uint64_t> CachedBytes(int fd, uint64_t size);

// The wall time of a run's timed phase from each worker's own stamps (start: before its first I/O;
// end: after its last I/O and fsync): the first start to the last end. Stamps taken by the thread
// that starts and joins the workers also counted the scheduler's delay in waking them and then it —
// milliseconds on a loaded machine, 10-30 % of a short sequential run (fio stamps in the job too).
// Spans with no end (the worker failed) are skipped; 0 when none ran.
struct WorkerSpan {
  uint64_t start_ns = 0, end_ns = 0;
};
double PhaseSeconds(const std::vector<WorkerSpan>& spans);

// Throws ptsn::Error on bad options, short free space, I/O errors (naming the file) and
// interruption (exit code 128 + signal) — after removing the scratch directory.
DiskStats RunDiskWorkload(const DiskOptions& options);

Report DiskReport(const DiskOptions& options, const DiskStats& stats);

// Latency percentiles as report fields "<prefix>p50_us" ... with text labels "Latency p50".
void AddLatencyFields(Report& r, const LatencyHistogram& h);
// The machine's CPU seconds per GiB moved, as "CPU user per GiB", "CPU system per GiB" and
// "CPU softirq per GiB" (s); nothing when the CPU time is unknown or nothing moved.
void AddCpuPerGiBFields(Report& r, const std::optional<MachineCpu>& cpu, uint64_t bytes);

// The pseudo-random generator the workloads use for data and offsets (xoshiro256**).
struct Rng {
  uint64_t s[4];
  explicit Rng(uint64_t seed);
  uint64_t Next();
  uint64_t Below(uint64_t n) { return n ? Next() % n : 0; }
  void Fill(uint8_t* p, size_t n);
};

// Writes `tag` ^ block-number into the first 8 bytes of every 4 KiB block of p[0, length), so
// that data written repeatedly from one pool is still unique per block (defeats de-duplication).
void StampBlocks(uint8_t* p, size_t length, uint64_t tag);

}  // namespace ptsn::workloads
