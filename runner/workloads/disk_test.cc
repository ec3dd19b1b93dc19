#include "runner/workloads/disk.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "runner/common/error.h"
#include "runner/workloads/test_dir.h"

namespace ptsn::workloads {
namespace {

DiskOptions Small(const std::string& dir, DiskPattern p, uint64_t bs) {
  DiskOptions o;
  o.dir = dir;
  o.pattern = p;
  o.block_size = bs;
  o.size = 4 << 20;
  return o;
}

TEST(Disk, SequentialWriteWritesEveryByteAndCleansUp) {
  testing::TempDir tmp;
  auto o = Small(tmp.path(), DiskPattern::kSeqWrite, 64 * 1024);
  auto s = RunDiskWorkload(o);
  EXPECT_EQ(s.bytes, 4u << 20);
  EXPECT_EQ(s.ops, 64u);
  EXPECT_EQ(s.write_ops, 64u);
  EXPECT_EQ(s.latency.count(), 64u);
  ASSERT_EQ(s.file_sizes.size(), 1u);
  EXPECT_EQ(s.file_sizes[0], 4u << 20);
  EXPECT_EQ(s.engine, "psync");
  EXPECT_FALSE(std::filesystem::exists(s.files[0]));
  EXPECT_EQ(tmp.EntryCount(), 0u);
  auto r = DiskReport(o, s);
  EXPECT_NE(r.ToText().find("Throughput: "), std::string::npos);
  EXPECT_NE(r.Find("mib_per_s"), nullptr);
  EXPECT_NE(r.Find("iops"), nullptr);
}

// The machine's CPU time over the timed phase, per GiB moved, as three fields (what the native
// profiles' "CPU ... per GiB" results parse); none when /proc/stat could not be read.
TEST(Disk, ReportsTheMachinesCpuTimePerGiB) {
  testing::TempDir tmp;
  auto o = Small(tmp.path(), DiskPattern::kSeqWrite, 64 * 1024);
  auto s = RunDiskWorkload(o);
  ASSERT_TRUE(s.machine_cpu.has_value()) << "/proc/stat unreadable here";
  EXPECT_GE(s.machine_cpu->user, 0);
  EXPECT_GE(s.machine_cpu->system, 0);
  // 4 MiB with 3 s user, 1.5 s system, 0.25 s softirq: 768, 384 and 64 s per GiB.
  s.machine_cpu = MachineCpu{3, 1.5, 0.25};
  const std::string text = DiskReport(o, s).ToText();
  EXPECT_NE(text.find("CPU user per GiB: 768.00 s\nCPU system per GiB: 384.00 s\nCPU softirq per GiB: 64.00 s\n"),
            std::string::npos)
      << text;
  s.machine_cpu.reset();
  EXPECT_EQ(DiskReport(o, s).ToText().find("per GiB"), std::string::npos);
  EXPECT_FALSE(CpuBetween(MachineCpu{1, 1, 1}, std::nullopt));
  const auto spent = CpuBetween(MachineCpu{1, 2, 3}, MachineCpu{2, 4, 6});
  ASSERT_TRUE(spent);
  EXPECT_DOUBLE_EQ(spent->softirq, 3);
}

TEST(Disk, PhaseRunsFromTheFirstWorkerStartToTheLastEnd) {
  EXPECT_DOUBLE_EQ(PhaseSeconds({{1'000'000'000, 3'000'000'000}, {2'000'000'000, 3'500'000'000}}), 2.5);
  // A worker that failed (no end stamp) does not stretch or shrink the phase.
  EXPECT_DOUBLE_EQ(PhaseSeconds({{1'000'000'000, 0}, {2'000'000'000, 2'500'000'000}}), 0.5);
  EXPECT_EQ(PhaseSeconds({}), 0);
  EXPECT_EQ(PhaseSeconds({{5, 0}}), 0);
}

TEST(Disk, TimedPhaseHoldsEveryOperation) {
  testing::TempDir tmp;
  for (int threads : {1, 2}) {
    auto o = Small(tmp.path(), DiskPattern::kRandRead, 4096);
    o.threads = threads;
    o.keep_cache = true;
    auto s = RunDiskWorkload(o);
    // Each thread's operations lie inside the phase, one after another.
    double op_seconds = s.latency.MeanMicros() * static_cast<double>(s.latency.count()) / 1e6;
    EXPECT_GT(s.seconds, 0);
    EXPECT_LE(op_seconds, s.seconds * threads * 1.000001) << threads << " threads";
    EXPECT_GE(s.cpu_seconds, 0);
  }
}

TEST(Disk, RandomPatternsTouchEachBlockOncePerThread) {
  testing::TempDir tmp;
  for (auto p : {DiskPattern::kRandRead, DiskPattern::kRandWrite, DiskPattern::kSeqRead}) {
    auto o = Small(tmp.path(), p, 4096);
    o.threads = 2;
    auto s = RunDiskWorkload(o);
    EXPECT_EQ(s.ops, 2u * 1024u) << DiskPatternName(p);
    EXPECT_EQ(s.bytes, 2u * (4u << 20));
    EXPECT_EQ(s.file_sizes, (std::vector<uint64_t>{4u << 20, 4u << 20}));
  }
  EXPECT_EQ(tmp.EntryCount(), 0u);
}

TEST(Disk, IoUringAndDirectDoTheSameWork) {
  testing::TempDir tmp;
  auto o = Small(tmp.path(), DiskPattern::kRandWrite, 4096);
  o.iodepth = 8;
  auto s = RunDiskWorkload(o);
  EXPECT_EQ(s.engine, "io_uring");
  EXPECT_EQ(s.ops, 1024u);
  o.pattern = DiskPattern::kRandRead;
  o.direct = true;
  try {
    s = RunDiskWorkload(o);
  } catch (const Error& e) {
    GTEST_SKIP() << "O_DIRECT unsupported here: " << e.what();  // e.g. tmpfs
  }
  EXPECT_EQ(s.read_ops, 1024u);
}

TEST(Disk, LibaioDoesTheSameWorkAsPsync) {
  testing::TempDir tmp;
  if (std::string why = ProbeEngine(DiskEngine::kLibaio, 8); !why.empty()) GTEST_SKIP() << "libaio unavailable here: " << why;
  for (auto p : {DiskPattern::kRandWrite, DiskPattern::kRandRead, DiskPattern::kSeqWrite}) {
    auto o = Small(tmp.path(), p, 4096);
    o.iodepth = 8;
    o.engine = DiskEngine::kLibaio;
    auto s = RunDiskWorkload(o);
    EXPECT_EQ(s.engine, "libaio") << DiskPatternName(p);
    EXPECT_EQ(s.ops, 1024u) << DiskPatternName(p);
    EXPECT_EQ(s.bytes, 4u << 20);
    EXPECT_EQ(s.latency.count(), 1024u);
    EXPECT_EQ(s.file_sizes, (std::vector<uint64_t>{4u << 20}));
  }
  auto o = Small(tmp.path(), DiskPattern::kRandRead, 4096);
  o.iodepth = 4;
  o.engine = DiskEngine::kLibaio;
  o.direct = true;
  try {
    EXPECT_EQ(RunDiskWorkload(o).read_ops, 1024u);
  } catch (const Error& e) {
    GTEST_SKIP() << "O_DIRECT unsupported here: " << e.what();
  }
  EXPECT_EQ(tmp.EntryCount(), 0u);
}

TEST(Disk, AutoEngineFallsBackFromIoUringToLibaioToPsync) {
  DiskOptions o;
  o.iodepth = 8;
  auto none = [](DiskEngine, unsigned) { return std::string(); };
  EXPECT_EQ(ChooseEngine(o, none).engine, DiskEngine::kIoUring);
  auto no_uring = [](DiskEngine e, unsigned) { return e == DiskEngine::kIoUring ? std::string("Operation not permitted") : ""; };
  auto c = ChooseEngine(o, no_uring);
  EXPECT_EQ(c.engine, DiskEngine::kLibaio);
  EXPECT_EQ(c.label, "libaio (io_uring unavailable: Operation not permitted)");
  auto nothing = [](DiskEngine, unsigned) { return std::string("Function not implemented"); };
  c = ChooseEngine(o, nothing);
  EXPECT_EQ(c.engine, DiskEngine::kPsync);
  EXPECT_NE(c.label.find("libaio unavailable: Function not implemented"), std::string::npos) << c.label;
  o.engine = DiskEngine::kLibaio;  // asked for by name: an error, not a silent fallback
  EXPECT_THROW(ChooseEngine(o, nothing), Error);
  o.engine = DiskEngine::kPsync;
  EXPECT_THROW(ChooseEngine(o, none), Error);  // psync with --iodepth 8
  o.engine = DiskEngine::kAuto;
  o.iodepth = 1;
  EXPECT_EQ(ChooseEngine(o, none).engine, DiskEngine::kPsync);
  EXPECT_EQ(ParseDiskEngine("libaio"), DiskEngine::kLibaio);
  EXPECT_THROW(ParseDiskEngine("spdk"), Error);
}

TEST(Disk, ReadsAGivenFileInPlaceWithoutWritingIt) {
  testing::TempDir tmp;
  std::string file = tmp.path() + "/given";
  {
    std::ofstream out(file, std::ios::binary);
    std::string block(1 << 20, 'x');
    for (int i = 0; i < 3; ++i) out << block;
  }
  auto mtime = std::filesystem::last_write_time(file);
  DiskOptions o;
  o.file = file;
  o.size = 2 << 20;  // the first 2 of its 3 MiB
  for (auto p : {DiskPattern::kSeqRead, DiskPattern::kRandRead}) {
    o.pattern = p;
    o.block_size = p == DiskPattern::kSeqRead ? 1 << 20 : 4096;
    auto s = RunDiskWorkload(o);
    EXPECT_EQ(s.bytes, 2u << 20) << DiskPatternName(p);
    EXPECT_EQ(s.read_ops, (2u << 20) / o.block_size);
    EXPECT_EQ(s.write_ops, 0u);
  }
  EXPECT_EQ(std::filesystem::file_size(file), 3u << 20);
  EXPECT_EQ(std::filesystem::last_write_time(file), mtime);
  EXPECT_EQ(tmp.EntryCount(), 1u);  // no scratch directory was made beside it
  o.size = 4 << 20;  // more than it holds
  try {
    RunDiskWorkload(o);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("less than --size"), std::string::npos) << e.what();
  }
  o.size = 1 << 20;
  o.pattern = DiskPattern::kSeqWrite;  // never writes into a given file
  EXPECT_THROW(RunDiskWorkload(o), Error);
  o.file = tmp.path() + "/missing";
  o.pattern = DiskPattern::kSeqRead;
  EXPECT_THROW(RunDiskWorkload(o), Error);
}

// Reads start cold, as fio's default invalidate=1 makes them: the laid-out (or given) file is
// dropped from the page cache before the timed phase unless --keep-cache.
TEST(Disk, ReadsStartColdUnlessKeepCache) {
  testing::TempDir tmp;
  struct statfs fs{};
  if (statfs(tmp.path().c_str(), &fs) == 0 && (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC))
    GTEST_SKIP() << tmp.path() << " is in memory (tmpfs/ramfs): there is no disk to drop its pages to";
  std::string file = tmp.path() + "/given";
  {
    std::ofstream out(file, std::ios::binary);
    out << std::string(2 << 20, 'x');
  }
  DiskOptions o;
  o.file = file;
  o.pattern = DiskPattern::kSeqRead;
  o.size = 2 << 20;
  o.keep_cache = true;
  auto warm = RunDiskWorkload(o);  // the file was just written: its pages are still cached
  ASSERT_TRUE(warm.cached_at_start.has_value()) << "mincore cannot tell here";
  if (*warm.cached_at_start == 0) GTEST_SKIP() << "this file system does not keep written pages in the page cache";
  EXPECT_EQ(*warm.cached_at_start, 2u << 20);
  o.keep_cache = false;
  auto cold = RunDiskWorkload(o);
  ASSERT_TRUE(cold.cached_at_start.has_value());
  EXPECT_EQ(*cold.cached_at_start, 0u);
  EXPECT_EQ(cold.bytes, 2u << 20);
  // The same for a file the engine lays out itself, on every thread, and in the report.
  for (bool keep : {false, true}) {
    auto laid = Small(tmp.path(), DiskPattern::kSeqRead, 1 << 20);
    laid.threads = 2;
    laid.keep_cache = keep;
    auto s = RunDiskWorkload(laid);
    ASSERT_TRUE(s.cached_at_start.has_value());
    EXPECT_EQ(*s.cached_at_start, keep ? 2u * (4u << 20) : 0u) << "keep_cache " << keep;
    EXPECT_NE(DiskReport(laid, s).ToText().find(keep ? "Cached at start: 8388608" : "Cached at start: 0"), std::string::npos)
        << DiskReport(laid, s).ToText();
  }
  // Write patterns do not claim a figure.
  EXPECT_FALSE(RunDiskWorkload(Small(tmp.path(), DiskPattern::kSeqWrite, 1 << 20)).cached_at_start.has_value());
}

TEST(Disk, CachedBytesCountsResidentPages) {
  testing::TempDir tmp;
  std::string file = tmp.path() + "/f";
  {
    std::ofstream out(file, std::ios::binary);
    out << std::string(64 * 1024, 'y');
  }
  int fd = open(file.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  char buf[4096];
  ASSERT_EQ(pread(fd, buf, sizeof buf, 0), 4096);  // at least this page is cached now
  auto cached = CachedBytes(fd, 64 * 1024);
  ASSERT_TRUE(cached.has_value());
  EXPECT_GE(*cached, 4096u);
  EXPECT_LE(*cached, 64u * 1024u);
  EXPECT_EQ(CachedBytes(fd, 0), std::optional<uint64_t>(0));
  close(fd);
  EXPECT_FALSE(CachedBytes(-1, 4096).has_value());
}

TEST(Disk, FileServerMixIsEightyPercentReads) {
  testing::TempDir tmp;
  DiskOptions o;
  o.dir = tmp.path();
  o.pattern = DiskPattern::kFileServer;
  o.size = 8 << 20;
  auto s = RunDiskWorkload(o);
  EXPECT_GE(s.bytes, 8u << 20);
  EXPECT_LT(s.bytes, (8u << 20) + 65536);
  double reads = static_cast<double>(s.read_ops) / static_cast<double>(s.ops);
  EXPECT_NEAR(reads, 0.8, 0.05);
}

TEST(Disk, RefusesWhenSpaceIsShortAndOnBadOptions) {
  testing::TempDir tmp;
  auto o = Small(tmp.path(), DiskPattern::kSeqWrite, 4096);
  o.size = 1ull << 50;  // a petabyte
  try {
    RunDiskWorkload(o);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not enough free space"), std::string::npos) << e.what();
  }
  EXPECT_EQ(tmp.EntryCount(), 0u);
  o = Small(tmp.path(), DiskPattern::kSeqWrite, 8 << 20);  // block larger than file
  EXPECT_THROW(RunDiskWorkload(o), Error);
  o = Small(tmp.path(), DiskPattern::kSeqWrite, 4096);
  o.fsync = FsyncPolicy::kEvery;
  o.iodepth = 4;
  EXPECT_THROW(RunDiskWorkload(o), Error);
  EXPECT_THROW(ParseDiskPattern("sideways"), Error);
  EXPECT_THROW(ParseFsyncPolicy("sometimes"), Error);
}

TEST(Disk, FsyncEveryWriteStillCountsWork) {
  testing::TempDir tmp;
  auto o = Small(tmp.path(), DiskPattern::kSeqWrite, 256 * 1024);
  o.size = 1 << 20;
  o.fsync = FsyncPolicy::kEvery;
  EXPECT_EQ(RunDiskWorkload(o).write_ops, 4u);
}

TEST(Rng, DeterministicAndSpread) {
  Rng a(1), b(1);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(a.Next(), b.Next());
  int buckets[4] = {};
  for (int i = 0; i < 4000; ++i) ++buckets[a.Below(4)];
  for (int c : buckets) EXPECT_NEAR(c, 1000, 150);
}

}  // namespace
}  // namespace ptsn::workloads
