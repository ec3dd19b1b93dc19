#include "runner/run/run_dirs.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>

#include "runner/common/error.h"
#include "runner/common/strings.h"

namespace fs = std::filesystem;

namespace ptsn::run {

namespace {

std::atomic<int> counter{0};

// "<prefix><pid>-<n>" of a process that no longer exists: left by a run that was killed.
bool Abandoned(const std::string& name, const std::string& prefix) {
  if (!StartsWith(name, prefix)) return false;
  std::string rest = name.substr(prefix.size());
  size_t dash = rest.find('-');
  if (dash == 0 || dash == std::string::npos) return false;
  pid_t pid = 0;
  try {
    pid = static_cast<pid_t>(std::stol(rest.substr(0, dash)));
  } catch (...) {
    return false;
  }
  return pid > 0 && kill(pid, 0) != 0 && errno == ESRCH;
}

void RemoveAbandoned(const std::string& dir, const std::string& prefix) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::error_code ignored;
    if (Abandoned(e.path().filename().string(), prefix)) fs::remove_all(e.path(), ignored);
  }
}

void MakeFresh(const std::string& dir) {
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (!fs::create_directories(dir, ec) || ec)
    throw Error(dir + ": cannot make the test's private directory (" + (ec ? ec.message() : "exists") + ")");
}

}  // namespace

TestDirs::TestDirs(const std::string& install_dir, const std::string& test_dir) : install_dir_(install_dir) {
  std::string tag = std::to_string(getpid()) + "-" + std::to_string(++counter);
  RemoveAbandoned(install_dir, kHomePrefix);
  RemoveAbandoned(test_dir, kScratchPrefix);
  home_ = install_dir + "/" + kHomePrefix + tag;
  scratch_ = test_dir + "/" + kScratchPrefix + tag;
  try {
    MakeFresh(home_);
    MakeFresh(scratch_);
    LinkInstall();
  } catch (...) {
    std::error_code ec;
    fs::remove_all(home_, ec);
    fs::remove_all(scratch_, ec);
    throw;
  }
}

void TestDirs::LinkInstall() {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(install_dir_, ec)) {
    std::string name = e.path().filename().string();
    if (StartsWith(name, kHomePrefix)) continue;
    fs::path link = fs::path(home_) / name;
    std::error_code exists_ec;
    if (fs::symlink_status(link, exists_ec).type() != fs::file_type::not_found) continue;
    std::error_code link_ec;
    fs::create_symlink(e.path(), link, link_ec);
    if (link_ec) throw Error(link.string() + ": cannot link to the install directory (" + link_ec.message() + ")");
  }
  if (ec) throw Error(install_dir_ + ": " + ec.message());
}

TestDirs::~TestDirs() {
  // remove_all never follows the links: the install directory is left as it was.
  std::error_code ec;
  fs::remove_all(home_, ec);
  fs::remove_all(scratch_, ec);
}

}  // namespace ptsn::run
