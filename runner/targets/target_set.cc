#include "runner/targets/target_set.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>

#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/targets/crypto_info.h"
#include "runner/targets/encryption_options.h"
#include "runner/targets/encryption_probe.h"

namespace ptsn::targets {

namespace {

// fscrypt's modes and flags (linux/fscrypt.h), spelled out so this file needs no kernel header.
constexpr int kModeAes256Xts = 1, kModeAes256Cts = 4, kModeAdiantum = 9;
constexpr int kPolicyPad32 = 0x03;

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string MiB(uint64_t bytes) {
  if (bytes > 0 && bytes % (1ull << 30) == 0) return std::to_string(bytes >> 30) + " GiB";
  return std::to_string(bytes >> 20) + " MiB";
}

// The package that brings a program, for "not found" messages.
std::string PackageOf(const std::string& program) {
  if (StartsWith(program, "mkfs.ext4")) return "e2fsprogs";
  if (program == "mkfs.xfs") return "xfsprogs";
  if (program == "mkfs.btrfs") return "btrfs-progs";
  if (program == "mkfs.reiserfs") return "reiserfsprogs";
  if (program == "cryptsetup") return "cryptsetup-bin";
  if (program == "ecryptfs-add-passphrase") return "ecryptfs-utils";
  if (program == "rpc.nfsd" || program == "rpc.mountd" || program == "exportfs") return "nfs-kernel-server";
  return "";
}

std::string MissingProgram(TargetSystem& sys, const std::string& program) {
  if (sys.FindProgram(program)) return "";
  std::string package = PackageOf(program);
  return program + " not found" + (package.empty() ? "" : " (Debian package " + package + ")");
}

// Whether /proc/filesystems (its text) lists file system `name` ("nodev\tnfsd").
bool FileSystemListed(const std::string& filesystems, const std::string& name) {
  for (const auto& line : Split(filesystems, '\n'))
    if (Trim(line) == name || EndsWith(Trim(line), "\t" + name)) return true;
  return false;
}

// Whether the kernel has a module file for `what` ("/fs/xfs/", "/dm-crypt.ko"): loaded on demand
// even when /proc does not list it yet.
bool KernelModuleExists(TargetSystem& sys, const std::string& what) {
  auto release = sys.ReadText("/proc/sys/kernel/osrelease");
  if (!release) return false;
  auto deps = sys.ReadText("/lib/modules/" + Trim(*release) + "/modules.dep");
  return deps && deps->find(what) != std::string::npos;
}

std::vector<CryptoAlgorithm> Crypto(TargetSystem& sys) {
  return ParseProcCrypto(sys.ReadText("/proc/crypto").value_or(""));
}

std::string DriverNote(const std::vector<CryptoAlgorithm>& all, const std::string& name, const std::string& hint) {
  const CryptoAlgorithm* a = DriverInUse(all, name, hint);
  if (!a) return name + ": not listed in /proc/crypto";
  return name + ": " + a->driver + " (module " + a->module + ", priority " + std::to_string(a->priority) + ")";
}

// "cipher: aes-xts-plain64" -> "aes-xts-plain64" from `cryptsetup status`.
std::string StatusField(const std::string& status, const std::string& key) {
  for (const auto& line : Split(status, '\n')) {
    std::string t = Trim(line);
    if (StartsWith(t, key + ":")) return Trim(t.substr(key.size() + 1));
  }
  return "";
}

// The kernel crypto API name of a cryptsetup cipher "CIPHER-MODE-IV[:HASH]": "aes-xts-plain64" ->
// "xts(aes)"; "" for capi: names and anything not of that form.
std::string CryptoApiName(const std::string& cipher) {
  if (StartsWith(cipher, "capi:")) return "";
  auto parts = Split(cipher.substr(0, cipher.find(':')), '-');
  if (parts.size() < 2) return "";
  return parts[1] + "(" + parts[0] + ")";
}

// How a priority-chosen target (fscrypt, eCryptfs) got its driver, for the System Notes.
std::string ImplementationNote(const Target& t, const std::vector<std::string>& changes) {
  const char* kind = t.spec.kind == Kind::kFscrypt ? "fscrypt" : "eCryptfs";
  if (t.chosen_family.empty())
    return std::string("the kernel's choice (the highest priority; ") + kind + " cannot name a driver)";
  if (t.chosen_family == "aesni") return "AES-NI: the kernel's choice, checked before each trial";
  return std::string("the generic AES: ") + kind + " cannot name a driver, so while this target's trials run the " +
         "other AES drivers are lowered below aes-generic with the kernel's crypto_user API (" +
         (changes.empty() ? "none was higher" : "priority " + Join(changes, ", ")) + "), and given their priority back after";
}

}  // namespace

std::string Target::NotesText() const {
  std::string out = "pts-native target " + identifier + " (" + KindName(spec.kind) + ").";
  for (const auto& [key, value] : notes) out += " " + key + ": " + value + ".";
  return out;
}

TargetSet::TargetSet(TargetSystem& sys, Ledger& ledger, TargetOptions options)
    : sys_(sys), ledger_(ledger), options_(std::move(options)) {}

TargetSet::~TargetSet() { RemoveAll(); }

std::string TargetSet::BaseDir() {
  if (base_dir_.empty()) {
    std::string dir = options_.test_dir + "/.ptsn-targets-" + std::to_string(getpid());
    sys_.MakeDirectory(options_.test_dir);
    // After a kill -9, what the run started may still run in its namespace, holding its mounts.
    Record({ResourceType::kMountNamespace, sys_.MountNamespace(), dir, ""});
    Record({ResourceType::kDirectory, dir, "", ""});
    sys_.MakeDirectory(dir);
    base_dir_ = dir;
  }
  return base_dir_;
}

Target& TargetSet::Create(const TargetSpec& spec) {
  Target t;
  t.spec = spec;
  t.identifier = spec.Identifier();
  double start = Now();
  // The directory every target's files go in: made before this target's own resources, so that
  // undoing a failed target leaves it for the next one (it was removed with the first target's
  // failure, and every later target failed to create its file).
  try {
    BaseDir();
  } catch (const Error& e) {
    throw Error(t.identifier + ": " + e.what());
  }
  size_t index = targets_.size(), recorded = ledger_.resources().size();
  try {
    if (std::string why = WhyUnavailable(sys_, spec); !why.empty()) throw Error(why);
    CreatePlain(t, index);
  } catch (const Error& e) {
    std::vector<std::string> problems;
    ReleaseEach({ledger_.resources().begin() + static_cast<long>(recorded), ledger_.resources().end()}, &problems);
    std::erase_if(lowered_, [&](const Resource& r) {
      return std::find(ledger_.resources().begin(), ledger_.resources().end(), r) == ledger_.resources().end();
    });
    std::string message = t.identifier + ": " + e.what();
    if (!problems.empty()) message += " (and while undoing it: " + Join(problems, "; ") + ")";
    throw Error(message);
  }
  t.setup_seconds = Now() - start;
  targets_.push_back(std::move(t));
  return targets_.back();
}

void TargetSet::CreatePlain(Target& t, size_t index) {
  const TargetSpec& spec = t.spec;
  std::string base = BaseDir();
  std::string slug = "t" + std::to_string(index + 1) + "-" + KindName(spec.kind);
  std::string where;
  if (!spec.raid_level.empty()) {
    where = CreateRaid(t, base, slug);
  } else {
    LoopOptions loop;
    loop.size = options_.size;
    loop.direct_io = options_.loop_direct_io;
    if (options_.device.empty()) {
      uint64_t free = sys_.FreeBytes(options_.test_dir);
      if (free < options_.size)
        throw Error("the test directory " + options_.test_dir + " has " + MiB(free) + " free; a target needs " +
                    MiB(options_.size) + " (--target-size)");
      loop.backing = base + "/" + slug + ".img";
      Record({ResourceType::kFile, loop.backing, "", t.identifier});
      sys_.AllocateFile(loop.backing, options_.size);
      where = "a " + MiB(options_.size) + " file in " + options_.test_dir;
    } else {
      uint64_t device_bytes = sys_.BlockDeviceBytes(options_.device);
      loop.backing = options_.device;
      loop.offset = index * options_.size;
      if (device_bytes < loop.offset + options_.size)
        throw Error(options_.device + " holds " + MiB(device_bytes) + "; target " + std::to_string(index + 1) +
                    " needs " + MiB(loop.offset + options_.size) + " (--target-size each)");
      where = "bytes " + MiB(loop.offset) + " to " + MiB(loop.offset + options_.size) + " of " + options_.device;
    }
    // The loop device is the "disk" under every layer, its scheduler theirs (dm-crypt passes
    // requests on without a scheduler of its own).
    t.loop_device = AttachLoop(t, loop);
    std::string dio = Trim(sys_.ReadText(SysBlock(t.loop_device, "loop/dio")).value_or(""));
    where = t.loop_device + " (loop device over " + where + ", direct I/O " + (dio == "1" ? "on" : "off") + ")";
    if (std::string scheduler = SchedulerOf(t.loop_device); !scheduler.empty())
      t.notes.push_back({"I/O Scheduler", scheduler + " (" + t.loop_device + ")"});
    if (std::string sectors = SectorSizesOf(t.loop_device); !sectors.empty())
      t.notes.push_back({"Sector Size", sectors + " (" + t.loop_device + ")"});
  }

  t.device = t.loop_device;
  if (spec.kind == Kind::kDmCrypt) {
    t.device = OpenDmCrypt(t, index);
    where = t.device + " on " + where;
  }
  MakeFileSystem(t, t.device);
  t.mount_dir = base + "/" + slug;
  sys_.MakeDirectory(t.mount_dir);
  Record({ResourceType::kMount, t.mount_dir, t.device, t.identifier});
  // btrfs discards freed space by default where the device can (discard=async): on a loop device
  // that punches holes into the preallocated file, and writes after it allocate again.
  std::string mount_options = spec.fs == "btrfs" ? "nodiscard" : spec.inlinecrypt ? "inlinecrypt" : "";
  sys_.Mount(t.device, t.mount_dir, spec.fs, mount_options);
  t.work_dir = t.mount_dir;
  std::string top = t.mount_dir;  // the mount the tests see
  if (spec.kind == Kind::kFscrypt || spec.kind == Kind::kEcryptfs) {
    t.algorithms = AesAlgorithmsOf(spec.kind == Kind::kFscrypt);
    t.chosen_family = spec.impl == "generic" ? "aes-generic" : spec.impl;
    Enter(t);  // before the first file is encrypted: its cipher is picked then
  }
  if (spec.kind == Kind::kFscrypt) CreateFscrypt(t);
  if (spec.kind == Kind::kEcryptfs) {
    CreateEcryptfs(t, base + "/" + slug + "-ecryptfs");
    top = t.work_dir;
  }
  if (spec.kind == Kind::kPlain) t.notes.insert(t.notes.begin(), {"Encryption", "none"});
  auto mounted = sys_.MountAt(top);
  t.notes.push_back({"Mount Options", mounted ? mounted->options : "(not found in /proc/self/mountinfo)"});
  t.notes.push_back({"Device", where});
  if (!spec.nfs_version.empty()) ExportOverNfs(t, base + "/" + slug + "-nfs");
  CheckDirectIo(t, mounted ? mounted->options : "");
}

// Whether the tests' files take O_DIRECT, as the kernel says of a file where they run (statx
// STATX_DIOALIGN), for the System Notes and the answer of encryption-cost; and for inlinecrypt,
// whether blk-crypto encrypts them (fscrypt allows O_DIRECT only then): if not, the set-up fails.
void TargetSet::CheckDirectIo(Target& t, const std::string& mount_options) {
  const std::string probe = t.work_dir + "/.ptsn-direct-io";
  sys_.AllocateFile(probe, 4096);
  DirectIoAlignment dio;
  try {
    dio = sys_.DirectIoAlignmentOf(probe);
  } catch (const Error&) {
    sys_.RemoveFile(probe);
    throw;
  }
  sys_.RemoveFile(probe);
  t.notes.push_back({"Direct I/O", DirectIoNote(dio)});
  if (!t.spec.inlinecrypt) return;
  const bool hardware = sys_.Exists(SysBlock(t.device, "queue/crypto"));
  InlineCryptCheck check = CheckInlineCrypt(mount_options, dio, hardware, t.device);
  if (!check.error.empty()) throw Error(check.error);
  t.notes.push_back({"Inline Encryption", check.note});
}

namespace {
constexpr const char* kNfsControl = "/proc/fs/nfsd";  // the nfsd file system: the server's controls
constexpr const char* kNfsClient = "127.0.0.1";       // exported to, and served on, loopback only
// What exportfs's man page suggests for a Linux export; no_root_squash: the tests run as root.
constexpr const char* kExportOptions = "rw,sync,no_subtree_check,no_root_squash,insecure";
constexpr int kNfsThreads = 8;  // rpc.nfsd's (and Debian's) default
}  // namespace

// The kernel's NFS server, started once per run and stopped after its last target (its
// resources belong to no target): NFSv4 over TCP only, listening on loopback only, so nothing
// is offered to the network and no rpcbind is needed. rpc.mountd answers the kernel's questions
// about exports; it runs in this run's mount namespace, where the exported mounts are, and dies
// with the run. A server that already runs here (the machine's own) is left alone: refused.
void TargetSet::StartNfsServer() {
  for (const auto& r : ledger_.resources())
    if (r.type == ResourceType::kNfsServer) return;
  const std::string control = kNfsControl;
  if (!sys_.Exists(control + "/threads")) {
    Record({ResourceType::kMount, control, "nfsd", ""});
    sys_.Mount("nfsd", control, "nfsd", "");
  }
  const std::string threads = Trim(sys_.ReadText(control + "/threads").value_or("0"));
  if (threads != "0")
    throw Error("nfs: an NFS server already runs on this machine (" + threads + " nfsd threads); pts-native " +
                "starts one of its own for nfs targets and does not share or stop yours (systemctl stop nfs-server)");
  // Where exportfs and the server keep their state, as the Debian package makes them (exportfs
  // refuses to export without its table).
  sys_.MakeDirectory("/var/lib/nfs");
  sys_.MakeDirectory("/var/lib/nfs/v4recovery");
  if (!sys_.Exists("/var/lib/nfs/etab")) sys_.WriteText("/var/lib/nfs/etab", "");
  const int pid = sys_.StartDaemon({"rpc.mountd", "-F", "-N", "2", "-N", "3", "--no-udp"});
  Record({ResourceType::kProcess, std::to_string(pid), sys_.ProcessStartTime(pid), ""});
  Record({ResourceType::kNfsServer, control, "", ""});
  sys_.RunProgram({"rpc.nfsd", "-N", "3", "--no-udp", "-H", kNfsClient, std::to_string(kNfsThreads)});
  // A server that just started refuses new NFSv4 opens for its grace period (90 s), meant for
  // clients of a previous instance reclaiming their locks; this one has none.
  sys_.WriteText(control + "/v4_end_grace", "Y");
}

// The target's file system exported to loopback and mounted by the kernel's NFSv4 client at
// `client_dir`, where the tests then run: the NFS client's view of the target.
void TargetSet::ExportOverNfs(Target& t, const std::string& client_dir) {
  StartNfsServer();
  const std::string dir = t.work_dir, source = std::string(kNfsClient) + ":" + dir;
  Record({ResourceType::kNfsExport, dir, kNfsClient, t.identifier});
  sys_.RunProgram({"exportfs", "-o", kExportOptions, source});
  sys_.MakeDirectory(client_dir);
  Record({ResourceType::kMount, client_dir, source, t.identifier});
  // mount(2) takes the NFS options as text (mount.nfs adds no more than the addresses for v4).
  sys_.Mount(source, client_dir, "nfs4",
             "vers=" + t.spec.nfs_version + ",addr=" + kNfsClient + ",clientaddr=" + kNfsClient);
  t.work_dir = client_dir;
  auto mounted = sys_.MountAt(client_dir);
  t.notes.push_back({"NFS", "the tests run on an NFSv" + t.spec.nfs_version + " client mount over loopback (" +
                                (mounted ? mounted->options : "options not found in /proc/self/mountinfo") +
                                ") of the target's file system, exported by the kernel's NFS server (" +
                                std::to_string(kNfsThreads) + " nfsd threads, TCP on " + kNfsClient +
                                ") with exportfs -o " + kExportOptions});
}

// The loop device over `loop`, in the ledger, with the scheduler the spec asks for (it goes with
// the loop device: nothing to give back).
std::string TargetSet::AttachLoop(const Target& t, const LoopOptions& loop) {
  const std::string device = sys_.AttachLoop(loop);
  Record({ResourceType::kLoop, device, loop.backing, t.identifier});
  if (!t.spec.scheduler.empty()) sys_.SetIoScheduler(device, t.spec.scheduler);
  return device;
}

// The I/O scheduler the kernel uses for `device`, the one it marks "[...]" in sysfs; "" unknown.
std::string TargetSet::SchedulerOf(const std::string& device) {
  const std::string offered = sys_.ReadText(SysBlock(device, "queue/scheduler")).value_or("");
  const size_t open = offered.find('['), close = offered.find(']');
  return open != std::string::npos && close > open ? offered.substr(open + 1, close - open - 1) : "";
}

// The logical and physical sector sizes the kernel gives `device` ("logical 512, physical 4096"):
// they decide dm-crypt's sector size and the alignment O_DIRECT needs; "" unknown.
std::string TargetSet::SectorSizesOf(const std::string& device) {
  const std::string logical = Trim(sys_.ReadText(SysBlock(device, "queue/logical_block_size")).value_or(""));
  const std::string physical = Trim(sys_.ReadText(SysBlock(device, "queue/physical_block_size")).value_or(""));
  if (logical.empty() || physical.empty()) return "";
  return "logical " + logical + ", physical " + physical;
}

// Software RAID beneath the kind: N loop devices over files of the target size each, one md
// array over them (mdadm --create), which the kind's layers then use as their disk. Every member
// and the array are in the ledger before they exist; the array is stopped and its members'
// superblocks wiped when it goes (ledger.cc). Created --assume-clean: an initial resync would
// run under the benchmarks.
std::string TargetSet::CreateRaid(Target& t, const std::string& base, const std::string& slug) {
  const TargetSpec& spec = t.spec;
  if (!options_.device.empty()) throw Error("raid= makes its members over files in the test directory, not on --device");
  const uint64_t need = options_.size * static_cast<uint64_t>(spec.raid_members);
  if (uint64_t free = sys_.FreeBytes(options_.test_dir); free < need)
    throw Error("the test directory " + options_.test_dir + " has " + MiB(free) + " free; " +
                std::to_string(spec.raid_members) + " RAID members need " + MiB(need) + " (--target-size each)");
  std::vector<std::string> members;
  std::string recorded;
  for (int i = 0; i < spec.raid_members; ++i) {
    LoopOptions loop;
    loop.size = options_.size;
    loop.direct_io = options_.loop_direct_io;
    loop.backing = base + "/" + slug + "-m" + std::to_string(i + 1) + ".img";
    Record({ResourceType::kFile, loop.backing, "", t.identifier});
    sys_.AllocateFile(loop.backing, options_.size);
    const std::string device = AttachLoop(t, loop);
    members.push_back(device);
    recorded += (recorded.empty() ? "" : " ") + device + "=" + loop.backing;
  }
  if (std::string scheduler = SchedulerOf(members[0]); !scheduler.empty())
    t.notes.push_back({"I/O Scheduler", scheduler + " (each RAID member)"});
  // A free numbered array: a name under /dev/md/ needs udev, which a minimal system lacks.
  std::string md;
  for (int n = 120; n < 256 && md.empty(); ++n)
    if (!sys_.Exists("/sys/block/md" + std::to_string(n)) && !sys_.Exists("/dev/md" + std::to_string(n)))
      md = "/dev/md" + std::to_string(n);
  if (md.empty()) throw Error("no free md device (/dev/md120 to /dev/md255 are all in use)");
  Record({ResourceType::kMdArray, md, recorded, t.identifier});
  std::vector<std::string> argv{"mdadm", "--create", md, "--run", "--force", "--metadata=1.2",
                                "--level=" + spec.raid_level, "--raid-devices=" + std::to_string(spec.raid_members),
                                "--assume-clean"};
  if (spec.raid_chunk_kib) argv.push_back("--chunk=" + std::to_string(spec.raid_chunk_kib));
  argv.insert(argv.end(), members.begin(), members.end());
  sys_.RunProgram(argv);
  const long long chunk = std::atoll(Trim(sys_.ReadText(SysBlock(md, "md/chunk_size")).value_or("0")).c_str());
  t.loop_device = md;  // the disk of the layers above
  t.notes.push_back({"RAID", "md raid" + spec.raid_level + " " + md + ", " + std::to_string(spec.raid_members) +
                                 " members of " + MiB(options_.size) + " (" + Join(members, ", ") +
                                 ": loop devices over files in " + options_.test_dir + ")" +
                                 (chunk > 0 ? ", chunk " + std::to_string(chunk / 1024) + " KiB" : "") +
                                 ", metadata 1.2, created with --assume-clean (no initial resync)"});
  return md + " (md raid" + spec.raid_level + " over " + Join(members, ", ") + ")";
}

// A loop-AES volume as a Debian 12 user opens one: the loop-AES kernel module is no longer
// packaged, so cryptsetup maps it through dm-crypt (--type loopaes). The key file is loop-AES's
// version 3 multi-key format: 65 text lines (64 sector keys and the IV key), each hashed into a
// key by cryptsetup (SHA-256 for AES-128, SHA-384 for 192, SHA-512 for 256, as loop-AES does).
std::string TargetSet::OpenLoopAes(Target& t, const std::string& name) {
  const int bits = t.spec.key_bits ? t.spec.key_bits : 256;
  const std::string hash = bits == 128 ? "sha256" : bits == 192 ? "sha384" : "sha512";
  static constexpr char kHex[] = "0123456789abcdef";
  Secret random = sys_.RandomKey(65 * 32);
  std::string lines;
  for (size_t i = 0; i < random.bytes().size(); ++i) {
    const auto b = static_cast<unsigned char>(random.bytes()[i]);
    lines += kHex[b >> 4];
    lines += kHex[b & 15];
    if (i % 32 == 31) lines += '\n';
  }
  Secret keys(std::move(lines));
  Record({ResourceType::kDmMapping, name, "", t.identifier});
  sys_.RunProgram({"cryptsetup", "open", "--type", "loopaes", "--key-size", std::to_string(bits), "--hash", hash,
                   "--key-file", "/proc/self/fd/0", t.loop_device, name},  // loopaes takes no "-"
                  keys.bytes());
  std::string status = sys_.ProgramOutput({"cryptsetup", "status", name});
  const std::string cipher = StatusField(status, "cipher");
  t.notes.push_back({"Encryption", "loop-AES v3 volume (64 sector keys and an IV key, random per run, " + hash +
                                       "-hashed), AES-" + std::to_string(bits) + ", opened by cryptsetup --type "
                                       "loopaes: dm-crypt cipher " + (cipher.empty() ? "?" : cipher) +
                                       " (the loop-AES module itself is no longer packaged)"});
  auto after = Crypto(sys_);
  t.notes.push_back({"Cipher Driver", DriverNote(after, "cbc(aes)", "")});
  return "/dev/mapper/" + name;
}

std::string TargetSet::OpenDmCrypt(Target& t, size_t index) {
  const TargetSpec& spec = t.spec;
  const std::string name = "ptsn-" + std::to_string(getpid()) + "-" + std::to_string(index + 1);
  if (spec.dm_format == "loopaes") return OpenLoopAes(t, name);
  auto crypto = Crypto(sys_);
  Implementation impl = ResolveImplementation(crypto, spec.impl);
  if (!impl.error.empty()) throw Error(impl.error);
  std::string cipher = DmCryptCipher(spec, impl.capi_algorithm);
  int bits = spec.key_bits ? spec.key_bits : 512;
  // A random key per run, handed to cryptsetup on its stdin only. LUKS2 stores it wrapped by this
  // passphrase; PBKDF2 at its minimum because a 64-byte random passphrase needs no stretching
  // (Argon2's default benchmark alone would take ~2 s of the set-up).
  Secret key = sys_.RandomKey(static_cast<size_t>(bits / 8));
  std::string bits_text = std::to_string(bits);
  // The sector size goes in the LUKS2 header (luksFormat) or, for plain mode, to open; the
  // performance flags go to open only (activation flags, never stored in the header).
  std::vector<std::string> sector_size;
  if (spec.sector_size) sector_size = {"--sector-size", std::to_string(spec.sector_size)};
  const std::vector<std::string> flags = DmFlagArguments(spec);
  auto with = [](std::vector<std::string> argv, const std::vector<std::string>& more, size_t at) {
    argv.insert(argv.begin() + static_cast<long>(at), more.begin(), more.end());
    return argv;
  };
  if (spec.dm_format == "luks2") {
    sys_.RunProgram(with({"cryptsetup", "luksFormat", "--type", "luks2", "--batch-mode", "--cipher", cipher, "--key-size",
                          bits_text, "--pbkdf", "pbkdf2", "--pbkdf-force-iterations", "1000", "--hash", "sha256",
                          "--key-file", "-", t.loop_device},
                         sector_size, 4),
                    key.bytes());
    Record({ResourceType::kDmMapping, name, "", t.identifier});
    sys_.RunProgram(with({"cryptsetup", "open", "--type", "luks2", "--key-file", "-", t.loop_device, name}, flags, 4),
                    key.bytes());
  } else {
    Record({ResourceType::kDmMapping, name, "", t.identifier});
    sys_.RunProgram(with(with({"cryptsetup", "open", "--type", "plain", "--cipher", cipher, "--key-size", bits_text,
                               "--keyfile-size", std::to_string(bits / 8), "--key-file", "-", t.loop_device, name},
                              sector_size, 4),
                         flags, 4),
                    key.bytes());
  }
  // The live table as the kernel reports it (cryptsetup status reads it back through the DM
  // ioctl): an option it lacks was not applied, and the set-up must not be measured as if it were.
  std::string status = sys_.ProgramOutput({"cryptsetup", "status", name});
  if (std::string missing = DmStatusMismatch(spec, status); !missing.empty()) throw Error(missing);
  std::string sector = StatusField(status, "sector size");
  std::string table_flags = StatusField(status, "flags");
  t.notes.push_back({"Encryption", std::string("dm-crypt ") + (spec.dm_format == "luks2" ? "LUKS2" : "plain") +
                                       ", cipher " + cipher + ", " + bits_text + "-bit key (random per run)" +
                                       (sector.empty() ? "" : ", sector size " + sector) +
                                       (table_flags.empty() ? "" : ", flags " + table_flags + " (the kernel's table)")});
  // The kernel instantiated the cipher when the mapping was made: its driver is listed now.
  auto after = Crypto(sys_);
  std::string algorithm = CryptoApiName(cipher);
  std::string hint = impl.driver_hint;
  if (algorithm.empty() && StartsWith(cipher, "capi:")) {  // a capi: cipher the user wrote: find it by driver
    hint = cipher.substr(5, cipher.rfind('-') - 5);
    for (const auto& a : after)
      if (a.driver == hint || a.name == hint) algorithm = a.name;
  }
  t.notes.push_back({"Cipher Driver", algorithm.empty() ? "not identified for " + cipher
                                                        : DriverNote(after, algorithm, hint)});
  t.notes.push_back({"Implementation", spec.impl.empty() ? std::string("the kernel's choice (highest priority)")
                                                         : "chosen with " + cipher});
  return "/dev/mapper/" + name;
}

void TargetSet::MakeFileSystem(Target& t, const std::string& device) {
  const std::string& fs = t.spec.fs;
  std::vector<std::string> argv;
  if (fs == "ext4") {
    // No discard (it would punch holes into the preallocated file), no lazy initialisation (the
    // kernel would zero inode tables in the background while benchmarks run), and 4 KiB blocks
    // whatever the size (mke2fs gives file systems under 512 MiB 1 KiB blocks).
    argv = {"mkfs.ext4", "-F", "-q", "-b", "4096", "-E", "nodiscard,lazy_itable_init=0,lazy_journal_init=0"};
    if (t.spec.kind == Kind::kFscrypt) argv.insert(argv.end(), {"-O", "encrypt"});
  } else if (fs == "xfs") {
    argv = {"mkfs.xfs", "-f", "-q", "-K"};
  } else if (fs == "reiserfs") {
    // -f twice: never ask (once still asks "Continue (y/n)" on a whole device such as a loop).
    argv = {"mkfs.reiserfs", "-f", "-f", "-q"};
  } else {
    argv = {"mkfs.btrfs", "-f", "-q", "-K"};
  }
  std::string shown = Join(argv, " ");
  argv.push_back(device);
  sys_.RunProgram(argv);
  t.notes.push_back({"File System", fs + " (" + shown + ")"});
}

void TargetSet::CreateFscrypt(Target& t) {
  bool adiantum = t.spec.fscrypt_mode == "adiantum";
  Secret key = sys_.RandomKey(64);
  std::string id = sys_.AddFscryptKey(t.mount_dir, key);
  Record({ResourceType::kFscryptKey, t.mount_dir, id, t.identifier});
  std::string dir = t.mount_dir + "/encrypted";
  sys_.MakeDirectory(dir);
  sys_.SetFscryptPolicy(dir, adiantum ? kModeAdiantum : kModeAes256Xts, adiantum ? kModeAdiantum : kModeAes256Cts,
                        kPolicyPad32, id);
  // The kernel sets up a file's cipher when the file is made: one small file lists the drivers
  // in /proc/crypto (and proves the key and policy work before any benchmark starts).
  std::string probe = dir + "/.ptsn-probe";
  sys_.AllocateFile(probe, 4096);
  sys_.RemoveFile(probe);
  t.work_dir = dir;
  auto crypto = Crypto(sys_);
  std::string contents = adiantum ? "adiantum(xchacha12,aes)" : "xts(aes)";
  t.notes.insert(t.notes.begin(),
                 {"Encryption", std::string("fscrypt v2 policy, contents ") + (adiantum ? "Adiantum" : "AES-256-XTS") +
                                    ", file names " + (adiantum ? "Adiantum" : "AES-256-CTS") +
                                    ", 512-bit master key (random per run, added with FS_IOC_ADD_ENCRYPTION_KEY), "
                                    "padding 32"});
  t.notes.insert(t.notes.begin() + 1,
                 {"Cipher Driver", DriverNote(crypto, contents, "") +
                                       (adiantum ? "" : "; " + DriverNote(crypto, "cts(cbc(aes))", ""))});
  t.notes.insert(t.notes.begin() + 2, {"Implementation", ImplementationNote(t, lowered_notes_)});
}

void TargetSet::CreateEcryptfs(Target& t, const std::string& upper) {
  // As an encrypted home: the encrypted files in a directory of the file system below, the
  // plain view mounted over another directory. The passphrase is random per run and never
  // written down; the tool turns it into the kernel's auth tokens (data and file names).
  std::string lower = t.mount_dir + "/.ecryptfs-lower";
  sys_.MakeDirectory(lower);
  sys_.MakeDirectory(upper);
  Secret raw = sys_.RandomKey(32);
  static const char* digits = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : raw.bytes()) hex += {digits[c >> 4], digits[c & 15]};
  Secret passphrase(std::move(hex));
  auto [sig, fnek_sig] = sys_.AddEcryptfsPassphrase(passphrase);
  std::string bytes = std::to_string(t.spec.ecryptfs_key_bytes);
  Record({ResourceType::kMount, upper, lower, t.identifier});
  sys_.Mount(lower, upper, "ecryptfs",
             "ecryptfs_sig=" + sig + ",ecryptfs_fnek_sig=" + fnek_sig + ",ecryptfs_cipher=aes,ecryptfs_key_bytes=" +
                 bytes + ",ecryptfs_unlink_sigs");
  // One small file makes the kernel set up the file's cipher (listing the driver in
  // /proc/crypto) and proves the key works before any benchmark starts.
  std::string probe = upper + "/.ptsn-probe";
  sys_.AllocateFile(probe, 4096);
  sys_.RemoveFile(probe);
  t.work_dir = upper;
  auto crypto = Crypto(sys_);
  t.notes.insert(t.notes.begin(),
                 {"Encryption", "eCryptfs over " + t.spec.fs + ", cipher AES-" + std::to_string(t.spec.ecryptfs_key_bytes * 8) +
                                    " (ecryptfs_key_bytes=" + bytes + ", CBC per extent), file names encrypted (FNEK), "
                                    "random passphrase per run (auth tokens in the process keyring only)"});
  t.notes.insert(t.notes.begin() + 1, {"Cipher Driver", DriverNote(crypto, "cbc(aes)", "") + "; " +
                                                            DriverNote(crypto, "ecb(aes)", "")});
  t.notes.insert(t.notes.begin() + 2, {"Implementation", ImplementationNote(t, lowered_notes_)});
}

void TargetSet::Enter(const Target& target) {
  if (target.algorithms.empty()) return;  // plain and dm-crypt: nothing global to set
  if (target.chosen_family == "aes-generic") LowerForGenericAes();
  else RestorePriorities();
  if (target.chosen_family.empty()) return;
  if (std::string wrong = CheckChosenDrivers(Crypto(sys_), target.algorithms, target.chosen_family); !wrong.empty())
    throw Error(target.identifier + ": " + wrong);
}

void TargetSet::LowerForGenericAes() {
  if (!lowered_.empty()) return;
  lowered_notes_.clear();
  std::vector<std::string> algorithms = AesAlgorithmsOf(true);
  for (const auto& name : AesAlgorithmsOf(false))
    if (std::find(algorithms.begin(), algorithms.end(), name) == algorithms.end()) algorithms.push_back(name);
  for (const auto& name : algorithms) sys_.InstantiateCrypto(GenericInstanceOf(name));
  for (const auto& change : LowerForGeneric(Crypto(sys_), algorithms)) {
    Resource r{ResourceType::kCryptoPriority, change.driver, std::to_string(change.from), ""};
    Record(r);  // before the change: a kill -9 right after it still gets it given back
    lowered_.push_back(r);
    sys_.SetCryptoPriority(change.driver, change.to);
    lowered_notes_.push_back(change.driver + " " + std::to_string(change.from) + " -> " + std::to_string(change.to));
  }
}

void TargetSet::RestorePriorities() {
  std::vector<std::string> problems;
  ReleaseEach(lowered_, &problems);
  lowered_.clear();
  if (!problems.empty()) throw Error("cipher drivers not given their priority back: " + Join(problems, "; "));
}

void TargetSet::ReleaseEach(const std::vector<Resource>& newest_last, std::vector<std::string>* problems) {
  for (const auto& r : ReleaseOrder(newest_last)) {
    try {
      Release(sys_, r);
      ledger_.Forget(r);
    } catch (const Error& e) {
      problems->push_back(Describe(r) + ": " + e.what());  // stays in the ledger for the next run
    }
  }
}

std::vector<std::string> TargetSet::RemoveAll() {
  std::vector<std::string> problems;
  teardown_seconds_.clear();
  ReleaseEach(lowered_, &problems);
  lowered_.clear();
  // Every NFS client, export and the server first: the server holds what it exported.
  std::vector<Resource> serving;
  for (const auto& r : ledger_.resources())
    if (ServesNfs(r)) serving.push_back(r);
  ReleaseEach(serving, &problems);
  for (auto it = targets_.rbegin(); it != targets_.rend(); ++it) {
    double start = Now();
    std::vector<Resource> mine;
    for (const auto& r : ledger_.resources())
      if (r.target == it->identifier) mine.push_back(r);
    ReleaseEach(mine, &problems);
    teardown_seconds_.insert(teardown_seconds_.begin(), {it->identifier, Now() - start});
  }
  targets_.clear();
  // The run's directory last, and only when nothing of a target is left in it.
  bool target_left = false;
  for (const auto& r : ledger_.resources()) target_left |= !r.target.empty();
  if (!target_left) {
    ReleaseEach(ledger_.resources(), &problems);
    base_dir_.clear();
  }
  return problems;
}

std::string WhyUnavailable(TargetSystem& sys, const TargetSpec& spec) {
  if (!sys.IsRoot()) return "needs root (loop devices and mounts need CAP_SYS_ADMIN)";
  if (!sys.Exists("/dev/loop-control")) return "no loop devices (/dev/loop-control missing; modprobe loop)";
  std::string mkfs = "mkfs." + spec.fs;
  if (std::string why = MissingProgram(sys, mkfs); !why.empty()) return why;
  if (!spec.raid_level.empty()) {
    if (std::string why = MissingProgram(sys, "mdadm"); !why.empty()) return why;
    if (!sys.Exists("/proc/mdstat")) return "raid=: this kernel has no software RAID (md; /proc/mdstat missing: modprobe md-mod)";
  }
  auto filesystems = sys.ReadText("/proc/filesystems").value_or("");
  if (!FileSystemListed(filesystems, spec.fs) && !KernelModuleExists(sys, "/fs/" + spec.fs + "/"))
    return "the kernel has no " + spec.fs + " file system (not in /proc/filesystems, no module)";
  if (!spec.nfs_version.empty()) {
    for (const char* program : {"rpc.nfsd", "rpc.mountd", "exportfs"})
      if (std::string why = MissingProgram(sys, program); !why.empty()) return "nfs: " + why;
    if (!FileSystemListed(filesystems, "nfsd") && !KernelModuleExists(sys, "/fs/nfsd/"))
      return "nfs: the kernel has no NFS server (nfsd not in /proc/filesystems, no nfsd module)";
    if (!FileSystemListed(filesystems, "nfs4") && !KernelModuleExists(sys, "/nfsv4.ko"))
      return "nfs: the kernel has no NFSv4 client (nfs4 not in /proc/filesystems, no nfsv4 module)";
  }
  auto crypto = Crypto(sys);
  if (spec.kind == Kind::kFscrypt) {
    if (!sys.Exists("/sys/fs/ext4/features/encryption"))
      return "the kernel's ext4 has no encryption (no /sys/fs/ext4/features/encryption; CONFIG_FS_ENCRYPTION)";
    if (spec.fscrypt_mode == "adiantum" && !PreferredDriver(crypto, "adiantum(xchacha12,aes)") &&
        !PreferredDriver(crypto, "xchacha12") && !KernelModuleExists(sys, "/adiantum.ko"))
      return "Adiantum: the kernel has no xchacha12/adiantum (CONFIG_CRYPTO_ADIANTUM)";
  }
  if (spec.kind == Kind::kEcryptfs) {
    if (std::string why = MissingProgram(sys, "ecryptfs-add-passphrase"); !why.empty()) return why;
    if (filesystems.find("ecryptfs") == std::string::npos && !KernelModuleExists(sys, "/fs/ecryptfs/"))
      return "the kernel has no eCryptfs (not in /proc/filesystems, no ecryptfs module; CONFIG_ECRYPT_FS)";
  }
  if ((spec.kind == Kind::kFscrypt || spec.kind == Kind::kEcryptfs) && !spec.impl.empty()) {
    // They pick by priority: the generic AES is chosen by lowering the others (crypto_user).
    if (spec.impl == "generic") {
      if (std::string why = sys.CryptoConfigProblem(); !why.empty())
        return "impl=generic: " + why + "; fscrypt and eCryptfs cannot name a driver, so the others must be lowered";
    } else if (AesCipherDrivers(crypto).find("aesni") == std::string::npos) {
      return "impl=aesni: no AES-NI driver in /proc/crypto (aes cipher drivers here: " + AesCipherDrivers(crypto) +
             "; the aesni_intel module is not loaded or the CPU has no AES-NI)";
    }
  }
  if (!spec.dm_flags.empty() || spec.sector_size || spec.inlinecrypt) {
    // What the kernel and cryptsetup must be for the options (encryption_options.h).
    std::string cryptsetup;
    if (spec.kind == Kind::kDmCrypt && sys.FindProgram("cryptsetup"))
      cryptsetup = Split(sys.ProgramOutput({"cryptsetup", "--version"}), '\n')[0];
    const EncryptionProbe probe = ProbeEncryption(
        {[&](const std::string& path) { return sys.ReadText(path); }, [&](const std::string& path) { return sys.Exists(path); }},
        cryptsetup);
    if (std::string why = WhyOptionsUnavailable(spec, probe.kernel_release, cryptsetup, probe.inline_crypto); !why.empty())
      return why;
  }
  if (spec.kind == Kind::kDmCrypt) {
    if (std::string why = MissingProgram(sys, "cryptsetup"); !why.empty()) return why;
    auto misc = sys.ReadText("/proc/misc").value_or("");
    if (!sys.Exists("/dev/mapper/control") && misc.find("device-mapper") == std::string::npos)
      return "the kernel has no device-mapper (no /dev/mapper/control, no device-mapper in /proc/misc)";
    if (!sys.Exists("/sys/module/dm_crypt") && !KernelModuleExists(sys, "/dm-crypt.ko"))
      return "the kernel's device-mapper has no crypt target (no dm_crypt module)";
    Implementation impl = ResolveImplementation(crypto, spec.impl);
    if (!impl.error.empty()) return impl.error;
  }
  return "";
}

std::vector<KindStatus> ProbeKinds(TargetSystem& sys) {
  std::vector<KindStatus> out;
  auto crypto = Crypto(sys);
  // plain: which file systems
  {
    KindStatus s{Kind::kPlain};
    std::vector<std::string> have, lacking;
    for (const char* fs : {"ext4", "xfs", "btrfs", "reiserfs"}) {
      TargetSpec spec;
      spec.fs = fs;
      std::string why = WhyUnavailable(sys, spec);
      if (why.empty()) have.push_back(fs);
      else if (std::string(fs) == "ext4") s.detail = why;
      else lacking.push_back(std::string(fs) + ": " + why);
    }
    s.available = !have.empty() && s.detail.empty();
    if (s.available) {
      s.detail = "file systems " + Join(have, ", ") + (lacking.empty() ? "" : " (" + Join(lacking, "; ") + ")");
      TargetSpec nfs;  // the NFS client's view, of any plain or dm-crypt target
      nfs.nfs_version = "4.2";
      std::string why = WhyUnavailable(sys, nfs);
      s.detail += "; " + (why.empty() ? std::string("nfs (NFSv4 over loopback) for plain and dm-crypt") : why);
    }
    out.push_back(s);
  }
  // An encrypted kind with its default spec: why not, else what it offers (`offers`).
  auto probe = [&](Kind kind, const std::function<std::string(TargetSpec&)>& offers) {
    KindStatus s{kind};
    TargetSpec spec;
    spec.kind = kind;
    s.detail = WhyUnavailable(sys, spec);
    s.available = s.detail.empty();
    if (s.available) s.detail = offers(spec);
    out.push_back(s);
  };
  // impl= of the kinds that pick their driver by priority: what can be chosen here.
  auto priority_choice = [&](TargetSpec spec) {
    spec.impl = "generic";
    std::string generic = WhyUnavailable(sys, spec);
    spec.impl = "aesni";
    std::string aesni = WhyUnavailable(sys, spec);
    if (generic.empty() && aesni.empty()) return std::string("impl=generic|aesni (by lowering the other drivers' priority)");
    if (generic.empty()) return std::string("impl=generic (by lowering the other drivers' priority)");
    return "impl=: the kernel's choice only (" + generic + ")";
  };
  probe(Kind::kFscrypt, [&](TargetSpec& spec) {
    std::string impl = priority_choice(spec);
    spec.fscrypt_mode = "adiantum";
    std::string adiantum = WhyUnavailable(sys, spec);
    return "ext4, AES-256-XTS" + std::string(adiantum.empty() ? " and Adiantum" : " (" + adiantum + ")") + "; " + impl;
  });
  probe(Kind::kDmCrypt,
        [&](TargetSpec&) { return "LUKS2 and plain; impl= AES drivers: " + AesCipherDrivers(crypto); });
  probe(Kind::kEcryptfs, [&](TargetSpec& spec) { return "AES-128/192/256 over ext4, xfs or btrfs; " + priority_choice(spec); });
  return out;
}

}  // namespace ptsn::targets
