// The mount namespace target mounts are made in. A run that mounts targets first gives itself a
// mount namespace of its own with every mount private (unshare(CLONE_NEWNS), then / MS_REC |
// MS_PRIVATE), so its mounts never appear in the machine's namespace: a process elsewhere that
// copies the machine's mounts (`unshare -m`, a container runtime, another run) cannot hold our
// loop devices, and the mounts vanish with the run's last process, kill -9 included. The test
// programs the run starts inherit the namespace. Files written outside the targets (results,
// the test directory) are on the machine's file systems and seen by everyone as before.
#pragma once

#include <string>

namespace ptsn::targets {

// Enters a private mount namespace (once; later calls do nothing). Must be called while the
// process has a single thread (the kernel refuses to unshare the mount namespace of a process
// whose threads share file-system state). Why it failed ("unshare(CLONE_NEWNS): Operation not
// permitted") is kept for MountNamespaceProblem(): making a target says it.
void EnterPrivateMountNamespace();

// "" once this process is in its private mount namespace, else why it is not; target mounts are
// refused until it is (RealSystem::Mount).
std::string MountNamespaceProblem();

}  // namespace ptsn::targets
