// Reading the files of one profile or suite directory into plain data (no inheritance, no name
// resolution: see profile_repository.h). Problems are collected as LoadIssues ("FILE: element:
// what is wrong"); ptsn::Error is thrown only when a file cannot be read or parsed at all.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runner/profile/profile_files.h"
#include "runner/profile/test_profile.h"
#include "runner/profile/xml_tree.h"

namespace ptsn::profile {

class ProfileSchemas;

// What a directory's ProfileSource was built from (for the profile cache): its entries' names and
// types, and the content hash of each XML file read.
struct ProfileInput {
  std::string name;    // "test-definition.xml"
  uint64_t hash = 0;   // ContentHash of the bytes read
  FileStamp stamp;     // stat of the file read (unknown when it had just changed)
  bool operator==(const ProfileInput&) const = default;
};
struct ProfileInputs {
  uint64_t listing_hash = 0;
  std::vector<ProfileInput> files;
  bool operator==(const ProfileInputs&) const = default;
};

// Optional extras of ReadProfileDirectory().
struct DirectoryRead {
  const std::vector<DirEntry>* listing = nullptr;  // the directory's entries, when already listed
  // The listing's file stamps (ListDirectory() stamp_wanted) were taken just now, so the profile
  // cache may take them for a stat() of the file; false for an older listing: the file is stat()ed.
  bool listing_stamps_current = false;
  const ProfileSchemas* schemas = nullptr;         // validate each parsed file against its XSD...
  std::vector<LoadIssue>* schema_issues = nullptr;  // ...appending the violations here
  ProfileInputs* inputs = nullptr;                 // filled with what was read
};

// test-definition.xml, results-definition.xml (if present), downloads.xml (if present) and the
// scripts of `dir`, each file read and parsed once. Unknown elements and structural problems are
// appended to `issues` (fatal=true for those that make the profile unusable: e.g. an Option whose
// Menu has no Entry). Throws ptsn::Error for a missing test-definition.xml or malformed XML.
ProfileSource ReadProfileDirectory(const std::string& dir, const std::string& identifier,
                                   std::vector<LoadIssue>* issues, const DirectoryRead& how = {});

// "a/b/../c/" -> "a/c": the form ProfileSource::directory and the cache use.
std::string NormalizeDirectory(const std::string& dir);
// Hash of a directory listing (names and types), as ProfileInputs::listing_hash.
uint64_t ListingHash(const std::vector<DirEntry>& entries);
// The files ReadProfileDirectory() reads (test-definition.xml, results-definition.xml,
// downloads.xml): whose stamps a listing made for loading should carry (ListDirectory()).
bool IsProfileInput(std::string_view file_name);

// The parts, for tests and for callers holding a document already.
void ParseTestDefinition(const XmlElement& root, const std::string& file, ProfileSource* out,
                         std::vector<LoadIssue>* issues);
ResultsDefinition ParseResultsDefinition(const XmlElement& root, const std::string& file,
                                         std::vector<LoadIssue>* issues);
std::vector<Download> ParseDownloads(const XmlElement& root, const std::string& file, std::vector<LoadIssue>* issues);
TestSuite ParseSuiteDefinition(const XmlElement& root, const std::string& file, std::vector<LoadIssue>* issues);

// suite-definition.xml of `dir`; throws ptsn::Error when missing or malformed.
TestSuite ReadSuiteDirectory(const std::string& dir, const std::string& identifier, std::vector<LoadIssue>* issues);

// Typed view of the merged fields (used after inheritance is applied).
void FillTypedFields(TestProfile* profile);

// Identifier for a directory in PTS's layout: ".../pts/fs-mark-1.0.3" -> "pts/fs-mark-1.0.3".
std::string IdentifierForDirectory(const std::string& dir);

}  // namespace ptsn::profile
