// Paths built from names other people wrote — a test profile's downloads.xml FileName or Execute,
// a zip's entries, a result or identifier name, a server's or an agent's answer — are joined to
// the folder meant for them here and nowhere else, so each stays inside it: the name is taken
// apart into its components and refused when one would climb out ('..', an absolute path) or
// could mean something else to the file system (empty, '.', a control character or NUL, a
// backslash, over 255 bytes). The check is lexical: a symbolic link already inside the folder
// was put there by whoever owns the folder (install.sh runs as the user), not by a name.
#pragma once

#include <string>
#include <string_view>

#include "runner/common/error.h"

namespace ptsn {

enum class NameDepth {
  kOneName,       // a file or directory name: no '/' ("dbench-4.0.tar.gz", a result's folder)
  kRelativePath,  // components below the folder ("patches/a.diff"); a trailing '/' is allowed
};

// Where a name came from and where it goes, for the one-line refusal:
// "downloads.xml FileName '../../victim2' leaves the install folder".
struct NameOrigin {
  std::string_view field;   // "downloads.xml FileName", "zip entry", "the job's result name"
  std::string_view folder;  // "the install folder", "the download cache", "the results folder"
};

// "" when `name` names something inside a folder, else why not: "a '..' component",
// "an absolute path", "a '/' in a file name", "an empty name", ...
std::string PathNameProblem(std::string_view name, NameDepth depth = NameDepth::kOneName);

// True when PathNameProblem's answer means the name climbs out ('..', absolute).
bool LeavesFolder(std::string_view name);

// The refusal, one line: "<field> '<name>' leaves <folder>" when it climbs out, else
// "<field> '<name>' cannot name a file in <folder>: <why>". The name is shown with control
// characters escaped and cut at 200 bytes.
std::string PathRefusal(std::string_view name, const std::string& why, const NameOrigin& origin);

// `folder` + "/" + `name`, or throws Error(PathRefusal(...)).
std::string JoinBelow(std::string_view folder, std::string_view name, const NameOrigin& origin,
                      NameDepth depth = NameDepth::kOneName);

}  // namespace ptsn
