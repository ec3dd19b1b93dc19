// Where saved results live and how a command finds one. A saved result is a directory
// <results dir>/<name>/ holding composite.xml (PTS's layout, so PTS's own test-results directory
// can be read as is). Commands accept a path or a saved name; names are looked up in our
// results directory first, then in PTS's (<pts_home>/test-results).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "results-xml/model/result_file.h"
#include "results-xml/model/result_xml.h"

namespace ptsn {
class Settings;
}

namespace ptsn::results {

// The directories searched for saved names, in order: results.directory, then
// results.pts_home + "/test-results".
std::vector<std::string> ResultDirectories(const Settings& settings);

// A result file named on the command line: an existing file path, a directory holding
// composite.xml, or a saved name in one of `dirs`. Throws ptsn::Error
// "NAME: no such file and no saved result of that name (looked in DIR, DIR)".
std::string ResolveResultFile(const std::string& name_or_path, const std::vector<std::string>& dirs);

// The saved result's directory for a saved name (not a path); nullopt when there is none.
std::optional<std::string> FindSavedResultDir(const std::string& name, const std::vector<std::string>& dirs);

struct SavedResultInfo {
  std::string name;       // directory name
  std::string directory;  // the results directory it was found in
  std::string title;
  std::vector<std::string> systems;  // identifiers
  size_t results = 0;
  std::string last_modified;
  std::string error;  // set (and the rest empty) when composite.xml cannot be read
};
// Every saved result in `dirs`, sorted by name within each directory; a name present in an
// earlier directory hides the same name in a later one.
std::vector<SavedResultInfo> ListSavedResults(const std::vector<std::string>& dirs);

// PTS's clean_save_name(): trim, spaces -> '-', keep [A-Za-z0-9-], collapse "--", lower-case,
// at most 126 characters. Throws ptsn::Error when nothing is left.
std::string CleanSaveName(const std::string& wanted);
// pts_strings::simplify_string_for_file_handling(): '/' and '\' -> '_', keep
// [A-Za-z0-9-. _,@+;=] (log directory names of identifiers).
std::string SimplifyForFileHandling(const std::string& s);

// Writes `file` to <results_dir>/<name>/composite.xml (atomically, under the file's lock, creating
// the directory); returns the path.
std::string SaveResult(const std::string& results_dir, const std::string& name, const ResultFile& file,
                       const SerializeOptions& options = {});

// The first "<prefix>-N" (N = 1, 2, ...) that is not yet a directory in `results_dir`, made empty
// there so that no other command takes it (PTS picks merge-<random 1000..9999>; a predictable
// name is easier to script).
std::string UnusedSaveName(const std::string& results_dir, const std::string& prefix);

// After a system is renamed in a saved result, its logs follow (as PTS's rename_run does):
// system-logs/<old>, installation-logs/<old> and test-logs/*/<old>.log, names simplified with
// SimplifyForFileHandling. Missing logs are fine; returns how many were renamed.
size_t RenameIdentifierLogs(const std::string& result_dir, const std::string& from, const std::string& to);

// The saved result's name when `path` is <one of dirs>/<name>/composite.xml, however it is
// spelled (the folder resolved, symbolic links and "..", and its parent the same directory as one
// of `dirs`); nullopt otherwise.
std::optional<std::string> SavedResultNameOf(const std::string& path, const std::vector<std::string>& dirs);

// An export never writes over a result file: refuses (ptsn::Error naming `output`, exit code 2)
// an `output` that is one of `inputs` (the same file however it is spelled: device and inode),
// or the composite.xml of a saved result in one of `dirs` (SavedResultNameOf).
void RefuseExportOverResults(const std::string& output, const std::vector<std::string>& inputs,
                             const std::vector<std::string>& dirs);

// Deletes a saved result's directory (remove-result). Only saved names are accepted, never
// paths, and only a directory that holds a composite.xml is deleted. Returns the directory.
std::string RemoveSavedResult(const std::string& name, const std::vector<std::string>& dirs);

}  // namespace ptsn::results
