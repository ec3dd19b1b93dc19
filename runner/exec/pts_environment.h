// The environment PTS gives to install.sh, pre/interim/post.sh and the run script
// (spec pts-profiles.md 4.6): pts_client::environment_variables() + pts_tests::
// extra_environment_variables() on top of the host environment. Plain values in, a map out;
// the caller fills HostFacts from sysinfo.
#pragma once

#include <string>
#include <vector>

#include "runner/exec/process.h"

namespace ptsn::exec {

struct HostFacts {
  int logical_cores = 1;
  int physical_cores = 1;
  int cpu_nodes = 1;
  long memory_mb = 0;
  std::string os_id;       // OPERATING_SYSTEM: "debian"
  std::string os_version;  // OS_VERSION: "12"
  std::string arch;        // OS_ARCH: "x86_64"
  std::string cpu_family;  // CPU_FAMILY (lower case, no spaces), may be ""
  std::string real_home;   // DEBUG_REAL_HOME
  std::string system_type_id = "V";    // SYSTEM_TYPE_ID
  std::string system_type = "Virtual"; // SYSTEM_TYPE
  long run_start_time = 0;             // THIS_RUN_TIME
};

struct ExtendedInstall {
  std::string base_name;    // "fio" -> TEST_FIO
  std::string install_dir;  // "" when not installed
};

// `host` is the process environment the variables are layered on (PTS passes the whole of it to
// the run script). `install_dir` gets a trailing '/', as PTS's HOME has. `extends` root ancestor
// first. Variables with an empty value are dropped, as PTS's proc_open does.
Environment PtsEnvironment(const Environment& host, const HostFacts& facts, const std::string& install_dir,
                           const std::vector<ExtendedInstall>& extends);

// Largest i such that i^3 <= n (NUM_CPU_PHYSICAL_CORES_CUBE).
int CubeRoot(int n);

}  // namespace ptsn::exec
