// The gate every uploaded result file passes before anything is stored: safe XML (no DOCTYPE,
// so no external entities or entity bombs; bounded depth and value sizes) with the structure of
// a PTS result file (PhoronixTestSuite root, a Generated/Title, at least one System and one
// Result), and the few fields the server indexes for listing and search.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ptsn::server {

struct UploadLimits {
  size_t max_depth = 16;             // composite.xml is 4 deep
  size_t max_value_bytes = 8 << 20;  // one text node or attribute (monitor line graphs are long)
  size_t max_attribute_bytes = 4096;
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

}  // namespace ptsn::server
