// Creating, describing and removing the targets of one run. Each target is a loop device over a
// file in the test directory (or over a region of the block device the user named), optionally
// dm-crypt on it, a file system, a mount point in the test directory and, for fscrypt, an
// encrypted directory with a random key; for eCryptfs, an eCryptfs mount over a directory of
// that file system, its key in this process's keyring; for nfs, that file system exported by the
// kernel's NFS server over loopback and mounted by its NFS client, where the tests then run. Every step is recorded in the Ledger before or as it
// happens and released in reverse order by Remove()/RemoveAll() (and by the destructor), so
// success, failure, Ctrl-C and timeouts all end with nothing left; a kill -9 leaves the ledger,
// which the next run's CleanupDeadRuns() works through.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runner/targets/ledger.h"
#include "runner/targets/system.h"
#include "runner/targets/target_spec.h"

namespace ptsn::targets {

struct TargetOptions {
  std::string test_dir;    // the run's test directory: <test_dir>/.ptsn-targets/run-<pid>/ holds everything
  uint64_t size = 1ull << 30;  // bytes per target
  // A block device the user named and confirmed: targets take consecutive `size` regions of it
  // (each through a loop device with an offset) instead of files. "" = files in test_dir.
  std::string device;
  bool loop_direct_io = true;
};

// One created target: where disk tests run and what it is, for the System in the result file.
struct Target {
  TargetSpec spec;
  std::string identifier;  // the System identifier
  std::string work_dir;    // where disk tests run (the mount, or its encrypted directory)
  std::string mount_dir;
  std::string device;      // the block device the file system is on (/dev/loop3, /dev/mapper/...)
  std::string loop_device;
  std::vector<std::pair<std::string, std::string>> notes;  // {"Encryption", "fscrypt v2 policy"}...
  double setup_seconds = 0;
  // fscrypt and eCryptfs pick their cipher driver by priority: the driver family the user chose
  // ("aes-generic", "aesni"; "" = the kernel's choice) and the algorithms it must hold for.
  std::string chosen_family;
  std::vector<std::string> algorithms;

  // The System Notes text: "pts-native target: fscrypt. Encryption: ... . File System: ext4 ..."
  std::string NotesText() const;
};

class TargetSet {
 public:
  TargetSet(TargetSystem& sys, Ledger& ledger, TargetOptions options);
  ~TargetSet();  // RemoveAll(), problems ignored (call RemoveAll() to see them)
  TargetSet(const TargetSet&) = delete;
  TargetSet& operator=(const TargetSet&) = delete;

  // Creates the next target. On failure everything this call made is released again and
  // ptsn::Error is thrown naming the target and the step ("fscrypt AES-256-XTS ext4: mkfs.ext4 ...").
  Target& Create(const TargetSpec& spec);

  // Puts the kernel's cipher choice in the state `target` needs before its trials run: the other
  // AES drivers lowered below the generic ones for a target that chose the generic AES, their
  // priorities given back for any other fscrypt or eCryptfs target (its tfms are made as its
  // files are opened, so the choice must hold while its trials run). Throws ptsn::Error when the
  // kernel would not hand out the driver asked for: the run must not measure the wrong one.
  void Enter(const Target& target);

  // Releases everything, newest first; returns what could not be released (empty = all gone).
  // Each target's tear-down time is in teardown_seconds() afterwards.
  std::vector<std::string> RemoveAll();

  std::vector<Target>& targets() { return targets_; }
  const std::vector<std::pair<std::string, double>>& teardown_seconds() const { return teardown_seconds_; }

 private:
  void Record(const Resource& r) { ledger_.Add(r); }
  void ReleaseEach(const std::vector<Resource>& newest_last, std::vector<std::string>* problems);
  std::string BaseDir();
  void CreatePlain(Target& t, size_t index);
  void CreateFscrypt(Target& t);
  void CreateEcryptfs(Target& t, const std::string& slug);
  void LowerForGenericAes();
  void RestorePriorities();
  void NoteCipherDrivers(Target& t);
  std::string OpenDmCrypt(Target& t, size_t index);
  std::string OpenLoopAes(Target& t, const std::string& name);
  std::string CreateRaid(Target& t, const std::string& base, const std::string& slug);
  void StartNfsServer();
  void ExportOverNfs(Target& t, const std::string& client_dir);
  std::string AttachLoop(const Target& t, const LoopOptions& loop);
  std::string SectorSizesOf(const std::string& device);
  std::string SchedulerOf(const std::string& device);
  void MakeFileSystem(Target& t, const std::string& device);
  void CheckDirectIo(Target& t, const std::string& mount_options);

  TargetSystem& sys_;
  Ledger& ledger_;
  TargetOptions options_;
  std::string base_dir_;
  std::vector<Target> targets_;
  std::vector<std::pair<std::string, double>> teardown_seconds_;
  std::vector<Resource> lowered_;  // the priorities lowered for the generic AES, in the ledger too
  std::vector<std::string> lowered_notes_;  // "xts-aes-aesni 401 -> 10", for the System Notes
};

// Why `spec` cannot be created on this machine ("" when it can): not root, a missing program
// (with its Debian package), a kernel without loop devices / ext4 encryption / device-mapper,
// an implementation the kernel does not have or does not let us choose.
std::string WhyUnavailable(TargetSystem& sys, const TargetSpec& spec);

// One line per kind for `pts-native targets`: available (with what it offers) or the reason.
struct KindStatus {
  Kind kind = Kind::kPlain;
  bool available = false;
  std::string detail;  // available: "file systems ext4, xfs; ..."; unavailable: the reason
};
std::vector<KindStatus> ProbeKinds(TargetSystem& sys);

}  // namespace ptsn::targets
