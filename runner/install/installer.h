// Running a profile's install.sh as PTS does (spec pts-profiles.md 4.1): `bash install.sh
// "<install dir>/"` in the install dir with PTS's environment, output to install.log; the
// install-exit-status file decides (absent = success, as PTS). A successful install leaves
// pts-install.json, which says what was installed so a changed install.sh or version reinstalls.
#pragma once

#include <string>
#include <vector>

#include "runner/exec/process.h"

namespace ptsn::install {

struct InstallRequest {
  std::string identifier;      // "local/foo-1.0.0"
  std::string install_script;  // path; "" = none ("No installation script found.", counts as installed)
  std::string install_dir;
  exec::Environment env;       // PtsEnvironment(...) for the install dir
  double timeout_seconds = 0;
};

struct InstallOutcome {
  bool ok = false;
  std::string failure;     // one line
  std::string log_path;    // install.log
  std::string last_lines;  // tail of install.log on failure
  double seconds = 0;
};

InstallOutcome RunInstallScript(const InstallRequest& request, exec::ProcessRunner& runner);

// The marker: identifier, version and md5 of install.sh as installed.
std::string InstallChecksum(const std::string& install_script);  // "" when no script
// `download_notes`: where files that had moved came from (DownloadReport::FallbackNotes), kept so
// every later run of the test can say so.
void WriteInstallMarker(const std::string& install_dir, const std::string& identifier, const std::string& checksum,
                        double seconds, const std::vector<std::string>& download_notes = {});
// The marker's download notes ([] when none or no marker).
std::vector<std::string> InstalledDownloadNotes(const std::string& install_dir);
// True when the marker exists and matches (PTS's needs_updated_install in reverse).
bool IsInstalled(const std::string& install_dir, const std::string& identifier, const std::string& checksum);

}  // namespace ptsn::install
