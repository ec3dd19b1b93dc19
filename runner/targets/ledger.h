// The record of what a run created (directories, backing files, loop devices, device-mapper
// mappings, mounts, fscrypt keys, cipher driver priorities lowered), kept in the data directory and rewritten atomically after
// every change, so that when a run dies without cleaning up (kill -9, power cut of the shell),
// the next run finds what it left and releases it: CleanupDeadRuns(). Each record names its
// process (pid + start time, so a reused pid is not mistaken for the owner). A resource is
// released only after checking it is still the one recorded (a loop device still reading the
// recorded file, a mount point still mounted from the recorded device), so nobody else's
// device is touched when numbers have been reused. Keys are recorded by identifier only.
#pragma once

#include <string>
#include <vector>

#include "runner/targets/system.h"

namespace ptsn::targets {

enum class ResourceType {
  kDirectory, kFile, kLoop, kDmMapping, kMount, kFscryptKey, kCryptoPriority, kMdArray,
  kProcess, kNfsServer, kNfsExport, kMountNamespace
};
// "directory", "file", "loop", "dm", "mount", "fscrypt-key", "crypto-priority", "md", "process",
// "nfs-server", "nfs-export", "mount-namespace"
const char* ResourceTypeName(ResourceType type);

struct Resource {
  ResourceType type = ResourceType::kDirectory;
  std::string path;    // the directory/file; "/dev/loop3"; the mapping's name; the mount point;
                       // the mount point of the key's file system
  // loop: its backing file; mount: its device; key: its identifier; crypto-priority (path: a
  // cipher driver whose priority the run lowered): the priority to give back; md (path: the
  // array, "/dev/md120"): its members as "/dev/loop3=/their/backing/file", separated by spaces;
  // process (path: its pid): its start time; nfs-server (path: the nfsd file system's mount
  // point, /proc/fs/nfsd): the kernel's NFS server threads this run started; nfs-export (path:
  // the exported directory): the client it was exported to ("127.0.0.1"); mount-namespace (path:
  // the run's private mount namespace, "mnt:[4026532412]"): the run's directory of targets
  std::string detail;
  std::string target;  // the target it belongs to ("" = the run's own directory)
  bool operator==(const Resource&) const = default;
};

// Whether `r` is part of the NFS service of a run: a client mount of an export, an export, the
// server, its rpc.mountd, the nfsd file system. The kernel's NFS server holds the file systems it
// exported until its threads stop (withdrawing an export frees them only sometimes: its caches
// expire by the second), so all of these go before any target's file system.
bool ServesNfs(const Resource& r);

// The order `recorded` (oldest first) is released in: newest first, the run's mount namespace
// (the processes still holding its mounts) before everything, what ServesNfs before the rest.
std::vector<Resource> ReleaseOrder(const std::vector<Resource>& recorded);

// "loop device /dev/loop3 (file /x/t1.img)" for messages.
std::string Describe(const Resource& r);

// Releases one resource if it still exists and is still ours: true when it did, false when
// there was nothing (left) to release; throws ptsn::Error when it exists but cannot be released.
bool Release(TargetSystem& sys, const Resource& r);

class Ledger {
 public:
  // The record of process `pid` (started at `start_time`) in `directory` (created if missing):
  // <directory>/run-<pid>.json. Written on the first Add.
  Ledger(std::string directory, int pid, std::string start_time);
  // Removes the record file if nothing is left in it.
  ~Ledger();
  Ledger(const Ledger&) = delete;
  Ledger& operator=(const Ledger&) = delete;

  void Add(const Resource& r);
  void Forget(const Resource& r);  // after it was released
  const std::vector<Resource>& resources() const { return resources_; }
  const std::string& path() const { return path_; }

 private:
  void Write();
  std::string directory_, path_, start_time_;
  int pid_ = 0;
  std::vector<Resource> resources_;
};

struct CleanupReport {
  std::vector<std::string> released;  // "mount /x/t1 (from /dev/loop3) of a run (pid 123) that died"
  std::vector<std::string> problems;  // what could not be released (kept in a record for next time)
};

// Releases, newest first, what every dead run recorded in `directory`, and removes its record.
// Records of live processes are left alone. A record whose resources cannot all be released is
// kept (with the remaining ones) so a later run tries again.
CleanupReport CleanupDeadRuns(TargetSystem& sys, const std::string& directory);

}  // namespace ptsn::targets
