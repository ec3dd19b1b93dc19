#include "runner/reproduce/catalog.h"

#include <sys/utsname.h>

#include <algorithm>

#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/reproduce/profile_id.h"

namespace ptsn::reproduce {

RepositoryCatalog::RepositoryCatalog(const profile::ProfileRepository& repo, RunnableCheck runnable,
                                     InstalledCheck installed, PackagesCheck packages)
    : repo_(repo), runnable_(std::move(runnable)), installed_(std::move(installed)), packages_(std::move(packages)) {}

std::vector<std::string> RepositoryCatalog::PackagesToInstall(const std::string& identifier) const {
  if (!packages_) return {};
  try {
    return packages_(repo_.LoadProfile(identifier));
  } catch (const Error&) {
    return {};  // not loadable: WhyNotRunnable said so already
  }
}

std::vector<std::string> RepositoryCatalog::Available(const std::string& base) const {
  std::vector<std::string> out;
  for (const auto& ref : repo_.ListProfiles())
    if (SplitProfileId(ref.identifier).base == base) out.push_back(ref.identifier);
  return out;
}

std::vector<std::string> RepositoryCatalog::Installed(const std::string& base) const {
  std::vector<std::string> out;
  for (const auto& id : Available(base)) {
    try {
      if (installed_(repo_.LoadProfile(id))) out.push_back(id);
    } catch (const Error&) {
      // A profile that does not load is not usable, installed or not; WhyNotRunnable says why.
    }
  }
  return out;
}

std::string RepositoryCatalog::WhyNotRunnable(const std::string& identifier) const {
  if (auto it = why_cache_.find(identifier); it != why_cache_.end()) return it->second;
  std::string why;
  try {
    profile::TestProfile p = repo_.LoadProfile(identifier);
    why = PlatformProblem(p, MachineArchitecture());
    if (why.empty()) why = runnable_(p);
  } catch (const Error& e) {
    why = e.what();
  }
  why_cache_[identifier] = why;
  return why;
}

std::string PlatformProblem(const profile::TestProfile& p, const std::string& arch) {
  auto has = [](const std::vector<std::string>& list, const std::string& want) {
    return std::any_of(list.begin(), list.end(), [&](const std::string& s) { return ToLower(Trim(s)) == ToLower(want); });
  };
  if (!p.supported_platforms.empty() && !has(p.supported_platforms, "Linux"))
    return "supports " + Join(p.supported_platforms, ", ") + ", not Linux";
  if (!p.supported_architectures.empty() && !arch.empty() && !has(p.supported_architectures, arch))
    return "supports " + Join(p.supported_architectures, ", ") + ", not " + arch;
  return "";
}

std::string MachineArchitecture() {
  utsname u{};
  if (uname(&u) != 0) return "";
  return u.machine;
}

}  // namespace ptsn::reproduce
