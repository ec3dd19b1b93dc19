// CSV view of a result file: one header row, then one row per result and one column per system,
// every cell present (empty when that system has no value for that result) — a dense matrix a
// spreadsheet or pandas reads without the hand-editing PTS's layout needs.
//
// Deliberate differences from PTS's result-file-to-csv (see export_golden_test.cc):
//  * no title line and no hardware/software table above the matrix (those are in the JSON);
//  * the result label is split into Title / Description / Scale / Proportion columns;
//  * RFC 4180 quoting (PTS quotes identifiers and labels but never escapes embedded quotes).
// Cell values are PTS's: the stored Value; for LINE_GRAPH series round(mean, 2) in PHP notation.
#pragma once

#include <memory>
#include <string>

#include "results-xml/model/result_file.h"
#include "results-xml/views/export_stream.h"

namespace ptsn::results {

std::string ResultFileToCsv(const ResultFile& file);
// The same view one Result at a time (export_stream.h).
std::unique_ptr<StreamingView> MakeCsvView();

// Every trial: one row per (result, system, trial): Title, Description, Scale, System, Trial, Value.
std::string ResultFileRawToCsv(const ResultFile& file);

// One CSV field, quoted when it contains ',', '"', a line break or surrounding spaces.
void AppendCsvField(std::string& out, std::string_view field);

}  // namespace ptsn::results
