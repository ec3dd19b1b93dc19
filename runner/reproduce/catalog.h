// The real ProfileCatalog: profiles from the profile repository's search paths (bundled
// profiles/, the user's, a PTS home's test-profiles, the server cache), whether each is
// installed and whether it can run here asked through small checks the runner provides.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "runner/profile/profile_repository.h"
#include "runner/reproduce/plan.h"

namespace ptsn::reproduce {

// "" when `p` can be installed and run here, else why not ("needs Debian packages fs-mark").
using RunnableCheck = std::function<std::string(const profile::TestProfile& p)>;
using InstalledCheck = std::function<bool(const profile::TestProfile& p)>;
// The Debian packages to install before `p` runs (asked only when `p` is runnable).
using PackagesCheck = std::function<std::vector<std::string>(const profile::TestProfile& p)>;

class RepositoryCatalog : public ProfileCatalog {
 public:
  RepositoryCatalog(const profile::ProfileRepository& repo, RunnableCheck runnable, InstalledCheck installed,
                    PackagesCheck packages = nullptr);
  std::vector<std::string> Installed(const std::string& base) const override;
  std::vector<std::string> Available(const std::string& base) const override;
  std::string WhyNotRunnable(const std::string& identifier) const override;
  std::vector<std::string> PackagesToInstall(const std::string& identifier) const override;

 private:
  const profile::ProfileRepository& repo_;
  RunnableCheck runnable_;
  InstalledCheck installed_;
  PackagesCheck packages_;
  mutable std::map<std::string, std::string> why_cache_;
};

// The profile's SupportedPlatforms / SupportedArchitectures against this machine (Linux, `arch`);
// "" when it may run here.
std::string PlatformProblem(const profile::TestProfile& p, const std::string& arch);
// uname -m of this machine ("x86_64").
std::string MachineArchitecture();

}  // namespace ptsn::reproduce
