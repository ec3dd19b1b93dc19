// The small interface between the targets logic and the machine: loop devices, file systems,
// mounts, fscrypt keys and policies, cryptsetup, and the few files and facts the logic reads.
// RealSystem does the system calls (ioctls for loop devices and fscrypt, mount(2), mkfs and
// cryptsetup run as programs); tests use a fake that records calls, so creation order, the
// ledger, teardown after a failure and the refusals are checked without root.
// Every failing call throws ptsn::Error with one line naming what failed and why.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ptsn::targets {

// Key material: wiped from memory when destroyed, never written to a file.
class Secret {
 public:
  Secret() = default;
  explicit Secret(std::string bytes) : bytes_(std::move(bytes)) {}
  Secret(const Secret&) = delete;
  Secret& operator=(const Secret&) = delete;
  Secret(Secret&& other) noexcept : bytes_(std::move(other.bytes_)) {}
  ~Secret();
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

// The sysfs file `leaf` of block device `device` ("/dev/loop3", "queue/scheduler" ->
// "/sys/block/loop3/queue/scheduler").
inline std::string SysBlock(const std::string& device, const std::string& leaf) {
  return "/sys/block/" + device.substr(device.rfind('/') + 1) + "/" + leaf;
}

struct LoopOptions {
  std::string backing;   // a file in the test directory, or the block device the user named
  uint64_t offset = 0;   // where the target starts in `backing`
  uint64_t size = 0;     // bytes (0 = to the end)
  bool direct_io = true; // bypass the page cache of `backing` (the target's own cache is the one tested)
};

// statx(STATX_DIOALIGN) of a file (Linux 6.1+): whether the kernel reported it, and the
// alignments; memory 0 means the file does not support O_DIRECT (the kernel serves it buffered,
// or refuses it).
struct DirectIoAlignment {
  bool reported = false;
  uint32_t memory = 0, offset = 0;
};

struct Mounted {
  std::string device, fstype, options;  // from /proc/self/mountinfo (mount + super options)
};

class TargetSystem {
 public:
  virtual ~TargetSystem() = default;

  // ---- facts
  virtual bool IsRoot() = 0;
  // The path of `program` in PATH (and /sbin, /usr/sbin), nullopt when not installed.
  virtual std::optional<std::string> FindProgram(const std::string& program) = 0;
  // The text of a file (/proc/crypto, /sys/...), nullopt when it cannot be read.
  virtual std::optional<std::string> ReadText(const std::string& path) = 0;
  virtual bool Exists(const std::string& path) = 0;
  virtual uint64_t FreeBytes(const std::string& dir) = 0;
  virtual uint64_t BlockDeviceBytes(const std::string& device) = 0;  // throws when not a block device
  // Why `device` is in use ("mounted or held by another driver"), "" when the kernel grants an
  // exclusive open (nothing mounted on it or its partitions, no device-mapper/RAID holder).
  virtual std::string DeviceBusy(const std::string& device) = 0;
  // Waits up to `seconds` for `device` to be free as DeviceBusy tells; true once it is. After a
  // kill -9 the kernel lets go of a file system a moment later (the dead run's mounts, the NFS
  // server's file cache go in deferred work), so releasing what lies beneath waits for that.
  virtual bool WaitUntilFree(const std::string& device, double seconds) = 0;
  // This process's mount namespace as /proc/self/ns/mnt names it ("mnt:[4026532412]").
  virtual std::string MountNamespace() = 0;
  // Kills (SIGKILL) every other process in mount namespace `ns` that still has a mount under
  // `dir`, and waits up to `seconds` for them to go: how many there were; throws when some stay.
  // A dead run's namespace, and so its mounts, outlive it while a process it started (a trial's
  // grandchild still writing on a target) runs in it; the mount check keeps a namespace number
  // the kernel has since given to someone else from being taken for the run's.
  virtual int KillProcessesHolding(const std::string& ns, const std::string& dir, double seconds) = 0;
  // statx(STATX_DIOALIGN) of `path`; throws when it cannot be statted.
  virtual DirectIoAlignment DirectIoAlignmentOf(const std::string& path) = 0;
  // The mount at exactly `dir`, nullopt when `dir` is not a mount point.
  virtual std::optional<Mounted> MountAt(const std::string& dir) = 0;
  // Mount points at or below `dir`, deepest first.
  virtual std::vector<std::string> MountsUnder(const std::string& dir) = 0;
  virtual bool ProcessAlive(int pid, const std::string& start_time) = 0;
  virtual std::string ProcessStartTime(int pid) = 0;  // field 22 of /proc/PID/stat, "" when gone
  virtual Secret RandomKey(size_t bytes) = 0;

  // ---- files
  virtual void MakeDirectory(const std::string& path) = 0;
  virtual void AllocateFile(const std::string& path, uint64_t bytes) = 0;  // fallocate'd, not sparse
  virtual void RemoveFile(const std::string& path) = 0;       // a missing file is fine
  virtual void RemoveDirectory(const std::string& path) = 0;  // it and its contents; never crosses a mount

  // ---- loop devices
  virtual std::string AttachLoop(const LoopOptions& options) = 0;  // "/dev/loop3"
  virtual void DetachLoop(const std::string& device) = 0;
  // The block device's I/O scheduler (/sys/block/NAME/queue/scheduler); throws naming the ones
  // the kernel offers for it when it refuses `scheduler`.
  virtual void SetIoScheduler(const std::string& device, const std::string& scheduler) = 0;
  // The file a loop device reads from ("" when it is not attached), for checking that a device
  // in a dead run's record is still ours before touching it.
  virtual std::string LoopBacking(const std::string& device) = 0;

  // ---- programs (mkfs.*, cryptsetup): `input` goes to their stdin (keys travel this way only)
  virtual void RunProgram(const std::vector<std::string>& argv, const std::string& input = "") = 0;
  // The same, returning its standard output.
  virtual std::string ProgramOutput(const std::vector<std::string>& argv) = 0;
  // A program that keeps running beside the run (rpc.mountd -F): started in this process's mount
  // namespace, its output discarded, and killed by the kernel when the thread that started it
  // ends (PR_SET_PDEATHSIG), kill -9 included. Returns its pid.
  virtual int StartDaemon(const std::vector<std::string>& argv) = 0;
  // SIGTERM, then SIGKILL after a moment, to process `pid` if it is still the one that started at
  // `start_time`; false when it was gone already.
  virtual bool StopProcess(int pid, const std::string& start_time) = 0;
  // Writes `text` to a kernel file (/proc/fs/nfsd/v4_end_grace); throws naming it on failure.
  virtual void WriteText(const std::string& path, const std::string& text) = 0;

  // ---- mounts
  virtual void Mount(const std::string& device, const std::string& dir, const std::string& fstype,
                     const std::string& options) = 0;
  // umount2(dir); busy mounts are retried briefly, then detached lazily (`lazily` = it was).
  virtual void Unmount(const std::string& dir, bool* lazily = nullptr) = 0;

  // ---- fscrypt (v2 policies; keys by identifier)
  // FS_IOC_ADD_ENCRYPTION_KEY on the file system mounted at `mount_dir`: the key's identifier (hex).
  virtual std::string AddFscryptKey(const std::string& mount_dir, const Secret& key) = 0;
  // FS_IOC_SET_ENCRYPTION_POLICY (v2) on the empty directory `dir`.
  virtual void SetFscryptPolicy(const std::string& dir, int contents_mode, int filenames_mode, int flags,
                                const std::string& identifier_hex) = 0;
  // FS_IOC_REMOVE_ENCRYPTION_KEY; a key that is already gone is fine.
  virtual void RemoveFscryptKey(const std::string& mount_dir, const std::string& identifier_hex) = 0;

  // ---- eCryptfs: the passphrase's auth token (and its file-name twin) made by
  // ecryptfs-add-passphrase --fnek, then moved from the user keyring into this process's own
  // keyring, where the mount finds it and from which it goes when the process does (even on
  // kill -9). Returns the two signatures {data, file names}.
  virtual std::pair<std::string, std::string> AddEcryptfsPassphrase(const Secret& passphrase) = 0;

  // ---- the kernel crypto API's own configuration (NETLINK_CRYPTO, module crypto_user)
  // Why it cannot be used here ("" when it can).
  virtual std::string CryptoConfigProblem() = 0;
  // CRYPTO_MSG_NEWALG: the kernel instantiates the template instance `driver`
  // ("xts(ecb(aes-generic))"); one that exists already is fine.
  virtual void InstantiateCrypto(const std::string& driver) = 0;
  // CRYPTO_MSG_UPDATEALG: the priority of `driver`; the kernel picks the highest for new users.
  virtual void SetCryptoPriority(const std::string& driver, int priority) = 0;
};

std::unique_ptr<TargetSystem> MakeRealSystem();

}  // namespace ptsn::targets
