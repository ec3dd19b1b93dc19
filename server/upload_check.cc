#include "server/upload_check.h"

#include "results-xml/result_xml.h"
#include "results-xml/validate.h"
#include "runner/common/error.h"

namespace ptsn::server {

ResultSummary SummaryOf(const results::ResultFile& file) {
  ResultSummary out;
  out.title = file.generated.title;
  out.description = file.generated.description;
  for (const auto& s : file.systems) {
    out.systems.push_back(s.identifier);
    out.hardware.push_back(s.hardware);
  }
  for (const auto& r : file.results) {
    out.tests.push_back(r.identifier);
    out.result_titles.push_back(r.title);
  }
  return out;
}

ResultSummary CheckResultFile(std::string_view xml, const UploadLimits& limits) {
  results::ReadLimits bounds;
  bounds.max_depth = limits.max_depth;
  bounds.max_nodes = limits.max_nodes;
  bounds.max_value_bytes = limits.max_value_bytes;
  bounds.schema_structure = true;  // what result-file.xsd requires beyond the reader's own rules
  results::ResultFile file;
  try {
    file = results::ParseResultFile(xml, "composite.xml", bounds);
  } catch (const Error& e) {
    throw UploadRejected{e.what()};
  }
  for (const auto& issue : results::ValidateResultFile(file, {.warnings = false}))
    if (issue.error) throw UploadRejected{"composite.xml: " + issue.where + ": " + issue.what};
  return SummaryOf(file);
}

}  // namespace ptsn::server
