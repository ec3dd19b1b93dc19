#include "runner/workloads/disk.h"

#include <fcntl.h>
#include <libaio.h>
#include <liburing.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <latch>
#include <memory>
#include <numeric>
#include <optional>
#include <thread>

#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/workloads/clocks.h"
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

namespace {
constexpr std::pair<DiskEngine, const char*> kEngines[] = {
    {DiskEngine::kAuto, "auto"}, {DiskEngine::kPsync, "psync"}, {DiskEngine::kIoUring, "io_uring"}, {DiskEngine::kLibaio, "libaio"}};
}  // namespace

DiskEngine ParseDiskEngine(const std::string& text) {
  for (const auto& [e, name] : kEngines)
    if (text == name) return e;
  throw Error("--engine: '" + text + "' is not one of auto, psync, io_uring, libaio");
}

const char* DiskEngineName(DiskEngine e) {
  for (const auto& [engine, name] : kEngines)
    if (engine == e) return name;
  return "?";
}

std::string ProbeEngine(DiskEngine engine, unsigned depth) {
  if (engine == DiskEngine::kIoUring) {
    io_uring ring;
    if (int e = io_uring_queue_init(depth, &ring, 0); e < 0) return std::strerror(-e);
    io_uring_queue_exit(&ring);
  } else if (engine == DiskEngine::kLibaio) {
    io_context_t ctx = nullptr;
    if (int e = io_setup(static_cast<int>(depth), &ctx); e < 0) return std::strerror(-e);
    io_destroy(ctx);
  }
  return "";
}

EngineChoice ChooseEngine(const DiskOptions& o, const EngineProbe& probe) {
  unsigned depth = static_cast<unsigned>(o.iodepth);
  switch (o.engine) {
    case DiskEngine::kPsync:
      if (o.iodepth > 1) throw Error("--engine psync issues one request at a time: it takes --iodepth 1, not " + std::to_string(o.iodepth));
      return {DiskEngine::kPsync, "psync"};
    case DiskEngine::kIoUring:
    case DiskEngine::kLibaio:
      if (std::string why = probe(o.engine, depth); !why.empty())
        throw Error(std::string("--engine ") + DiskEngineName(o.engine) + " is unavailable here: " + why);
      return {o.engine, DiskEngineName(o.engine)};
    case DiskEngine::kAuto:
      break;
  }
  if (o.iodepth == 1) return {DiskEngine::kPsync, "psync"};
  std::string uring_why = probe(DiskEngine::kIoUring, depth);
  if (uring_why.empty()) return {DiskEngine::kIoUring, "io_uring"};
  std::string aio_why = probe(DiskEngine::kLibaio, depth);
  if (aio_why.empty()) return {DiskEngine::kLibaio, "libaio (io_uring unavailable: " + uring_why + ")"};
  return {DiskEngine::kPsync, "psync (io_uring unavailable: " + uring_why + "; libaio unavailable: " + aio_why + ")"};
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

void StampBlocks(uint8_t* p, size_t length, uint64_t tag) {
  for (size_t off = 0, i = 0; off + 8 <= length; off += 4096, ++i) {
    uint64_t v = tag ^ i;
    std::memcpy(p + off, &v, 8);
  }
}

std::optional<uint64_t> CachedBytes(int fd, uint64_t size) {
  if (size == 0) return 0;
  void* map = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) return std::nullopt;
  uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> resident((size + page - 1) / page);
  std::optional<uint64_t> bytes;
  if (mincore(map, size, resident.data()) == 0) {
    uint64_t pages = 0;
    for (unsigned char r : resident) pages += r & 1;
    bytes = std::min(size, pages * page);
  }
  munmap(map, size);
  return bytes;
}

namespace {

// ---- helpers ----------------------------------------------------------------------------------



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

// Random (or zero) data that writes are taken from: a different 4 KiB-aligned window of a pool per
// write, and every 4 KiB block of it stamped with a unique number just before the write (as fio's
// scramble_buffers does) — so neither compression nor block de-duplication in the storage stack
// (thin-provisioned or de-duplicating hosts) can shortcut the work. The pool holds four of the
// largest blocks (at least 256 KiB, at most 8 MiB), so the source of the copy stays in the CPU's
// cache as fio's single buffer does: drawing each 4 KiB write from another page of a fixed 8 MiB
// pool cost ~20 % more CPU per MiB in buffered 4 KiB random writes (~1700 vs ~1450 us/MiB on the
// 2-core VM, fio ~1550), for no gain: the stamps alone already make every block unique.
class DataPool {
 public:
  DataPool(bool zero, uint64_t seed, size_t max_block)
      : span_(std::min<size_t>(8u << 20, std::max<size_t>(256u << 10, 4 * max_block)) / 4096 * 4096),
        buf_(span_ + max_block),
        zero_(zero),
        seed_(seed) {
    if (zero) std::memset(buf_.data, 0, span_ + max_block);
    else Rng(seed).Fill(buf_.data, span_ + max_block);
  }
  const uint8_t* For(uint64_t k, size_t length) {
    uint8_t* p = buf_.data + ((k * 4096 * 37) % span_);
    if (!zero_) StampBlocks(p, length, (seed_ << 48) ^ (k << 16));
    return p;
  }

 private:
  size_t span_;  // windows start in [0, span_), a multiple of 4 KiB
  AlignedBuffer buf_;
  bool zero_;
  uint64_t seed_;
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

void RunSync(const DiskOptions& o, int fd, const std::string& file, OpSource& src, DataPool& pool, ThreadResult& r) {
  AlignedBuffer rbuf(std::max<uint64_t>(o.block_size, kMaxFileServerBlock));
  Op op;
  for (uint64_t k = 0; !Interrupted() && src.Next(op); ++k) {
    uint64_t t0 = NowNs();
    ssize_t n = op.write ? pwrite(fd, pool.For(k, op.length), op.length, static_cast<off_t>(op.offset))
                         : pread(fd, rbuf.data, op.length, static_cast<off_t>(op.offset));
    CheckTransfer(n < 0 ? -errno : n, op, file);
    if (op.write && o.fsync == FsyncPolicy::kEvery && fsync(fd) != 0) throw FileError(file, Errno("fsync"));
    CountOp(r, op, NowNs() - t0);
  }
}

// A queue of up to `depth` requests in flight: io_uring or Linux AIO (libaio). Prepare() queues a
// request for a slot, Submit() hands the queued ones to the kernel, Reap() waits for at least one
// completion and reports each as (slot, result: bytes or -errno).
class AsyncQueue {
 public:
  virtual ~AsyncQueue() = default;
  virtual void Prepare(unsigned slot, int fd, const Op& op, void* buf) = 0;
  virtual void Submit() = 0;
  virtual void Reap(const std::function<void(unsigned slot, long result)>& done) = 0;
};

class UringQueue : public AsyncQueue {
 public:
  explicit UringQueue(unsigned depth) {
    if (int e = io_uring_queue_init(depth, &ring_, 0); e < 0)
      throw Error("io_uring: cannot set up a ring of depth " + std::to_string(depth) + ": " + std::strerror(-e));
  }
  ~UringQueue() override { io_uring_queue_exit(&ring_); }
  void Prepare(unsigned slot, int fd, const Op& op, void* buf) override {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (op.write) io_uring_prep_write(sqe, fd, buf, op.length, op.offset);
    else io_uring_prep_read(sqe, fd, buf, op.length, op.offset);
    io_uring_sqe_set_data64(sqe, slot);
  }
  void Submit() override {
    if (int e = io_uring_submit(&ring_); e < 0) throw Error(std::string("io_uring: ") + std::strerror(-e));
  }
  void Reap(const std::function<void(unsigned, long)>& done) override {
    io_uring_cqe* cqe;
    if (int e = io_uring_wait_cqe(&ring_, &cqe); e < 0 && e != -EINTR) throw Error(std::string("io_uring: ") + std::strerror(-e));
    unsigned head, seen = 0;
    io_uring_for_each_cqe(&ring_, head, cqe) {
      done(static_cast<unsigned>(io_uring_cqe_get_data64(cqe)), cqe->res);
      ++seen;
    }
    io_uring_cq_advance(&ring_, seen);
  }

 private:
  io_uring ring_;
};

class AioQueue : public AsyncQueue {
 public:
  explicit AioQueue(unsigned depth) : iocbs_(depth), events_(depth) {
    if (int e = io_setup(static_cast<int>(depth), &ctx_); e < 0)
      throw Error("libaio: cannot set up a context of depth " + std::to_string(depth) + ": " + std::strerror(-e));
  }
  ~AioQueue() override { io_destroy(ctx_); }
  void Prepare(unsigned slot, int fd, const Op& op, void* buf) override {
    iocb& cb = iocbs_[slot];
    if (op.write) io_prep_pwrite(&cb, fd, buf, op.length, static_cast<long long>(op.offset));
    else io_prep_pread(&cb, fd, buf, op.length, static_cast<long long>(op.offset));
    cb.data = reinterpret_cast<void*>(static_cast<uintptr_t>(slot));
    queued_.push_back(&cb);
  }
  void Submit() override {
    for (size_t i = 0; i < queued_.size();) {
      int n = io_submit(ctx_, static_cast<long>(queued_.size() - i), queued_.data() + i);
      if (n == -EINTR || n == -EAGAIN) continue;
      if (n <= 0) throw Error(std::string("libaio: io_submit: ") + std::strerror(n < 0 ? -n : EIO));
      i += static_cast<size_t>(n);
    }
    queued_.clear();
  }
  void Reap(const std::function<void(unsigned, long)>& done) override {
    int n = io_getevents(ctx_, 1, static_cast<long>(events_.size()), events_.data(), nullptr);
    if (n == -EINTR) return;
    if (n < 0) throw Error(std::string("libaio: io_getevents: ") + std::strerror(-n));
    for (int i = 0; i < n; ++i)
      done(static_cast<unsigned>(reinterpret_cast<uintptr_t>(events_[i].data)), static_cast<long>(events_[i].res));
  }

 private:
  io_context_t ctx_ = nullptr;
  std::vector<iocb> iocbs_;
  std::vector<iocb*> queued_;
  std::vector<io_event> events_;
};

std::unique_ptr<AsyncQueue> MakeQueue(DiskEngine engine, unsigned depth) {
  if (engine == DiskEngine::kLibaio) return std::make_unique<AioQueue>(depth);
  return std::make_unique<UringQueue>(depth);
}

// Keeps `iodepth` requests in flight: each completion is counted and its slot refilled at once.
void RunAsync(const DiskOptions& o, DiskEngine engine, int fd, const std::string& file, OpSource& src, DataPool& pool,
              ThreadResult& r) {
  unsigned depth = static_cast<unsigned>(o.iodepth);
  auto queue = MakeQueue(engine, depth);
  struct Slot {
    Op op;
    uint64_t start = 0;
  };
  std::vector<Slot> slots(depth);
  size_t rstride = std::max<uint64_t>(o.block_size, kMaxFileServerBlock);
  AlignedBuffer rbufs(depth * rstride);
  uint64_t k = 0;
  unsigned inflight = 0;
  auto prepare = [&](unsigned i) {
    if (Interrupted() || !src.Next(slots[i].op)) return false;
    const Op& op = slots[i].op;
    void* buf = op.write ? const_cast<uint8_t*>(pool.For(k++, op.length)) : rbufs.data + i * rstride;
    queue->Prepare(i, fd, op, buf);
    slots[i].start = NowNs();
    ++inflight;
    return true;
  };
  for (unsigned i = 0; i < depth && prepare(i);) ++i;
  std::vector<unsigned> done;
  while (inflight > 0) {
    queue->Submit();
    done.clear();
    queue->Reap([&](unsigned i, long res) {
      CheckTransfer(res, slots[i].op, file);
      CountOp(r, slots[i].op, NowNs() - slots[i].start);
      done.push_back(i);
    });
    inflight -= static_cast<unsigned>(done.size());
    for (unsigned i : done) prepare(i);
  }
}

// Writes the whole file (untimed) so that reads find real data, then drops it from the page cache.
void LayOut(const std::string& file, uint64_t size, bool zero, uint64_t seed, bool drop_cache) {
  int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw FileError(file, Errno("cannot create"));
  DataPool pool(zero, seed, 1 << 20);
  for (uint64_t off = 0, k = 0; off < size && !Interrupted(); off += 1 << 20, ++k) {
    size_t len = static_cast<size_t>(std::min<uint64_t>(1 << 20, size - off));
    if (pwrite(fd, pool.For(k, len), len, static_cast<off_t>(off)) != static_cast<ssize_t>(len)) {
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
  if (o.dir.empty() && o.file.empty()) throw Error("no directory under test (--dir)");

  bool reads_existing = o.pattern == DiskPattern::kSeqRead || o.pattern == DiskPattern::kRandRead || file_server;
  if (!o.file.empty()) {
    if (o.pattern != DiskPattern::kSeqRead && o.pattern != DiskPattern::kRandRead)
      throw Error("--file reads an existing file: it takes --pattern seq-read or rand-read");
    if (o.threads != 1) throw Error("--file takes one thread (--threads 1)");
  }

  InterruptGuard guard;  // declared before the scratch directory: removed after it
  std::optional<ScratchDir> scratch;
  if (o.file.empty()) scratch.emplace(o.dir, o.size * static_cast<uint64_t>(o.threads), "disk");
  DiskStats stats;
  DiskOptions effective = o;
  EngineChoice engine = ChooseEngine(o, ProbeEngine);
  stats.engine = engine.label;
  if (engine.engine == DiskEngine::kPsync) effective.iodepth = 1;
  std::vector<int> fds(o.threads, -1);
  auto close_all = [&] {
    for (int& fd : fds)
      if (fd >= 0) close(fd), fd = -1;
  };
  bool random = o.pattern == DiskPattern::kRandRead || o.pattern == DiskPattern::kRandWrite || file_server;
  for (int t = 0; t < o.threads; ++t) {
    std::string file = o.file.empty() ? scratch->File("data." + std::to_string(t)) : o.file;
    if (o.file.empty()) stats.files.push_back(file);
    if (reads_existing && o.file.empty()) LayOut(file, o.size, o.zero_data, 1000 + static_cast<uint64_t>(t), !o.keep_cache);
    int flags = (o.file.empty() ? O_RDWR | O_CREAT : O_RDONLY) | O_CLOEXEC | (o.direct ? O_DIRECT : 0);
    fds[t] = open(file.c_str(), flags, 0600);
    if (fds[t] < 0) {
      std::string err = Errno(o.direct ? "cannot open with O_DIRECT" : "cannot open");
      close_all();
      throw FileError(file, err);
    }
    if (!o.file.empty()) {
      off_t end = lseek(fds[t], 0, SEEK_END);
      if (end < 0 || static_cast<uint64_t>(end) < o.size) {
        close_all();
        throw FileError(file, "holds " + FormatSize(end < 0 ? 0 : static_cast<uint64_t>(end)) + ", less than --size " + FormatSize(o.size));
      }
      // Start cold, as a laid-out file does (and as fio's invalidate=1 means to). Dirty pages
      // survive POSIX_FADV_DONTNEED, so a file written moments ago is flushed first — without
      // that, its unsynced tail would be read from memory (the tests caught exactly this).
      if (!o.keep_cache) {
        if (fdatasync(fds[t]) != 0 && errno != EINVAL) {
          std::string err = Errno("cannot flush before dropping it from the page cache");
          close_all();
          throw FileError(o.file, err);
        }
        posix_fadvise(fds[t], 0, 0, POSIX_FADV_DONTNEED);
      }
    }
    // Reserve the space up front as fio does, so the write patterns measure writing, not allocating.
    if (!reads_existing) posix_fallocate(fds[t], 0, static_cast<off_t>(o.size));
    // Tell the kernel the access pattern (fio's fadvise_hint): no read-ahead for random I/O, so a
    // random 4 KiB read costs one 4 KiB read from the disk.
    posix_fadvise(fds[t], 0, 0, random ? POSIX_FADV_RANDOM : POSIX_FADV_SEQUENTIAL);
  }
  if (Interrupted()) {
    close_all();
    ThrowIfInterrupted();
  }
  if (reads_existing) {
    stats.cached_at_start = 0;
    for (int fd : fds) {
      std::optional<uint64_t> cached = CachedBytes(fd, o.size);
      if (!cached) {
        stats.cached_at_start.reset();
        break;
      }
      *stats.cached_at_start += *cached;
    }
  }

  std::vector<ThreadResult> results(o.threads);
  std::vector<WorkerSpan> spans(o.threads);
  // Workers block until released (no spinning: the wait costs no CPU inside the measured window)
  // and stamp their own start and end; the last one to finish samples the process CPU time.
  std::latch ready(o.threads + 1), start(1);
  std::atomic<int> unfinished{o.threads};
  double cpu_end = 0;
  std::optional<MachineCpu> machine_end;
  auto finish = [&] {
    if (unfinished.fetch_sub(1, std::memory_order_acq_rel) == 1) cpu_end = ProcessCpuSeconds(), machine_end = MachineCpuSeconds();
  };
  std::vector<std::thread> workers;
  for (int t = 0; t < o.threads; ++t) {
    workers.emplace_back([&, t] {
      ThreadResult& r = results[t];
      bool counted = false, finished = false;
      try {
        OpSource src(effective, t);
        DataPool pool(o.zero_data, 77 + static_cast<uint64_t>(t), std::max<uint64_t>(o.block_size, kMaxFileServerBlock));
        ready.count_down();
        counted = true;
        start.wait();
        spans[t].start_ns = NowNs();
        const std::string& file = o.file.empty() ? stats.files[t] : o.file;
        if (engine.engine == DiskEngine::kPsync) RunSync(effective, fds[t], file, src, pool, r);
        else RunAsync(effective, engine.engine, fds[t], file, src, pool, r);
        if (r.writes > 0 && o.fsync == FsyncPolicy::kEnd && fsync(fds[t]) != 0) throw FileError(file, Errno("fsync"));
        spans[t].end_ns = NowNs();
        finished = true;
        finish();  // before the pool and buffers are freed: that is not the workload's work
      } catch (const std::exception& e) {
        r.error = e.what();
        if (!counted) ready.count_down();
        if (!finished) finish();
      }
    });
  }
  ready.arrive_and_wait();
  const std::optional<MachineCpu> machine0 = MachineCpuSeconds();
  double cpu0 = ProcessCpuSeconds();
  start.count_down();
  for (auto& w : workers) w.join();
  stats.seconds = PhaseSeconds(spans);
  stats.cpu_seconds = cpu_end - cpu0;
  stats.machine_cpu = CpuBetween(machine0, machine_end);
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
  ThrowIfInterrupted();
  return stats;
}

double PhaseSeconds(const std::vector<WorkerSpan>& spans) {
  uint64_t first = UINT64_MAX, last = 0;
  for (const auto& w : spans) {
    if (w.end_ns == 0) continue;  // did not run to the end (its error is reported instead)
    first = std::min(first, w.start_ns);
    last = std::max(last, w.end_ns);
  }
  return last > first ? static_cast<double>(last - first) / 1e9 : 0;
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

void AddCpuPerGiBFields(Report& r, const std::optional<MachineCpu>& cpu, uint64_t bytes) {
  if (!cpu || bytes == 0) return;
  const MachineCpu per = CpuPerGiB(*cpu, bytes);
  r.Number("cpu_user_s_per_gib", "CPU user per GiB", per.user, "s");
  r.Number("cpu_system_s_per_gib", "CPU system per GiB", per.system, "s");
  r.Number("cpu_softirq_s_per_gib", "CPU softirq per GiB", per.softirq, "s");
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
  if (!o.file.empty()) r.Text("file", "File", o.file);
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
  if (s.cached_at_start) r.Integer("cached_at_start_bytes", "Cached at start", static_cast<int64_t>(*s.cached_at_start), "bytes");
  AddLatencyFields(r, s.latency);
  AddCpuPerGiBFields(r, s.machine_cpu, s.bytes);
  return r;
}

}  // namespace ptsn::workloads
