// RealSystem: the TargetSystem of a Linux machine. Loop devices through /dev/loop-control and
// LOOP_CONFIGURE (attached with LO_FLAGS_AUTOCLEAR and held open until released, so a loop device
// whose process dies before it was mounted goes away by itself), fscrypt through its ioctls,
// mount(2)/umount2(2), and mkfs/cryptsetup as programs with the key on their stdin.
#include <fcntl.h>
#include <linux/cryptouser.h>
#include <linux/fs.h>
#include <linux/fscrypt.h>
#include <linux/keyctl.h>
#include <linux/loop.h>
#include <linux/netlink.h>
#include <sched.h>
#include <signal.h>
#include <pthread.h>
#include <spawn.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/find_program.h"
#include "runner/common/strings.h"
#include "runner/targets/mount_namespace.h"
#include "runner/targets/proc_files.h"
#include "runner/targets/system.h"

extern char** environ;

namespace fs = std::filesystem;

namespace ptsn::targets {

Secret::~Secret() {
  if (!bytes_.empty()) explicit_bzero(bytes_.data(), bytes_.size());
}

namespace {

std::string Errno(int e) { return std::strerror(e); }

std::string LastLine(const std::string& output) {
  std::string text = Trim(output);
  size_t nl = text.rfind('\n');
  return nl == std::string::npos ? text : Trim(text.substr(nl + 1));
}

// An fd closed on scope exit.
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

std::string Hex(const unsigned char* bytes, size_t n) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 15];
  }
  return out;
}

bool FromHex(const std::string& hex, unsigned char* out, size_t n) {
  if (hex.size() != 2 * n) return false;
  for (size_t i = 0; i < n; ++i) {
    auto nibble = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; };
    int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = static_cast<unsigned char>(hi << 4 | lo);
  }
  return true;
}

class RealSystem : public TargetSystem {
 public:
  ~RealSystem() override {
    for (auto& [device, fd] : loop_fds_) close(fd);
  }

  bool IsRoot() override { return geteuid() == 0; }

  std::optional<std::string> FindProgram(const std::string& program) override {
    return ptsn::FindProgram(program, "/usr/local/sbin:/usr/sbin:/sbin");  // root's tools, off a user's PATH
  }

  std::optional<std::string> ReadText(const std::string& path) override {
    try {
      return ReadFile(path);
    } catch (const Error&) {
      return std::nullopt;
    }
  }

  bool Exists(const std::string& path) override {
    struct stat st;
    return stat(path.c_str(), &st) == 0;
  }

  uint64_t FreeBytes(const std::string& dir) override { return ptsn::FreeBytes(dir); }

  uint64_t BlockDeviceBytes(const std::string& device) override {
    struct stat st;
    if (stat(device.c_str(), &st) != 0) throw FileError(device, Errno(errno));
    if (!S_ISBLK(st.st_mode)) throw FileError(device, "not a block device");
    Fd fd(open(device.c_str(), O_RDONLY | O_CLOEXEC));
    uint64_t bytes = 0;
    if (fd.fd < 0 || ioctl(fd.fd, BLKGETSIZE64, &bytes) != 0) throw FileError(device, "cannot read its size: " + Errno(errno));
    return bytes;
  }

  std::string DeviceBusy(const std::string& device) override {
    int fd = open(device.c_str(), O_RDONLY | O_EXCL | O_CLOEXEC);
    if (fd >= 0) {
      close(fd);
      return "";
    }
    return errno == EBUSY ? "mounted, or held by device-mapper, RAID or another exclusive user" : Errno(errno);
  }

  bool WaitUntilFree(const std::string& device, double seconds) override {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!DeviceBusy(device).empty()) {
      if (std::chrono::steady_clock::now() >= end) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return true;
  }

  std::string MountNamespace() override {
    std::error_code ec;
    std::string ns = std::filesystem::read_symlink("/proc/self/ns/mnt", ec).string();
    if (ec) throw FileError("/proc/self/ns/mnt", ec.message());
    return ns;
  }

  // A killed process whose parent has not reaped it yet: gone for our purposes (it holds nothing).
  bool Zombie(int pid) {
    auto stat = ReadText("/proc/" + std::to_string(pid) + "/stat");
    if (!stat) return true;
    const size_t paren = stat->rfind(')');
    return paren != std::string::npos && paren + 2 < stat->size() && (*stat)[paren + 2] == 'Z';
  }

  int KillProcessesHolding(const std::string& ns, const std::string& dir, double seconds) override {
    std::vector<std::pair<int, std::string>> killed;  // pid, start time
    std::vector<std::string> nfs_clients;             // NFS client mounts under `dir` in that namespace
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
      const std::string name = e.path().filename().string();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      const int pid = std::atoi(name.c_str());
      std::error_code link_ec;
      if (pid == getpid() || std::filesystem::read_symlink(e.path() / "ns/mnt", link_ec).string() != ns) continue;
      auto text = ReadText(e.path().string() + "/mountinfo");
      if (!text) continue;
      auto mounts = ParseMountInfo(*text);
      if (MountPointsUnder(mounts, dir).empty()) continue;
      if (nfs_clients.empty())
        for (const auto& m : mounts)
          if (StartsWith(m.fstype, "nfs") && !MountPointsUnder({m}, dir).empty()) nfs_clients.push_back(m.mount_point);
      const std::string start = ProcessStartTime(pid);
      if (kill(pid, SIGKILL) == 0) killed.push_back({pid, start});
    }
    auto still_running = [&] {
      std::vector<std::string> left;
      for (const auto& [pid, start] : killed)
        if (ProcessAlive(pid, start) && !Zombie(pid)) left.push_back(std::to_string(pid));
      return left;
    };
    const auto start = std::chrono::steady_clock::now();
    auto next_abort = start + std::chrono::seconds(1);
    std::vector<std::string> left = still_running();
    while (!left.empty() && std::chrono::steady_clock::now() - start < std::chrono::duration<double>(seconds)) {
      // A process killed while it wrote through an NFS client whose server has stopped never
      // finishes exiting (the client waits for the server, hard-mounted): abort its requests.
      // Again every few seconds: exiting, it closes its files, and each close flushes dirty pages
      // as new requests that the earlier abort did not cover (seen in the VM at load 10: one abort
      // left a killed writer waiting past 60 s; it ended by itself 30 s later).
      if (!nfs_clients.empty() && std::chrono::steady_clock::now() >= next_abort) {
        AbortNfsRequests(std::atoi(left.front().c_str()), nfs_clients);
        next_abort = std::chrono::steady_clock::now() + std::chrono::seconds(3);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      left = still_running();
    }
    if (!left.empty()) throw Error("processes " + Join(left, ", ") + " did not end after SIGKILL");
    return static_cast<int>(killed.size());
  }

  // umount2 with MNT_FORCE on NFS client mounts (in the mount namespace of process `pid`) runs the
  // client's umount_begin, which kills its outstanding requests with EIO, even when the unmount
  // itself then fails as busy. From a child: setns into a mount namespace needs a process without
  // threads, and after fork only system calls are made, on strings made before it.
  void AbortNfsRequests(int pid, const std::vector<std::string>& mount_points) {
    Fd ns(open(("/proc/" + std::to_string(pid) + "/ns/mnt").c_str(), O_RDONLY | O_CLOEXEC));
    if (ns.fd < 0) return;
    std::vector<const char*> paths;
    for (const auto& m : mount_points) paths.push_back(m.c_str());
    const pid_t child = fork();
    if (child == 0) {
      if (setns(ns.fd, CLONE_NEWNS) != 0) _exit(1);
      for (const char* path : paths) umount2(path, MNT_FORCE);
      _exit(0);
    }
    if (child > 0) waitpid(child, nullptr, 0);
  }

  DirectIoAlignment DirectIoAlignmentOf(const std::string& path) override {
    struct statx st {};
    if (statx(AT_FDCWD, path.c_str(), 0, STATX_DIOALIGN, &st) != 0) throw Error("statx " + path + ": " + Errno(errno));
    DirectIoAlignment dio;
    dio.reported = (st.stx_mask & STATX_DIOALIGN) != 0;  // kernels before 6.1 and some file systems leave it out
    dio.memory = st.stx_dio_mem_align;
    dio.offset = st.stx_dio_offset_align;
    return dio;
  }

  std::optional<Mounted> MountAt(const std::string& dir) override {
    auto text = ReadText("/proc/self/mountinfo");
    if (!text) return std::nullopt;
    for (const auto& m : ParseMountInfo(*text))
      if (m.mount_point == dir) return Mounted{m.source, m.fstype, m.options};
    return std::nullopt;
  }

  std::vector<std::string> MountsUnder(const std::string& dir) override {
    auto text = ReadText("/proc/self/mountinfo");
    return text ? MountPointsUnder(ParseMountInfo(*text), dir) : std::vector<std::string>{};
  }

  std::string ProcessStartTime(int pid) override {
    auto stat = ReadText("/proc/" + std::to_string(pid) + "/stat");
    return stat ? StartTimeFromStat(*stat) : "";
  }

  bool ProcessAlive(int pid, const std::string& start_time) override {
    std::string now = ProcessStartTime(pid);
    return !now.empty() && now == start_time;
  }

  Secret RandomKey(size_t bytes) override {
    std::string key(bytes, '\0');
    size_t got = 0;
    while (got < bytes) {
      ssize_t n = getrandom(key.data() + got, bytes - got, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw Error("getrandom: " + Errno(errno));
      got += static_cast<size_t>(n);
    }
    return Secret(std::move(key));
  }

  void MakeDirectory(const std::string& path) override {
    if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) throw FileError(path, "cannot create: " + Errno(errno));
  }

  void AllocateFile(const std::string& path, uint64_t bytes) override {
    Fd fd(open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
    if (fd.fd < 0) throw FileError(path, "cannot create: " + Errno(errno));
    // Allocated up front (unwritten extents: nothing is written now), so the file system under
    // the target does not allocate blocks while a benchmark runs.
    int rc = posix_fallocate(fd.fd, 0, static_cast<off_t>(bytes));
    if (rc != 0) {
      unlink(path.c_str());
      throw FileError(path, "cannot allocate " + std::to_string(bytes >> 20) + " MiB: " + Errno(rc));
    }
  }

  void RemoveFile(const std::string& path) override {
    if (unlink(path.c_str()) != 0 && errno != ENOENT) throw FileError(path, "cannot remove: " + Errno(errno));
  }

  void RemoveDirectory(const std::string& path) override {
    if (!MountsUnder(path).empty()) throw FileError(path, "not removed: a file system is still mounted in it");
    std::error_code ec;
    fs::remove_all(path, ec);
    if (ec) throw FileError(path, "cannot remove: " + ec.message());
  }

  void SetIoScheduler(const std::string& device, const std::string& scheduler) override {
    const std::string path = SysBlock(device, "queue/scheduler");
    auto offered = [&] {
      auto text = ReadText(path);
      return text ? Trim(*text) : std::string("(") + path + " unreadable)";
    };
    std::ofstream out(path);
    out << scheduler << std::flush;
    // The kernel marks the one in use: "none [mq-deadline] kyber".
    if (!out || offered().find("[" + scheduler + "]") == std::string::npos)
      throw Error("sched=" + scheduler + ": " + device + " offers " + offered() +
                  (scheduler == "bfq" || scheduler == "kyber" ? " (modprobe " + scheduler + (scheduler == "kyber" ? "-iosched" : "") + "?)" : ""));
  }

  std::string AttachLoop(const LoopOptions& o) override {
    Fd backing(open(o.backing.c_str(), O_RDWR | O_CLOEXEC));
    if (backing.fd < 0) throw FileError(o.backing, "cannot open for the loop device: " + Errno(errno));
    Fd control(open("/dev/loop-control", O_RDWR | O_CLOEXEC));
    if (control.fd < 0) throw Error("/dev/loop-control: " + Errno(errno));
    bool direct = o.direct_io;
    // Another process may take the free device between GET_FREE and CONFIGURE: try again.
    for (int attempt = 0; attempt < 20; ++attempt) {
      int n = ioctl(control.fd, LOOP_CTL_GET_FREE);
      if (n < 0) throw Error("/dev/loop-control: no free loop device: " + Errno(errno));
      std::string device = "/dev/loop" + std::to_string(n);
      int fd = open(device.c_str(), O_RDWR | O_CLOEXEC);
      if (fd < 0) throw FileError(device, Errno(errno));
      loop_config config{};
      config.fd = static_cast<__u32>(backing.fd);
      config.info.lo_offset = o.offset;
      config.info.lo_sizelimit = o.size;
      config.info.lo_flags = LO_FLAGS_AUTOCLEAR | (direct ? LO_FLAGS_DIRECT_IO : 0);
      std::strncpy(reinterpret_cast<char*>(config.info.lo_file_name), o.backing.c_str(), LO_NAME_SIZE - 1);
      if (ioctl(fd, LOOP_CONFIGURE, &config) == 0) {
        std::lock_guard<std::mutex> lock(mutex_);
        loop_fds_[device] = fd;  // held: with AUTOCLEAR, the device goes when the last holder closes it
        return device;
      }
      int e = errno;
      close(fd);
      if (e == EBUSY) continue;
      if (e == EINVAL && direct) {  // the backing file system cannot do direct I/O
        direct = false;
        --attempt;
        continue;
      }
      throw FileError(device, "LOOP_CONFIGURE with " + o.backing + ": " + Errno(e));
    }
    throw Error("/dev/loop-control: every free loop device was taken by another process; try again");
  }

  void DetachLoop(const std::string& device) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (auto it = loop_fds_.find(device); it != loop_fds_.end()) {
        close(it->second);  // AUTOCLEAR detaches it now unless something else holds it
        loop_fds_.erase(it);
      }
    }
    // The detach happens when the kernel drops the last reference. Our mounts live in the run's
    // own mount namespace, but a process the run started that outlived its trial (or made itself
    // a namespace with unshare -m) holds a copy of the mount, and so the loop device, until it
    // ends; on a loaded machine that, and the release itself, can take seconds: wait up to ~10 s
    // (5 ms steps, then 50 ms) before leaving it to the ledger.
    for (int i = 0; i < 380 && !LoopBacking(device).empty(); ++i) {
      if (i == 0 || i % 50 == 49) {
        Fd fd(open(device.c_str(), O_RDWR | O_CLOEXEC));
        // Busy: the kernel sets AUTOCLEAR and detaches it when the last holder closes it.
        if (fd.fd >= 0 && ioctl(fd.fd, LOOP_CLR_FD) != 0 && errno != ENXIO && errno != EBUSY)
          throw FileError(device, "LOOP_CLR_FD: " + Errno(errno));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(i < 200 ? 5 : 50));
    }
    if (!LoopBacking(device).empty()) throw FileError(device, "still attached (in use by another process?)");
  }

  std::string LoopBacking(const std::string& device) override {
    auto text = ReadText(SysBlock(device, "loop/backing_file"));
    return text ? Trim(*text) : "";
  }

  void RunProgram(const std::vector<std::string>& argv, const std::string& input) override {
    std::string output;
    int status = Spawn(argv, input, &output);
    if (status != 0) {
      // The first line says what is wrong (mkfs.xfs follows it with its whole usage text).
      std::string last = Trim(output);
      if (auto nl = last.find('\n'); nl != std::string::npos) last = Trim(last.substr(0, nl));
      throw Error(Join(argv, " ") + " failed (" + (WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                                                    : "signal " + std::to_string(WTERMSIG(status))) +
                  ")" + (last.empty() ? "" : ": " + last));
    }
  }

  std::string ProgramOutput(const std::vector<std::string>& argv) override {
    std::string output;
    Spawn(argv, "", &output);
    return output;
  }

  int StartDaemon(const std::vector<std::string>& argv) override {
    // Everything the child needs is made before fork: between fork and exec only
    // async-signal-safe calls (the run may have threads).
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    auto path = FindProgram(argv[0]);
    if (!path) throw Error(argv[0] + ": not found");
    const pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) throw Error(argv[0] + ": fork: " + Errno(errno));
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(127);  // the parent died before the line above
      int null = open("/dev/null", O_RDWR);
      if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
      }
      execv(path->c_str(), args.data());
      _exit(127);
    }
    // A daemon that cannot start (a bad option, a port in use) says so by exiting at once.
    for (int i = 0; i < 5; ++i) {
      int status = 0;
      if (waitpid(pid, &status, WNOHANG) == pid)
        throw Error(Join(argv, " ") + " exited at once (" +
                    (WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                       : "signal " + std::to_string(WTERMSIG(status))) + ")");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return pid;
  }

  bool StopProcess(int pid, const std::string& start_time) override {
    if (pid <= 1 || !ProcessAlive(pid, start_time)) return false;
    kill(pid, SIGTERM);
    for (int i = 0; i < 100 && ProcessAlive(pid, start_time); ++i) {
      waitpid(pid, nullptr, WNOHANG);  // our own child: reaped here, or it stays a zombie and "alive"
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (ProcessAlive(pid, start_time)) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    return true;
  }

  void WriteText(const std::string& path, const std::string& text) override {
    std::ofstream out(path);
    out << text << std::flush;
    if (!out) throw FileError(path, "cannot write '" + text + "': " + Errno(errno));
  }

  void Mount(const std::string& device, const std::string& dir, const std::string& fstype,
             const std::string& options) override {
    // Never into the machine's namespace, where others could copy the mount and hold our loop device.
    if (std::string why = MountNamespaceProblem(); !why.empty())
      throw FileError(dir, "not mounted: no private mount namespace for the targets: " + why);
    if (mount(device.c_str(), dir.c_str(), fstype.c_str(), 0, options.empty() ? nullptr : options.c_str()) != 0)
      throw FileError(dir, "mount " + fstype + " from " + device + ": " + Errno(errno));
  }

  void Unmount(const std::string& dir, bool* lazily) override {
    if (lazily) *lazily = false;
    for (int i = 0; i < 50; ++i) {
      if (umount2(dir.c_str(), UMOUNT_NOFOLLOW) == 0) return;
      if (errno == EINVAL || errno == ENOENT) return;  // not mounted (any more)
      if (errno != EBUSY) throw FileError(dir, "umount: " + Errno(errno));
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    // Still busy after 5 s (a test's process that outlived it): detach it from the tree now; the
    // kernel finishes the unmount (and frees the loop device) when the last user goes.
    if (umount2(dir.c_str(), MNT_DETACH | UMOUNT_NOFOLLOW) != 0 && errno != EINVAL)
      throw FileError(dir, "umount (lazy): " + Errno(errno));
    if (lazily) *lazily = true;
  }

  std::string AddFscryptKey(const std::string& mount_dir, const Secret& key) override {
    Fd dir(open(mount_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir.fd < 0) throw FileError(mount_dir, Errno(errno));
    std::vector<unsigned char> buffer(sizeof(fscrypt_add_key_arg) + key.bytes().size());
    auto* arg = reinterpret_cast<fscrypt_add_key_arg*>(buffer.data());
    arg->key_spec.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
    arg->raw_size = static_cast<__u32>(key.bytes().size());
    std::memcpy(arg->raw, key.bytes().data(), key.bytes().size());
    int rc = ioctl(dir.fd, FS_IOC_ADD_ENCRYPTION_KEY, arg);
    int e = errno;
    std::string id = Hex(arg->key_spec.u.identifier, FSCRYPT_KEY_IDENTIFIER_SIZE);
    explicit_bzero(buffer.data(), buffer.size());
    if (rc != 0) throw FileError(mount_dir, "FS_IOC_ADD_ENCRYPTION_KEY: " + Errno(e));
    return id;
  }

  void SetFscryptPolicy(const std::string& dir, int contents_mode, int filenames_mode, int flags,
                        const std::string& identifier_hex) override {
    Fd fd(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (fd.fd < 0) throw FileError(dir, Errno(errno));
    fscrypt_policy_v2 policy{};
    policy.version = FSCRYPT_POLICY_V2;
    policy.contents_encryption_mode = static_cast<__u8>(contents_mode);
    policy.filenames_encryption_mode = static_cast<__u8>(filenames_mode);
    policy.flags = static_cast<__u8>(flags);
    if (!FromHex(identifier_hex, policy.master_key_identifier, FSCRYPT_KEY_IDENTIFIER_SIZE))
      throw Error("fscrypt key identifier '" + identifier_hex + "' is not 32 hex digits");
    if (ioctl(fd.fd, FS_IOC_SET_ENCRYPTION_POLICY, &policy) != 0)
      throw FileError(dir, "FS_IOC_SET_ENCRYPTION_POLICY: " + Errno(errno));
  }

  void RemoveFscryptKey(const std::string& mount_dir, const std::string& identifier_hex) override {
    Fd dir(open(mount_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir.fd < 0) return;  // the file system is gone, and its keys with it
    fscrypt_remove_key_arg arg{};
    arg.key_spec.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
    if (!FromHex(identifier_hex, arg.key_spec.u.identifier, FSCRYPT_KEY_IDENTIFIER_SIZE))
      throw Error("fscrypt key identifier '" + identifier_hex + "' is not 32 hex digits");
    if (ioctl(dir.fd, FS_IOC_REMOVE_ENCRYPTION_KEY, &arg) != 0 && errno != ENOKEY)
      throw FileError(mount_dir, "FS_IOC_REMOVE_ENCRYPTION_KEY: " + Errno(errno));
  }

  std::pair<std::string, std::string> AddEcryptfsPassphrase(const Secret& passphrase) override {
    std::string output;
    int status = Spawn({"ecryptfs-add-passphrase", "--fnek", "-"}, passphrase.bytes(), &output);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      throw Error("ecryptfs-add-passphrase failed: " + LastLine(output));
    // "Inserted auth tok with sig [0597fa2e20d98e85] into the user session keyring", twice.
    std::vector<std::string> sigs;
    for (const auto& line : Split(output, '\n')) {
      size_t open = line.find("sig ["), close = line.find(']', open == std::string::npos ? 0 : open);
      if (open != std::string::npos && close != std::string::npos) sigs.push_back(line.substr(open + 5, close - open - 5));
    }
    if (sigs.size() != 2) throw Error("ecryptfs-add-passphrase: expected two signatures, got: " + LastLine(output));
    // ecryptfs-add-passphrase puts them into the user keyring, which stays after we go and which
    // a service's or a container's session keyring may not reach: the process keyring is both
    // reached by the mount and gone with us. To move them we must possess them: the user keyring
    // is linked into the process keyring for the move.
    long user = syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING, 0);
    if (user < 0 || syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_PROCESS_KEYRING, 1) < 0 ||
        syscall(SYS_keyctl, KEYCTL_LINK, user, KEY_SPEC_PROCESS_KEYRING) != 0)
      throw Error("eCryptfs keys: cannot reach the user keyring from the process keyring: " + Errno(errno));
    std::string problem;
    for (const auto& sig : sigs) {
      long key = syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_PROCESS_KEYRING, "user", sig.c_str(), 0);
      if (key < 0) problem = "eCryptfs key " + sig + ": not found in the user keyring: " + Errno(errno);
      else if (syscall(SYS_keyctl, KEYCTL_LINK, key, KEY_SPEC_PROCESS_KEYRING) != 0)
        problem = "eCryptfs key " + sig + ": cannot link it into the process keyring: " + Errno(errno);
      if (key >= 0) syscall(SYS_keyctl, KEYCTL_UNLINK, key, user);
    }
    syscall(SYS_keyctl, KEYCTL_UNLINK, user, KEY_SPEC_PROCESS_KEYRING);
    if (!problem.empty()) throw Error(problem);
    return {sigs[0], sigs[1]};
  }

  std::string CryptoConfigProblem() override {
    Fd sock(socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_CRYPTO));
    if (sock.fd < 0)
      return "the kernel has no crypto configuration netlink (NETLINK_CRYPTO: " + Errno(errno) +
             "; module crypto_user, CONFIG_CRYPTO_USER)";
    return "";
  }

  void InstantiateCrypto(const std::string& driver) override {
    int e = CryptoRequest(CRYPTO_MSG_NEWALG, driver, -1);
    if (e != 0 && e != EEXIST) throw Error("the kernel cannot make the cipher " + driver + ": " + Errno(e));
  }

  void SetCryptoPriority(const std::string& driver, int priority) override {
    if (int e = CryptoRequest(CRYPTO_MSG_UPDATEALG, driver, priority); e != 0)
      throw Error("cannot set the priority of the cipher driver " + driver + ": " + Errno(e));
  }

 private:
  // One NETLINK_CRYPTO request about `driver` (with a priority when >= 0): 0 or the kernel's errno.
  static int CryptoRequest(int type, const std::string& driver, int priority) {
    Fd sock(socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_CRYPTO));
    if (sock.fd < 0) return errno;
    struct {
      nlmsghdr header;
      crypto_user_alg alg;
      nlattr attr;
      uint32_t priority;
    } request{};
    if (driver.size() >= sizeof request.alg.cru_driver_name) return ENAMETOOLONG;
    request.header.nlmsg_type = static_cast<__u16>(type);
    request.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
    request.header.nlmsg_len = NLMSG_LENGTH(sizeof request.alg);
    std::memcpy(request.alg.cru_driver_name, driver.data(), driver.size());
    if (priority >= 0) {
      request.attr.nla_type = CRYPTOCFGA_PRIORITY_VAL;
      request.attr.nla_len = NLA_HDRLEN + sizeof(uint32_t);
      request.priority = static_cast<uint32_t>(priority);
      request.header.nlmsg_len += NLA_ALIGN(request.attr.nla_len);
    }
    sockaddr_nl kernel{};
    kernel.nl_family = AF_NETLINK;
    if (sendto(sock.fd, &request, request.header.nlmsg_len, 0, reinterpret_cast<sockaddr*>(&kernel), sizeof kernel) < 0)
      return errno;
    char answer[4096];
    ssize_t n = recv(sock.fd, answer, sizeof answer, 0);
    if (n < static_cast<ssize_t>(NLMSG_LENGTH(sizeof(nlmsgerr)))) return n < 0 ? errno : EPROTO;
    auto* header = reinterpret_cast<nlmsghdr*>(answer);
    if (header->nlmsg_type != NLMSG_ERROR) return EPROTO;
    return -reinterpret_cast<nlmsgerr*>(NLMSG_DATA(header))->error;
  }

  // posix_spawn with `input` on stdin and stdout+stderr collected; the wait status.
  static int Spawn(const std::vector<std::string>& argv, const std::string& input, std::string* output) {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0) throw Error("pipe: " + Errno(errno));
    if (pipe2(out, O_CLOEXEC) != 0) {
      close(in[0]);
      close(in[1]);
      throw Error("pipe: " + Errno(errno));
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, out[1], 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    // The programs answer in English, so their last line can be quoted in our errors.
    std::vector<std::string> env_strings;
    for (char** e = environ; *e; ++e)
      if (!StartsWith(*e, "LC_ALL=") && !StartsWith(*e, "LANG=")) env_strings.push_back(*e);
    env_strings.push_back("LC_ALL=C");
    std::vector<char*> env;
    for (auto& e : env_strings) env.push_back(e.data());
    env.push_back(nullptr);
    pid_t pid = 0;
    int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), env.data());
    posix_spawn_file_actions_destroy(&actions);
    close(in[0]);
    close(out[1]);
    if (rc != 0) {
      close(in[1]);
      close(out[0]);
      throw Error(argv[0] + ": cannot run: " + Errno(rc));
    }
    // Keys are small (well under a pipe's buffer), so this write never waits for the reader. A
    // program that exits without reading them must not kill us with SIGPIPE: blocked for the
    // write, a pending one is taken back before it is unblocked.
    sigset_t pipe_signal, previous;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_signal, &previous);
    bool written = WriteAll(in[1], input);
    if (!written && errno == EPIPE) {
      timespec none{0, 0};
      sigtimedwait(&pipe_signal, nullptr, &none);
    }
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    close(in[1]);
    char buf[4096];
    for (;;) {
      ssize_t n = read(out[0], buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      output->append(buf, static_cast<size_t>(n));
    }
    close(out[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return status;
  }

  std::mutex mutex_;
  std::map<std::string, int> loop_fds_;
};

}  // namespace

std::unique_ptr<TargetSystem> MakeRealSystem() { return std::make_unique<RealSystem>(); }

}  // namespace ptsn::targets
