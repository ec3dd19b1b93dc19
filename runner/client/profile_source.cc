#include "runner/client/profile_source.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/path_below.h"
#include "runner/common/settings.h"
#include "runner/common/strings.h"
#include "runner/openbenchmarking/profile_zip.h"
#include "runner/profile/test_profile.h"
#include "runner/profile/xml_tree.h"

namespace ptsn::client {

namespace fs = std::filesystem;

ProfileSourceOptions ProfileSourceOptions::FromSettings(const Settings& settings) {
  ProfileSourceOptions o;
  o.cache_dir = settings.Get("profiles.ob_cache");
  o.profiles_dir = settings.Get("profiles.server_cache");
  o.index_ttl_days = settings.GetDouble("profiles.index_ttl_days");
  return o;
}

ProfileSource::ProfileSource(ProfileSourceOptions options, ObClient& client) : options_(std::move(options)), client_(client) {}

namespace {

ob::QualifiedName Qualified(const std::string& identifier) {
  auto q = ob::ParseQualifiedName(identifier);
  if (!q || q->version.empty()) throw Error("'" + identifier + "' is not a profile identifier like pts/fs-mark-1.0.3");
  return *q;
}

// <TestProfile><Extends> of an extracted profile ("" when none).
std::string ExtendsOf(const std::string& dir) {
  profile::XmlElement root = profile::ParseXmlFile(dir + "/test-definition.xml");
  const profile::XmlElement* tp = root.Child("TestProfile");
  return tp ? Trim(tp->ChildText("Extends")) : "";
}

}  // namespace

// Names here come from the user or from a server's index; ParseQualifiedName keeps them to safe
// characters, and the joins go through JoinBelow all the same.
std::string ProfileSource::IndexPath(const std::string& repo) const {
  return JoinBelow(options_.cache_dir, repo + ".index", {"repository name", "the profile cache"});
}

std::string ProfileSource::ProfileDirectory(const std::string& qualified) const {
  auto q = Qualified(qualified);
  return JoinBelow(options_.profiles_dir, q.repo + "/" + q.name + "-" + q.version, {"profile identifier", "the profile folder"},
                   NameDepth::kRelativePath);
}

std::string ProfileSource::ZipPath(const std::string& qualified) const {
  auto q = Qualified(qualified);
  return JoinBelow(options_.cache_dir, q.repo + "/" + q.name + "-" + q.version + ".zip", {"profile identifier", "the profile cache"},
                   NameDepth::kRelativePath);
}

bool ProfileSource::OnDisk(const std::string& qualified) const {
  if (options_.on_disk && options_.on_disk(qualified)) return true;
  std::error_code ec;
  return fs::is_regular_file(ProfileDirectory(qualified) + "/test-definition.xml", ec);
}

std::optional<ob::RepoIndexDoc> ProfileSource::CachedIndex(const std::string& repo) const {
  std::error_code ec;
  if (!fs::is_regular_file(IndexPath(repo), ec)) return std::nullopt;
  try {
    return ob::DecodeRepoIndex(ReadFile(IndexPath(repo)));
  } catch (const ob::ProtocolError&) {
    return std::nullopt;  // a damaged cache counts as none: it is fetched again
  } catch (const Error&) {
    return std::nullopt;
  }
}

std::optional<ob::RepoIndexDoc> ProfileSource::Index(const std::string& repo, std::string* why_not) {
  if (!ob::ParseQualifiedName(repo + "/x")) {
    if (why_not) *why_not = "'" + repo + "' is not a repository name";
    return std::nullopt;
  }
  if (auto it = loaded_.find(repo); it != loaded_.end()) return it->second;  // once per process
  if (auto it = unavailable_.find(repo); it != unavailable_.end()) {  // asked once, not per profile
    if (why_not) *why_not = it->second;
    return std::nullopt;
  }
  const std::string path = IndexPath(repo);
  std::optional<ob::RepoIndexDoc> cached = CachedIndex(repo);
  if (cached) {
    struct stat st {};
    const double age = ::stat(path.c_str(), &st) == 0 ? double(options_.now() - st.st_mtime) : 1e18;
    if ((age >= 0 && age < options_.index_ttl_days * 86400) || client_.offline()) return loaded_[repo] = *cached;
  }
  try {
    auto answer = client_.RepoIndex(repo);
    if (options_.keep) {
      MakeDirectories(options_.cache_dir);
      WriteFileAtomically(path, answer.value);
    }
    return loaded_[repo] = ob::DecodeRepoIndex(answer.value);
  } catch (const NoServerAnswered& e) {
    if (cached) return loaded_[repo] = *cached;  // stale, but what there is
    const std::string why = unavailable_[repo] = std::string(e.what()) + "; no cached index at " + path;
    if (why_not) *why_not = why;
    return std::nullopt;
  }
}

std::optional<std::string> ProfileSource::Resolve(const std::string& name, std::string* why_not) {
  auto q = ob::ParseQualifiedName(name);
  if (!q) {
    if (why_not) *why_not = "'" + name + "' is not of the form repo/name";
    return std::nullopt;
  }
  auto index = Index(q->repo, why_not);
  if (!index) return std::nullopt;
  // A name like "pts/x264-2" whose suffix is no dotted version is a test name as a whole.
  for (const auto& [test, version] : {std::pair{q->name, q->version}, std::pair{q->name + (q->version.empty() ? "" : "-" + q->version), std::string()}}) {
    auto it = index->tests.find(test);
    if (it == index->tests.end()) continue;
    // Versions come newest first; take the first that is, or starts with, the one asked for.
    for (const auto& v : it->second.versions)
      if (version.empty() || v == version || StartsWith(v, version + "."))
        return q->repo + "/" + test + "-" + v;
    if (why_not) *why_not = "the " + q->repo + " index has no version " + version + " of " + test +
                            " (it has " + Join(it->second.versions, ", ") + ")";
    return std::nullopt;
  }
  if (why_not) *why_not = "the " + q->repo + " index has no test '" + q->name + "'";
  return std::nullopt;
}

std::vector<std::string> ProfileSource::Fetch(const std::string& qualified) {
  std::set<std::string> visiting;
  std::vector<std::string> fetched;
  FetchOne(qualified, &visiting, &fetched);
  return fetched;
}

void ProfileSource::FetchOne(const std::string& qualified, std::set<std::string>* visiting,
                             std::vector<std::string>* fetched) {
  if (!visiting->insert(qualified).second) return;  // an Extends cycle: the loader reports it
  if (OnDisk(qualified)) return;
  const std::string zip_path = ZipPath(qualified), dir = ProfileDirectory(qualified);
  std::string zip;
  std::error_code ec;
  if (fs::is_regular_file(zip_path, ec)) {
    zip = ReadFile(zip_path);
  } else {
    try {
      auto answer = client_.AcquireTest(qualified);  // sha1-checked, or refused
      zip = std::move(answer.value.zip);
    } catch (const NoServerAnswered& e) {
      throw Error(qualified + ": not in the profile cache (" + zip_path + ")" +
                  (e.offline() ? "; offline, so no server was asked: fetch it once online (--server URL)"
                               : "; " + std::string(e.what())));
    }
  }
  if (fs::exists(dir, ec)) fs::remove_all(dir, ec);  // a profile directory without its definition
  try {
    ob::ExtractZip(zip, dir);
  } catch (const ob::ZipError& e) {
    if (options_.keep) fs::remove(zip_path, ec);  // never used again
    throw Error(qualified + ": profile zip refused: " + e.what());
  }
  if (!fs::is_regular_file(dir + "/test-definition.xml", ec)) {
    fs::remove_all(dir, ec);
    if (options_.keep) fs::remove(zip_path, ec);
    throw Error(qualified + ": the profile zip has no test-definition.xml");
  }
  if (options_.keep && !fs::is_regular_file(zip_path, ec)) {
    MakeDirectories(fs::path(zip_path).parent_path().string());
    WriteFileAtomically(zip_path, zip);
  }
  fetched->push_back(qualified);
  std::string parent = ExtendsOf(dir);
  if (parent.empty()) return;
  auto pq = ob::ParseQualifiedName(parent);
  std::string parent_id = parent;
  if (pq && pq->version.empty()) {
    std::string why;
    auto resolved = Resolve(parent, &why);
    if (!resolved) throw Error(qualified + ": its parent " + parent + " cannot be had: " + why);
    parent_id = *resolved;
  }
  if (pq) FetchOne(parent_id, visiting, fetched);
}

std::optional<std::string> FetchByName(ProfileSource& source, const std::string& name) {
  auto q = ob::ParseQualifiedName(name);
  if (!q) return std::nullopt;
  std::string why;
  auto qualified = source.Resolve(name, &why);
  if (!qualified) {
    if (source.client().offline() && !source.CachedIndex(q->repo))
      throw Error(name + ": not on disk, and the profile cache has no index of " + q->repo + " (" +
                  source.options().cache_dir + "/" + q->repo +
                  ".index); offline (--offline / network.offline), so no server was asked. Missing from the cache: " + name);
    throw Error(name + ": not on disk, and not to be had from the servers: " + why);
  }
  source.Fetch(*qualified);
  return qualified;
}

}  // namespace ptsn::client
