// The gate every uploaded result file passes before anything is stored, in ONE parse: the checks
// results-xml/checks/upload_check.h shares with `upload-result` (the reader with hard bounds, then
// ValidateResultFile), and the few fields the server indexes for listing and search, taken from
// the same pass.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "results-xml/checks/upload_check.h"
#include "results-xml/model/result_file.h"

namespace ptsn::server {

using results::UploadLimits;
using results::UploadRejected;

// What listing and search need, read from the file once at upload time.
struct ResultSummary {
  std::string title;
  std::string description;
  std::vector<std::string> systems;  // System/Identifier
  std::vector<std::string> hardware; // System/Hardware, same order
  std::vector<std::string> tests;    // Result/Identifier (test profile), "" for derived results
  std::vector<std::string> result_titles;
};

// Throws UploadRejected with a one-line reason naming the element at fault.
ResultSummary CheckResultFile(std::string_view xml, const UploadLimits& limits = {});
ResultSummary SummaryOf(const results::ResultFile& file);
ResultSummary SummaryOf(results::ResultFile&& file);  // moves the strings out

}  // namespace ptsn::server
