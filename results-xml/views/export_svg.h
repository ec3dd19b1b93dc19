// SVG charts of results, standalone (no scripts, fonts or links to fetch):
//  * bar results: PTS-style horizontal bars, one per system, the value at the bar's end and
//    PTS's "SE +/- x, N = y" label under the system name, an axis with round ticks;
//  * LINE_GRAPH results (monitor series): one polyline per system over its samples, with a
//    legend giving min / avg / max;
//  * anything else (PASS_FAIL, all failed): the values as a list.
// The layout follows PTS's graphs (title, description, "<scale>, More Is Better" line) but is
// drawn by our own simpler code, not pixel-identical.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "results-xml/model/result_file.h"

namespace ptsn::results {

struct SvgOptions {
  int width = 600;
  bool xml_declaration = true;  // false when the chart is inlined into HTML
  double y_offset = -1;         // >= 0: x/y attributes on the root, for nesting in another <svg>
  // A normalized bar chart (the viewer's nor): one value per entry relative to the base (nullopt
  // where there is none), drawn as the bars; each bar's label keeps the entry's own value, so the
  // base's value is on the chart too.
  const std::vector<std::optional<double>>* relative = nullptr;
  int relative_decimals = 3;
  // A multi-way result ("GROUP: NAME" values, multi_way.h) drawn as PTS draws one: its bars in a
  // cluster per group under the group's name, each bar labelled and coloured by its NAME (the
  // same colour for a name in every group). Off, every value is a bar of its own, in file order.
  bool grouped = false;
};

// One chart for one result.
std::string ResultToSvg(const Result& result, const SvgOptions& options = {});
// Appends the chart and returns its height in pixels.
int AppendResultSvg(std::string& out, const Result& result, const SvgOptions& options);

// Every trial of each system as a horizontal box plot (whiskers min to max, box the quartiles, a
// bar the median, a dot per trial) and under it the mean with its 95 % interval, on an axis
// fitted to the trials. Appends nothing and returns 0 when no system has two numeric trials.
int AppendTrialsSvg(std::string& out, const Result& result, const SvgOptions& options);

// Every result of the file stacked into one SVG document (charts as nested <svg> elements).
std::string ResultFileToSvg(const ResultFile& file, const SvgOptions& options = {});

// Text escaped for XML character data and attribute values.
void AppendXmlEscaped(std::string& out, std::string_view text);

}  // namespace ptsn::results
