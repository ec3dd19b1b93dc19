#include "runner/install/downloads.h"

#include <filesystem>

#include "runner/common/path_below.h"
#include "runner/common/strings.h"

namespace fs = std::filesystem;

namespace ptsn::install {
namespace {

bool IsUrl(const std::string& s) { return s.find("://") != std::string::npos; }

// Copies via a temporary name so a half-copied file never looks present.
bool CopyInto(const std::string& from, const std::string& to, std::string* error) {
  std::string tmp = to + ".ptsn-part";
  std::error_code ec;
  fs::copy_file(from, tmp, fs::copy_options::overwrite_existing, ec);
  if (!ec) fs::rename(tmp, to, ec);
  if (ec) {
    fs::remove(tmp, ec);
    *error = ec.message();
    return false;
  }
  return true;
}

std::string JoinUrl(const std::string& base, const std::string& name) {
  return base + (EndsWith(base, "/") ? "" : "/") + name;
}

}  // namespace

std::string DownloadPath(const std::string& folder, const DownloadItem& item, std::string_view folder_label) {
  return JoinBelow(folder, item.file_name, {"downloads.xml FileName", folder_label});
}

bool CacheLocation::IsUrl() const { return install::IsUrl(location); }

bool DownloadReport::ok() const {
  for (const auto& f : files)
    if (!f.ok) return false;
  return true;
}

std::vector<std::string> DownloadReport::Missing() const {
  std::vector<std::string> out;
  for (const auto& f : files)
    if (!f.ok) out.push_back(f.file_name + (f.problems.empty() ? "" : " (" + Join(f.problems, "; ") + ")"));
  return out;
}

std::vector<std::string> DownloadReport::FallbackNotes() const {
  std::vector<std::string> out;
  for (const auto& f : files)
    if (f.ok && !f.fallback.empty())
      out.push_back(f.file_name + " was not at its URLs; it came from " + f.fallback + ": " + f.source +
                    ", SHA256 verified.");
  return out;
}

std::vector<CacheLocation> CacheLocationsFrom(const std::string& our_cache, const std::string& pts_home,
                                              const std::string& extra_caches, const std::string& pts_download_cache_env) {
  std::vector<CacheLocation> out;
  auto add = [&](const std::string& loc) {
    std::string t = Trim(loc);
    if (t.empty()) return;
    for (const auto& c : out)
      if (c.location == t) return;
    out.push_back({t});
  };
  add(our_cache);
  if (!pts_home.empty()) add(pts_home + "/download-cache");
  // Split at ':' but glue "scheme" + "://rest" (and "host" + ":port/...") back together.
  auto split_paths = [&](const std::string& list) {
    std::vector<std::string> parts = Split(list, ':'), merged;
    for (const auto& p : parts) {
      if (!merged.empty() && (StartsWith(p, "//") || (IsUrl(merged.back()) && !p.empty() && std::isdigit(static_cast<unsigned char>(p[0])))))
        merged.back() += ":" + p;
      else
        merged.push_back(p);
    }
    for (const auto& m : merged) add(m);
  };
  split_paths(extra_caches);
  split_paths(pts_download_cache_env);
  return out;
}

DownloadReport AcquireFiles(const std::vector<DownloadItem>& items, const std::string& install_dir,
                            const DownloadOptions& options, Fetcher& fetcher) {
  DownloadReport report;
  std::error_code ec;
  fs::create_directories(install_dir, ec);
  if (!options.download_cache.empty()) fs::create_directories(options.download_cache, ec);
  for (const auto& item : items) DownloadPath(install_dir, item, "the install folder");  // all, before any fetch
  for (const auto& item : items) {
    DownloadOutcome out;
    out.file_name = item.file_name;
    const std::string dest = DownloadPath(install_dir, item, "the install folder");
    auto verify = [&](const std::string& path, const std::string& from) {
      auto problem = CheckFile(path, item.check, options.skip_hashes);
      if (problem) {
        out.problems.push_back(from + ": " + *problem);
        fs::remove(path, ec);
      }
      return !problem;
    };
    // 1. Already in the install dir (a previous install): kept if it verifies.
    if (fs::exists(dest, ec) && verify(dest, dest)) {
      out.ok = true;
      out.source = "install dir";
    }
    // 2. Caches, in order.
    for (const auto& cache : options.caches) {
      if (out.ok) break;
      if (cache.IsUrl()) {
        std::string url = JoinUrl(cache.location, item.file_name);  // the name was checked: dest
        if (!fetcher.CanReach(url)) continue;
        std::string part = dest + ".ptsn-download";
        fs::remove(part, ec);
        auto r = fetcher.Fetch(url, part);
        if (!r.ok) {
          fs::remove(part, ec);
          continue;  // a remote cache without the file is normal, not a problem to report
        }
        if (verify(part, url)) {
          fs::rename(part, dest, ec);
          out.ok = !ec;
          out.source = url;
        }
        continue;
      }
      std::string cached = DownloadPath(cache.location, item, "the download cache");
      if (!fs::exists(cached, ec)) continue;
      auto problem = CheckFile(cached, item.check, options.skip_hashes);
      if (problem) {
        out.problems.push_back(cached + ": " + *problem + " (cache file left in place)");
        continue;
      }
      std::string error;
      if (CopyInto(cached, dest, &error)) {
        out.ok = true;
        out.source = cache.location;
      } else {
        out.problems.push_back(cached + ": copy failed: " + error);
      }
    }
    // 3. Mirrors in the profile's order, downloaded into our cache (resumable) then copied.
    for (const auto& url : item.urls) {
      if (out.ok) break;
      if (!fetcher.CanReach(url)) {
        out.problems.push_back(url + ": not fetched (offline)");
        continue;
      }
      std::string target_dir = options.download_cache.empty() ? install_dir : options.download_cache;
      std::string final_path = DownloadPath(target_dir, item, "the download cache");
      std::string part = final_path + ".part";
      auto r = fetcher.Fetch(url, part);
      if (!r.ok) {
        out.problems.push_back(url + ": " + r.error);
        continue;  // the partial file stays for a resume from the next mirror / next install
      }
      if (!verify(part, url)) continue;
      fs::rename(part, final_path, ec);
      std::string error;
      if (final_path == dest || CopyInto(final_path, dest, &error)) {
        out.ok = true;
        out.source = url;
        if (!options.download_cache.empty() && !options.skip_hashes)
          RecordBySha256(options.download_cache, final_path, ToLower(Trim(item.check.sha256)));
      } else {
        out.problems.push_back(final_path + ": copy failed: " + error);
      }
    }
    // 4. Moved: found by SHA256 elsewhere, used only when the SHA256 matches (whatever
    //    NO_FILE_HASH_CHECKS says: the hash is how the file was found).
    const std::string sha256 = ToLower(Trim(item.check.sha256));
    for (const auto& fallback : options.fallbacks) {
      if (out.ok || sha256.empty()) break;
      for (const auto& candidate : fallback->Locate(sha256, fetcher, out.problems)) {
        if (!fetcher.CanReach(candidate.url)) {
          out.problems.push_back(candidate.url + ": not fetched (offline)");
          continue;
        }
        std::string target_dir = options.download_cache.empty() ? install_dir : options.download_cache;
        std::string final_path = DownloadPath(target_dir, item, "the download cache");
        std::string part = final_path + ".ptsn-fallback";
        fs::remove(part, ec);
        auto r = fetcher.Fetch(candidate.url, part);
        if (!r.ok) {
          fs::remove(part, ec);
          out.problems.push_back(candidate.url + ": " + r.error);
          continue;
        }
        if (auto problem = CheckFile(part, {sha256, "", item.check.size})) {
          fs::remove(part, ec);
          out.problems.push_back(candidate.url + ": " + *problem + " (refused)");
          continue;
        }
        fs::rename(part, final_path, ec);
        std::string error;
        if (!ec && (final_path == dest || CopyInto(final_path, dest, &error))) {
          out.ok = true;
          out.source = candidate.url;
          out.fallback = candidate.origin;
          if (!options.download_cache.empty()) RecordBySha256(options.download_cache, final_path, sha256);
          break;
        }
        out.problems.push_back(final_path + ": copy failed: " + (ec ? ec.message() : error));
      }
    }
    if (!out.ok && item.urls.empty() && out.problems.empty())
      out.problems.push_back("no URL: place the file in a download cache");
    if (!out.ok && item.optional) out.ok = true, out.source = "optional, skipped";
    report.files.push_back(out);
  }
  return report;
}

std::vector<std::string> MissingOffline(const std::vector<DownloadItem>& items, const std::string& install_dir,
                                        const DownloadOptions& options) {
  std::vector<std::string> missing;
  std::error_code ec;
  for (const auto& item : items) {
    if (item.optional) continue;
    bool found = fs::exists(DownloadPath(install_dir, item, "the install folder"), ec);
    for (const auto& cache : options.caches) {
      if (found) break;
      if (cache.IsUrl()) {
        if (StartsWith(cache.location, "file://"))
          found = fs::exists(DownloadPath(cache.location.substr(7), item, "the download cache"), ec);
        continue;
      }
      found = fs::exists(DownloadPath(cache.location, item, "the download cache"), ec);
    }
    for (const auto& url : item.urls)
      if (!found && StartsWith(url, "file://")) found = fs::exists(url.substr(7), ec);
    const std::string sha256 = ToLower(Trim(item.check.sha256));
    for (const auto& fallback : options.fallbacks)
      if (!found && !sha256.empty()) found = fallback->HasLocalCopy(sha256);
    if (!found) missing.push_back(item.file_name);
  }
  return missing;
}

}  // namespace ptsn::install
