// `pts-native workload KIND [options]`: the native disk and cipher workloads (runner/workloads/).
// Output is the stable text format the bundled profiles' results-definition.xml parse, or one
// JSON object with --json.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>

#include "runner/cli/command.h"
#include "runner/common/args.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/pts_variables.h"
#include "runner/common/settings.h"
#include "runner/common/strings.h"
#include "results-xml/store/result_update.h"
#include "results-xml/model/result_xml.h"
#include "results-xml/stats/statistics.h"
#include "runner/run/naming.h"
#include "runner/sysinfo/sysinfo.h"
#include "runner/targets/crypto_info.h"
#include "runner/workloads/cipher_bench.h"
#include "runner/workloads/disk.h"
#include "runner/workloads/cipher_table.h"
#include "runner/workloads/fs_workloads.h"
#include "runner/workloads/sqlite_workload.h"
#include "runner/workloads/units.h"

namespace ptsn::cli {
namespace {

using namespace ptsn::workloads;

// OpenSSL reads OPENSSL_ia32cap once, when it initialises: clearing the AES-NI and PCLMULQDQ
// bits (CPUID.1:ECX 25 and 1) and VAES/VPCLMULQDQ (CPUID.7:ECX 9, 10) must happen before that,
// hence a re-exec of ourselves with the variable set.
constexpr const char* kNoAesniMask = "~0x200000200000000:~0x60000000000";
constexpr const char* kNoAesniMarker = "PTSN_NO_AESNI";

void Print(const Report& r, bool json) { std::cout << (json ? r.ToJson() : r.ToText()) << std::flush; }

std::string TestDir(const Args& a) {
  if (auto d = a.Value("--dir")) return *d;
  return GlobalSettings().Get("run.test_dir");
}

uint64_t SizeOr(const Args& a, const std::string& opt, uint64_t fallback) {
  auto v = a.Value(opt);
  return v ? ParseSize(*v, opt) : fallback;
}

long CountOr(const Args& a, const std::string& opt, long fallback) {
  auto v = a.Value(opt);
  return v ? ParseCount(*v, opt) : fallback;
}

std::optional<Backend> ParseBackend(const std::string& s) {
  if (s == "auto") return std::nullopt;
  if (s == "openssl") return Backend::kOpenSsl;
  if (s == "gcrypt" || s == "libgcrypt") return Backend::kGcrypt;
  if (s == "kernel" || s == "af_alg") return Backend::kKernel;
  throw Error("--backend: '" + s + "' is not one of openssl, gcrypt, kernel, auto");
}

[[noreturn]] void ReexecWithoutAesni(const std::vector<std::string>& args) {
  setenv("OPENSSL_ia32cap", kNoAesniMask, 1);
  setenv(kNoAesniMarker, "1", 1);
  std::vector<std::string> argv = {"pts-native", "workload"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (auto& s : argv) cargv.push_back(s.data());
  cargv.push_back(nullptr);
  execv("/proc/self/exe", cargv.data());
  throw Error(std::string("--no-aesni: cannot re-execute /proc/self/exe: ") + std::strerror(errno));
}

int RunCipher(const std::vector<std::string>& all, const std::vector<std::string>& rest) {
  Args a = Args::Parse(rest, {{"--cipher", "--backend", "--driver", "--block-size", "--threads", "--seconds", "--direction", "--key-bits"},
                              {"--json", "--no-aesni"}});
  bool no_aesni = a.Has("--no-aesni");
  if (no_aesni && !PtsEnvironment()(kNoAesniMarker)) ReexecWithoutAesni(all);
  InitGcrypt(no_aesni);
  CipherBenchOptions o;
  o.cipher = LookupCipher(a.ValueOr("--cipher", "aes-256-xts"), a.Value("--key-bits") ? ParseCount(*a.Value("--key-bits"), "--key-bits") : 0);
  o.backend = ParseBackend(a.ValueOr("--backend", a.Value("--driver") ? "kernel" : "auto"));
  o.kernel_driver = a.ValueOr("--driver", "");
  if (!o.kernel_driver.empty() && o.backend != Backend::kKernel)
    throw Error("--driver: names a kernel implementation; it needs --backend kernel");
  o.block_size = SizeOr(a, "--block-size", 4096);
  o.threads = static_cast<int>(CountOr(a, "--threads", 1));
  o.seconds = a.Value("--seconds") ? ParseSeconds(*a.Value("--seconds"), "--seconds") : 3.0;
  std::string dir = a.ValueOr("--direction", "both");
  if (dir != "both" && dir != "encrypt" && dir != "decrypt") throw Error("--direction: '" + dir + "' is not one of encrypt, decrypt, both");
  o.encrypt = dir != "decrypt";
  o.decrypt = dir != "encrypt";
  if (o.backend == Backend::kKernel) {
    std::string reason;
    if (!KernelCryptoAvailable(&reason)) throw Error(reason);
  }
  Print(CipherReport(o, RunCipherBench(o), no_aesni), a.Has("--json"));
  return 0;
}

int RunPbkdf2Command(const std::vector<std::string>& rest) {
  Args a = Args::Parse(rest, {{"--hash", "--backend", "--seconds"}, {"--json"}});
  auto backend = ParseBackend(a.ValueOr("--backend", "openssl"));
  if (!backend) backend = Backend::kOpenSsl;
  // cryptsetup's measuring time: the last derivation takes more than 0.5 s of CPU time.
  double seconds = a.Value("--seconds") ? ParseSeconds(*a.Value("--seconds"), "--seconds") : 0.5;
  std::vector<std::string> hashes = a.Values("--hash");
  if (hashes.empty()) hashes = {"sha256", "sha512"};
  std::vector<Pbkdf2Result> results;
  for (const auto& h : hashes) results.push_back(RunPbkdf2(h, *backend, seconds));
  if (a.Has("--json")) Print(Pbkdf2Report(results, *backend), true);
  else std::cout << Pbkdf2Text(results) << std::flush;
  return 0;
}

// /proc/crypto's drivers; none when it cannot be read (the kernel's choice still works then, no
// driver can be named).
std::vector<targets::CryptoAlgorithm> KernelDrivers() {
  try {
    return targets::ParseProcCrypto(ReadFile("/proc/crypto"));
  } catch (const Error&) {
    return {};
  }
}

int ListCiphers() {
  std::string kernel_reason;
  bool kernel = KernelCryptoAvailable(&kernel_reason);
  std::vector<targets::CryptoAlgorithm> drivers;
  if (kernel) drivers = KernelDrivers();
  for (const auto& c : AllCiphers()) {
    std::vector<std::string> b;
    if (c.openssl) b.push_back("openssl");
    if (c.gcrypt) b.push_back("gcrypt");
    if (c.kernel && kernel) b.push_back("kernel");
    std::cout << c.name << "  " << c.key_bits << "-bit key  backends: " << Join(b, ", ") << "\n";
    // What --driver can name (templates over a driver are instantiated on first use).
    if (c.kernel && kernel)
      if (auto impl = targets::KernelImplementations(drivers, KernelAlgName(c)); !impl.empty())
        std::cout << "    kernel drivers: " << Join(impl, ", ") << "\n";
  }
  if (!kernel) std::cout << "(kernel backend unavailable: " << kernel_reason << ")\n";
  return 0;
}

// Mean and 95 % half-width (Student t) of a figure over trials.
struct Interval {
  double mean = 0, half = 0;
};
Interval IntervalOf(const std::vector<double>& v) {
  Interval i{results::Mean(v), 0};
  if (v.size() >= 2) i.half = results::StudentTQuantile(0.95, static_cast<int>(v.size()) - 1) * results::StandardError(v);
  return i;
}

// `cipher-table --save`: one System per implementation, described as a run describes this machine.
void SaveCipherTable(const std::vector<workloads::CipherTableRow>& table, const run::RunNaming& save,
                     size_t block_size) {
  auto reader = sysinfo::MakeRootedReader("/", GlobalSettings().Home() + "/cache");
  results::System base;
  base.hardware = sysinfo::JoinComponents(sysinfo::HardwareComponents(*reader));
  base.software = sysinfo::JoinComponents(sysinfo::SoftwareComponents(*reader, GlobalSettings().Home()));
  base.timestamp = results::CurrentTimestamp();
  base.test_client_version = "10.8.6";
  std::vector<std::string> skipped;
  auto file = workloads::CipherTableFile(table, base, block_size, &skipped);
  file.generated.title = save.title;
  const std::string dir = GlobalSettings().ResultsDirectory() + "/" + save.save_name;
  // Checked again under the lock: a result saved under this name while the table ran is kept.
  results::UpdateResultFile(dir + "/composite.xml", [&](results::ResultFile& saved, bool existed) {
    if (existed) throw Error(dir + "/composite.xml: saved while the table ran; not overwritten (choose another name)");
    saved = file;
  });
  std::fprintf(stderr, "Saved %s/composite.xml: %zu implementations, %zu results%s\n", dir.c_str(),
               file.systems.size(), file.results.size(),
               skipped.empty() ? "" : ("; left out (a second driver of one implementation): " + Join(skipped, "; ")).c_str());
}

// The kernel's cipher implementations side by side (published comparison 5, `cryptsetup
// benchmark` of 2014): every (cipher, key size) of its table through every driver this kernel
// has for it, encryption and decryption in MiB/s with 95 % intervals over --trials runs.
int RunCipherTable(const std::vector<std::string>& rest) {
  Args a = Args::Parse(rest, {{"--cipher", "--seconds", "--trials", "--block-size", "--save"}, {"--json"}});
  std::string reason;
  if (!KernelCryptoAvailable(&reason)) throw Error(reason);
  const auto names = a.Values("--cipher").empty()
                         ? std::vector<std::string>{"aes-128-cbc", "aes-256-cbc", "aes-128-xts", "serpent-cbc",
                                                    "serpent-xts", "twofish-cbc", "twofish-xts"}
                         : a.Values("--cipher");
  const long trials = CountOr(a, "--trials", 3);
  nlohmann::json rows = nlohmann::json::array();
  std::vector<workloads::CipherTableRow> table;
  // Where --save goes, settled before the first trial: a bad name fails at once.
  std::optional<run::RunNaming> save;
  if (auto name = a.Value("--save")) {
    save = run::ResolveNaming(*name, std::nullopt, std::nullopt, std::time(nullptr));
    if (save->save_name.empty()) throw Error("--save " + *name + ": no letters or digits to name the result by");
    const std::string existing = GlobalSettings().ResultsDirectory() + "/" + save->save_name + "/composite.xml";
    if (access(existing.c_str(), F_OK) == 0)
      throw Error("--save " + *name + ": " + existing + " exists (choose another name; merge-results combines tables)");
  }
  if (!a.Has("--json"))
    std::printf("%-12s %-28s %22s %22s\n", "cipher", "kernel driver", "encrypt MiB/s (95 %)", "decrypt MiB/s (95 %)");
  for (const auto& name : names) {
    CipherBenchOptions o;
    o.cipher = LookupCipher(name);
    o.backend = Backend::kKernel;
    o.block_size = SizeOr(a, "--block-size", 65536);  // as cryptsetup: large requests, few system calls
    o.buffer_bytes = std::max<size_t>(o.buffer_bytes, o.block_size);
    o.seconds = a.Value("--seconds") ? ParseSeconds(*a.Value("--seconds"), "--seconds") : 1.0;
    const auto impl = targets::KernelImplementations(KernelDrivers(), KernelAlgName(o.cipher));
    if (impl.empty()) std::printf("%-12s (no driver in /proc/crypto)\n", name.c_str());
    for (const auto& driver : impl) {
      o.kernel_driver = driver;
      std::vector<double> enc, dec;
      for (long t = 0; t < trials; ++t) {
        auto r = RunCipherBench(o);
        enc.push_back(r.encrypt_mib_per_s.value_or(0));
        dec.push_back(r.decrypt_mib_per_s.value_or(0));
      }
      const Interval e = IntervalOf(enc), d = IntervalOf(dec);
      table.push_back({name, driver, enc, dec});
      rows.push_back({{"cipher", name}, {"key_bits", o.cipher.key_bits}, {"driver", driver}, {"trials", trials},
                      {"encrypt_mib_per_s", e.mean}, {"encrypt_half_width", e.half},
                      {"decrypt_mib_per_s", d.mean}, {"decrypt_half_width", d.half}});
      if (!a.Has("--json"))
        std::printf("%-12s %-28s %12.1f \u00b1 %-7.1f %12.1f \u00b1 %-7.1f\n", name.c_str(), driver.c_str(), e.mean, e.half,
                    d.mean, d.half);
    }
  }
  if (a.Has("--json")) std::cout << rows.dump() << "\n";
  if (save) SaveCipherTable(table, *save, SizeOr(a, "--block-size", 65536));
  return 0;
}

int RunDisk(const std::vector<std::string>& rest, std::optional<DiskPattern> fixed) {
  Args a = Args::Parse(rest, {{"--pattern", "--block-size", "--size", "--dir", "--fsync", "--threads", "--iodepth", "--engine", "--file"},
                              {"--direct", "--json", "--zero-data", "--keep-cache"}});
  DiskOptions o;
  if (fixed) o.pattern = *fixed;
  else if (auto p = a.Value("--pattern")) o.pattern = ParseDiskPattern(*p);
  else throw Error("workload disk needs --pattern seq-write|seq-read|rand-read|rand-write|file-server");
  bool random = o.pattern == DiskPattern::kRandRead || o.pattern == DiskPattern::kRandWrite;
  o.block_size = SizeOr(a, "--block-size", random ? 4096 : 1 << 20);
  o.size = SizeOr(a, "--size", 256ull << 20);
  o.file = a.ValueOr("--file", "");
  if (o.file.empty()) o.dir = TestDir(a);
  o.direct = a.Has("--direct");
  o.engine = ParseDiskEngine(a.ValueOr("--engine", "auto"));
  o.fsync = ParseFsyncPolicy(a.ValueOr("--fsync", "end"));
  o.threads = static_cast<int>(CountOr(a, "--threads", 1));
  o.iodepth = static_cast<int>(CountOr(a, "--iodepth", 1));
  o.zero_data = a.Has("--zero-data");
  o.keep_cache = a.Has("--keep-cache");
  Print(DiskReport(o, RunDiskWorkload(o)), a.Has("--json"));
  return 0;
}

int RunFsFilesCommand(const std::vector<std::string>& rest) {
  Args a = Args::Parse(rest, {{"--files", "--file-size", "--threads", "--dirs", "--dir"}, {"--no-fsync", "--json", "--zero-data"}});
  FsFilesOptions o;
  o.dir = TestDir(a);
  o.files = static_cast<uint64_t>(CountOr(a, "--files", 1000));
  o.file_size = SizeOr(a, "--file-size", 1 << 20);
  o.threads = static_cast<int>(CountOr(a, "--threads", 1));
  o.dirs = static_cast<int>(CountOr(a, "--dirs", 1));
  o.fsync = !a.Has("--no-fsync");
  o.zero_data = a.Has("--zero-data");
  Print(FsFilesReport(o, RunFsFiles(o)), a.Has("--json"));
  return 0;
}

int RunMailServerCommand(const std::vector<std::string>& rest) {
  Args a = Args::Parse(rest, {{"--files", "--transactions", "--min-size", "--max-size", "--subdirs", "--io-size", "--dir", "--seed"},
                              {"--fsync", "--json"}});
  MailServerOptions o;
  o.dir = TestDir(a);
  o.files = static_cast<uint64_t>(CountOr(a, "--files", 500));
  o.transactions = static_cast<uint64_t>(CountOr(a, "--transactions", 5000));
  o.min_size = SizeOr(a, "--min-size", 5 * 1024);
  o.max_size = SizeOr(a, "--max-size", 512 * 1024);
  o.subdirs = static_cast<int>(CountOr(a, "--subdirs", 10));
  o.io_size = SizeOr(a, "--io-size", 4096);
  o.fsync = a.Has("--fsync");
  if (auto s = a.Value("--seed")) o.seed = static_cast<uint64_t>(ParseCount(*s, "--seed"));
  Print(MailServerReport(o, RunMailServer(o)), a.Has("--json"));
  return 0;
}

int RunSqliteCommand(const std::vector<std::string>& rest) {
  Args a = Args::Parse(rest, {{"--rows", "--rows-per-transaction", "--journal", "--synchronous", "--dir"}, {"--json"}});
  SqliteOptions o;
  o.dir = TestDir(a);
  o.rows = static_cast<uint64_t>(CountOr(a, "--rows", 1000));
  o.rows_per_transaction = static_cast<uint64_t>(CountOr(a, "--rows-per-transaction", 1));
  o.journal = ToLower(a.ValueOr("--journal", "delete"));
  o.synchronous = ToLower(a.ValueOr("--synchronous", "full"));
  Print(SqliteReport(o, RunSqliteInserts(o)), a.Has("--json"));
  return 0;
}

const char* kWorkloadUsage = "KIND [options]  (cipher, cipher-table, pbkdf2, list-ciphers, disk, file-server, fs-files, mail-server, sqlite)";
const char* kWorkloadKinds =
    "kinds and their options:\n"
    "  cipher       --cipher NAME (aes-256-xts) --backend openssl|gcrypt|kernel|auto --block-size 4096\n"
    "               --threads N --seconds S --direction encrypt|decrypt|both --key-bits N --no-aesni\n"
    "               --driver NAME (kernel backend: that implementation, as list-ciphers names them)\n"
    "  pbkdf2       --hash sha256|sha512 (repeatable) --backend openssl|gcrypt --seconds S (CPU time of the\n"
    "               measured derivation, 0.5 as cryptsetup; figure = iterations per user-CPU-second)\n"
    "  cipher-table the kernel's implementations side by side: each cipher (--cipher, repeatable; default\n"
    "               the published table) through each driver /proc/crypto has, --trials N (3) of\n"
    "               --seconds S (1) with --block-size B (65536), mean and 95 % interval; --json;\n"
    "               --save NAME: also a result file, one system per implementation\n"
    "  list-ciphers\n"
    "  disk         --pattern seq-write|seq-read|rand-read|rand-write|file-server --block-size B --size S\n"
    "               --dir D --direct --fsync none|end|every --threads N --iodepth N --zero-data --keep-cache\n"
    "               --engine auto|psync|io_uring|libaio (auto: io_uring, else libaio, when --iodepth > 1)\n"
    "               --file F (seq-read/rand-read: read this existing file instead of laying one out)\n"
    "  file-server  (disk --pattern file-server: fio's IOMeter file-server mix, 80% reads)\n"
    "  fs-files     --files N (per thread) --file-size S --threads N --dirs N --no-fsync --dir D\n"
    "  mail-server  --files N --transactions N --min-size S --max-size S --subdirs N --io-size S --fsync --dir D\n"
    "  sqlite       --rows N --rows-per-transaction N --journal delete|wal --synchronous full|normal|off --dir D\n"
    "  every kind takes --json; sizes: 4096, 4k, 1m, 256m, 2g";

int RunWorkload(const std::vector<std::string>& args) {
  if (args.empty()) throw Error(std::string("workload needs a kind; ") + kWorkloadKinds, 2);
  const std::string& kind = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (kind == "cipher") return RunCipher(args, rest);
  if (kind == "pbkdf2") return RunPbkdf2Command(rest);
  if (kind == "list-ciphers") return ListCiphers();
  if (kind == "cipher-table") return RunCipherTable(rest);
  if (kind == "disk") return RunDisk(rest, std::nullopt);
  if (kind == "file-server") return RunDisk(rest, DiskPattern::kFileServer);
  if (kind == "fs-files") return RunFsFilesCommand(rest);
  if (kind == "mail-server") return RunMailServerCommand(rest);
  if (kind == "sqlite") return RunSqliteCommand(rest);
  throw Error("workload: unknown kind '" + kind + "' (cipher, cipher-table, pbkdf2, list-ciphers, disk, file-server, fs-files, mail-server, sqlite)", 2);
}

}  // namespace

std::vector<Command> WorkloadCommands() {
  return {{"workload", {"workloads"}, "Workloads", kWorkloadUsage,
           "run a native disk, file-system, SQLite or cipher workload and print its result", RunWorkload}};
}

}  // namespace ptsn::cli
