// A profile's ExternalDependencies / SystemDependencies use PTS's generic names
// (build-utilities, fio, sqlite, ...). This maps them to Debian/Ubuntu packages, finds which are
// not installed, and builds the apt-get command line.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace ptsn::install {

struct DependencyRow {
  const char* generic_name;
  const char* packages;  // space-separated Debian 12 package names
};
const std::vector<DependencyRow>& DebianDependencyTable();

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

}  // namespace ptsn::install
