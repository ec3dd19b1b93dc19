#include "runner/install/dependencies.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "runner/common/error.h"
#include "runner/common/find_program.h"
#include "runner/common/strings.h"

namespace ptsn::install {

extern const char kDebianPackagesData[];  // debian_packages_data.cc, generated from debian-packages.txt

namespace {

// Debian policy's package name characters (plus ':' for an architecture qualifier), so a name
// can be put on a shell command line as it is.
bool ValidPackageName(std::string_view p) {
  if (p.empty() || !std::isalnum(static_cast<unsigned char>(p[0]))) return false;
  return std::all_of(p.begin(), p.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '+' || c == '-' || c == ':';
  });
}

// Runs `command` through the shell, its standard output returned, its exit status in `status`.
std::string Capture(const std::string& command, int* status) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (!p) {
    *status = -1;
    return out;
  }
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  int rc = pclose(p);
  *status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  return out;
}

std::string LastLines(const std::string& text, size_t count) {
  std::vector<std::string> lines;
  for (const auto& l : Split(text, '\n'))
    if (!Trim(l).empty()) lines.push_back(Trim(l));
  if (lines.size() > count) lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(count));
  return Join(lines, " | ");
}

}  // namespace

DependencyMap ParseDependencyMap(std::string_view text, const std::string& origin) {
  DependencyMap map;
  int line_no = 0;
  for (const auto& raw : Split(text, '\n')) {
    ++line_no;
    std::string line = Trim(raw.substr(0, raw.find('#')));
    if (line.empty()) continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos || Trim(line.substr(0, colon)).empty())
      throw Error(origin + ":" + std::to_string(line_no) + ": expected 'generic-name: package ...'");
    std::vector<std::string> packages;
    for (const auto& p : Split(line.substr(colon + 1), ' ')) {
      if (p.empty()) continue;
      if (!ValidPackageName(p)) throw Error(origin + ":" + std::to_string(line_no) + ": '" + p + "' is not a package name");
      packages.push_back(p);
    }
    map[ToLower(Trim(line.substr(0, colon)))] = std::move(packages);
  }
  return map;
}

const DependencyMap& DebianDependencyMap() {
  static const DependencyMap map = ParseDependencyMap(kDebianPackagesData, "runner/install/debian-packages.txt");
  return map;
}

std::vector<std::string> DebianPackagesFor(const std::string& generic_name) {
  auto it = DebianDependencyMap().find(ToLower(Trim(generic_name)));
  return it == DebianDependencyMap().end() ? std::vector<std::string>{} : it->second;
}

PackageProbe DpkgProbe() {
  return [](const std::string& package) {
    if (!ValidPackageName(package)) return false;
    int status = 0;
    return Capture("dpkg-query -W -f='${Status}' '" + package + "' 2>/dev/null", &status).find("install ok installed") !=
           std::string::npos;
  };
}

bool CommandExists(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), F_OK) == 0;  // a file PTS checks is there
  return FindProgram(name).has_value();
}

DependencyCheck CheckDependencies(const std::vector<std::string>& external, const std::vector<std::string>& system,
                                  const PackageProbe& installed,
                                  const std::function<bool(const std::string&)>& find_command) {
  DependencyCheck check;
  auto add_missing = [&](const std::string& pkg) {
    if (std::find(check.missing_packages.begin(), check.missing_packages.end(), pkg) == check.missing_packages.end())
      check.missing_packages.push_back(pkg);
  };
  for (const auto& name : external) {
    auto packages = DebianPackagesFor(name);
    if (packages.empty()) {
      check.unknown_names.push_back(name);
      continue;
    }
    for (const auto& p : packages)
      if (!installed(p)) add_missing(p);
  }
  for (const auto& name : system) {
    if (find_command(name)) continue;
    check.missing_commands.push_back(name);
    for (const auto& p : DebianPackagesFor(name)) add_missing(p);
  }
  return check;
}

std::string AptGetCommand(const std::vector<std::string>& packages, bool as_root) {
  return std::string(as_root ? "" : "sudo ") + "apt-get install -y " + Join(packages, " ");
}

std::vector<std::string> UnavailablePackages(const std::vector<std::string>& packages) {
  std::vector<std::string> valid, out;
  for (const auto& p : packages) (ValidPackageName(p) ? valid : out).push_back(p);
  if (valid.empty()) return out;
  int status = 0;
  std::string text = Capture("apt-cache policy " + Join(valid, " ") + " 2>/dev/null", &status);
  // "name:" at the start of a line, then "  Candidate: <version>" ("(none)" = cannot be installed).
  std::set<std::string> installable;
  std::string current;
  for (const auto& line : Split(text, '\n')) {
    if (!line.empty() && line[0] != ' ' && EndsWith(line, ":")) current = line.substr(0, line.size() - 1);
    std::string t = Trim(line);
    if (!current.empty() && StartsWith(t, "Candidate:") && Trim(t.substr(10)) != "(none)") installable.insert(current);
  }
  for (const auto& p : valid)
    if (!installable.count(p)) out.push_back(p);
  return out;
}

DependencyPolicy ParseDependencyPolicy(const std::string& value) {
  std::string v = ToLower(Trim(value));
  if (v == "ask" || v.empty()) return DependencyPolicy::kAsk;
  if (v == "yes" || v == "true") return DependencyPolicy::kYes;
  if (v == "no" || v == "false") return DependencyPolicy::kNo;
  throw Error("install.dependencies: '" + value + "' is not ask, yes or no");
}

PackagePolicy DecidePackagePolicy(DependencyPolicy policy, bool offline, bool approved, bool interactive) {
  if (offline) return {false, false, "offline"};
  if (policy == DependencyPolicy::kNo) return {false, false, "install.dependencies is no"};
  if (geteuid() != 0) return {false, false, "not root"};
  if (!CommandExists("apt-get")) return {false, false, "no apt-get here"};
  if (approved || policy == DependencyPolicy::kYes) return {true, false, ""};
  if (interactive) return {true, true, ""};
  return {false, false, "--yes or install.dependencies=yes installs them"};
}

AptOutcome InstallDebianPackages(const std::vector<std::string>& packages, std::ostream& log) {
  AptOutcome out;
  for (const auto& p : packages)
    if (!ValidPackageName(p)) {
      out.failure = "'" + p + "' is not a Debian package name";
      return out;
    }
  const std::string install = "DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=300 " +
                              Join(packages, " ") + " 2>&1";
  int status = 0;
  std::string text = Capture(install, &status);
  log << text;
  if (status != 0 && text.find("Unable to locate package") != std::string::npos) {
    std::string update = Capture("apt-get update -q -o DPkg::Lock::Timeout=300 2>&1", &status);
    log << update;
    text = Capture(install, &status);
    log << text;
  }
  out.ok = status == 0;
  if (!out.ok) out.failure = "apt-get install -y " + Join(packages, " ") + " failed: " + LastLines(text, 3);
  return out;
}

}  // namespace ptsn::install
