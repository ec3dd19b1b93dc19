#include "server/results/profile_mirror.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <filesystem>
#include <set>

#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/path_below.h"
#include "runner/common/strings.h"
#include "runner/openbenchmarking/profile_zip.h"
#include "runner/openbenchmarking/wire.h"
#include "runner/profile/profile_repository.h"
#include "runner/profile/test_profile.h"
#include "runner/profile/xml_tree.h"

namespace ptsn::server {

namespace fs = std::filesystem;

namespace {

bool NewerFirst(const std::string& a, const std::string& b) { return profile::CompareVersions(a, b) > 0; }

struct Found {
  ob::QualifiedName name;
  std::string dir;
  // Filled in parallel:
  std::string zip;
  ob::IndexTest entry;
  std::string error;
};

// Written whole under a temporary name and renamed, without a flush of its own: one syncfs()
// after all the zips replaces ~600 fsyncs (3 s of an import of the corpus, 0.3 s without).
void WriteUnsynced(const std::string& path, const std::string& data) {
  std::string temp = path + ".tmp-XXXXXX";
  int fd = mkstemp(temp.data());
  if (fd < 0) throw Error(path + ": cannot create a temporary file: " + std::strerror(errno));
  bool ok = WriteAll(fd, data) && fchmod(fd, 0644) == 0;
  int err = errno;
  if (::close(fd) != 0 && ok) ok = false, err = errno;
  if (!ok || ::rename(temp.c_str(), path.c_str()) != 0) {
    if (ok) err = errno;
    ::unlink(temp.c_str());
    throw Error(path + ": " + std::strerror(err));
  }
}

void SyncFileSystemOf(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || ::syncfs(fd) != 0) {
    int err = errno;
    if (fd >= 0) ::close(fd);
    throw Error(dir + ": cannot flush to disk: " + std::strerror(err));
  }
  ::close(fd);
}

}  // namespace

ob::IndexTest IndexEntryFor(const std::string& profile_dir, std::time_t now) {
  profile::XmlElement root = profile::ParseXmlFile(profile_dir + "/test-definition.xml");
  const profile::XmlElement* info = root.Child("TestInformation");
  const profile::XmlElement* tp = root.Child("TestProfile");
  auto text = [](const profile::XmlElement* e, const char* name) { return e ? Trim(e->ChildText(name)) : std::string(); };
  ob::IndexTest t;
  t.title = text(info, "Title");
  t.description = text(info, "Description");
  t.test_type = text(tp, "TestType");
  t.software_type = text(tp, "SoftwareType");
  t.status = text(tp, "Status");
  t.supported_platforms = profile::CommaList(text(tp, "SupportedPlatforms"));
  t.internal_tags = profile::CommaList(text(tp, "InternalTags"));
  t.test_extends = text(tp, "Extends");
  // OpenBenchmarking's figures come from its users' runs; a mirror has only the profile's own.
  long runs = std::atol(text(info, "TimesToRun").c_str());
  long per_run = std::atol(text(info, "EstimatedTimePerRun").c_str());
  t.average_run_time = runs > 0 && per_run > 0 ? std::to_string(runs * per_run) : "";
  t.last_updated = t.first_added = std::to_string(now);
  t.popularity = t.downloads = "0";
  return t;
}

ImportReport ImportProfiles(const std::string& tree, const std::string& mirror_dir, std::time_t now) {
  std::error_code ec;
  if (!fs::is_directory(tree, ec)) throw Error(tree + ": not a directory of test profiles (<repo>/<name>-<version>/)");
  ImportReport report;
  std::vector<Found> found;
  std::vector<fs::path> repos;
  for (const auto& r : fs::directory_iterator(tree, ec))
    if (r.is_directory()) repos.push_back(r.path());
  if (ec) throw Error(tree + ": " + ec.message());
  std::sort(repos.begin(), repos.end());
  for (const auto& repo : repos) {
    std::vector<fs::path> items;
    for (const auto& i : fs::directory_iterator(repo, ec))
      if (i.is_directory()) items.push_back(i.path());
    std::sort(items.begin(), items.end());
    for (const auto& item : items) {
      const std::string id = repo.filename().string() + "/" + item.filename().string();
      auto q = ob::ParseQualifiedName(id);
      if (!fs::is_regular_file(item / "test-definition.xml", ec)) {
        if (!fs::is_regular_file(item / "suite-definition.xml", ec)) report.skipped.emplace_back(item.string(), "no test-definition.xml");
        else report.skipped.emplace_back(item.string(), "a test suite (suites are not mirrored)");
        continue;
      }
      if (!q || q->version.empty()) {
        report.skipped.emplace_back(item.string(), "not named <name>-<version> with a safe name");
        continue;
      }
      found.push_back({*q, item.string(), "", {}, ""});
    }
  }
  // Reading, zipping and parsing on every core: the 604 profiles of the public corpus are ~2,700
  // files, most of the import's time.
  profile::ForEachParallel(found.size(), 0, [&](size_t i) {
    Found& f = found[i];
    try {
      f.zip = ob::WriteZip(ob::DirectoryEntries(f.dir));
      f.entry = IndexEntryFor(f.dir, now);
    } catch (const ob::ZipError& e) {
      f.error = e.what();
    } catch (const Error& e) {
      f.error = e.what();
    }
  });
  std::map<std::string, std::vector<const Found*>> by_repo;
  for (const auto& f : found) {
    if (!f.error.empty()) {
      report.skipped.emplace_back(f.dir, f.error);
      continue;
    }
    const std::string path = mirror_dir + "/" + f.name.repo + "/" + f.name.name + "-" + f.name.version + ".zip";
    std::error_code exists_ec;
    if (fs::is_regular_file(path, exists_ec) && fs::file_size(path, exists_ec) == f.zip.size() && ReadFile(path) == f.zip) {
      ++report.unchanged;
    } else {
      MakeDirectories(mirror_dir + "/" + f.name.repo);
      WriteUnsynced(path, f.zip);
      ++report.added;
    }
    by_repo[f.name.repo].push_back(&f);
  }
  if (report.added > 0) SyncFileSystemOf(mirror_dir);  // the zips are on disk before an index names them
  for (const auto& [repo, profiles] : by_repo) {
    const std::string index_path = mirror_dir + "/" + repo + ".index";
    ob::RepoIndexDoc index;
    if (fs::is_regular_file(index_path, ec)) {
      try {
        index = ob::DecodeRepoIndex(ReadFile(index_path));
      } catch (const ob::ProtocolError& e) {
        throw Error(index_path + ": " + e.what() + " (remove it to rebuild the index from the zips)");
      }
    }
    for (const Found* f : profiles) {
      ob::IndexTest& t = index.tests[f->name.name];
      std::vector<std::string> versions = t.versions;
      if (std::find(versions.begin(), versions.end(), f->name.version) == versions.end()) versions.push_back(f->name.version);
      std::sort(versions.begin(), versions.end(), NewerFirst);
      if (versions.front() == f->name.version) {  // the newest version describes the test
        std::string first_added = t.first_added;
        t = f->entry;
        if (!first_added.empty()) t.first_added = first_added;
      }
      t.versions = std::move(versions);
    }
    index.generated = now;
    MakeDirectories(mirror_dir);
    WriteFileAtomically(index_path, ob::EncodeRepoIndex(index));
    report.repos.push_back(repo);
  }
  return report;
}

std::shared_ptr<const void> ProfileMirror::Load(const std::string& path, bool zip) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return nullptr;
  {
    std::lock_guard lock(mu_);
    auto it = cache_.find(path);
    if (it != cache_.end() && it->second.mtime == st.st_mtime && it->second.size == st.st_size) return it->second.value;
  }
  std::shared_ptr<const void> value;
  try {
    std::string bytes = ReadFile(path);
    if (zip) {
      ob::AcquiredTest t;
      t.sha1 = wire::Sha1Hex(bytes);
      t.zip = std::move(bytes);
      value = std::make_shared<const ob::AcquiredTest>(std::move(t));
    } else {
      value = std::make_shared<const std::string>(std::move(bytes));
    }
  } catch (const Error&) {
    return nullptr;
  }
  std::lock_guard lock(mu_);
  cache_[path] = {st.st_mtime, static_cast<long long>(st.st_size), value};
  return value;
}

std::shared_ptr<const std::string> ProfileMirror::Index(const std::string& repo) {
  if (!ob::ParseQualifiedName(repo + "/x")) return nullptr;
  return std::static_pointer_cast<const std::string>(
      Load(JoinBelow(dir_, repo + ".index", {"repo_index repo", "the profile mirror"}), false));
}

std::shared_ptr<const ob::AcquiredTest> ProfileMirror::Test(const std::string& qualified) {
  auto q = ob::ParseQualifiedName(qualified);
  if (!q || q->version.empty()) return nullptr;
  return std::static_pointer_cast<const ob::AcquiredTest>(
      Load(JoinBelow(dir_, q->repo + "/" + q->name + "-" + q->version + ".zip", {"acquire_test identifier", "the profile mirror"},
                     NameDepth::kRelativePath),
           true));
}

}  // namespace ptsn::server
