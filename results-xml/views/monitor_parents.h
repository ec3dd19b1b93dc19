// Which test each monitor series (MONITOR=cpu.usage: a result derived from a test's run) was
// recorded with, so that every view keeps the two together: the HTML report shows the series in its
// test's section, and the server's pages put it on its test's page.
#pragma once

#include <cstddef>
#include <limits>
#include <vector>

#include "results-xml/model/result_file.h"

namespace ptsn::results {

inline constexpr size_t kNoMonitorParent = std::numeric_limits<size_t>::max();

// Per result, the index of the result it was recorded with (kNoMonitorParent for none): by its
// <Parent> hash, or, in files older than <Parent> (1110088), as PTS named them: no test
// identifier, the test's title, and the test's arguments after the monitor's name
// ("CPU Usage -s 1048576 -n 1000").
std::vector<size_t> MonitorParents(const ResultFile& file);

// The results split into pages of at most `size` (> 0) each, as indexes into file.results: a test
// and its monitor series (its children, and theirs) stay on one page, the series right after their
// test, and a page ends before a test that would not fit whole. Only a test with more series than
// a page holds is cut, on pages of its own, its series beyond the first page there as sections of
// their own: no page ever holds more than `size` results, the server's limit on one page's charts.
std::vector<std::vector<size_t>> ResultPages(const ResultFile& file, size_t size);

}  // namespace ptsn::results
