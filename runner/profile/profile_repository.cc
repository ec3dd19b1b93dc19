#include "runner/profile/profile_repository.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "runner/common/error.h"
#include "runner/common/settings.h"
#include "runner/common/strings.h"
#include "runner/profile/profile_loader.h"

#ifndef PTSN_SOURCE_DIR
#define PTSN_SOURCE_DIR ""
#endif

namespace ptsn::profile {

namespace fs = std::filesystem;

namespace {

std::string ExecutableDirectory() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

void AddUnique(std::vector<std::string>* roots, const std::string& dir) {
  if (dir.empty()) return;
  std::string norm = fs::path(dir).lexically_normal().string();
  while (norm.size() > 1 && norm.back() == '/') norm.pop_back();
  if (std::find(roots->begin(), roots->end(), norm) == roots->end()) roots->push_back(norm);
}

// PTS's split of "name-1.2.3": a suffix of 3..8 characters made of digits and dots is a version.
std::pair<std::string, std::string> SplitRequestedVersion(const std::string& test) {
  size_t dash = test.rfind('-');
  if (dash == std::string::npos) return {test, ""};
  std::string v = test.substr(dash + 1);
  bool only = !v.empty() && std::all_of(v.begin(), v.end(), [](char c) { return c == '.' || (c >= '0' && c <= '9'); });
  if (v.size() >= 3 && v.size() <= 8 && only) return {test.substr(0, dash), v};
  return {test, ""};
}

// A path to a directory holding the definition file is taken as that directory, even when it
// looks like an identifier.
bool IsDirectoryWith(const std::string& name, const char* file) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(name) / file, ec);
}

std::string FatalSummary(const std::vector<LoadIssue>& issues) {
  std::string out;
  int fatal = 0;
  for (const auto& i : issues) {
    if (!i.fatal) continue;
    if (fatal++ == 0) out = i.ToString();
  }
  if (fatal > 1) out += " (and " + std::to_string(fatal - 1) + " more problem" + (fatal > 2 ? "s" : "") + ")";
  return out;
}

}  // namespace

ProfileRepository::ProfileRepository(std::vector<std::string> roots) {
  for (const auto& r : roots) AddUnique(&roots_, r);
}

std::vector<std::string> ProfileRepository::DefaultRoots(const Settings& settings) {
  std::vector<std::string> roots;
  std::string source = PTSN_SOURCE_DIR;
  if (!source.empty()) AddUnique(&roots, source + "/profiles");
  std::string exe_dir = ExecutableDirectory();
  if (!exe_dir.empty()) {
    AddUnique(&roots, exe_dir + "/profiles");
    AddUnique(&roots, exe_dir + "/../share/pts-native/profiles");
  }
  AddUnique(&roots, settings.Get("profiles.directory"));
  std::string pts_home = settings.Get("results.pts_home");
  if (!pts_home.empty()) {
    AddUnique(&roots, pts_home + "/test-profiles");
    AddUnique(&roots, pts_home + "/test-suites");
  }
  AddUnique(&roots, settings.Get("profiles.server_cache"));
  return roots;
}

const ProfileRepository::Index& ProfileRepository::GetIndex() const {
  if (index_) return *index_;
  auto index = std::make_shared<Index>();
  std::error_code ec;
  for (const auto& root : roots_) {
    if (!fs::is_directory(root, ec)) continue;
    for (const auto& repo : fs::directory_iterator(root, ec)) {
      if (!repo.is_directory(ec)) continue;
      std::string repo_name = repo.path().filename().string();
      for (const auto& item : fs::directory_iterator(repo.path(), ec)) {
        if (!item.is_directory(ec)) continue;
        std::string id = repo_name + "/" + item.path().filename().string();
        if (fs::is_regular_file(item.path() / "test-definition.xml", ec))
          index->profiles.try_emplace(id, ProfileRef{id, item.path().string()});
        if (fs::is_regular_file(item.path() / "suite-definition.xml", ec))
          index->suites.try_emplace(id, ProfileRef{id, item.path().string()});
      }
    }
  }
  index_ = index;
  return *index_;
}

std::optional<ProfileRef> ProfileRepository::Find(const std::map<std::string, ProfileRef>& items,
                                                  const std::string& supplied) const {
  std::string name = Trim(supplied);
  if (name.empty()) return std::nullopt;
  if (auto it = items.find(name); it != items.end()) return it->second;
  std::vector<std::string> repos;
  std::string test = name;
  if (size_t slash = name.find('/'); slash != std::string::npos) {
    repos.push_back(name.substr(0, slash));
    test = name.substr(slash + 1);
  } else {
    repos = {"local", "pts", "system", "git"};
    for (const auto& [id, ref] : items) {
      std::string repo = id.substr(0, id.find('/'));
      if (std::find(repos.begin(), repos.end(), repo) == repos.end()) repos.push_back(repo);
    }
  }
  auto [base, version] = SplitRequestedVersion(test);
  for (const auto& repo : repos) {
    // Exact directory names first (local/foo without a version, or an exact version).
    if (auto it = items.find(repo + "/" + test); it != items.end()) return it->second;
    std::vector<std::pair<std::string, const ProfileRef*>> versions;  // version, ref
    std::string prefix = repo + "/" + base + "-";
    for (auto it = items.lower_bound(prefix); it != items.end() && StartsWith(it->first, prefix); ++it) {
      std::string v = it->first.substr(prefix.size());
      if (IsVersionString(v)) versions.emplace_back(v, &it->second);
    }
    if (versions.empty()) continue;
    std::sort(versions.begin(), versions.end(),
              [](const auto& a, const auto& b) { return CompareVersions(a.first, b.first) > 0; });  // newest first
    if (version.empty()) return *versions.front().second;
    for (const auto& [v, ref] : versions)
      if (StartsWith(v, version)) return *ref;
    for (const auto& [v, ref] : versions)
      if (v.find(version) != std::string::npos) return *ref;
  }
  return std::nullopt;
}

std::optional<ProfileRef> ProfileRepository::FindProfile(const std::string& name) const {
  if (IsDirectoryWith(name, "test-definition.xml")) {
    return ProfileRef{IdentifierForDirectory(name), fs::path(name).lexically_normal().string()};
  }
  return Find(GetIndex().profiles, name);
}

std::optional<ProfileRef> ProfileRepository::FindSuite(const std::string& name) const {
  if (IsDirectoryWith(name, "suite-definition.xml")) {
    return ProfileRef{IdentifierForDirectory(name), fs::path(name).lexically_normal().string()};
  }
  return Find(GetIndex().suites, name);
}

TestProfile ProfileRepository::LoadRef(const ProfileRef& ref, std::vector<std::string>* visiting,
                                       std::vector<LoadIssue>* warnings) const {
  std::vector<LoadIssue> issues;
  ProfileSource src = ReadProfileDirectory(ref.directory, ref.identifier, &issues);
  std::string fatal = FatalSummary(issues);
  if (!fatal.empty()) throw Error(fatal);
  if (warnings)
    for (auto& i : issues) warnings->push_back(std::move(i));

  TestProfile p;
  p.identifier = src.identifier;
  p.directory = src.directory;
  p.fields = std::move(src.fields);
  p.options = std::move(src.options);
  p.downloads = std::move(src.downloads);
  p.scripts = std::move(src.scripts);
  if (src.results) p.results = std::move(*src.results);

  std::string extends = Trim(p.Field("TestProfile/Extends"));
  std::string def_path = src.directory + "/test-definition.xml";
  if (!extends.empty()) {
    // Parents are looked up in the repository, then beside the profile (PTS layout root) and in
    // an "extends/" directory next to it (the conformance-case layout).
    std::optional<ProfileRef> parent = FindProfile(extends);
    if (!parent) {
      fs::path dir(src.directory);
      ProfileRepository local({dir.parent_path().parent_path().string(), (dir.parent_path() / "extends").string()});
      parent = local.FindProfile(extends);
    }
    if (!parent)
      throw FileError(def_path, "TestProfile/Extends: parent profile '" + extends + "' not found in the search paths");
    visiting->push_back(src.identifier);
    if (std::find(visiting->begin(), visiting->end(), parent->identifier) != visiting->end()) {
      std::string cycle = Join(*visiting, " -> ") + " -> " + parent->identifier;
      throw FileError(def_path, "TestProfile/Extends: inheritance cycle " + cycle);
    }
    TestProfile parent_profile = LoadRef(*parent, visiting, warnings);
    visiting->pop_back();
    // PTS's xg(): an element that is absent or empty is asked of the parent.
    for (const auto& [key, value] : parent_profile.fields) {
      auto it = p.fields.find(key);
      if (it == p.fields.end() || it->second.empty()) p.fields[key] = value;
    }
    if (!p.results.present()) p.results = parent_profile.results;
    p.extends_chain.push_back(parent_profile.identifier);
    p.extends_dirs.push_back(parent_profile.directory);
    p.extends_chain.insert(p.extends_chain.end(), parent_profile.extends_chain.begin(),
                           parent_profile.extends_chain.end());
    p.extends_dirs.insert(p.extends_dirs.end(), parent_profile.extends_dirs.begin(), parent_profile.extends_dirs.end());
  }
  FillTypedFields(&p);
  return p;
}

TestProfile ProfileRepository::LoadProfile(const std::string& name, std::vector<LoadIssue>* warnings) const {
  std::optional<ProfileRef> ref = FindProfile(name);
  if (!ref) {
    std::string where = roots_.empty() ? "no search paths" : Join(roots_, ", ");
    throw Error("test profile '" + name + "' not found (searched " + where + ")");
  }
  return LoadDirectory(ref->directory, ref->identifier, warnings);
}

TestProfile ProfileRepository::LoadDirectory(const std::string& dir, const std::string& identifier,
                                             std::vector<LoadIssue>* warnings) const {
  ProfileRef ref{identifier.empty() ? IdentifierForDirectory(dir) : identifier, dir};
  std::vector<std::string> visiting;
  TestProfile p = LoadRef(ref, &visiting, warnings);
  // Base profiles (SoftwareType BaseTestProfile) only exist to be installed and extended.
  if (!p.results.present() && p.display_format != "NO_RESULT" && p.software_type != "BaseTestProfile")
    throw FileError(p.directory, "results-definition.xml: missing (also in the Extends chain): the profile cannot produce results");
  return p;
}

TestSuite ProfileRepository::LoadSuite(const std::string& name, std::vector<LoadIssue>* warnings) const {
  std::optional<ProfileRef> ref = FindSuite(name);
  if (!ref) throw Error("test suite '" + name + "' not found (searched " + Join(roots_, ", ") + ")");
  std::vector<LoadIssue> issues;
  TestSuite s = ReadSuiteDirectory(ref->directory, ref->identifier, &issues);
  std::string fatal = FatalSummary(issues);
  if (!fatal.empty()) throw Error(fatal);
  if (warnings)
    for (auto& i : issues) warnings->push_back(std::move(i));
  return s;
}

std::vector<ProfileRef> ProfileRepository::ListProfiles() const {
  std::vector<ProfileRef> out;
  for (const auto& [id, ref] : GetIndex().profiles) out.push_back(ref);
  return out;
}

std::vector<ProfileRef> ProfileRepository::ListSuites() const {
  std::vector<ProfileRef> out;
  for (const auto& [id, ref] : GetIndex().suites) out.push_back(ref);
  return out;
}

BulkLoadReport LoadAllProfiles(const ProfileRepository& repo) {
  BulkLoadReport report;
  for (const auto& ref : repo.ListProfiles()) {
    try {
      report.loaded.push_back(repo.LoadProfile(ref.identifier, &report.warnings));
    } catch (const Error& e) {
      report.rejected.emplace_back(ref.identifier, e.what());
    }
  }
  return report;
}

}  // namespace ptsn::profile
