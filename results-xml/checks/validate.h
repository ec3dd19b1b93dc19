// Is a result file well-formed in PTS's sense? Two independent checks:
//  * ValidateResultFile: our own structural rules, always available — the XSD's facets
//    (Title lengths, TimeStamp pattern, Proportion/DisplayFormat enumerations, identifier
//    lengths, at least one System/Result/Entry) plus what the XSD cannot say (every Entry names a
//    System, numeric values where the display format needs numbers, Parent names a result,
//    JSON fields parse). Problems PTS itself produces (duplicate system identifiers after its
//    merge) are warnings, not errors.
//  * ValidateAgainstSchema: libxml2 XSD validation against PTS's result-file.xsd. The XSD is
//    GPL reference data we do not ship; the caller finds it (setting results.xsd).
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "results-xml/model/result_file.h"

namespace ptsn::results {

struct ValidationIssue {
  bool error = true;   // false = warning
  std::string where;   // "Generated/Title", "Result 3 (Sample Disk, Block Size: 4KB) Entry 'Tuned'"
  std::string what;
  bool operator==(const ValidationIssue&) const = default;
};

std::vector<ValidationIssue> ValidateResultFile(const ResultFile& file);

struct ValidateOptions {
  // false: errors only, without the work that only warnings need (JSON parsing, comparison
  // hashes for Parent): what a caller that refuses on errors and ignores warnings wants.
  bool warnings = true;
};
std::vector<ValidationIssue> ValidateResultFile(const ResultFile& file, const ValidateOptions& options);

// ValidateResultFile's checks (errors only: warnings = false) fed as a streaming read gives the
// file (StreamResultFile): Head once with Generated and every System, each Result in file order,
// then Finish. The issues are ValidateResultFile's on the whole file, in the same order; no
// model of the whole file is needed (the server's upload check). Without warnings because the
// Parent warning needs every result before the first.
class StreamingValidator {
 public:
  void Head(const ResultFile& head);
  void OnResult(const Result& result);
  std::vector<ValidationIssue> Finish();

 private:
  std::vector<ValidationIssue> issues_;
  std::unordered_set<std::string> systems_;
  size_t results_ = 0, written_ = 0;
};

// Errors as "line N: message" strings; empty = valid. Throws ptsn::Error naming the XSD if it
// cannot be loaded. `xml` is parsed with the same safe options as ParseResultFile.
std::vector<std::string> ValidateAgainstSchema(std::string_view xml, const std::string& xsd_path);

}  // namespace ptsn::results
