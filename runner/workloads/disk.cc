#include "runner/workloads/disk.h"

#include <fcntl.h>
#include <liburing.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <latch>
#include <memory>
#include <numeric>
#include <thread>

#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/workloads/scratch.h"
#include "runner/workloads/units.h"

namespace ptsn::workloads {

// ---- names ------------------------------------------------------------------------------------

namespace {
struct PatternName {
  DiskPattern p;
  const char* name;
};
constexpr PatternName kPatterns[] = {{DiskPattern::kSeqWrite, "seq-write"}, {DiskPattern::kSeqRead, "seq-read"},
                                     {DiskPattern::kRandRead, "rand-read"}, {DiskPattern::kRandWrite, "rand-write"},
                                     {DiskPattern::kFileServer, "file-server"}};
}  // namespace

DiskPattern ParseDiskPattern(const std::string& text) {
  for (const auto& p : kPatterns)
    if (text == p.name) return p.p;
  throw Error("--pattern: '" + text + "' is not one of seq-write, seq-read, rand-read, rand-write, file-server");
}

const char* DiskPatternName(DiskPattern p) {
  for (const auto& n : kPatterns)
    if (n.p == p) return n.name;
  return "?";
}

FsyncPolicy ParseFsyncPolicy(const std::string& text) {
  if (text == "none") return FsyncPolicy::kNone;
  if (text == "end") return FsyncPolicy::kEnd;
  if (text == "every") return FsyncPolicy::kEvery;
  throw Error("--fsync: '" + text + "' is not one of none, end, every");
}

const char* FsyncPolicyName(FsyncPolicy p) {
  return p == FsyncPolicy::kNone ? "none" : p == FsyncPolicy::kEnd ? "end" : "every";
}

// ---- random numbers ---------------------------------------------------------------------------

Rng::Rng(uint64_t seed) {
  for (auto& x : s) {  // splitmix64 seeding
    seed += 0x9e3779b97f4a7c15ull;
    uint64_t z = seed;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    x = z ^ (z >> 31);
  }
}

uint64_t Rng::Next() {
  auto rotl = [](uint64_t x, int k) { return (x << k) | (x >> (64 - k)); };
  uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

void Rng::Fill(uint8_t* p, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t v = Next();
    std::memcpy(p + i, &v, 8);
  }
  for (; i < n; ++i) p[i] = static_cast<uint8_t>(Next());
}

namespace {

// ---- helpers ----------------------------------------------------------------------------------

uint64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

double CpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto tv = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return tv(ru.ru_utime) + tv(ru.ru_stime);
}

struct AlignedBuffer {
  uint8_t* data = nullptr;
  explicit AlignedBuffer(size_t n) {
    if (posix_memalign(reinterpret_cast<void**>(&data), 4096, std::max<size_t>(n, 4096)) != 0) throw std::bad_alloc();
  }
  ~AlignedBuffer() { std::free(data); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
};

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

struct Op {
  uint64_t offset = 0;
  uint32_t length = 0;
  bool write = false;
};

// fio's iometer-file-access-server.fio: bssplit=512/10:1k/5:2k/5:4k/60:8k/2:16k/4:32k/4:64k/10,
// rwmixread=80.
struct SizeWeight {
  uint32_t size, percent;
};
constexpr SizeWeight kFileServerMix[] = {{512, 10}, {1024, 5}, {2048, 5},   {4096, 60},
                                         {8192, 2}, {16384, 4}, {32768, 4}, {65536, 10}};
constexpr uint32_t kMaxFileServerBlock = 65536;

// The operations one thread issues, in order.
class OpSource {
 public:
  OpSource(const DiskOptions& o, int thread) : o_(o), rng_(0x5eed0000u + static_cast<uint64_t>(thread)) {
    blocks_ = o.size / o.block_size;
    if (o.pattern == DiskPattern::kRandRead || o.pattern == DiskPattern::kRandWrite) {
      // Every block exactly once, in random order (fio's random map does the same).
      order_.resize(blocks_);
      std::iota(order_.begin(), order_.end(), 0);
      for (uint64_t i = blocks_; i > 1; --i) std::swap(order_[i - 1], order_[rng_.Below(i)]);
    }
  }

  bool Next(Op& op) {
    switch (o_.pattern) {
      case DiskPattern::kFileServer: {
        if (bytes_ >= o_.size) return false;
        uint64_t pick = rng_.Below(100), acc = 0;
        uint32_t len = kFileServerMix[0].size;
        for (const auto& w : kFileServerMix) {
          acc += w.percent;
          if (pick < acc) {
            len = w.size;
            break;
          }
        }
        op.length = len;
        op.offset = rng_.Below((o_.size - len) / 512 + 1) * 512;
        op.write = rng_.Below(100) >= 80;
        bytes_ += len;
        return true;
      }
      default:
        if (next_ >= blocks_) return false;
        op.length = static_cast<uint32_t>(o_.block_size);
        op.offset = (order_.empty() ? next_ : order_[next_]) * o_.block_size;
        op.write = o_.pattern == DiskPattern::kSeqWrite || o_.pattern == DiskPattern::kRandWrite;
        ++next_;
        return true;
    }
  }

 private:
  const DiskOptions& o_;
  Rng rng_;
  uint64_t blocks_ = 0, next_ = 0, bytes_ = 0;
  std::vector<uint64_t> order_;
};

constexpr size_t kPoolBytes = 8u << 20;

// Random (or zero) data that writes are taken from: a different 4 KiB-aligned window per write,
// so neither compression nor block de-duplication can shortcut the work.
class DataPool {
 public:
  DataPool(bool zero, uint64_t seed, size_t max_block) : buf_(kPoolBytes + max_block) {
    if (zero) std::memset(buf_.data, 0, kPoolBytes + max_block);
    else Rng(seed).Fill(buf_.data, kPoolBytes + max_block);
  }
  const uint8_t* For(uint64_t k) const { return buf_.data + ((k * 4096 * 37) % kPoolBytes); }

 private:
  AlignedBuffer buf_;
};

struct ThreadResult {
  uint64_t bytes = 0, reads = 0, writes = 0;
  LatencyHistogram latency;
  std::string error;
};

void CheckTransfer(ssize_t n, const Op& op, const std::string& file) {
  if (n < 0) throw FileError(file, std::string(op.write ? "write" : "read") + " failed: " + std::strerror(static_cast<int>(-n)));
  if (static_cast<uint64_t>(n) != op.length)
    throw FileError(file, "short " + std::string(op.write ? "write" : "read") + " at offset " + std::to_string(op.offset) +
                              " (" + std::to_string(n) + " of " + std::to_string(op.length) + " bytes)");
}

void CountOp(ThreadResult& r, const Op& op, uint64_t ns) {
  r.bytes += op.length;
  (op.write ? r.writes : r.reads)++;
  r.latency.Record(ns);
}

void RunSync(const DiskOptions& o, int fd, const std::string& file, OpSource& src, const DataPool& pool, ThreadResult& r) {
  AlignedBuffer rbuf(std::max<uint64_t>(o.block_size, kMaxFileServerBlock));
  Op op;
  for (uint64_t k = 0; !Interrupted() && src.Next(op); ++k) {
    uint64_t t0 = NowNs();
    ssize_t n = op.write ? pwrite(fd, pool.For(k), op.length, static_cast<off_t>(op.offset))
                         : pread(fd, rbuf.data, op.length, static_cast<off_t>(op.offset));
    CheckTransfer(n < 0 ? -errno : n, op, file);
    if (op.write && o.fsync == FsyncPolicy::kEvery && fsync(fd) != 0) throw FileError(file, Errno("fsync"));
    CountOp(r, op, NowNs() - t0);
  }
}

void RunUring(const DiskOptions& o, int fd, const std::string& file, OpSource& src, const DataPool& pool, ThreadResult& r) {
  io_uring ring;
  unsigned depth = static_cast<unsigned>(o.iodepth);
  if (int e = io_uring_queue_init(depth, &ring, 0); e < 0)
    throw Error(std::string("io_uring: cannot set up a ring of depth ") + std::to_string(depth) + ": " + std::strerror(-e));
  struct Slot {
    Op op;
    uint64_t start = 0;
  };
  std::vector<Slot> slots(depth);
  AlignedBuffer rbufs(depth * std::max<uint64_t>(o.block_size, kMaxFileServerBlock));
  size_t rstride = std::max<uint64_t>(o.block_size, kMaxFileServerBlock);
  uint64_t k = 0;
  unsigned inflight = 0;
  auto submit = [&](unsigned i) -> bool {
    if (Interrupted() || !src.Next(slots[i].op)) return false;
    io_uring_sqe* sqe = io_uring_get_sqe(&ring);
    const Op& op = slots[i].op;
    if (op.write) io_uring_prep_write(sqe, fd, pool.For(k++), op.length, op.offset);
    else io_uring_prep_read(sqe, fd, rbufs.data + i * rstride, op.length, op.offset);
    io_uring_sqe_set_data64(sqe, i);
    slots[i].start = NowNs();
    ++inflight;
    return true;
  };
  try {
    for (unsigned i = 0; i < depth && submit(i);) ++i;
    while (inflight > 0) {
      if (int e = io_uring_submit_and_wait(&ring, 1); e < 0 && e != -EINTR) throw Error(std::string("io_uring: ") + std::strerror(-e));
      io_uring_cqe* cqe;
      unsigned head, seen = 0;
      std::vector<unsigned> done;
      io_uring_for_each_cqe(&ring, head, cqe) {
        unsigned i = static_cast<unsigned>(io_uring_cqe_get_data64(cqe));
        CheckTransfer(cqe->res, slots[i].op, file);
        CountOp(r, slots[i].op, NowNs() - slots[i].start);
        done.push_back(i);
        ++seen;
      }
      io_uring_cq_advance(&ring, seen);
      inflight -= seen;
      for (unsigned i : done) submit(i);
    }
  } catch (...) {
    io_uring_queue_exit(&ring);
    throw;
  }
  io_uring_queue_exit(&ring);
}

// Writes the whole file (untimed) so that reads find real data, then drops it from the page cache.
void LayOut(const std::string& file, uint64_t size, bool zero, uint64_t seed, bool drop_cache) {
  int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw FileError(file, Errno("cannot create"));
  DataPool pool(zero, seed, 1 << 20);
  for (uint64_t off = 0, k = 0; off < size && !Interrupted(); off += 1 << 20, ++k) {
    size_t len = static_cast<size_t>(std::min<uint64_t>(1 << 20, size - off));
    if (pwrite(fd, pool.For(k), len, static_cast<off_t>(off)) != static_cast<ssize_t>(len)) {
      std::string err = Errno("cannot lay out the file");
      close(fd);
      throw FileError(file, err);
    }
  }
  if (fsync(fd) != 0) throw FileError(file, Errno("fsync"));
  if (drop_cache) posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  close(fd);
}

}  // namespace

DiskStats RunDiskWorkload(const DiskOptions& o) {
  if (o.threads < 1 || o.iodepth < 1) throw Error("--threads and --iodepth must be at least 1");
  bool file_server = o.pattern == DiskPattern::kFileServer;
  if (!file_server && o.size < o.block_size)
    throw Error("--size " + FormatSize(o.size) + " is smaller than --block-size " + FormatSize(o.block_size));
  if (file_server && o.size < kMaxFileServerBlock) throw Error("--size must be at least 64 KiB for file-server");
  if (o.direct && !file_server && o.block_size % 512 != 0) throw Error("--direct needs a block size that is a multiple of 512");
  if (o.fsync == FsyncPolicy::kEvery && o.iodepth > 1) throw Error("--fsync every needs --iodepth 1");
  if (o.dir.empty()) throw Error("no directory under test (--dir)");

  InterruptGuard guard;  // declared before the scratch directory: removed after it
  ScratchDir scratch(o.dir, o.size * static_cast<uint64_t>(o.threads), "disk");
  DiskStats stats;
  DiskOptions effective = o;
  stats.engine = "psync";
  if (o.iodepth > 1) {
    // Kernels or sandboxes without io_uring: plain threads with pread/pwrite, and the report says so.
    io_uring probe;
    if (int e = io_uring_queue_init(static_cast<unsigned>(o.iodepth), &probe, 0); e < 0) {
      stats.engine = std::string("psync (io_uring unavailable: ") + std::strerror(-e) + ")";
      effective.iodepth = 1;
    } else {
      io_uring_queue_exit(&probe);
      stats.engine = "io_uring";
    }
  }
  bool reads_existing = o.pattern == DiskPattern::kSeqRead || o.pattern == DiskPattern::kRandRead || file_server;
  std::vector<int> fds(o.threads, -1);
  auto close_all = [&] {
    for (int& fd : fds)
      if (fd >= 0) close(fd), fd = -1;
  };
  for (int t = 0; t < o.threads; ++t) {
    std::string file = scratch.File("data." + std::to_string(t));
    stats.files.push_back(file);
    if (reads_existing) LayOut(file, o.size, o.zero_data, 1000 + static_cast<uint64_t>(t), !o.keep_cache);
    int flags = O_RDWR | O_CREAT | O_CLOEXEC | (o.direct ? O_DIRECT : 0);
    fds[t] = open(file.c_str(), flags, 0600);
    if (fds[t] < 0) {
      std::string err = Errno(o.direct ? "cannot open with O_DIRECT" : "cannot open");
      close_all();
      throw FileError(file, err);
    }
    // Reserve the space up front as fio does, so the write patterns measure writing, not allocating.
    if (!reads_existing) posix_fallocate(fds[t], 0, static_cast<off_t>(o.size));
  }
  if (Interrupted()) {
    close_all();
    throw Error("interrupted; scratch directory removed", 128 + InterruptSignal());
  }

  std::vector<ThreadResult> results(o.threads);
  std::latch ready(o.threads + 1);
  std::atomic<bool> go{false};
  std::vector<std::thread> workers;
  for (int t = 0; t < o.threads; ++t) {
    workers.emplace_back([&, t] {
      ThreadResult& r = results[t];
      bool counted = false;
      try {
        OpSource src(effective, t);
        DataPool pool(o.zero_data, 77 + static_cast<uint64_t>(t), std::max<uint64_t>(o.block_size, kMaxFileServerBlock));
        ready.count_down();
        counted = true;
        while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
        if (effective.iodepth > 1) RunUring(effective, fds[t], stats.files[t], src, pool, r);
        else RunSync(effective, fds[t], stats.files[t], src, pool, r);
        if (r.writes > 0 && o.fsync == FsyncPolicy::kEnd && fsync(fds[t]) != 0) throw FileError(stats.files[t], Errno("fsync"));
      } catch (const std::exception& e) {
        r.error = e.what();
        if (!counted) ready.count_down();
      }
    });
  }
  ready.arrive_and_wait();
  double cpu0 = CpuSeconds();
  uint64_t t0 = NowNs();
  go.store(true, std::memory_order_release);
  for (auto& w : workers) w.join();
  stats.seconds = static_cast<double>(NowNs() - t0) / 1e9;
  stats.cpu_seconds = CpuSeconds() - cpu0;
  for (int t = 0; t < o.threads; ++t) {
    off_t end = lseek(fds[t], 0, SEEK_END);
    stats.file_sizes.push_back(end < 0 ? 0 : static_cast<uint64_t>(end));
  }
  close_all();
  for (const auto& r : results) {
    if (!r.error.empty()) throw Error(r.error);
    stats.bytes += r.bytes;
    stats.read_ops += r.reads;
    stats.write_ops += r.writes;
    stats.latency.Merge(r.latency);
  }
  stats.ops = stats.read_ops + stats.write_ops;
  if (Interrupted()) throw Error("interrupted; scratch directory removed", 128 + InterruptSignal());
  return stats;
}

void AddLatencyFields(Report& r, const LatencyHistogram& h) {
  r.Number("latency_mean_us", "Latency mean", h.MeanMicros(), "us");
  for (auto [p, key, label] : {std::tuple{50.0, "latency_p50_us", "Latency p50"},
                               std::tuple{95.0, "latency_p95_us", "Latency p95"},
                               std::tuple{99.0, "latency_p99_us", "Latency p99"},
                               std::tuple{99.9, "latency_p99_9_us", "Latency p99.9"}})
    r.Number(key, label, h.PercentileMicros(p), "us");
  r.Number("latency_max_us", "Latency max", h.MaxMicros(), "us");
}

Report DiskReport(const DiskOptions& o, const DiskStats& s) {
  Report r;
  double secs = s.seconds > 0 ? s.seconds : 1e-9;
  r.Text("workload", "Workload", "disk");
  r.Text("pattern", "Pattern", DiskPatternName(o.pattern));
  if (o.pattern == DiskPattern::kFileServer) r.Text("block_size", "Block size", "iometer-file-server-mix");
  else r.Integer("block_size", "Block size", static_cast<int64_t>(o.block_size), "bytes");
  r.Integer("size_per_thread", "Size per thread", static_cast<int64_t>(o.size), "bytes");
  r.Integer("threads", "Threads", o.threads);
  r.Integer("iodepth", "IO depth", o.iodepth);
  r.Text("engine", "Engine", s.engine);
  r.Flag("direct", o.direct);
  r.Text("fsync", "Fsync", FsyncPolicyName(o.fsync));
  r.Text("data", "", o.zero_data ? "zero" : "random");
  r.Integer("bytes", "Bytes", static_cast<int64_t>(s.bytes));
  r.Integer("ops", "Operations", static_cast<int64_t>(s.ops));
  r.Number("seconds", "Time", s.seconds, "s");
  r.Number("mib_per_s", "Throughput", static_cast<double>(s.bytes) / kMiB / secs, "MiB/s");
  r.Number("mb_per_s", "", static_cast<double>(s.bytes) / 1e6 / secs);
  r.Number("iops", "IOPS", static_cast<double>(s.ops) / secs);
  r.Number("cpu_percent", "CPU", 100.0 * s.cpu_seconds / secs, "%");
  AddLatencyFields(r, s.latency);
  return r;
}

}  // namespace ptsn::workloads
