// What a command needs to use targets, in one object: the machine (RealSystem), this process's
// ledger in <data directory>/targets/, the leftovers of dead runs released first (a kill -9'd
// run's files, directories, mappings and any loop device still attached; its mounts and keys went
// with its private mount namespace, see mount_namespace.h), and the set of targets, released when the
// session ends (normally, by an exception, or after Ctrl-C: the signal only sets a flag).
#pragma once

#include <memory>
#include <string>

#include "runner/targets/ledger.h"
#include "runner/targets/system.h"
#include "runner/targets/target_set.h"

namespace ptsn::targets {

class TargetSession {
 public:
  TargetSession(std::unique_ptr<TargetSystem> sys, const std::string& ledger_dir, TargetOptions options);
  const CleanupReport& cleanup() const { return cleanup_; }
  TargetSystem& sys() { return *sys_; }
  TargetSet& set() { return *set_; }

 private:
  std::unique_ptr<TargetSystem> sys_;
  CleanupReport cleanup_;
  std::unique_ptr<Ledger> ledger_;
  std::unique_ptr<TargetSet> set_;  // destroyed first: releases the targets, then the ledger goes
};

// <data directory>/targets: where ledgers live.
std::string LedgerDirectory(const std::string& data_dir);

}  // namespace ptsn::targets
