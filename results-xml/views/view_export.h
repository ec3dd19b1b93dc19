// export=: a view (the file after its options, viewer_options.h) in another format, as
// OpenBenchmarking's result page offers it: txt, csv, csv-all (every trial), json, xml (the
// composite.xml of the view) and html (the self-contained report, no form). PDF is refused: the
// html export prints to PDF from any browser.
#pragma once

#include <string>

#include "results-xml/model/result_file.h"
#include "results-xml/views/viewer_options.h"

namespace ptsn::results {

struct ExportFormat {
  const char* name;          // "csv-all"
  const char* content_type;  // "text/csv; charset=utf-8"
  const char* extension;     // "csv": the file name a download gets
};

// The format named `name`; throws ptsn::Error naming it when there is none (pdf: what to do
// instead).
const ExportFormat& FindExportFormat(const std::string& name);

// `file` has the options already applied; options.export_format names the format (FindExportFormat).
std::string ExportView(const ResultFile& file, const ViewerOptions& options);

}  // namespace ptsn::results
