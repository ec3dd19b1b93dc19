// Multi-way comparisons: results whose values are named "GROUP: NAME" (PTS's
// pts_render::multi_way_identifier_check), and OpenBenchmarking's two viewer options for them,
// `cmw` (condense; PTS's `cts`), `cmv` (condense versions) and `imw` (transpose). Pure
// functions of the file: no I/O.
//
// PTS 10.8.6 offers cmw and imw only on a multi-way file. Its imw flips which half of
// "GROUP: NAME" its graphs group the bars by; its cmw sets a graph attribute that nothing reads,
// so PTS's page does not change. Ours does what a reader ticking "condense" expects (and what
// PTS's `cts` does for single-way files): the results of one test run under several option
// sets become one result with a group per option set.
#pragma once

#include <string>
#include <utility>
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

// cmv: the BAR_GRAPH results of one test in several versions ("pts/dbench-1.0.0" and
// "pts/dbench-1.0.2"), with the same option description, unit and direction, become one result
// in place of the first of them: its values "VERSION: SYSTEM" (a group per version, in file order;
// VERSION the program's version when each has its own, else the test profile's; a system named
// "A: B" as "A / B"), its description "Version Comparison (DESCRIPTION)". PTS names the values
// "SYSTEM: VERSION"; ours keep cmw's order, GROUP the condensed part. The results it replaces go,
// with their monitor children. Returns how many results it formed.
size_t CondenseVersions(ResultFile& file);

// A condensed result's (cmw, cmv: values "GROUP: SYSTEM"; after imw "SYSTEM: GROUP") group and
// system of each value, in order. Empty when `r` is not multi-way, some value already names a
// system (a file's own multi-way result), or neither half names a system throughout.
std::vector<std::pair<std::string, std::string>> GroupsAndSystems(const Result& r, const std::vector<System>& systems);
// A condensed result split by group, in order: each group's values as a result of their own,
// titled "TITLE VERSION (GROUP)", named by their systems again (`systems`' identifiers), for a table with
// a column per system. Empty as GroupsAndSystems.
std::vector<std::pair<std::string, Result>> SplitByGroup(const Result& r, const std::vector<System>& systems);

// "A: B" -> "B: A", the name imw gives (a name without ": " stays as it is).
std::string Swapped(const std::string& identifier);

// imw: every multi-way result's values renamed "B: A" (groups and names swapped); when every
// system is named "A: B" and some such result's values were the systems', the systems too. Returns how many results it transposed.
size_t TransposeMultiWay(ResultFile& file);

}  // namespace ptsn::results
