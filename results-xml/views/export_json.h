// JSON view of a result file. The core is PTS's result-file-to-json, key for key (title,
// systems keyed by identifier, results keyed by comparison hash, per system value / raw_values /
// test_run_times / details), so tools written for PTS's output keep working; PTS's number and
// string conventions are kept too (integral floats without ".0", "\/" escapes, \uXXXX).
//
// Our additions all start with "ptsn", and how many of them are written is JsonOptions::extras:
//  * by default (kLossless) only what PTS's output would lose or mislabel, so that a file PTS
//    exports whole comes out byte for byte as PTS writes it:
//    - "ptsn_shadowed_systems" / "ptsn_shadowed_entries" / "ptsn_shadowed_results": whatever
//      PTS's keyed objects would silently drop when two systems, entries or results share a key
//      (a merge that kept two "Baseline" runs), so every trial is in the output;
//    - a stand-in's entry (see export_common.h): "ptsn_stand_in": "<stand-in> for <original>"
//      (the label is also in "details", PTS's pass-through of the entry JSON);
//  * kStatistics (--statistics, setting results.json_statistics) adds, on every entry,
//    "ptsn_statistics" {n, mean, median, min, max, sd, percent_sd, se, ci95: [low, high]
//    (Student t), outliers: [0-based trial positions flagged by the modified Z-score; nothing is
//    dropped], se_label} over its trials (for LINE_GRAPH series only n/mean/median/min/max/sd/
//    percent_sd: samples are not independent trials), and a top-level "ptsn": {"generator", ...};
//  * kPtsOnly (--pts-only): none, PTS's document even where it drops something.
// Statistics are asked for, not written by default, so that result-file-to-json stays a drop-in
// for PTS's command, and because they are most of the work: a 1,000-result file's JSON is 2.4x
// the bytes and takes ~1.7x the time with them (bench/bench_export.sh).
#pragma once

#include <memory>
#include <string>

#include "results-xml/model/result_file.h"
#include "results-xml/views/export_stream.h"

namespace ptsn::results {

struct JsonOptions {
  enum class Extras { kPtsOnly, kLossless, kStatistics };
  Extras extras = Extras::kLossless;
  bool lossless() const { return extras != Extras::kPtsOnly; }
  bool statistics() const { return extras == Extras::kStatistics; }
};

std::string ResultFileToJson(const ResultFile& file, const JsonOptions& options = {});
// The same document one Result at a time (export_stream.h); asks for the whole file when two
// Results share a comparison hash.
std::unique_ptr<StreamingView> MakeJsonView(const JsonOptions& options = {});

}  // namespace ptsn::results
