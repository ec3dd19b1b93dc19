#include "server/upload_check.h"

#include <type_traits>

#include "results-xml/result_xml.h"
#include "results-xml/validate.h"
#include "runner/common/error.h"

namespace ptsn::server {

namespace {

// File: const ResultFile (its strings are copied) or ResultFile (they are moved out: the check's
// own parse, dropped right after; ~200 strings per 100-result file).
template <typename File>
ResultSummary Summarise(File& file) {
  auto take = [](auto& s) -> std::string {
    if constexpr (std::is_const_v<File>) return s;
    else return std::move(s);
  };
  ResultSummary out;
  out.title = take(file.generated.title);
  out.description = take(file.generated.description);
  out.systems.reserve(file.systems.size());
  out.hardware.reserve(file.systems.size());
  for (auto& s : file.systems) {
    out.systems.push_back(take(s.identifier));
    out.hardware.push_back(take(s.hardware));
  }
  out.tests.reserve(file.results.size());
  out.result_titles.reserve(file.results.size());
  for (auto& r : file.results) {
    out.tests.push_back(take(r.identifier));
    out.result_titles.push_back(take(r.title));
  }
  return out;
}

}  // namespace

ResultSummary SummaryOf(const results::ResultFile& file) { return Summarise(file); }
ResultSummary SummaryOf(results::ResultFile&& file) { return Summarise(file); }

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
  return SummaryOf(std::move(file));
}

}  // namespace ptsn::server
