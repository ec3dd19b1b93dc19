#include "runner/install/profile_install.h"

#include <filesystem>

#include "runner/common/error.h"
#include "runner/common/file_lock.h"
#include "runner/common/strings.h"
#include "runner/install/installer.h"

namespace fs = std::filesystem;

namespace ptsn::install {

std::string InstallDirectory(const std::string& install_root, const std::string& identifier) {
  return install_root + "/" + identifier;
}

std::vector<DownloadItem> DownloadItemsFor(const profile::TestProfile& p, const std::string& arch) {
  std::vector<DownloadItem> items;
  for (const auto& d : p.downloads) {
    auto listed = [](const std::vector<std::string>& list, const std::string& v) {
      if (list.empty()) return true;
      for (const auto& x : list)
        if (ToLower(x) == ToLower(v)) return true;
      return false;
    };
    if (!listed(d.platform_specific, "Linux")) continue;
    if (!arch.empty() && !listed(d.architecture_specific, arch)) continue;
    items.push_back({d.urls, d.file_name, {d.sha256, d.md5, 0}, d.optional});
  }
  return items;
}

DependencyCheck CheckProfileDependencies(const profile::TestProfile& p, const PackageProbe& installed,
                                         const std::function<bool(const std::string&)>& find_command) {
  return CheckDependencies(p.external_dependencies, p.system_dependencies, installed, find_command);
}

ProfileInstallResult InstallProfile(const profile::TestProfile& p, const InstallContext& ctx, exec::ProcessRunner& runner) {
  ProfileInstallResult result;
  auto say = [&](const std::string& line) {
    if (ctx.progress) ctx.progress(line);
  };
  std::string dir = InstallDirectory(ctx.install_root, p.identifier);
  std::string script = p.ScriptPath("install");
  std::string checksum = InstallChecksum(script);
  // One install of a test at a time: runs started together wait for the first to install it.
  std::error_code ec;
  fs::create_directories(dir, ec);
  FileLock lock(dir + "/.pts-native-install.lock");
  if (!ctx.force && IsInstalled(dir, p.identifier, checksum)) {
    result.ok = result.already_installed = true;
    result.download_notes = InstalledDownloadNotes(dir);
    return result;
  }
  auto items = DownloadItemsFor(p, ctx.facts.arch);
  try {
    for (const auto& item : items) DownloadPath(dir, item, "the install folder");  // before anything is fetched
  } catch (const Error& e) {
    result.failure = p.identifier + ": " + e.what();
    return result;
  }
  if (ctx.offline) {
    auto missing = MissingOffline(items, dir, ctx.downloads);
    if (!missing.empty()) {
      result.failure = p.identifier + ": offline and not in any download cache: " + Join(missing, ", ");
      return result;
    }
  }
  if (!items.empty()) {
    say(p.identifier + ": " + std::to_string(items.size()) + " file(s) to fetch");
    auto report = AcquireFiles(items, dir, ctx.downloads, *ctx.fetcher);
    for (const auto& f : report.files)
      for (const auto& problem : f.problems) say("  " + f.file_name + ": " + problem);
    if (!report.ok()) {
      result.failure = p.identifier + ": downloading failed: " + Join(report.Missing(), "; ");
      return result;
    }
    result.download_notes = report.FallbackNotes();
    for (const auto& note : result.download_notes) say("  " + note);
  }
  if (!script.empty()) say(p.identifier + ": running install.sh");
  InstallRequest request;
  request.identifier = p.identifier;
  request.install_script = script;
  request.install_dir = dir;
  std::vector<exec::ExtendedInstall> extends;
  for (auto it = p.extends_chain.rbegin(); it != p.extends_chain.rend(); ++it) {
    std::string parent = InstallDirectory(ctx.install_root, *it);
    extends.push_back({profile::SplitNameVersion(it->substr(it->rfind('/') + 1)).first,
                       fs::is_directory(parent, ec) ? parent : ""});
  }
  request.env = exec::PtsEnvironment(ctx.host_env, ctx.facts, dir, extends);
  auto outcome = RunInstallScript(request, runner);
  if (!outcome.ok) {
    result.failure = p.identifier + ": installation failed: " + outcome.failure +
                     (outcome.last_lines.empty() ? "" : " — " + Join(Split(outcome.last_lines, '\n'), " | ")) +
                     " (log: " + dir + "/install-failed.log)";
    return result;
  }
  WriteInstallMarker(dir, p.identifier, checksum, outcome.seconds, result.download_notes);
  result.ok = true;
  return result;
}

}  // namespace ptsn::install
