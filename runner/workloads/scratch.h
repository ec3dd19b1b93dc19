// The scratch area every disk workload writes in: a fresh subdirectory of the directory under
// test, created after checking free space, removed afterwards — also when SIGINT/SIGTERM arrive
// (the handlers only set a flag; workers poll Interrupted() between operations and unwind).
#pragma once

#include <cstdint>
#include <string>

namespace ptsn::workloads {

// True once SIGINT or SIGTERM arrived while an InterruptGuard was alive.
bool Interrupted();
// Which signal (0 = none); the command exits with 128 + it after cleaning up.
int InterruptSignal();
// After an interrupt: throws the error every workload ends with (the scratch area is removed as
// the stack unwinds; the command exits with 128 + the signal). Does nothing otherwise.
void ThrowIfInterrupted();

class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
};


class ScratchDir {
 public:
  // Throws ptsn::Error naming `parent` when it cannot be created, or when fewer than
  // `bytes_needed` + 64 MiB are free there ("not enough free space: need X, Y free").
  ScratchDir(const std::string& parent, uint64_t bytes_needed, const std::string& kind);
  ~ScratchDir();  // removes the whole subdirectory
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace ptsn::workloads
