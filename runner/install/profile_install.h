// Installing one loaded profile (and its <Extends> parents first): dependency check, downloads
// into the install dir, install.sh, the pts-install.json marker. Glue over downloads/installer
// for the `install` and `run` commands.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "runner/exec/process.h"
#include "runner/exec/pts_environment.h"
#include "runner/install/dependencies.h"
#include "runner/install/downloads.h"
#include "runner/profile/test_profile.h"

namespace ptsn::install {

struct InstallContext {
  std::string install_root;  // <root>/<identifier>/
  DownloadOptions downloads;
  Fetcher* fetcher = nullptr;
  bool offline = false;
  bool force = false;        // reinstall even if the marker matches
  exec::Environment host_env;
  exec::HostFacts facts;
  std::function<void(const std::string&)> progress;  // one line per step ("Downloading x", ...)
};

struct ProfileInstallResult {
  bool ok = false;
  bool already_installed = false;
  std::string failure;  // one line naming the profile and what failed
  std::vector<std::string> download_notes;  // files that came from a fallback (this install or the one before)
};

std::string InstallDirectory(const std::string& install_root, const std::string& identifier);

// Converts downloads.xml packages for this machine (PlatformSpecific/ArchitectureSpecific).
std::vector<DownloadItem> DownloadItemsFor(const profile::TestProfile& p, const std::string& arch);

// The dependency check of a profile (ExternalDependencies + SystemDependencies).
DependencyCheck CheckProfileDependencies(const profile::TestProfile& p, const PackageProbe& installed,
                                         const std::function<bool(const std::string&)>& find_command);

// Installs `p` (parents are the caller's job: install them first, in `extends_chain` order
// reversed). Missing required files in offline mode are listed in the failure.
ProfileInstallResult InstallProfile(const profile::TestProfile& p, const InstallContext& ctx, exec::ProcessRunner& runner);

}  // namespace ptsn::install
