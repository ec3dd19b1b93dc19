#include "runner/targets/ledger.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/targets/crypto_info.h"

namespace fs = std::filesystem;

namespace ptsn::targets {

const char* ResourceTypeName(ResourceType type) {
  switch (type) {
    case ResourceType::kDirectory: return "directory";
    case ResourceType::kFile: return "file";
    case ResourceType::kLoop: return "loop";
    case ResourceType::kDmMapping: return "dm";
    case ResourceType::kMount: return "mount";
    case ResourceType::kFscryptKey: return "fscrypt-key";
    case ResourceType::kCryptoPriority: return "crypto-priority";
    case ResourceType::kMdArray: return "md";
    case ResourceType::kProcess: return "process";
    case ResourceType::kNfsServer: return "nfs-server";
    case ResourceType::kNfsExport: return "nfs-export";
    case ResourceType::kMountNamespace: return "mount-namespace";
  }
  return "?";
}

namespace {

constexpr const char* kFormat = "pts-native targets ledger 1";

ResourceType TypeFromName(const std::string& name, const std::string& file) {
  for (auto t : {ResourceType::kDirectory, ResourceType::kFile, ResourceType::kLoop, ResourceType::kDmMapping,
                 ResourceType::kMount, ResourceType::kFscryptKey, ResourceType::kCryptoPriority, ResourceType::kMdArray,
                 ResourceType::kProcess, ResourceType::kNfsServer, ResourceType::kNfsExport,
                 ResourceType::kMountNamespace})
    if (name == ResourceTypeName(t)) return t;
  throw FileError(file, "unknown resource type '" + name + "'");
}

struct Record {
  int pid = 0;
  std::string start_time;
  std::vector<Resource> resources;
};

std::string Serialize(const Record& r) {
  nlohmann::ordered_json j;
  j["format"] = kFormat;
  j["pid"] = r.pid;
  j["start_time"] = r.start_time;
  j["resources"] = nlohmann::ordered_json::array();
  for (const auto& res : r.resources)
    j["resources"].push_back({{"type", ResourceTypeName(res.type)}, {"path", res.path}, {"detail", res.detail},
                              {"target", res.target}});
  return j.dump(1) + "\n";
}

Record Parse(const std::string& text, const std::string& file) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object() || j.value("format", "") != kFormat) throw FileError(file, "not a pts-native targets ledger");
  Record r;
  try {
    r.pid = j.at("pid").get<int>();
    r.start_time = j.at("start_time").get<std::string>();
    for (const auto& e : j.at("resources"))
      r.resources.push_back({TypeFromName(e.at("type").get<std::string>(), file), e.at("path").get<std::string>(),
                             e.value("detail", ""), e.value("target", "")});
  } catch (const nlohmann::json::exception& e) {
    throw FileError(file, std::string("damaged ledger: ") + e.what());
  }
  return r;
}

}  // namespace

std::string Describe(const Resource& r) {
  switch (r.type) {
    case ResourceType::kDirectory: return "directory " + r.path;
    case ResourceType::kFile: return "file " + r.path;
    case ResourceType::kLoop: return "loop device " + r.path + " (of " + r.detail + ")";
    case ResourceType::kDmMapping: return "dm-crypt mapping " + r.path;
    case ResourceType::kMount: return "mount " + r.path + " (from " + r.detail + ")";
    case ResourceType::kFscryptKey: return "fscrypt key " + r.detail + " (on " + r.path + ")";
    case ResourceType::kCryptoPriority: return "the priority of cipher driver " + r.path + " (lowered; was " + r.detail + ")";
    case ResourceType::kMdArray: return "md array " + r.path + " (of " + r.detail + ")";
    case ResourceType::kProcess: return "process " + r.path;
    case ResourceType::kNfsServer: return "the kernel's NFS server (started by the run)";
    case ResourceType::kNfsExport: return "NFS export " + r.detail + ":" + r.path;
    case ResourceType::kMountNamespace: return "processes of the run still holding " + r.detail + " (mount namespace " + r.path + ")";
  }
  return r.path;
}

bool ServesNfs(const Resource& r) {
  switch (r.type) {
    case ResourceType::kNfsExport:
    case ResourceType::kNfsServer:
    case ResourceType::kProcess: return true;
    case ResourceType::kMount: return r.detail == "nfsd" || StartsWith(r.detail, "127.0.0.1:");
    default: return false;
  }
}

std::vector<Resource> ReleaseOrder(const std::vector<Resource>& recorded) {
  std::vector<Resource> order(recorded.rbegin(), recorded.rend());
  std::stable_partition(order.begin(), order.end(), ServesNfs);
  std::stable_partition(order.begin(), order.end(),
                        [](const Resource& r) { return r.type == ResourceType::kMountNamespace; });
  return order;
}

// How long a release waits for the kernel to let go of a device after a kill -9. Seen in the VM:
// a dm-crypt mapping under an NFS export still held a second after the NFS server stopped, and
// under a loaded host (emulated, load 12) still held when 20 s had passed: the dead run's mount
// namespace, its NFS client and the server's state are torn down by the kernel asynchronously.
constexpr double kKernelLetsGoSeconds = 60;

bool Release(TargetSystem& sys, const Resource& r) {
  switch (r.type) {
    case ResourceType::kFscryptKey:
      if (!sys.MountAt(r.path)) return false;
      sys.RemoveFscryptKey(r.path, r.detail);
      return true;
    case ResourceType::kMount: {
      auto m = sys.MountAt(r.path);
      if (!m) return false;
      if (!r.detail.empty() && m->device != r.detail)
        throw Error(r.path + " is mounted from " + m->device + ", not from " + r.detail + " as recorded: left alone");
      sys.Unmount(r.path);
      return true;
    }
    case ResourceType::kDmMapping:
      if (!sys.Exists("/dev/mapper/" + r.path)) return false;
      sys.WaitUntilFree("/dev/mapper/" + r.path, kKernelLetsGoSeconds);  // else close says why
      sys.RunProgram({"cryptsetup", "close", r.path});
      return true;
    case ResourceType::kMdArray: {
      // Stopped, then its members' superblocks wiped, so nothing assembles them again (the
      // members' loop devices and files go after it: recorded before it).
      const bool running = sys.Exists(SysBlock(r.path, "md"));
      if (running) {
        sys.WaitUntilFree(r.path, kKernelLetsGoSeconds);  // else mdadm says why
        sys.RunProgram({"mdadm", "--stop", r.path});
      }
      bool wiped = false;
      for (const auto& pair : Split(r.detail, ' ')) {
        // "/dev/loop3=/backing/file": wiped only while that loop device is still ours.
        const size_t eq = pair.find('=');
        if (eq == std::string::npos) continue;
        const std::string member = pair.substr(0, eq), backing = sys.LoopBacking(member);
        if (backing != pair.substr(eq + 1) && backing != pair.substr(eq + 1) + " (deleted)") continue;
        sys.RunProgram({"mdadm", "--zero-superblock", member});
        wiped = true;
      }
      return running || wiped;
    }
    case ResourceType::kLoop: {
      std::string backing = sys.LoopBacking(r.path);
      if (backing.empty()) return false;  // already detached (AUTOCLEAR did it)
      // A loop device number is reused by whoever asks next: only ours is detached. The kernel
      // may append " (deleted)" when the file was removed meanwhile.
      if (backing != r.detail && backing != r.detail + " (deleted)") return false;
      sys.DetachLoop(r.path);
      return true;
    }
    case ResourceType::kFile:
      if (!sys.Exists(r.path)) return false;
      sys.RemoveFile(r.path);
      return true;
    case ResourceType::kDirectory:
      if (!sys.Exists(r.path)) return false;
      sys.RemoveDirectory(r.path);
      return true;
    case ResourceType::kProcess:
      return sys.StopProcess(std::atoi(r.path.c_str()), r.detail);
    case ResourceType::kNfsExport: {
      // Only while it is still exported (exportfs's table names it), so that nobody's export
      // of the same directory made since is touched. After a kill -9 the directory's mount went
      // with the run's mount namespace, but the export still pins it until it is withdrawn.
      const std::string etab = sys.ReadText("/var/lib/nfs/etab").value_or("");
      bool listed = false;
      for (const auto& line : Split(etab, '\n'))
        listed |= StartsWith(line, r.path + "\t" + r.detail + "(") || StartsWith(line, r.path + " " + r.detail + "(");
      if (!listed) return false;
      sys.RunProgram({"exportfs", "-u", r.detail + ":" + r.path});
      return true;
    }
    case ResourceType::kNfsServer: {
      // The server's controls are the nfsd file system: mounted again where a dead run's mount
      // namespace took it along (this process has a private namespace of its own).
      const std::string threads = r.path + "/threads";
      bool mounted_here = false;
      if (!sys.Exists(threads)) {
        sys.Mount("nfsd", r.path, "nfsd", "");
        mounted_here = true;
      }
      const bool running = std::atoi(Trim(sys.ReadText(threads).value_or("0")).c_str()) > 0;
      // Stopping the threads also forgets the clients and drops the export cache's hold on files.
      if (running) sys.RunProgram({"rpc.nfsd", "0"});
      if (mounted_here) sys.Unmount(r.path);
      return running;
    }
    case ResourceType::kMountNamespace:
      // The run's own namespace while it runs (its own teardown): nothing to kill. A dead run's:
      // whatever it started that still runs there holds its mounts, so goes first.
      if (r.path == sys.MountNamespace()) return false;
      return sys.KillProcessesHolding(r.path, r.detail, kKernelLetsGoSeconds) > 0;
    case ResourceType::kCryptoPriority: {
      // A driver whose module was unloaded meanwhile comes back at its own priority.
      bool listed = false;
      for (const auto& a : ParseProcCrypto(sys.ReadText("/proc/crypto").value_or(""))) listed |= a.driver == r.path;
      if (!listed) return false;
      sys.SetCryptoPriority(r.path, std::atoi(r.detail.c_str()));
      return true;
    }
  }
  return false;
}

Ledger::Ledger(std::string directory, int pid, std::string start_time)
    : directory_(std::move(directory)), start_time_(std::move(start_time)), pid_(pid) {
  path_ = directory_ + "/run-" + std::to_string(pid_) + ".json";
}

Ledger::~Ledger() {
  if (!resources_.empty()) return;  // kept for the next run to clean (we could not)
  std::error_code ec;
  fs::remove(path_, ec);
}

void Ledger::Write() {
  MakeDirectories(directory_);
  WriteFileAtomically(path_, Serialize({pid_, start_time_, resources_}));
}

void Ledger::Add(const Resource& r) {
  resources_.push_back(r);
  Write();
}

void Ledger::Forget(const Resource& r) {
  auto it = std::find(resources_.rbegin(), resources_.rend(), r);
  if (it == resources_.rend()) return;
  resources_.erase(std::next(it).base());
  if (resources_.empty()) {
    std::error_code ec;
    fs::remove(path_, ec);
  } else {
    Write();
  }
}

CleanupReport CleanupDeadRuns(TargetSystem& sys, const std::string& directory) {
  CleanupReport report;
  std::error_code ec;
  if (!fs::is_directory(directory, ec)) return report;
  std::vector<fs::path> records;
  for (const auto& e : fs::directory_iterator(directory, ec))
    if (StartsWith(e.path().filename().string(), "run-") && e.path().extension() == ".json") records.push_back(e.path());
  std::sort(records.begin(), records.end());
  for (const auto& file : records) {
    Record rec;
    try {
      rec = Parse(ReadFile(file.string()), file.string());
    } catch (const Error& e) {
      report.problems.push_back(e.what());
      continue;
    }
    if (rec.pid == getpid() || sys.ProcessAlive(rec.pid, rec.start_time)) continue;
    // Claim it: of two runs starting at once, only the one holding the lock cleans it (the lock
    // goes with its holder, so a cleaner that dies leaves the record to the next run).
    int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    struct stat held, now;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0 || fstat(fd, &held) != 0 || stat(file.c_str(), &now) != 0 ||
        held.st_ino != now.st_ino) {
      close(fd);  // being cleaned, or already cleaned and gone
      continue;
    }
    std::vector<Resource> failed;
    for (const auto& r : ReleaseOrder(rec.resources)) {
      try {
        if (Release(sys, r))
          report.released.push_back(Describe(r) + ", left by a run that did not finish (pid " + std::to_string(rec.pid) +
                                    ")");
      } catch (const Error& e) {
        report.problems.push_back(Describe(r) + ": " + e.what());
        failed.push_back(r);
      }
    }
    std::vector<Resource> left;  // in the order they were recorded
    for (const auto& r : rec.resources)
      if (std::find(failed.begin(), failed.end(), r) != failed.end()) left.push_back(r);
    if (left.empty()) {
      fs::remove(file, ec);
    } else {
      rec.resources = left;
      WriteFileAtomically(file.string(), Serialize(rec));
    }
    close(fd);
  }
  return report;
}

}  // namespace ptsn::targets
