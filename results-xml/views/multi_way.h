// Multi-way comparisons: results whose values are named "GROUP: NAME" (PTS's
// pts_render::multi_way_identifier_check), and OpenBenchmarking's two viewer options for them,
// `cmw` (condense) and `imw` (transpose). Pure functions of the file: no I/O.
//
// PTS 10.8.6 offers cmw and imw only on a multi-way file. Its imw flips which half of
// "GROUP: NAME" its graphs group the bars by; its cmw sets a graph attribute that nothing reads,
// so PTS's page does not change. Ours does what a reader ticking "condense" expects (and what
// PTS's `cts` does for single-way files): the results of one test run under several option
// sets become one result with a group per option set.
#pragma once

#include <string>
#include <vector>

#include "results-xml/model/result_file.h"

namespace ptsn::results {

// Every value named "A: B" with exactly one ':' (not a "YYYY-MM-DD HH:MM" date), two or more.
bool MultiWay(const Result& r);
// "A" of "A: B", trimmed ("A: B" without ": ": the whole name).
std::string GroupOf(const std::string& identifier);
// "B" of "A: B", trimmed ("" without ": ").
std::string NameInGroup(const std::string& identifier);

// cmw: the BAR_GRAPH results of one test (identifier, unit, direction) whose option
// descriptions ("Client Count: 1", parts joined by " - ") differ in one part only become one
// result in place of the first of them: its values "OPTION VALUE: SYSTEM" (a group per option
// set, in file order; a system named "A: B" as "A / B"), its description "OPTION: VALUE; VALUE ..." plus the parts they share.
// The results it replaces go, with their monitor children. Returns how many results it formed.
size_t CondenseOptionSets(ResultFile& file);

// imw: every multi-way result's values renamed "B: A" (groups and names swapped); when every
// system is named "A: B" and some such result's values were the systems', the systems too. Returns how many results it transposed.
size_t TransposeMultiWay(ResultFile& file);

}  // namespace ptsn::results
