#include "runner/targets/mount_namespace.h"

#include <sched.h>
#include <sys/mount.h>

#include <cerrno>
#include <cstring>

namespace ptsn::targets {

namespace {
// "" once entered.
std::string problem = "the run did not enter a mount namespace of its own before it started (internal error)";
}  // namespace

void EnterPrivateMountNamespace() {
  if (problem.empty()) return;
  if (unshare(CLONE_NEWNS) != 0) {
    int e = errno;
    problem = std::string("unshare(CLONE_NEWNS): ") + std::strerror(e) +
              (e == EINVAL ? " (the process already runs several threads)" : "");
    return;
  }
  // The new namespace starts as a copy whose mounts still share propagation with the machine's:
  // made private, nothing mounted here is propagated back (and nothing of the machine's in).
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    problem = std::string("making / private in our mount namespace: ") + std::strerror(errno);
    return;
  }
  problem.clear();
}

std::string MountNamespaceProblem() { return problem; }

}  // namespace ptsn::targets
