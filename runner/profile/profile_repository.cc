#include "runner/profile/profile_repository.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <mutex>
#include <thread>

#include "runner/common/error.h"
#include "runner/common/settings.h"
#include "runner/common/strings.h"
#include "runner/profile/profile_cache.h"
#include "runner/profile/profile_loader.h"

#ifndef PTSN_SOURCE_DIR
#define PTSN_SOURCE_DIR ""
#endif
#ifndef PTSN_BUILD_DIR
#define PTSN_BUILD_DIR ""
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
  struct stat st;
  return stat((name + "/" + file).c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// How long after indexing the listings' file stamps are taken as current (see LoadRef).
constexpr std::chrono::milliseconds kIndexStampsCurrent{1000};

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

namespace {
// Where data shipped with pts-native may be: the source tree it was built from (only while it
// runs from that build tree: an installed copy reads only what was installed with it), beside
// the binary, or an installed share/ directory.
std::vector<std::string> BundledCandidates(const std::string& name) {
  std::vector<std::string> out;
  std::string source = PTSN_SOURCE_DIR, build = PTSN_BUILD_DIR;
  std::string exe_dir = ExecutableDirectory();
  if (!source.empty() && !build.empty() && (exe_dir == build || StartsWith(exe_dir, build + "/")))
    AddUnique(&out, source + "/" + name);
  if (!exe_dir.empty()) {
    AddUnique(&out, exe_dir + "/" + name);
    AddUnique(&out, exe_dir + "/../share/pts-native/" + name);
  }
  return out;
}
}  // namespace

std::vector<std::string> BundledDirectories(const std::string& name) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto& dir : BundledCandidates(name))
    if (std::filesystem::is_directory(dir, ec)) out.push_back(std::move(dir));
  return out;
}

std::vector<std::string> ProfileRepository::DefaultRoots(const Settings& settings) {
  std::vector<std::string> roots = BundledCandidates("profiles");
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
  // <root>/<repo>/<item>: the few root and repo listings first, then every item directory listed
  // on all cores (one readdir each tells profile, suite or neither, and is kept for loading).
  struct Candidate {
    std::string id, dir;
    std::vector<DirEntry> files;
    bool listed = false;
  };
  std::vector<Candidate> candidates;
  std::vector<DirEntry> repos, items;
  for (const auto& root : roots_) {
    if (!ListDirectory(root, &repos)) continue;
    for (const auto& repo : repos) {
      if (!repo.is_directory) continue;
      std::string repo_dir = root + "/" + repo.name;
      if (!ListDirectory(repo_dir, &items)) continue;
      for (const auto& item : items)
        if (item.is_directory) candidates.push_back({repo.name + "/" + item.name, repo_dir + "/" + item.name, {}, false});
    }
  }
  // With a profile cache, the profile files' stamps come with the listing for its freshness check
  // (without one, or when it is set later, nothing needs them / it stat()s the files itself).
  auto stamps = cache_ ? IsProfileInput : nullptr;
  index->listed_at = std::chrono::steady_clock::now();
  ForEachParallel(candidates.size(), 0, [&](size_t i) {
    candidates[i].listed = ListDirectory(candidates[i].dir, &candidates[i].files, stamps);
  });
  for (auto& c : candidates) {
    if (!c.listed) continue;
    auto has_file = [&](std::string_view name) {
      auto it = std::lower_bound(c.files.begin(), c.files.end(), name,
                                 [](const DirEntry& e, std::string_view n) { return e.name < n; });
      return it != c.files.end() && it->name == name && it->is_regular;
    };
    if (has_file("suite-definition.xml")) index->suites.try_emplace(c.id, ProfileRef{c.id, c.dir});
    if (has_file("test-definition.xml") && index->profiles.try_emplace(c.id, ProfileRef{c.id, c.dir}).second)
      index->listings.try_emplace(c.dir, std::move(c.files));
  }
  index_ = index;
  return *index_;
}

std::shared_ptr<ProfileCache> ProfileRepository::UseCacheFile(const std::string& path) {
  SetCache(path.empty() ? nullptr : std::make_shared<ProfileCache>(path));
  return cache_;
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
                                       std::vector<LoadIssue>* warnings, const LoadChecks& checks) const {
  std::vector<LoadIssue> issues;
  DirectoryRead how;
  how.schemas = checks.schemas;
  how.schema_issues = checks.schema_issues;
  if (index_) {
    auto it = index_->listings.find(ref.directory);
    if (it != index_->listings.end()) {
      how.listing = &it->second;
      // Stamps taken by the index stand for a stat() now only during the pass that listed them
      // (a load of every profile takes well under this): a repository kept for longer must not
      // answer from a stamp taken before the file changed.
      how.listing_stamps_current = std::chrono::steady_clock::now() - index_->listed_at < kIndexStampsCurrent;
    }
  }
  ProfileSource src = cache_ ? cache_->Read(ref.directory, ref.identifier, &issues, how)
                             : ReadProfileDirectory(ref.directory, ref.identifier, &issues, how);
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
    TestProfile parent_profile = LoadRef(*parent, visiting, warnings, LoadChecks{});
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

TestProfile ProfileRepository::LoadProfile(const std::string& name, std::vector<LoadIssue>* warnings,
                                           const LoadChecks& checks) const {
  std::optional<ProfileRef> ref = FindProfile(name);
  if (!ref) {
    std::string where = roots_.empty() ? "no search paths" : Join(roots_, ", ");
    throw Error("test profile '" + name + "' not found (searched " + where + ")");
  }
  return LoadDirectory(ref->directory, ref->identifier, warnings, checks);
}

TestProfile ProfileRepository::LoadDirectory(const std::string& dir, const std::string& identifier,
                                             std::vector<LoadIssue>* warnings, const LoadChecks& checks) const {
  ProfileRef ref{identifier.empty() ? IdentifierForDirectory(dir) : identifier, dir};
  std::vector<std::string> visiting;
  TestProfile p = LoadRef(ref, &visiting, warnings, checks);
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

void ForEachParallel(size_t count, unsigned threads, const std::function<void(size_t)>& work) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<size_t>(threads, count));
  std::atomic<size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto run = [&] {
    for (size_t i; (i = next.fetch_add(1)) < count;) {
      try {
        work(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next = count;
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(run);
  run();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

BulkLoadReport LoadAllProfiles(const ProfileRepository& repo, unsigned threads) {
  std::vector<ProfileRef> refs = repo.ListProfiles();  // builds the index before the threads share it
  struct One {
    std::optional<TestProfile> profile;
    std::string error;
    std::vector<LoadIssue> warnings;
  };
  std::vector<One> done(refs.size());
  ForEachParallel(refs.size(), threads, [&](size_t i) {
    try {
      done[i].profile = repo.LoadDirectory(refs[i].directory, refs[i].identifier, &done[i].warnings);
    } catch (const Error& e) {
      done[i].error = e.what();
    }
  });
  BulkLoadReport report;
  report.loaded.reserve(refs.size());
  for (size_t i = 0; i < refs.size(); ++i) {
    if (done[i].profile) {
      report.loaded.push_back(std::move(*done[i].profile));
      for (auto& w : done[i].warnings) report.warnings.push_back(std::move(w));
    } else {
      // A profile that fails keeps the warnings gathered before the failure, as a serial load did.
      for (auto& w : done[i].warnings) report.warnings.push_back(std::move(w));
      report.rejected.emplace_back(refs[i].identifier, done[i].error);
    }
  }
  return report;
}

}  // namespace ptsn::profile
