#include "results-xml/store/result_store.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "results-xml/store/result_update.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/path_below.h"
#include "runner/common/settings.h"
#include "runner/common/strings.h"

namespace fs = std::filesystem;

namespace ptsn::results {

namespace {

bool IsFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// A saved name is one path component; anything else is a path or an attempt to escape the
// results directory (runner/common/path_below.h).
bool IsPlainName(const std::string& name) { return PathNameProblem(name).empty(); }

constexpr NameOrigin kSavedName{"saved-result name", "the results folder"};

}  // namespace

std::vector<std::string> ResultDirectories(const Settings& settings) {
  std::vector<std::string> dirs = {settings.ResultsDirectory()};
  std::string pts = settings.Get("results.pts_home");
  if (!pts.empty()) dirs.push_back(pts + "/test-results");
  return dirs;
}

std::optional<std::string> FindSavedResultDir(const std::string& name, const std::vector<std::string>& dirs) {
  if (!IsPlainName(name)) return std::nullopt;
  for (const std::string& d : dirs) {
    fs::path dir = JoinBelow(d, name, kSavedName);
    if (IsFile(dir / "composite.xml")) return dir.string();
  }
  return std::nullopt;
}

std::string ResolveResultFile(const std::string& name_or_path, const std::vector<std::string>& dirs) {
  if (IsFile(name_or_path)) return name_or_path;
  if (IsFile(fs::path(name_or_path) / "composite.xml")) return (fs::path(name_or_path) / "composite.xml").string();
  if (auto dir = FindSavedResultDir(name_or_path, dirs)) return *dir + "/composite.xml";
  throw FileError(name_or_path, "no such file and no saved result of that name (looked in " + Join(dirs, ", ") + ")");
}

std::vector<SavedResultInfo> ListSavedResults(const std::vector<std::string>& dirs) {
  std::vector<SavedResultInfo> out;
  std::set<std::string> seen;
  for (const std::string& d : dirs) {
    std::error_code ec;
    if (!fs::is_directory(d, ec)) continue;
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(d, ec))
      if (IsFile(e.path() / "composite.xml")) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      if (!seen.insert(name).second) continue;
      SavedResultInfo info;
      info.name = name;
      info.directory = d;
      try {
        ResultFile f = ReadResultFile((fs::path(d) / name / "composite.xml").string());
        info.title = f.generated.title;
        info.last_modified = f.generated.last_modified;
        for (const System& s : f.systems) info.systems.push_back(s.identifier);
        info.results = f.results.size();
      } catch (const Error& e) {
        info.error = e.what();
      }
      out.push_back(std::move(info));
    }
  }
  return out;
}

std::string CleanSaveName(const std::string& wanted) {
  std::string out;
  for (char c : Trim(wanted)) {
    if (c == ' ') c = '-';
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
    if (!keep) continue;
    if (c == '-' && !out.empty() && out.back() == '-') continue;
    out += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  }
  if (out.size() > 126) out.resize(126);
  if (out.empty() || out == "-") throw Error("'" + wanted + "' leaves no usable save name (letters, digits and '-' are kept)");
  return out;
}

std::string SimplifyForFileHandling(const std::string& s) {
  std::string out;
  for (char c : Trim(s)) {
    if (c == '/' || c == '\\') c = '_';
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                std::string_view("-. _,@+;=").find(c) != std::string_view::npos;
    if (keep) out += c;
  }
  return out;
}

std::string SaveResult(const std::string& results_dir, const std::string& name, const ResultFile& file,
                       const SerializeOptions& options) {
  const std::string dir = JoinBelow(results_dir, name, kSavedName);
  MakeDirectories(dir);
  std::string path = dir + "/composite.xml";
  ReplaceResultFile(path, file, options);
  return path;
}

std::string UnusedSaveName(const std::string& results_dir, const std::string& prefix) {
  MakeDirectories(results_dir);
  for (int n = 1;; ++n) {
    std::string name = prefix + "-" + std::to_string(n);
    // Made here, so a command choosing a name at the same moment gets the next one.
    std::error_code ec;
    if (fs::create_directory(fs::path(results_dir) / name, ec)) return name;
    if (ec) throw FileError((fs::path(results_dir) / name).string(), "cannot create directory: " + ec.message());
  }
}

size_t RenameIdentifierLogs(const std::string& result_dir, const std::string& from, const std::string& to) {
  std::string old_name = SimplifyForFileHandling(from), new_name = SimplifyForFileHandling(to);
  // A name that is no file name ("..", "") never had logs (runner/run/run_loop.cc keeps none).
  if (!IsPlainName(old_name) || !IsPlainName(new_name) || old_name == new_name) return 0;
  size_t renamed = 0;
  auto move = [&](const fs::path& a, const fs::path& b) {
    std::error_code ec;
    if (!fs::exists(a, ec) || fs::exists(b, ec)) return;
    fs::rename(a, b, ec);
    if (ec) throw FileError(a.string(), "cannot rename to " + b.string() + ": " + ec.message());
    ++renamed;
  };
  fs::path root(result_dir);
  for (const char* sub : {"system-logs", "installation-logs"}) move(root / sub / old_name, root / sub / new_name);
  std::error_code ec;
  if (fs::is_directory(root / "test-logs", ec))
    for (const auto& e : fs::directory_iterator(root / "test-logs", ec))
      if (e.is_directory()) move(e.path() / (old_name + ".log"), e.path() / (new_name + ".log"));
  return renamed;
}

std::optional<std::string> SavedResultNameOf(const std::string& path, const std::vector<std::string>& dirs) {
  if (fs::path(path).filename() != "composite.xml") return std::nullopt;
  std::error_code ec;
  const fs::path folder = fs::weakly_canonical(fs::absolute(path, ec).parent_path(), ec);
  if (ec) return std::nullopt;
  for (const std::string& d : dirs)
    if (fs::equivalent(folder.parent_path(), d, ec)) return folder.filename().string();
  return std::nullopt;
}

void RefuseExportOverResults(const std::string& output, const std::vector<std::string>& inputs,
                             const std::vector<std::string>& dirs) {
  std::error_code ec;
  for (const std::string& input : inputs)
    if (fs::equivalent(output, input, ec))
      throw FileError(output, "is the result file this command reads (" + input + "); write the export elsewhere", 2);
  if (auto name = SavedResultNameOf(output, dirs))
    throw FileError(output, "is the saved result '" + *name + "'; an export never replaces a saved result, write it elsewhere", 2);
}

std::string RemoveSavedResult(const std::string& name, const std::vector<std::string>& dirs) {
  if (!IsPlainName(name))
    throw Error("remove-result takes a saved result's name, not a path: '" + name + "'");
  auto dir = FindSavedResultDir(name, dirs);
  if (!dir) throw Error(name + ": no saved result of that name (looked in " + Join(dirs, ", ") + ")");
  std::error_code ec;
  ResultFileLock lock(*dir + "/composite.xml");  // not while a save is half way
  fs::remove_all(*dir, ec);
  if (ec) throw FileError(*dir, "cannot delete: " + ec.message());
  return *dir;
}

}  // namespace ptsn::results
