// A self-contained HTML report of a result file: title and description, an overview (every result
// by system against the base, the geometric mean and the verdicts: export_html_overview.h), a
// table of the systems' hardware and software (one row per component, one column per system),
// then per result an inline SVG chart (export_svg.h) and a table of each system's value, trials
// and statistics. No scripts, style sheets, fonts or images are fetched: the file can be mailed or
// archived, and opens from file://. The same renderer makes the server's result pages.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "results-xml/model/result_file.h"
#include "results-xml/views/viewer_options.h"

namespace ptsn::results {

// How the file is viewed. The caller applies the options to its copy first (ApplyViewerOptions):
// the renderer shows what is left, and says which options made it.
struct HtmlView {
  ViewerOptions options;
  // Over the whole (filtered) file when `file` is one page of it; computed from `file` when absent.
  std::optional<GeometricMeans> geometric_means;
  size_t results_before_options = 0;  // results in the file before the options hid some (0: not known)
  std::vector<std::string> all_systems;  // before rmm hid some: the form offers them all
  std::vector<std::string> notes;  // options that had no effect (ApplyViewerOptions), one line each
  bool form = false;  // the options form (a server page, whose GET reloads the view)
  bool paged = false;  // `file` is one page of a longer view (the server's ?page=): the overview says so
};

std::string ResultFileToHtml(const ResultFile& file, const HtmlView& view = {});

}  // namespace ptsn::results
