#include "runner/workloads/fs_workloads.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <latch>
#include <thread>
#include <vector>

#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/workloads/disk.h"
#include "runner/workloads/clocks.h"
#include "runner/workloads/scratch.h"
#include "runner/workloads/units.h"

namespace ptsn::workloads {
namespace {

using Clock = std::chrono::steady_clock;



std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

std::vector<uint8_t> MakeData(size_t n, bool zero, uint64_t seed) {
  std::vector<uint8_t> v(n);
  if (!zero) Rng(seed).Fill(v.data(), n);
  return v;
}

// Writes `size` bytes from `data` (a rotating window, each 4 KiB block stamped unique) in `chunk`s.
void WriteAll(int fd, const std::string& file, std::vector<uint8_t>& data, uint64_t size, size_t chunk, uint64_t salt,
              bool stamp = true) {
  uint64_t done = 0;
  size_t window = data.size() - chunk;
  while (done < size) {
    size_t len = static_cast<size_t>(std::min<uint64_t>(chunk, size - done));
    uint8_t* src = data.data() + ((salt * 4096 + done) % (window + 1));
    if (stamp) StampBlocks(src, len, (salt << 32) ^ done);
    ssize_t n = write(fd, src, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw FileError(file, Errno("write failed"));
    }
    done += static_cast<uint64_t>(n);
  }
}

}  // namespace

void CountFiles(const std::string& dir, uint64_t* files, uint64_t* bytes) {
  *files = *bytes = 0;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec); !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec)) {
      ++*files;
      *bytes += it->file_size(ec);
    }
  }
}

// ---- FS-Mark-like ------------------------------------------------------------------------------

FsFilesStats RunFsFiles(const FsFilesOptions& o) {
  if (o.threads < 1 || o.dirs < 1 || o.files < 1) throw Error("--files, --threads and --dirs must be at least 1");
  InterruptGuard guard;
  ScratchDir scratch(o.dir, o.files * static_cast<uint64_t>(o.threads) * (o.file_size + 4096), "fs-files");
  for (int t = 0; t < o.threads; ++t)
    for (int d = 0; d < o.dirs; ++d) MakeDirectories(scratch.File("t" + std::to_string(t) + "/d" + std::to_string(d)));

  struct PerThread {
    uint64_t files = 0, bytes = 0;
    LatencyHistogram latency;
    std::string error;
  };
  std::vector<PerThread> per(o.threads);
  size_t chunk = static_cast<size_t>(std::min<uint64_t>(o.file_size, 1 << 20));
  std::latch ready(o.threads + 1);
  std::atomic<bool> go{false};
  std::vector<std::thread> workers;
  for (int t = 0; t < o.threads; ++t) {
    workers.emplace_back([&, t] {
      PerThread& me = per[t];
      bool counted = false;
      try {
        auto data = MakeData(chunk + (1 << 16), o.zero_data, 500 + static_cast<uint64_t>(t));
        ready.count_down();
        counted = true;
        while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
        for (uint64_t i = 0; i < o.files && !Interrupted(); ++i) {
          std::string file = scratch.File("t" + std::to_string(t) + "/d" + std::to_string(i % static_cast<uint64_t>(o.dirs)) +
                                          "/f" + std::to_string(i));
          uint64_t t0 = NowNs();
          int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
          if (fd < 0) throw FileError(file, Errno("cannot create"));
          try {
            WriteAll(fd, file, data, o.file_size, chunk, i, !o.zero_data);
            if (o.fsync && fsync(fd) != 0) throw FileError(file, Errno("fsync"));
          } catch (...) {
            close(fd);
            throw;
          }
          if (close(fd) != 0) throw FileError(file, Errno("close"));
          me.latency.Record(NowNs() - t0);
          ++me.files;
          me.bytes += o.file_size;
        }
      } catch (const std::exception& e) {
        me.error = e.what();
        if (!counted) ready.count_down();
      }
    });
  }
  ready.arrive_and_wait();
  const std::optional<MachineCpu> machine0 = MachineCpuSeconds();
  double cpu0 = ProcessCpuSeconds();
  auto start = Clock::now();
  go.store(true, std::memory_order_release);
  for (auto& w : workers) w.join();
  FsFilesStats s;
  s.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  s.cpu_seconds = ProcessCpuSeconds() - cpu0;
  s.machine_cpu = CpuBetween(machine0, MachineCpuSeconds());
  for (const auto& p : per) {
    if (!p.error.empty()) throw Error(p.error);
    s.files_created += p.files;
    s.bytes_written += p.bytes;
    s.latency.Merge(p.latency);
  }
  ThrowIfInterrupted();
  CountFiles(scratch.path(), &s.files_on_disk, &s.bytes_on_disk);
  return s;
}

Report FsFilesReport(const FsFilesOptions& o, const FsFilesStats& s) {
  Report r;
  double secs = s.seconds > 0 ? s.seconds : 1e-9;
  r.Text("workload", "Workload", "fs-files");
  r.Integer("files_per_thread", "Files per thread", static_cast<int64_t>(o.files));
  r.Integer("file_size", "File size", static_cast<int64_t>(o.file_size), "bytes");
  r.Integer("threads", "Threads", o.threads);
  r.Integer("dirs", "Directories per thread", o.dirs);
  r.Flag("fsync", o.fsync);
  r.Integer("files_created", "Files created", static_cast<int64_t>(s.files_created));
  r.Integer("bytes_written", "Bytes written", static_cast<int64_t>(s.bytes_written));
  r.Number("seconds", "Time", s.seconds, "s");
  r.Number("files_per_s", "Files", static_cast<double>(s.files_created) / secs, "files/s");
  r.Number("mib_per_s", "Throughput", static_cast<double>(s.bytes_written) / kMiB / secs, "MiB/s");
  r.Number("cpu_percent", "CPU", 100.0 * s.cpu_seconds / secs, "%");
  AddLatencyFields(r, s.latency);
  AddCpuPerGiBFields(r, s.machine_cpu, s.bytes_written);
  return r;
}

// ---- PostMark-like -----------------------------------------------------------------------------

MailServerStats RunMailServer(const MailServerOptions& o) {
  if (o.files < 1 || o.subdirs < 1 || o.min_size > o.max_size || o.io_size < 1)
    throw Error("mail-server: --files and --subdirs must be at least 1 and --min-size <= --max-size");
  InterruptGuard guard;
  ScratchDir scratch(o.dir, 2 * o.files * o.max_size, "mail-server");
  for (int d = 0; d < o.subdirs; ++d) MakeDirectories(scratch.File("s" + std::to_string(d)));
  Rng rng(o.seed);
  auto data = MakeData(o.io_size + (1 << 20), false, o.seed + 1);
  std::vector<uint8_t> rbuf(o.io_size);
  struct MailFile {
    std::string path;
    uint64_t size;
  };
  std::vector<MailFile> pool;
  uint64_t next_id = 0;
  MailServerStats s;

  auto random_size = [&] { return o.min_size + rng.Below(o.max_size - o.min_size + 1); };
  auto create = [&] {
    MailFile f{scratch.File("s" + std::to_string(next_id % static_cast<uint64_t>(o.subdirs)) + "/m" + std::to_string(next_id)), random_size()};
    ++next_id;
    int fd = open(f.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) throw FileError(f.path, Errno("cannot create"));
    WriteAll(fd, f.path, data, f.size, static_cast<size_t>(o.io_size), next_id);
    if (o.fsync) fsync(fd);
    close(fd);
    s.bytes_written += f.size;
    ++s.created;
    pool.push_back(std::move(f));
  };
  auto remove_at = [&](size_t i) {
    if (unlink(pool[i].path.c_str()) != 0) throw FileError(pool[i].path, Errno("cannot delete"));
    pool[i] = std::move(pool.back());
    pool.pop_back();
    ++s.deleted;
  };

  auto begin = Clock::now();
  for (uint64_t i = 0; i < o.files && !Interrupted(); ++i) create();
  double cpu0 = ProcessCpuSeconds();
  auto tx_start = Clock::now();
  for (uint64_t i = 0; i < o.transactions && !Interrupted(); ++i) {
    uint64_t t0 = NowNs();
    if (!pool.empty()) {
      MailFile& f = pool[rng.Below(pool.size())];
      if (rng.Below(2) == 0) {  // read the whole file
        int fd = open(f.path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) throw FileError(f.path, Errno("cannot open"));
        ssize_t n;
        while ((n = read(fd, rbuf.data(), rbuf.size())) > 0) s.bytes_read += static_cast<uint64_t>(n);
        close(fd);
        if (n < 0) throw FileError(f.path, Errno("read failed"));
        ++s.reads;
      } else {  // append
        int fd = open(f.path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
        if (fd < 0) throw FileError(f.path, Errno("cannot open"));
        uint64_t extra = random_size() / 4 + 1;
        WriteAll(fd, f.path, data, extra, static_cast<size_t>(o.io_size), i);
        if (o.fsync) fsync(fd);
        close(fd);
        f.size += extra;
        s.bytes_written += extra;
        ++s.appends;
      }
    }
    if (rng.Below(2) == 0 || pool.empty()) {
      create();
      ++s.tx_created;
    } else {
      remove_at(static_cast<size_t>(rng.Below(pool.size())));
      ++s.tx_deleted;
    }
    s.latency.Record(NowNs() - t0);
    ++s.transactions;
  }
  s.seconds = std::chrono::duration<double>(Clock::now() - tx_start).count();
  s.cpu_seconds = ProcessCpuSeconds() - cpu0;
  ThrowIfInterrupted();
  uint64_t bytes_on_disk = 0;
  CountFiles(scratch.path(), &s.files_on_disk, &bytes_on_disk);
  while (!pool.empty()) remove_at(pool.size() - 1);
  s.total_seconds = std::chrono::duration<double>(Clock::now() - begin).count();
  return s;
}

Report MailServerReport(const MailServerOptions& o, const MailServerStats& s) {
  Report r;
  double secs = s.seconds > 0 ? s.seconds : 1e-9;
  r.Text("workload", "Workload", "mail-server");
  r.Integer("initial_files", "Initial files", static_cast<int64_t>(o.files));
  r.Integer("transactions", "Transactions", static_cast<int64_t>(s.transactions));
  r.Integer("min_size", "", static_cast<int64_t>(o.min_size));
  r.Integer("max_size", "", static_cast<int64_t>(o.max_size));
  r.Integer("files_created", "Files created", static_cast<int64_t>(s.created));
  r.Integer("files_deleted", "Files deleted", static_cast<int64_t>(s.deleted));
  r.Integer("transaction_creates", "", static_cast<int64_t>(s.tx_created));
  r.Integer("transaction_deletes", "", static_cast<int64_t>(s.tx_deleted));
  r.Integer("reads", "", static_cast<int64_t>(s.reads));
  r.Integer("appends", "", static_cast<int64_t>(s.appends));
  r.Integer("bytes_read", "", static_cast<int64_t>(s.bytes_read));
  r.Integer("bytes_written", "", static_cast<int64_t>(s.bytes_written));
  r.Number("seconds", "Time", s.seconds, "s");
  r.Number("tps", "Transactions per second", static_cast<double>(s.transactions) / secs, "TPS");
  r.Number("total_seconds", "", s.total_seconds);
  r.Number("cpu_percent", "CPU", 100.0 * s.cpu_seconds / secs, "%");
  AddLatencyFields(r, s.latency);
  return r;
}

}  // namespace ptsn::workloads
