// Block I/O workloads on files in a scratch directory: sequential write/read with a record and
// file size (IOzone-like), random read/write by several threads on a file each (Threaded I/O
// Tester-like), and fio's IOMeter file-server mix (weighted block sizes, 80 % reads). Each thread
// owns one file; I/O goes through pread/pwrite, or io_uring when --iodepth > 1.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runner/workloads/latency.h"
#include "runner/workloads/report.h"

namespace ptsn::workloads {

enum class DiskPattern { kSeqWrite, kSeqRead, kRandRead, kRandWrite, kFileServer };
enum class FsyncPolicy { kNone, kEnd, kEvery };

DiskPattern ParseDiskPattern(const std::string& text);   // throws naming the choices
const char* DiskPatternName(DiskPattern p);
FsyncPolicy ParseFsyncPolicy(const std::string& text);    // none | end | every
const char* FsyncPolicyName(FsyncPolicy p);

struct DiskOptions {
  DiskPattern pattern = DiskPattern::kSeqWrite;
  uint64_t block_size = 1 << 20;  // record size; ignored by kFileServer (its own mix)
  uint64_t size = 256ull << 20;   // file size per thread
  std::string dir;                // the directory under test; a scratch subdirectory is made in it
  bool direct = false;            // O_DIRECT
  FsyncPolicy fsync = FsyncPolicy::kEnd;  // writes: fsync at the end (timed) by default
  int threads = 1;
  int iodepth = 1;                // > 1: io_uring with that many requests in flight per thread
  bool zero_data = false;         // default: incompressible random data
  bool keep_cache = false;        // reads: do not drop the laid-out file from the page cache
};

struct DiskStats {
  uint64_t bytes = 0;
  uint64_t ops = 0;
  uint64_t read_ops = 0, write_ops = 0;
  double seconds = 0;       // wall time of the timed phase
  double cpu_seconds = 0;   // user + system time of this process during it
  std::string engine;       // "psync" or "io_uring" (or "psync (io_uring unavailable: why)")
  LatencyHistogram latency;
  std::vector<std::string> files;  // the data files (gone after the run; for tests)
  std::vector<uint64_t> file_sizes;
};

// Throws ptsn::Error on bad options, short free space, I/O errors (naming the file) and
// interruption (exit code 128 + signal) — after removing the scratch directory.
DiskStats RunDiskWorkload(const DiskOptions& options);

Report DiskReport(const DiskOptions& options, const DiskStats& stats);

// Latency percentiles as report fields "<prefix>p50_us" ... with text labels "Latency p50".
void AddLatencyFields(Report& r, const LatencyHistogram& h);

// The pseudo-random generator the workloads use for data and offsets (xoshiro256**).
struct Rng {
  uint64_t s[4];
  explicit Rng(uint64_t seed);
  uint64_t Next();
  uint64_t Below(uint64_t n) { return n ? Next() % n : 0; }
  void Fill(uint8_t* p, size_t n);
};

}  // namespace ptsn::workloads
