// Checking profiles beyond "it loads": the PTS XML schemas (when available: they are GPL
// reference data, read from ../shared/reference/schemas or the profiles.schema_dir setting,
// never shipped) and our own structural checks. Everything is reported as LoadIssues
// ("FILE: element: what is wrong"); PTS itself accepts schema violations, so they are warnings.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "runner/profile/profile_repository.h"
#include "runner/profile/schema_set.h"
#include "runner/profile/test_profile.h"

namespace ptsn::profile {

// The directory holding test-profile.xsd & co: the setting if set, else the shared reference
// tree of the source checkout if present, else "".
std::string DefaultSchemaDirectory(const std::string& setting_value);

// Validates one XML file against one XSD (cached). Issues name the file, line and element.
// Throws ptsn::Error when the schema itself cannot be read.
std::vector<LoadIssue> ValidateAgainstSchema(const std::string& xml_path, const std::string& xsd_path);

// PTS's test_profile_permitted_files(): the file names validate-test-profile lets a profile
// directory hold (anything else, directories too, fails PTS's validation).
bool AllowedInTestPackage(const std::string& file_name);

// Files PTS's validate-test-profile does not allow in the profile directory, and checks PTS does
// not make but that catch mistakes: missing Title/TestType/ResultScale, unknown
// Proportion/DisplayFormat/ResultQuantifier values, a Version that differs from the directory
// name, duplicate option identifiers, DefaultEntry out of range, MultiMatch values...
std::vector<LoadIssue> StructuralChecks(const TestProfile& profile);

struct ValidationReport {
  std::string identifier;
  bool loaded = false;
  std::string error;              // why it does not load (when !loaded)
  std::vector<LoadIssue> issues;  // warnings: loader findings, schema violations, structural checks
  TestProfile profile;            // the loaded profile (when loaded)
};
// Loads `name_or_dir` through `repo` and runs every check (schemas only when schema_dir != "").
ValidationReport ValidateProfile(const ProfileRepository& repo, const std::string& name_or_dir,
                                 const std::string& schema_dir);
// The same with schemas compiled already (nullptr: no schema check).
ValidationReport ValidateProfile(const ProfileRepository& repo, const std::string& name_or_dir,
                                 const ProfileSchemas* schemas);
// Every profile of `repo`, on `threads` threads (0: one per core), in identifier order. `then`, when
// set, is called with each report's index and the report on the thread that made it, right after
// it is made: work on the profile (e.g. option expansion) while its data is still in the cache.
std::vector<ValidationReport> ValidateAllProfiles(const ProfileRepository& repo, const ProfileSchemas* schemas,
                                                  unsigned threads = 0,
                                                  const std::function<void(size_t, ValidationReport&)>& then = {});
ValidationReport ValidateSuite(const ProfileRepository& repo, const std::string& name_or_dir,
                               const std::string& schema_dir);

}  // namespace ptsn::profile
