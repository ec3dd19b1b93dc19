// A profile's ExternalDependencies / SystemDependencies use PTS's generic names
// (build-utilities, popt, fio, ...). This maps them to Debian 12 packages (the map is data:
// debian-packages.txt, compiled in), finds which are not installed, asks apt which it can
// install, and installs them with apt-get.
#pragma once

#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace ptsn::install {

using DependencyMap = std::map<std::string, std::vector<std::string>>;  // generic name -> packages

// Parses the map's text ("name: pkg pkg", '#' comments). Throws ptsn::Error naming `origin`
// and the line for a line without ':' or a package name apt would not accept.
DependencyMap ParseDependencyMap(std::string_view text, const std::string& origin);
// The compiled-in map (runner/install/debian-packages.txt).
const DependencyMap& DebianDependencyMap();

// The Debian packages of one generic name; empty when unknown (then the name itself is tried as
// a package only for SystemDependencies, which PTS treats as file/command names).
std::vector<std::string> DebianPackagesFor(const std::string& generic_name);

// Answers "is this Debian package installed?"; the real one asks dpkg-query.
using PackageProbe = std::function<bool(const std::string& package)>;
PackageProbe DpkgProbe();

struct DependencyCheck {
  std::vector<std::string> missing_packages;  // to install
  std::vector<std::string> unknown_names;     // generic names we have no mapping for
  std::vector<std::string> missing_commands;  // SystemDependencies not found in PATH
};

// external: ExternalDependencies (generic names); system: SystemDependencies (commands or
// files PTS looks for). `find_command` answers whether a command/file exists.
DependencyCheck CheckDependencies(const std::vector<std::string>& external, const std::vector<std::string>& system,
                                  const PackageProbe& installed,
                                  const std::function<bool(const std::string&)>& find_command);

// "apt-get install -y pkg1 pkg2" (with "sudo " when not root).
std::string AptGetCommand(const std::vector<std::string>& packages, bool as_root);

// Is `name` a command in PATH or an existing absolute path?
bool CommandExists(const std::string& name);

// Which of `packages` apt has no installation candidate for in its lists (`apt-cache policy`;
// opens no socket). Every package when apt-cache cannot be run.
std::vector<std::string> UnavailablePackages(const std::vector<std::string>& packages);

// Whether a run may install missing packages: install.dependencies (ask | yes | no).
enum class DependencyPolicy { kAsk, kYes, kNo };
// Throws ptsn::Error naming the setting for another value.
DependencyPolicy ParseDependencyPolicy(const std::string& value);

// May missing Debian packages be installed for this run, must the user be asked first, and if
// not, why not ("offline", "not root", ...). `approved`: --yes or batch mode, which install
// unless install.dependencies is no; `interactive`: a user can be asked (policy ask). Only as
// root, online, where apt-get is. One rule for `run`/`batch-run`/`install` and `run <ID>`.
struct PackagePolicy {
  bool may_install = false;
  bool ask_first = false;
  std::string why_not;
};
PackagePolicy DecidePackagePolicy(DependencyPolicy policy, bool offline, bool approved, bool interactive);

struct AptOutcome {
  bool ok = false;
  std::string failure;  // one line: the command and the last lines of its output
};
// `apt-get install -y` (non-interactive, waiting up to 5 minutes for another apt's lock); when a
// package is not found, the lists are updated once (`apt-get update`) and the install retried.
// Its output goes to `log`. Root only: the caller checks.
AptOutcome InstallDebianPackages(const std::vector<std::string>& packages, std::ostream& log);

}  // namespace ptsn::install
