// The gate every uploaded result file passes before anything is stored, in ONE parse:
//  1. the result-file reader (results-xml/result_xml.h: UTF-8, no DOCTYPE or entity, no
//     attribute, strict element structure) with hard bounds checked in its own SAX callbacks
//     (results::ReadLimits: depth, node count, text size), so hostile input stops early;
//  2. ValidateResultFile (results-xml/validate.h: the XSD's rules and more); any error refuses;
//  3. the few fields the server indexes for listing and search, taken from the parsed model.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "results-xml/result_file.h"

namespace ptsn::server {

// Attributes need no bound of their own: a result file has none and the reader refuses any.
struct UploadLimits {
  size_t max_depth = 16;             // composite.xml is 4 deep
  size_t max_value_bytes = 8 << 20;  // one text node (monitor line graphs are long)
  size_t max_nodes = 2'000'000;
};

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
struct UploadRejected {
  std::string message;
};
ResultSummary CheckResultFile(std::string_view xml, const UploadLimits& limits = {});
ResultSummary SummaryOf(const results::ResultFile& file);
ResultSummary SummaryOf(results::ResultFile&& file);  // moves the strings out

}  // namespace ptsn::server
