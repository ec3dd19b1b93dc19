// PTS's XSDs for the files of a test profile, compiled once per process and used by any thread
// on documents that are already parsed (the loader validates the same tree it converts, so no
// file is read twice). Issues name the file, line and element; PTS itself accepts schema
// violations, so they are warnings.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runner/profile/test_profile.h"

struct _xmlDoc;

namespace ptsn::profile {

class ProfileSchemas {
 public:
  // Uses test-profile.xsd, results-parser.xsd and test-profile-downloads.xsd of `dir` (compiled
  // on first use) and hashes every *.xsd there, includes too. Throws ptsn::Error naming a schema
  // that cannot be read; one that does not compile throws from Validate().
  explicit ProfileSchemas(const std::string& dir);

  // The schema for a profile file name ("test-definition.xml", "results-definition.xml",
  // "downloads.xml"); other names are not validated.
  bool Covers(const std::string& file_name) const;
  // Appends the violations of `doc` (read from `path`, named `file_name`) to `issues`.
  void Validate(const std::string& file_name, const std::string& path, _xmlDoc* doc,
                std::vector<LoadIssue>* issues) const;

  const std::string& directory() const { return dir_; }
  uint64_t content_hash() const { return hash_; }  // changes whenever any schema file changes

 private:
  std::string dir_;
  uint64_t hash_ = 0;
};

// Validates an already parsed document against the XSD at `xsd_path` (compiled once per path
// per process, thread-safe). Throws ptsn::Error when the schema itself cannot be read.
void ValidateDocument(_xmlDoc* doc, const std::string& xml_path, const std::string& xsd_path,
                      std::vector<LoadIssue>* issues);

}  // namespace ptsn::profile
