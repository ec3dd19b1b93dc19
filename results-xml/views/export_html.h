// A self-contained HTML report of a result file: title and description, a table of the systems'
// hardware and software (one row per component, one column per system), then per result an
// inline SVG chart (export_svg.h) and a table of each system's value, trials and statistics.
// No scripts, style sheets, fonts or images are fetched: the file can be mailed or archived.
#pragma once

#include <string>

#include "results-xml/model/result_file.h"

namespace ptsn::results {

std::string ResultFileToHtml(const ResultFile& file);

}  // namespace ptsn::results
