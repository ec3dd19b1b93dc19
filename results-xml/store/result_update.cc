#include "results-xml/store/result_update.h"

#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <set>

#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/strings.h"

namespace fs = std::filesystem;

namespace ptsn::results {

namespace {

std::string DirectoryOf(const std::string& path) {
  fs::path p(path);
  return p.has_parent_path() ? p.parent_path().string() : ".";
}

// .<file>.lock beside `path`.
std::string LockPath(const std::string& path, const std::string& suffix) {
  return DirectoryOf(path) + "/." + fs::path(path).filename().string() + suffix + ".lock";
}

FileLock LockAndTidy(const std::string& path) {
  MakeDirectories(DirectoryOf(path));
  FileLock lock(LockPath(path, ""));
  RemoveLeftoverTemporaries(path);
  return lock;
}

// Letters and digits, lower-cased: the identifier as the eye reads it (NearDuplicateIdentifier),
// hashed (FNV-1a) into a file name of fixed length.
std::string ClaimKey(const std::string& identifier) {
  std::string key;
  for (unsigned char c : identifier)
    if (std::isalnum(c) || c >= 0x80) key += static_cast<char>(std::tolower(c));
  if (key.empty()) key = identifier;
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : key) h = (h ^ c) * 1099511628211ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

// FileLock::TryClaim of `lock_path` in `dir`, made again should a claim's release remove it
// (IdentifierClaim::Release) between making it and opening the file.
std::optional<FileLock> ClaimIn(const std::string& dir, const std::string& lock_path) {
  for (int attempt = 0;; ++attempt) {
    MakeDirectories(dir);
    try {
      return FileLock::TryClaim(lock_path);
    } catch (const Error&) {
      std::error_code ec;
      if (attempt < 3 && !fs::exists(dir, ec)) continue;
      throw;
    }
  }
}

}  // namespace

ResultFileLock::ResultFileLock(const std::string& path) : lock_(LockAndTidy(path)) {}

ResultFile UpdateResultFile(const std::string& path, const std::function<void(ResultFile& file, bool existed)>& change,
                            const SerializeOptions& options) {
  ResultFileLock lock(path);
  std::error_code ec;
  bool existed = fs::exists(path, ec);
  ResultFile file;
  if (existed) file = ReadResultFile(path);
  change(file, existed);
  WriteResultFile(path, file, options);
  return file;
}

void ReplaceResultFile(const std::string& path, const ResultFile& file, const SerializeOptions& options) {
  ResultFileLock lock(path);
  WriteResultFile(path, file, options);
}

IdentifierClaim::IdentifierClaim(const std::string& path, const std::vector<std::string>& identifiers,
                                 const std::string& what)
    : dir_(DirectoryOf(path)) {
  std::error_code ec;
  made_dir_ = !fs::exists(dir_, ec);
  std::set<std::string> keys;
  for (const std::string& identifier : identifiers) {
    const std::string key = ClaimKey(identifier);
    if (!keys.insert(key).second) continue;  // one claim for what reads as one system
    const std::string lock_path = LockPath(path, ".system-" + key);
    std::optional<FileLock> lock = ClaimIn(dir_, lock_path);
    if (!lock) {
      // The holder notes who it is just after it takes the claim: a claim taken a moment ago
      // may not say yet, so look a few times before naming no one.
      std::string holder;
      for (int look = 0; look < 20 && holder.empty(); ++look) {
        if (look > 0) usleep(10'000);
        try {
          holder = Trim(ReadFile(lock_path));
        } catch (const Error&) {
        }
      }
      Release();
      throw FileError(path, "the system '" + identifier + "' is in use by another process" +
                                (holder.empty() ? "" : " (" + holder + ")") +
                                "; wait until it has finished, or use another identifier");
    }
    lock->Note("pid " + std::to_string(getpid()) + ": " + what);
    locks_.push_back(std::move(*lock));
  }
}

IdentifierClaim::~IdentifierClaim() { Release(); }

void IdentifierClaim::Release() {
  locks_.clear();
  if (made_dir_) rmdir(dir_.c_str());  // only while empty: nothing was saved
  made_dir_ = false;
}

}  // namespace ptsn::results
