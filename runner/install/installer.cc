#include "runner/install/installer.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "runner/common/atomic_file.h"
#include "runner/install/checksum.h"

namespace fs = std::filesystem;

namespace ptsn::install {

InstallOutcome RunInstallScript(const InstallRequest& r, exec::ProcessRunner& runner) {
  InstallOutcome out;
  MakeDirectories(r.install_dir);
  out.log_path = r.install_dir + "/install.log";
  if (r.install_script.empty()) {
    out.ok = true;
    return out;
  }
  std::error_code ec;
  fs::remove(r.install_dir + "/install-exit-status", ec);
  exec::ProcessSpec spec;
  std::string shell = fs::exists("/bin/bash") ? "/bin/bash" : "/bin/sh";
  spec.argv = {shell, r.install_script, r.install_dir + "/"};
  spec.env = r.env;
  spec.env["INSTALL_FOOTNOTE"] = r.install_dir + "/install-footnote";
  spec.working_directory = r.install_dir;
  spec.output_path = out.log_path;
  spec.timeout_seconds = r.timeout_seconds;
  auto result = runner.Run(spec);
  out.seconds = result.elapsed_seconds;
  auto status = exec::TakeExitStatusFile(r.install_dir + "/install-exit-status");
  if (result.status == exec::ProcessStatus::kSpawnFailed || result.status == exec::ProcessStatus::kTimedOut ||
      result.status == exec::ProcessStatus::kInterrupted) {
    out.failure = "install.sh " + result.Describe();
  } else if (status && *status != 0) {
    out.failure = "install-exit-status is " + std::to_string(*status);
  } else {
    out.ok = true;  // like PTS: the script's own exit code is not looked at
  }
  if (!out.ok) {
    out.last_lines = exec::LastLines(out.log_path, 10);
    fs::copy_file(out.log_path, r.install_dir + "/install-failed.log", fs::copy_options::overwrite_existing, ec);
    fs::remove(r.install_dir + "/pts-install.json", ec);
  }
  return out;
}

std::string InstallChecksum(const std::string& install_script) {
  if (install_script.empty()) return "";
  return ComputeDigests(install_script).md5;
}

void WriteInstallMarker(const std::string& install_dir, const std::string& identifier, const std::string& checksum,
                        double seconds, const std::vector<std::string>& download_notes) {
  nlohmann::ordered_json j = {{"status", "INSTALLED"},
                              {"identifier", identifier},
                              {"install_checksum", checksum},
                              {"install_time_seconds", seconds}};
  if (!download_notes.empty()) j["download_notes"] = download_notes;
  WriteFileAtomically(install_dir + "/pts-install.json", j.dump(2) + "\n");
}

std::vector<std::string> InstalledDownloadNotes(const std::string& install_dir) {
  try {
    auto j = nlohmann::json::parse(ReadFile(install_dir + "/pts-install.json"));
    return j.value("download_notes", std::vector<std::string>{});
  } catch (...) {
    return {};
  }
}

bool IsInstalled(const std::string& install_dir, const std::string& identifier, const std::string& checksum) {
  try {
    auto j = nlohmann::json::parse(ReadFile(install_dir + "/pts-install.json"));
    return j.value("status", "") == "INSTALLED" && j.value("identifier", "") == identifier &&
           j.value("install_checksum", "") == checksum;
  } catch (...) {
    return false;
  }
}

}  // namespace ptsn::install
