// Stand-in declarations: a bundled profile saying "when the original program of test X with
// arguments like Y cannot be run here, I measure the same thing with arguments Z".
//
// The declaration of profile <repo>/<name-version> is the file
// <profile root>/stand-ins/<repo>/<name-version>.xml, beside the repositories rather than in the
// profile's own directory: PTS's validate-test-profile refuses any file it does not know in a test
// package, and the profile must stay a plain PTS profile the real PTS can also validate and run.
//
//   <StandInFor>
//     <Test>
//       <Profile>pts/fs-mark-1.0</Profile>         <!-- repo/name[-major.minor[.patch]] -->
//       <Arguments>-s (\d+) -n (\d+)</Arguments>   <!-- ECMAScript regex, must match the whole
//                                                       trimmed stored Arguments; absent = any -->
//       <UseArguments>--size $1 --files $2</UseArguments>  <!-- $n = capture groups -->
//       <UseDescription>Files: $2, Size: $1</UseDescription>  <!-- optional -->
//       <Note>what differs from the original</Note>   <!-- optional, shown in the plan -->
//     </Test>
//     ...
//   </StandInFor>
//
// A result produced by a stand-in is always labelled as such (see append.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ptsn::reproduce {

// The directory of declarations in a profile root: <root>/stand-ins/<repo>/<name-version>.xml.
inline constexpr const char* kStandInsDirectory = "stand-ins";

struct StandInRule {
  std::string stand_in_profile;   // "native/fs-files-1.0.0": the profile that declares itself
  std::string for_profile;        // "pts/fs-mark-1.0" or "pts/fs-mark" (any version)
  std::optional<std::string> arguments_pattern;
  std::string use_arguments;      // format string; "$&" (the original arguments) when absent
  std::optional<std::string> use_description;
  std::string note;
  std::string declared_in;        // path of the declaration, for messages
};

struct StandInMatch {
  const StandInRule* rule = nullptr;
  std::string arguments;    // what to pass to the stand-in profile
  std::string description;  // its option description ("" = let the profile describe itself)
};

// Parses one declaration file. Throws ptsn::Error naming `path` and the element when the XML
// is malformed, a Profile is missing or a pattern is not a valid regex.
std::vector<StandInRule> ParseStandInDeclaration(const std::string& xml, const std::string& stand_in_profile,
                                                 const std::string& path);

// Reads every <root>/stand-ins/<repo>/<name-version>.xml under the given profile roots (missing
// roots are fine). The stand-in profile's identifier is "<repo>/<name-version>".
std::vector<StandInRule> LoadStandIns(const std::vector<std::string>& profile_roots);

// Every rule (in the order given, one match per stand-in profile) that covers
// `original_identifier` ("pts/fs-mark-1.0.0") run with `arguments`. The plan takes the first one
// that can run here. Declarations are read in path order, so debian/... (the original program
// from a Debian package) is preferred over native/... (our own engine).
std::vector<StandInMatch> FindStandIns(const std::vector<StandInRule>& rules, const std::string& original_identifier,
                                       const std::string& arguments);

// Does `for_profile` ("pts/fs-mark-1.0", "pts/fs-mark") cover `identifier` ("pts/fs-mark-1.0.3")?
bool ProfileCovers(const std::string& for_profile, const std::string& identifier);

// The label used in entry JSON, notes and every view: "native/fs-files-1.0.0 for pts/fs-mark-1.0".
std::string StandInLabel(const std::string& stand_in_profile, const std::string& original_identifier);

}  // namespace ptsn::reproduce
