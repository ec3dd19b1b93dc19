#include "runner/targets/target_set.h"

#include <unistd.h>

#include <chrono>
#include <functional>

#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/targets/crypto_info.h"

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
  if (program == "cryptsetup") return "cryptsetup-bin";
  return "";
}

std::string MissingProgram(TargetSystem& sys, const std::string& program) {
  if (sys.FindProgram(program)) return "";
  std::string package = PackageOf(program);
  return program + " not found" + (package.empty() ? "" : " (Debian package " + package + ")");
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
  size_t index = targets_.size(), recorded = ledger_.resources().size();
  double start = Now();
  try {
    if (std::string why = WhyUnavailable(sys_, spec); !why.empty()) throw Error(why);
    CreatePlain(t, index);
  } catch (const Error& e) {
    std::vector<std::string> problems;
    ReleaseEach({ledger_.resources().begin() + static_cast<long>(recorded), ledger_.resources().end()}, &problems);
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
  LoopOptions loop;
  loop.size = options_.size;
  loop.direct_io = options_.loop_direct_io;
  std::string where;
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
  t.loop_device = sys_.AttachLoop(loop);
  Record({ResourceType::kLoop, t.loop_device, loop.backing, t.identifier});
  std::string dio = Trim(sys_.ReadText("/sys/block/" + t.loop_device.substr(t.loop_device.rfind('/') + 1) +
                                       "/loop/dio").value_or(""));
  where = t.loop_device + " (loop device over " + where + ", direct I/O " + (dio == "1" ? "on" : "off") + ")";

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
  std::string mount_options = spec.fs == "btrfs" ? "nodiscard" : "";
  sys_.Mount(t.device, t.mount_dir, spec.fs, mount_options);
  t.work_dir = t.mount_dir;
  if (spec.kind == Kind::kFscrypt) CreateFscrypt(t);
  if (spec.kind == Kind::kPlain) t.notes.insert(t.notes.begin(), {"Encryption", "none"});
  auto mounted = sys_.MountAt(t.mount_dir);
  t.notes.push_back({"Mount Options", mounted ? mounted->options : "(not found in /proc/self/mountinfo)"});
  t.notes.push_back({"Device", where});
}

std::string TargetSet::OpenDmCrypt(Target& t, size_t index) {
  const TargetSpec& spec = t.spec;
  auto crypto = Crypto(sys_);
  Implementation impl = ResolveImplementation(crypto, spec.impl);
  if (!impl.error.empty()) throw Error(impl.error);
  std::string cipher = DmCryptCipher(spec, impl.capi_algorithm);
  int bits = spec.key_bits ? spec.key_bits : 512;
  std::string name = "ptsn-" + std::to_string(getpid()) + "-" + std::to_string(index + 1);
  // A random key per run, handed to cryptsetup on its stdin only. LUKS2 stores it wrapped by this
  // passphrase; PBKDF2 at its minimum because a 64-byte random passphrase needs no stretching
  // (Argon2's default benchmark alone would take ~2 s of the set-up).
  Secret key = sys_.RandomKey(static_cast<size_t>(bits / 8));
  std::string bits_text = std::to_string(bits);
  if (spec.dm_format == "luks2") {
    sys_.RunProgram({"cryptsetup", "luksFormat", "--type", "luks2", "--batch-mode", "--cipher", cipher, "--key-size",
                     bits_text, "--pbkdf", "pbkdf2", "--pbkdf-force-iterations", "1000", "--hash", "sha256",
                     "--key-file", "-", t.loop_device},
                    key.bytes());
    Record({ResourceType::kDmMapping, name, "", t.identifier});
    sys_.RunProgram({"cryptsetup", "open", "--type", "luks2", "--key-file", "-", t.loop_device, name}, key.bytes());
  } else {
    Record({ResourceType::kDmMapping, name, "", t.identifier});
    sys_.RunProgram({"cryptsetup", "open", "--type", "plain", "--cipher", cipher, "--key-size", bits_text,
                     "--keyfile-size", std::to_string(bits / 8), "--key-file", "-", t.loop_device, name},
                    key.bytes());
  }
  std::string status = sys_.ProgramOutput({"cryptsetup", "status", name});
  std::string sector = StatusField(status, "sector size");
  t.notes.push_back({"Encryption", std::string("dm-crypt ") + (spec.dm_format == "luks2" ? "LUKS2" : "plain") +
                                       ", cipher " + cipher + ", " + bits_text + "-bit key (random per run)" +
                                       (sector.empty() ? "" : ", sector size " + sector)});
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
  t.notes.insert(t.notes.begin() + 2,
                 {"Implementation", "the kernel's choice (fscrypt cannot select a driver)"});
}

void TargetSet::ReleaseEach(const std::vector<Resource>& newest_last, std::vector<std::string>* problems) {
  for (auto r = newest_last.rbegin(); r != newest_last.rend(); ++r) {
    try {
      Release(sys_, *r);
      ledger_.Forget(*r);
    } catch (const Error& e) {
      problems->push_back(Describe(*r) + ": " + e.what());  // stays in the ledger for the next run
    }
  }
}

std::vector<std::string> TargetSet::RemoveAll() {
  std::vector<std::string> problems;
  teardown_seconds_.clear();
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
  auto filesystems = sys.ReadText("/proc/filesystems").value_or("");
  bool listed = false;
  for (const auto& line : Split(filesystems, '\n')) listed |= Trim(line) == spec.fs || EndsWith(Trim(line), "\t" + spec.fs);
  if (!listed && !KernelModuleExists(sys, "/fs/" + spec.fs + "/"))
    return "the kernel has no " + spec.fs + " file system (not in /proc/filesystems, no module)";
  auto crypto = Crypto(sys);
  if (spec.kind == Kind::kFscrypt) {
    if (!sys.Exists("/sys/fs/ext4/features/encryption"))
      return "the kernel's ext4 has no encryption (no /sys/fs/ext4/features/encryption; CONFIG_FS_ENCRYPTION)";
    if (spec.fscrypt_mode == "adiantum" && !PreferredDriver(crypto, "adiantum(xchacha12,aes)") &&
        !PreferredDriver(crypto, "xchacha12") && !KernelModuleExists(sys, "/adiantum.ko"))
      return "Adiantum: the kernel has no xchacha12/adiantum (CONFIG_CRYPTO_ADIANTUM)";
    if (!spec.impl.empty()) {
      const CryptoAlgorithm* xts = PreferredDriver(crypto, "xts(aes)");
      return "fscrypt cannot choose its cipher implementation (the kernel uses the highest-priority driver" +
             std::string(xts ? ", here " + xts->driver : "") + "); drop impl= or use dm-crypt";
    }
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
    for (const char* fs : {"ext4", "xfs", "btrfs"}) {
      TargetSpec spec;
      spec.fs = fs;
      std::string why = WhyUnavailable(sys, spec);
      if (why.empty()) have.push_back(fs);
      else if (std::string(fs) == "ext4") s.detail = why;
      else lacking.push_back(std::string(fs) + ": " + why);
    }
    s.available = !have.empty() && s.detail.empty();
    if (s.available)
      s.detail = "file systems " + Join(have, ", ") + (lacking.empty() ? "" : " (" + Join(lacking, "; ") + ")");
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
  probe(Kind::kFscrypt, [&](TargetSpec& spec) {
    spec.fscrypt_mode = "adiantum";
    std::string adiantum = WhyUnavailable(sys, spec);
    return "ext4, AES-256-XTS" + std::string(adiantum.empty() ? " and Adiantum" : " (" + adiantum + ")") +
           "; implementation: the kernel's choice";
  });
  probe(Kind::kDmCrypt,
        [&](TargetSpec&) { return "LUKS2 and plain; impl= AES drivers: " + AesCipherDrivers(crypto); });
  return out;
}

}  // namespace ptsn::targets
