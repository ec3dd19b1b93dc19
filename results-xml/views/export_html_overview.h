// The overview a result page opens with: one row per result (values, not monitor series), one
// column per system, each value against the base system (the first; a single highlighted system
// becomes the first, viewer_options.h) by colour AND by arrow and words, the verdict of each
// comparison from the code compare-results uses (runs_verdict.h by runs, verdict.h by instance
// pairs for a run across targets) with its interval, and the geometric mean per system over the
// results every system has ("over k of n results"). A missing value leaves its cell empty, in
// its column.
#pragma once

#include <string>

#include "results-xml/views/export_html.h"

namespace ptsn::results {

void AppendOverview(std::string& out, const ResultFile& file, const HtmlView& view);

// The options form of a server page: each option under OpenBenchmarking's name, and the link to
// the view it shows.
void AppendOptionsForm(std::string& out, const ResultFile& file, const HtmlView& view);

}  // namespace ptsn::results
