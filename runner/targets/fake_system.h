// A TargetSystem for tests: keeps the state a machine would (files, loop devices, mappings, mounts,
// keys) in maps, logs every call that changes something, and fails the call whose log line
// starts with `fail_on`. Root, every program and every kernel feature are present unless a test
// says otherwise.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/targets/system.h"

namespace ptsn::targets::testing {

class FakeSystem : public TargetSystem {
 public:
  bool root = true;
  std::set<std::string> missing_programs;
  std::set<std::string> missing_paths;  // e.g. "/dev/mapper/control"
  std::map<std::string, std::string> texts = {
      {"/proc/filesystems", "nodev\tproc\n\text4\n\txfs\n\tbtrfs\nnodev\tecryptfs\n"},
      {"/proc/misc", "237 loop-control\n236 device-mapper\n"},
      {"/proc/crypto",
       "name         : aes\ndriver       : aes-generic\nmodule       : kernel\npriority     : 100\nselftest     : "
       "passed\ntype         : cipher\n\nname         : aes\ndriver       : aes-aesni\nmodule       : aesni_intel\n"
       "priority     : 300\nselftest     : passed\ntype         : cipher\n\nname         : xts(aes)\ndriver       : "
       "xts-aes-aesni\nmodule       : aesni_intel\npriority     : 401\nselftest     : passed\ntype         : "
       "skcipher\n\n"
       "name         : cbc(aes)\ndriver       : cbc-aes-aesni\nmodule       : aesni_intel\npriority     : 400\n"
       "selftest     : passed\ntype         : skcipher\n\n"
       "name         : ecb(aes)\ndriver       : ecb-aes-aesni\nmodule       : aesni_intel\npriority     : 400\n"
       "selftest     : passed\ntype         : skcipher\n\n"
       "name         : cts(cbc(aes))\ndriver       : cts-cbc-aes-aesni\nmodule       : aesni_intel\npriority     : 400\n"
       "selftest     : passed\ntype         : skcipher\n\n"
       "name         : __xts(aes)\ndriver       : __xts-aes-aesni\nmodule       : aesni_intel\npriority     : 401\n"
       "selftest     : passed\ninternal     : yes\ntype         : skcipher\n\n"},
  };
  uint64_t free_bytes = 100ull << 30;
  uint64_t device_bytes = 4ull << 30;
  std::string fail_on;                  // a log prefix: that call throws
  std::map<int, std::string> live_pids;  // pid -> start time
  std::vector<std::string> log;

  // State
  std::set<std::string> files, dirs;
  std::set<std::string> md_arrays;      // "/dev/md120" while created and not stopped
  std::map<std::string, std::string> loops;     // device -> backing
  std::map<std::string, std::string> mounts;    // dir -> device
  std::set<std::string> mappings;
  std::map<std::string, std::string> keys;      // identifier -> mount dir
  std::vector<std::string> inputs;              // what programs got on stdin
  int next_loop = 0, next_key = 0;

  bool IsRoot() override { return root; }
  std::optional<std::string> FindProgram(const std::string& p) override {
    if (missing_programs.count(p)) return std::nullopt;
    return "/usr/sbin/" + p;
  }
  std::optional<std::string> ReadText(const std::string& path) override {
    if (auto it = texts.find(path); it != texts.end()) return it->second;
    if (StartsWith(path, "/sys/block/loop") && EndsWith(path, "/loop/dio")) return std::string("1\n");
    return std::nullopt;
  }
  bool Exists(const std::string& path) override {
    if (missing_paths.count(path)) return false;
    if (StartsWith(path, "/dev/mapper/") && path != "/dev/mapper/control") return mappings.count(path.substr(12)) > 0;
    if (files.count(path) || dirs.count(path)) return true;
    // md arrays exist while mdadm --create has made them and no --stop has removed them.
    for (const char* prefix : {"/dev/md", "/sys/block/md"})
      if (StartsWith(path, prefix)) {
        const std::string rest = path.substr(std::string(prefix).size());
        return md_arrays.count("/dev/md" + rest.substr(0, rest.find('/'))) > 0;
      }
    if (path == "/proc/mdstat") return true;
    if (path == "/proc/fs/nfsd/threads") return mounts.count("/proc/fs/nfsd") > 0;
    return StartsWith(path, "/dev/") || StartsWith(path, "/sys/");
  }
  uint64_t FreeBytes(const std::string&) override { return free_bytes; }
  uint64_t BlockDeviceBytes(const std::string& device) override {
    Step("device-size " + device);
    return device_bytes;
  }
  std::string busy_reason;  // DeviceBusy()
  std::string DeviceBusy(const std::string&) override { return busy_reason; }
  bool WaitUntilFree(const std::string&, double) override { return busy_reason.empty(); }
  std::string mount_namespace = "mnt:[4026531841]";
  std::string MountNamespace() override { return mount_namespace; }
  int held_by = 0;  // processes KillProcessesHolding finds
  int KillProcessesHolding(const std::string& ns, const std::string& dir, double) override {
    if (held_by == 0) return 0;
    Step("kill " + std::to_string(held_by) + " in " + ns + " holding " + dir);
    return std::exchange(held_by, 0);
  }
  std::optional<Mounted> MountAt(const std::string& dir) override {
    auto it = mounts.find(dir);
    if (it == mounts.end()) return std::nullopt;
    return Mounted{it->second, "ext4", inlinecrypt_mounts.count(dir) ? "rw,relatime,inlinecrypt" : "rw,relatime"};
  }
  std::vector<std::string> MountsUnder(const std::string& dir) override {
    std::vector<std::string> out;
    for (const auto& [d, dev] : mounts)
      if (d == dir || StartsWith(d, dir + "/")) out.push_back(d);
    return out;
  }
  bool ProcessAlive(int pid, const std::string& start) override {
    auto it = live_pids.find(pid);
    return it != live_pids.end() && it->second == start;
  }
  std::string ProcessStartTime(int pid) override {
    auto it = live_pids.find(pid);
    return it == live_pids.end() ? "" : it->second;
  }
  Secret RandomKey(size_t bytes) override { return Secret(std::string(bytes, 'k')); }

  void MakeDirectory(const std::string& path) override {
    Step("mkdir " + path);
    dirs.insert(path);
  }
  void AllocateFile(const std::string& path, uint64_t bytes) override {
    Step("allocate " + path + " " + std::to_string(bytes));
    // As the real one: the directory must be there.
    if (!dirs.count(path.substr(0, path.rfind('/')))) throw Error(path + ": cannot create: No such file or directory");
    files.insert(path);
  }
  void RemoveFile(const std::string& path) override {
    Step("rm " + path);
    files.erase(path);
  }
  void RemoveDirectory(const std::string& path) override {
    if (!MountsUnder(path).empty()) throw Error(path + ": still mounted");
    Step("rm -r " + path);
    for (auto it = dirs.begin(); it != dirs.end();) it = (*it == path || StartsWith(*it, path + "/")) ? dirs.erase(it) : std::next(it);
    for (auto it = files.begin(); it != files.end();) it = StartsWith(*it, path + "/") ? files.erase(it) : std::next(it);
  }
  std::string AttachLoop(const LoopOptions& o) override {
    Step("attach " + o.backing + " offset " + std::to_string(o.offset) + " size " + std::to_string(o.size));
    std::string dev = "/dev/loop" + std::to_string(next_loop++);
    loops[dev] = o.backing;
    return dev;
  }
  void DetachLoop(const std::string& device) override {
    Step("detach " + device);
    loops.erase(device);
  }
  void SetIoScheduler(const std::string& device, const std::string& scheduler) override {
    Step("scheduler " + device + " " + scheduler);
  }
  std::string LoopBacking(const std::string& device) override {
    auto it = loops.find(device);
    return it == loops.end() ? "" : it->second;
  }
  void RunProgram(const std::vector<std::string>& argv, const std::string& input) override {
    Step(Join(argv, " "));
    inputs.push_back(input);
    if (argv[0] == "cryptsetup" && argv.size() > 1 && argv[1] == "open") mappings.insert(argv.back());
    if (argv[0] == "cryptsetup" && argv.size() > 1 && (argv[1] == "open" || argv[1] == "luksFormat"))
      for (size_t i = 2; i < argv.size(); ++i) {
        if (StartsWith(argv[i], "--perf-")) dm_flags += argv[i].substr(7) + " ";
        if (argv[i] == "--sector-size" && i + 1 < argv.size()) dm_sector_size = argv[i + 1];
      }
    if (argv[0] == "cryptsetup" && argv.size() > 1 && argv[1] == "close") mappings.erase(argv.back());
    if (argv[0] == "mdadm" && argv.size() > 2 && argv[1] == "--create") md_arrays.insert(argv[2]);
    if (argv[0] == "mdadm" && argv.size() > 2 && argv[1] == "--stop") md_arrays.erase(argv[2]);
    // The NFS server: its thread count in the nfsd file system, exports in exportfs's table.
    if (argv[0] == "rpc.nfsd") texts["/proc/fs/nfsd/threads"] = argv.back() + "\n";
    if (argv[0] == "exportfs" && argv[1] == "-o") {
      const std::string& source = argv.back();
      const size_t colon = source.find(':');
      texts["/var/lib/nfs/etab"] += source.substr(colon + 1) + "\t" + source.substr(0, colon) + "(" + argv[2] + ")\n";
    }
    if (argv[0] == "exportfs" && argv[1] == "-u") {
      std::string kept;
      const size_t colon = argv[2].find(':');
      for (const auto& line : Split(texts["/var/lib/nfs/etab"], '\n'))
        if (!line.empty() && !StartsWith(line, argv[2].substr(colon + 1) + "\t")) kept += line + "\n";
      texts["/var/lib/nfs/etab"] = kept;
    }
  }
  // What `cryptsetup status` reports: the flags and sector size the last format/open asked for,
  // unless the "kernel" ignores the flags.
  bool kernel_ignores_flags = false;
  std::string dm_flags, dm_sector_size = "512";
  DirectIoAlignment dio{true, 512, 512};  // every file's statx(STATX_DIOALIGN)
  std::string ProgramOutput(const std::vector<std::string>& argv) override {
    Step(Join(argv, " "));
    if (argv.size() > 1 && argv[1] == "--version") return "cryptsetup 2.6.1 flags: UDEV BLKID KEYRING\n";
    return "  cipher:  aes-xts-plain64\n  keysize: 512 bits\n  sector size:  " + dm_sector_size + "\n" +
           (dm_flags.empty() || kernel_ignores_flags ? "" : "  flags:   " + dm_flags + "\n");
  }
  DirectIoAlignment DirectIoAlignmentOf(const std::string& path) override {
    Step("statx " + path);
    return dio;
  }
  // Daemons "run" until stopped: pid -> argv; their start time is "T<pid>".
  std::map<int, std::string> daemons;
  int next_pid = 4000;
  int StartDaemon(const std::vector<std::string>& argv) override {
    Step("daemon " + Join(argv, " "));
    daemons[next_pid] = Join(argv, " ");
    live_pids[next_pid] = "T" + std::to_string(next_pid);
    return next_pid++;
  }
  bool StopProcess(int pid, const std::string& start_time) override {
    if (!daemons.count(pid) || start_time != "T" + std::to_string(pid)) return false;
    Step("stop " + daemons[pid]);
    daemons.erase(pid);
    live_pids.erase(pid);
    return true;
  }
  void WriteText(const std::string& path, const std::string& text) override {
    Step("write " + path + " " + text);
    texts[path] = text;
  }
  // A kernel without CONFIG_FS_ENCRYPTION_INLINE_CRYPT mounts without inlinecrypt and says nothing.
  bool kernel_ignores_inlinecrypt = false;
  std::set<std::string> inlinecrypt_mounts;
  void Mount(const std::string& device, const std::string& dir, const std::string& fstype, const std::string& options) override {
    Step("mount " + device + " " + dir + " " + fstype + (options == "inlinecrypt" ? " -o inlinecrypt" : ""));
    mounts[dir] = device;
    if (options == "inlinecrypt" && !kernel_ignores_inlinecrypt) inlinecrypt_mounts.insert(dir);
  }
  void Unmount(const std::string& dir, bool* lazily) override {
    Step("umount " + dir);
    inlinecrypt_mounts.erase(dir);
    if (lazily) *lazily = false;
    mounts.erase(dir);
    for (auto it = keys.begin(); it != keys.end();) it = it->second == dir ? keys.erase(it) : std::next(it);
  }
  std::string AddFscryptKey(const std::string& mount_dir, const Secret& key) override {
    Step("add-key " + mount_dir);
    inputs.push_back(key.bytes());
    std::string id = std::string(31, '0') + std::to_string(next_key++);
    keys[id] = mount_dir;
    return id;
  }
  void SetFscryptPolicy(const std::string& dir, int contents, int filenames, int flags, const std::string& id) override {
    Step("policy " + dir + " " + std::to_string(contents) + "/" + std::to_string(filenames) + " flags " +
         std::to_string(flags) + " key " + id);
  }
  void RemoveFscryptKey(const std::string& mount_dir, const std::string& id) override {
    Step("remove-key " + mount_dir + " " + id);
    keys.erase(id);
  }

  std::pair<std::string, std::string> AddEcryptfsPassphrase(const Secret& passphrase) override {
    Step("ecryptfs-add-passphrase");
    inputs.push_back(passphrase.bytes());
    return {"1111222233334444", "5555666677778888"};
  }
  std::string crypto_config_problem;  // CryptoConfigProblem()
  std::string CryptoConfigProblem() override { return crypto_config_problem; }
  // Instances appear in /proc/crypto as the kernel would list them (priority of aes-generic).
  void InstantiateCrypto(const std::string& driver) override {
    Step("crypto-new " + driver);
    std::string& text = texts["/proc/crypto"];
    if (text.find("driver       : " + driver + "\n") != std::string::npos) return;
    std::string name = driver == "xts(ecb(aes-generic))" ? "xts(aes)" : driver;
    if (auto at = name.find("aes-generic"); at != std::string::npos) name.replace(at, 11, "aes");
    text += "name         : " + name + "\ndriver       : " + driver +
            "\nmodule       : kernel\npriority     : 100\nselftest     : passed\ntype         : skcipher\n\n";
  }
  void SetCryptoPriority(const std::string& driver, int priority) override {
    Step("crypto-priority " + driver + " " + std::to_string(priority));
    std::string& text = texts["/proc/crypto"];
    size_t at = text.find("driver       : " + driver + "\n");
    if (at == std::string::npos) throw Error(driver + ": no such driver (fake)");
    size_t line = text.find("priority     : ", at);
    size_t end = text.find('\n', line);
    text.replace(line, end - line, "priority     : " + std::to_string(priority));
  }

  // Nothing of any target left.
  bool Clean() const {
    auto threads = texts.find("/proc/fs/nfsd/threads"), exports = texts.find("/var/lib/nfs/etab");
    return loops.empty() && mounts.empty() && mappings.empty() && keys.empty() && files.empty() && md_arrays.empty() &&
           daemons.empty() && (threads == texts.end() || threads->second == "0\n") &&
           (exports == texts.end() || exports->second.empty());
  }

 private:
  void Step(const std::string& line) {
    if (!fail_on.empty() && StartsWith(line, fail_on)) throw Error(line + ": failed (fake)");
    log.push_back(line);
  }
};

}  // namespace ptsn::targets::testing
