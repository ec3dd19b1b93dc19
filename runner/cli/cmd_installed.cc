// Installed tests and the download cache, as PTS's commands of the same names do:
// list-installed-tests, remove-installed-test, make-download-cache. Glue over runner/install.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "runner/cli/command.h"
#include "runner/common/args.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/pts_variables.h"
#include "runner/common/settings.h"
#include "runner/common/strings.h"
#include "runner/install/checksum.h"
#include "runner/install/fetcher.h"
#include "runner/install/profile_install.h"
#include "runner/profile/profile_repository.h"
#include "runner/sysinfo/sysinfo.h"

namespace fs = std::filesystem;

namespace ptsn::cli {
namespace {

struct InstalledTest {
  std::string identifier;  // "native/cipher-1.0.0"
  std::string directory;
};

// Every <install root>/<repo>/<name> directory with the installer's pts-install.json marker (PTS's
// pts_tests::installed_tests(): a test counts as installed once its install completed).
std::vector<InstalledTest> InstalledTests(const std::string& root) {
  std::vector<InstalledTest> out;
  std::error_code ec;
  for (const auto& repo : fs::directory_iterator(root, ec)) {
    if (!repo.is_directory()) continue;
    for (const auto& test : fs::directory_iterator(repo.path(), ec)) {
      if (!fs::is_regular_file(test.path() / "pts-install.json", ec)) continue;
      out.push_back({repo.path().filename().string() + "/" + test.path().filename().string(), test.path().string()});
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.identifier < b.identifier; });
  return out;
}

std::string TitleOf(const profile::ProfileRepository& repo, const std::string& identifier) {
  try {
    if (repo.FindProfile(identifier)) return repo.LoadProfile(identifier).title;
  } catch (const Error&) {
  }
  return "";
}

std::string Padded(std::string s, size_t width) {
  if (s.size() < width) s.resize(width, ' ');
  return s;
}

int ListInstalledTests(const std::vector<std::string>& argv) {
  Args::Parse(argv, {{}, {}});
  const std::string root = GlobalSettings().Get("install.directory");
  auto tests = InstalledTests(root);
  if (tests.empty()) {
    std::cout << "No tests are installed in " << root << ".\n";
    return 0;
  }
  auto repo = profile::ProfileRepository::FromSettings(GlobalSettings());
  size_t width = 0;
  for (const auto& t : tests) width = std::max(width, t.identifier.size());
  std::cout << tests.size() << " Tests Installed\n\n";
  for (const auto& t : tests) {
    std::string title = TitleOf(repo, t.identifier);
    std::cout << "  " << Padded(t.identifier, width + 2) << (title.empty() ? "(profile not found)" : title) << "\n";
  }
  return 0;
}

// The install directory a name stands for: a profile's (any version form PTS accepts), else an
// installed "<repo>/<name-version>" whose profile is gone.
std::string InstallDirectoryFor(const std::string& root, const std::string& name, std::string* identifier) {
  auto repo = profile::ProfileRepository::FromSettings(GlobalSettings());
  if (auto ref = repo.FindProfile(name)) *identifier = ref->identifier;
  else *identifier = Trim(name);
  const auto& id = *identifier;
  // Exactly <repo>/<name>: never a path out of the install root.
  auto slash = id.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == id.size() || id.find('/', slash + 1) != std::string::npos ||
      id.find("..") != std::string::npos)
    throw Error("remove-installed-test: '" + name + "' names no test profile (repo/name-version)", 2);
  return install::InstallDirectory(root, id);
}

int RemoveInstalledTest(const std::vector<std::string>& argv) {
  Args args = Args::Parse(argv, {{}, {"--yes", "-y"}});
  if (args.positional().empty()) throw Error("usage: pts-native remove-installed-test PROFILE... [--yes]", 2);
  const std::string root = GlobalSettings().Get("install.directory");
  int code = 0;
  for (const auto& name : args.positional()) {
    std::string identifier;
    const std::string dir = InstallDirectoryFor(root, name, &identifier);
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      std::cerr << identifier << ": this test is not installed (" << dir << ")\n";
      code = 1;
      continue;
    }
    if (!args.Has("--yes") && !args.Has("-y")) {
      if (!isatty(STDIN_FILENO))
        throw Error("remove-installed-test: not removing " + identifier + " without confirmation: add --yes", 2);
      std::cout << "Are you sure you wish to remove the test " << identifier << " (" << dir << ")? [y/N] " << std::flush;
      std::string answer;
      std::getline(std::cin, answer);
      if (ToLower(Trim(answer)) != "y" && ToLower(Trim(answer)) != "yes") {
        std::cout << identifier << ": kept\n";
        continue;
      }
    }
    fs::remove_all(dir, ec);
    if (ec) throw FileError(dir, "cannot remove: " + ec.message());
    std::cout << identifier << " has been removed.\n";
  }
  return code;
}

// pts-download-cache.json as PTS writes it, so a PTS client pointed at this directory
// (PTS_DOWNLOAD_CACHE, or served over HTTP) finds its files.
struct CachedFile {
  long long size = 0;
  std::vector<std::string> tests;
  std::string md5, sha256;
};

// The download cache being made: its directory and what it will list (pts-download-cache.json,
// as PTS's make-download-cache writes it).
struct DownloadCacheIndex {
  std::string dir;
  std::map<std::string, CachedFile> files;

  // `item` of test `identifier` into the cache, verified: already there, or copied from
  // `source_dir` (an install directory; "" = none). False when neither has a good copy.
  bool Take(const std::string& identifier, const install::DownloadItem& item, const std::string& source_dir) {
    std::string cached, installed;
    try {
      cached = install::DownloadPath(dir, item, "the download cache");
      if (!source_dir.empty()) installed = install::DownloadPath(source_dir, item, "the install folder");
    } catch (const Error& e) {
      throw Error(identifier + ": " + e.what());
    }
    std::error_code ec;
    if (fs::is_regular_file(cached, ec) && !install::CheckFile(cached, item.check)) {
      std::cout << "   Previously Cached: " << item.file_name << "\n";
    } else if (!installed.empty() && fs::is_regular_file(installed, ec) && !install::CheckFile(installed, item.check)) {
      std::cout << "   Caching: " << item.file_name << "\n";
      const std::string tmp = cached + ".ptsn-tmp";
      fs::copy_file(installed, tmp, fs::copy_options::overwrite_existing, ec);
      if (!ec) fs::rename(tmp, cached, ec);
      if (ec) throw FileError(cached, "cannot copy into the download cache: " + ec.message());
    } else {
      return false;
    }
    auto digests = install::ComputeDigests(cached);
    auto& f = files[item.file_name];
    if (f.sha256.empty()) f = {digests.size, {}, digests.md5, digests.sha256};
    if (f.sha256 == digests.sha256 && std::find(f.tests.begin(), f.tests.end(), identifier) == f.tests.end())
      f.tests.push_back(identifier);
    return true;
  }

  // Files put there by hand are listed too.
  void AddTheRest() {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      const std::string name = e.path().filename().string();
      if (!e.is_regular_file() || name == "pts-download-cache.json" || EndsWith(name, ".ptsn-tmp") || files.count(name))
        continue;
      auto d = install::ComputeDigests(e.path().string());
      files[name] = {d.size, {}, d.md5, d.sha256};
    }
  }

  void Write(const std::vector<std::string>& cached_tests) const {
    nlohmann::ordered_json index;
    index["phoronix-test-suite"]["main"]["generated"] = static_cast<long long>(std::time(nullptr));
    auto& listed = index["phoronix-test-suite"]["download-cache"] = nlohmann::ordered_json::object();
    for (const auto& [name, f] : files)
      listed[name] = {{"file_name", name}, {"file_size", f.size}, {"associated_tests", f.tests}, {"md5", f.md5}, {"sha256", f.sha256}};
    index["phoronix-test-suite"]["cached-tests"] = cached_tests;
    WriteFileAtomically(dir + "/pts-download-cache.json", index.dump(4) + "\n");
  }
};

// The cache directory: the setting, or PTS's override variable when it names a directory.
std::string DownloadCacheDirectory(const Settings& s, const PtsVariables& pts) {
  std::string cache = s.Get("install.download_cache");
  if (pts.download_cache_override && fs::is_directory(*pts.download_cache_override)) cache = *pts.download_cache_override;
  MakeDirectories(cache);
  if (access(cache.c_str(), W_OK) != 0) throw FileError(cache, "the download cache is not writable");
  return cache;
}

int MakeDownloadCache(const std::vector<std::string>& argv) {
  Args args = Args::Parse(argv, {{}, {"--offline"}});
  const Settings& s = GlobalSettings();
  const PtsVariables pts = ReadPtsVariables();
  DownloadCacheIndex cache{DownloadCacheDirectory(s, pts)};
  std::cout << "Download Cache Directory: " << cache.dir << "\n";
  auto repo = profile::ProfileRepository::FromSettings(s);
  auto reader = sysinfo::MakeRootedReader("/", s.Home() + "/cache");
  const std::string arch = sysinfo::Architecture(*reader);

  // Tests named on the command line: their files are downloaded into the cache first.
  if (!args.positional().empty()) {
    std::unique_ptr<install::Fetcher> fetcher =
        args.Has("--offline") || s.GetBool("network.offline") ? install::MakeOfflineFetcher() : install::MakeCurlFetcher();
    install::DownloadOptions options;
    options.caches = install::CacheLocationsFrom("", s.Get("results.pts_home"), s.Get("install.extra_caches"),
                                                 pts.download_cache.value_or(""));
    for (const auto& name : args.positional()) {
      profile::TestProfile p = repo.LoadProfile(name);
      auto items = install::DownloadItemsFor(p, arch);
      std::cout << "Downloading Test Files For: " << p.identifier << "\n";
      install::DownloadReport report;
      try {
        report = install::AcquireFiles(items, cache.dir, options, *fetcher);
      } catch (const Error& e) {
        throw Error(p.identifier + ": " + e.what());
      }
      if (!report.ok()) throw Error(p.identifier + ": " + Join(report.Missing(), "; "));
      for (const auto& item : items) cache.Take(p.identifier, item, "");
    }
  }
  // Every installed test's downloads, taken from its install directory where the cache lacks them.
  std::vector<std::string> cached_tests;
  for (const auto& t : InstalledTests(s.Get("install.directory"))) {
    if (!repo.FindProfile(t.identifier)) continue;
    profile::TestProfile p = repo.LoadProfile(t.identifier);
    std::cout << "Checking Downloads For: " << t.identifier << "\n";
    bool all = true;
    for (const auto& item : install::DownloadItemsFor(p, arch)) all &= cache.Take(t.identifier, item, t.directory);
    if (all) cached_tests.push_back(t.identifier);
  }
  cache.AddTheRest();
  cache.Write(cached_tests);
  std::cout << cache.files.size() << " file(s) in " << cache.dir << "/pts-download-cache.json\n";
  return 0;
}

}  // namespace

std::vector<Command> InstalledCommands() {
  return {
      {"list-installed-tests", {"list-installed"}, "Installed tests", "", "the tests installed here, with their titles",
       ListInstalledTests},
      {"remove-installed-test", {}, "Installed tests", "PROFILE... [--yes]",
       "delete a test's install directory (asks first unless --yes)", RemoveInstalledTest},
      {"make-download-cache", {}, "Installed tests", "[PROFILE...] [--offline]",
       "copy installed tests' verified downloads into the download cache and index it (pts-download-cache.json)",
       MakeDownloadCache,
       "With PROFILEs, their files are downloaded (verified) into the cache first. The index lists every\n"
       "file with its size, MD5, SHA-256 and the tests that use it, as PTS writes it, so PTS clients can\n"
       "use the directory as a download cache (PTS_DOWNLOAD_CACHE). PTS_DOWNLOAD_CACHE_OVERRIDE picks\n"
       "another directory, as in PTS."},
  };
}

}  // namespace ptsn::cli
