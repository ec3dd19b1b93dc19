// File-system workloads on many small files: creation with fsync (FS-Mark-like) and mail-server
// transactions (PostMark-like). Both count what they left on disk before cleaning up, so tests
// can check the work was really done.
#pragma once

#include <cstdint>
#include <string>

#include "runner/workloads/clocks.h"
#include "runner/workloads/latency.h"
#include "runner/workloads/report.h"

namespace ptsn::workloads {

struct FsFilesOptions {
  std::string dir;
  uint64_t files = 1000;        // per thread, as fs_mark's -n
  uint64_t file_size = 1 << 20;
  int threads = 1;
  int dirs = 1;                 // subdirectories per thread, files spread round-robin (-D)
  bool fsync = true;            // fsync each file before close (fs_mark's default)
  bool zero_data = false;
};

struct FsFilesStats {
  uint64_t files_created = 0, bytes_written = 0;
  uint64_t files_on_disk = 0, bytes_on_disk = 0;  // counted before cleanup
  double seconds = 0, cpu_seconds = 0;
  LatencyHistogram latency;  // per file: create + write + fsync + close
  std::optional<MachineCpu> machine_cpu;  // the whole machine's CPU time over the timed phase
};

FsFilesStats RunFsFiles(const FsFilesOptions& options);
Report FsFilesReport(const FsFilesOptions& options, const FsFilesStats& stats);

struct MailServerOptions {
  std::string dir;
  uint64_t files = 500;           // initial pool (PostMark "number")
  uint64_t transactions = 5000;   // each: read or append, then create or delete
  uint64_t min_size = 5 * 1024;   // file sizes, uniform
  uint64_t max_size = 512 * 1024;
  int subdirs = 10;
  uint64_t io_size = 4096;        // read/write request size
  bool fsync = false;             // PostMark does not sync
  uint64_t seed = 42;
};

struct MailServerStats {
  uint64_t transactions = 0;
  uint64_t created = 0, deleted = 0, reads = 0, appends = 0;  // totals: initial pool and final removal included
  uint64_t tx_created = 0, tx_deleted = 0;                    // by the transactions
  uint64_t bytes_read = 0, bytes_written = 0;
  uint64_t files_on_disk = 0;   // counted after the transactions, before cleanup
  double seconds = 0;           // transaction phase
  double total_seconds = 0;     // pool creation + transactions + deletion
  double cpu_seconds = 0;
  LatencyHistogram latency;     // per transaction
};

MailServerStats RunMailServer(const MailServerOptions& options);
Report MailServerReport(const MailServerOptions& options, const MailServerStats& stats);

// Files and bytes below `dir` (regular files only).
void CountFiles(const std::string& dir, uint64_t* files, uint64_t* bytes);

}  // namespace ptsn::workloads
