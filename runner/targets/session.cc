#include "runner/targets/session.h"

#include <unistd.h>

namespace ptsn::targets {

TargetSession::TargetSession(std::unique_ptr<TargetSystem> sys, const std::string& ledger_dir, TargetOptions options)
    : sys_(std::move(sys)) {
  cleanup_ = CleanupDeadRuns(*sys_, ledger_dir);
  ledger_ = std::make_unique<Ledger>(ledger_dir, getpid(), sys_->ProcessStartTime(getpid()));
  set_ = std::make_unique<TargetSet>(*sys_, *ledger_, std::move(options));
}

std::string LedgerDirectory(const std::string& data_dir) { return data_dir + "/targets"; }

}  // namespace ptsn::targets
