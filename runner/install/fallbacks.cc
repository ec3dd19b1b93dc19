#include "runner/install/fallbacks.h"

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/strings.h"

namespace fs = std::filesystem;

namespace ptsn::install {
namespace {

std::string FileUrl(const std::string& path) { return "file://" + fs::absolute(path).lexically_normal().string(); }

// PTS's make-download-cache index: {"phoronix-test-suite": {"download-cache": {NAME: {"sha256": ...}}}}.
std::map<std::string, std::string> PtsCacheIndex(const std::string& dir) {
  std::map<std::string, std::string> by_sha;
  std::error_code ec;
  std::string path = dir + "/pts-download-cache.json";
  if (!fs::is_regular_file(path, ec)) return by_sha;
  nlohmann::json j = nlohmann::json::parse(ReadFile(path), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return by_sha;
  auto pts = j.find("phoronix-test-suite");
  if (pts == j.end() || !pts->is_object()) return by_sha;
  auto dc = pts->find("download-cache");
  if (dc == pts->end() || !dc->is_object()) return by_sha;
  for (const auto& [name, entry] : dc->items()) {
    if (!entry.is_object() || !entry.contains("sha256") || !entry["sha256"].is_string()) continue;
    // A file name, never a path out of the cache directory.
    if (name.find('/') != std::string::npos || name == ".." || name == ".") continue;
    by_sha.emplace(ToLower(entry["sha256"].get<std::string>()), name);
  }
  return by_sha;
}

class CacheDirectoryFallback : public DownloadFallback {
 public:
  explicit CacheDirectoryFallback(std::vector<std::string> dirs) : dirs_(std::move(dirs)) {}

  std::vector<FallbackCandidate> Locate(const std::string& sha256, Fetcher&, std::vector<std::string>&) override {
    std::vector<FallbackCandidate> out;
    std::error_code ec;
    for (const auto& dir : dirs_) {
      std::string ours = BySha256Path(dir, sha256);
      if (fs::is_regular_file(ours, ec)) out.push_back({FileUrl(ours), "the download cache " + dir});
      auto index = PtsCacheIndex(dir);
      if (auto it = index.find(sha256); it != index.end() && fs::is_regular_file(dir + "/" + it->second, ec))
        out.push_back({FileUrl(dir + "/" + it->second), "the download cache " + dir + " (as " + it->second + ")"});
    }
    return out;
  }
  bool HasLocalCopy(const std::string& sha256) const override {
    std::error_code ec;
    for (const auto& dir : dirs_) {
      if (fs::is_regular_file(BySha256Path(dir, sha256), ec)) return true;
      auto index = PtsCacheIndex(dir);
      if (auto it = index.find(sha256); it != index.end() && fs::is_regular_file(dir + "/" + it->second, ec)) return true;
    }
    return false;
  }

 private:
  std::vector<std::string> dirs_;
};

class ServerFallback : public DownloadFallback {
 public:
  explicit ServerFallback(std::vector<std::string> servers) : servers_(std::move(servers)) {}
  std::vector<FallbackCandidate> Locate(const std::string& sha256, Fetcher&, std::vector<std::string>&) override {
    std::vector<FallbackCandidate> out;
    for (auto server : servers_) {
      while (EndsWith(server, "/")) server.pop_back();
      out.push_back({server + "/downloads/" + sha256, "the results server " + server});
    }
    return out;
  }

 private:
  std::vector<std::string> servers_;
};

class DebianArchiveFallback : public DownloadFallback {
 public:
  explicit DebianArchiveFallback(DebianArchive archive) : archive_(std::move(archive)) {}
  std::vector<FallbackCandidate> Locate(const std::string& sha256, Fetcher& fetcher,
                                        std::vector<std::string>& problems) override {
    std::vector<FallbackCandidate> out;
    for (const auto& suite : archive_.suites)
      for (const auto& component : archive_.components) {
        const std::string key = suite + "/" + component;
        auto it = indexes_.find(key);
        if (it == indexes_.end()) {
          std::vector<std::string> found_problems;
          it = indexes_.emplace(key, DebianSourcesIndex::Load(archive_, suite, component, fetcher, found_problems)).first;
          load_problems_[key] = found_problems;
        }
        // Said with every file it could have been, not only the first.
        for (const auto& p : load_problems_[key]) problems.push_back("Debian archive: " + p);
        if (auto f = it->second.Find(sha256))
          out.push_back({archive_.mirror + "/" + f->path, "the Debian archive (" + key + ")"});
      }
    return out;
  }

 private:
  DebianArchive archive_;
  std::map<std::string, DebianSourcesIndex> indexes_;
  std::map<std::string, std::vector<std::string>> load_problems_;
};

}  // namespace

std::string BySha256Path(const std::string& cache_dir, const std::string& sha256) {
  return cache_dir + "/by-sha256/" + ToLower(sha256);
}

void RecordBySha256(const std::string& cache_dir, const std::string& file, const std::string& sha256) {
  if (cache_dir.empty() || sha256.size() != 64) return;
  std::error_code ec;
  std::string link = BySha256Path(cache_dir, sha256);
  fs::create_directories(fs::path(link).parent_path(), ec);
  if (fs::exists(link, ec)) return;
  fs::create_hard_link(file, link, ec);
  if (ec) fs::copy_file(file, link, fs::copy_options::skip_existing, ec);
}

std::unique_ptr<DownloadFallback> MakeCacheDirectoryFallback(std::vector<std::string> directories) {
  return std::make_unique<CacheDirectoryFallback>(std::move(directories));
}
std::unique_ptr<DownloadFallback> MakeServerFallback(std::vector<std::string> server_urls) {
  return std::make_unique<ServerFallback>(std::move(server_urls));
}
std::unique_ptr<DownloadFallback> MakeDebianArchiveFallback(DebianArchive archive) {
  return std::make_unique<DebianArchiveFallback>(std::move(archive));
}

std::vector<std::shared_ptr<DownloadFallback>> MakeFallbacks(const FallbackSources& sources) {
  std::vector<std::shared_ptr<DownloadFallback>> out;
  std::string order = sources.order;
  for (char& c : order)
    if (c == ',') c = ' ';
  for (const auto& word : Split(order, ' ')) {
    std::string w = ToLower(Trim(word));
    if (w.empty() || w == "none") continue;
    if (w == "cache") out.push_back(MakeCacheDirectoryFallback(sources.cache_directories));
    else if (w == "server") {
      if (!sources.servers.empty()) out.push_back(MakeServerFallback(sources.servers));
    } else if (w == "debian") {
      if (!sources.debian.mirror.empty() && !sources.debian.suites.empty())
        out.push_back(MakeDebianArchiveFallback(sources.debian));
    } else {
      throw Error("install.fallbacks: unknown source '" + word + "' (expected cache, server, debian or none)");
    }
  }
  return out;
}

}  // namespace ptsn::install
