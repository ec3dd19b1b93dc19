// OpenBenchmarking's result-viewer options under OpenBenchmarking's names (PTS 10.8.6,
// pts_result_viewer_embed::process_request_to_attributes), so that a view is a link: `nor`
// normalize, `hgv[]`/`hgv` highlight (one highlighted system is also the normalization base),
// `hnr` hide noisy, `hlc` hide little change, `hni` hide incomplete, `rmm[]`/`rmm` hide systems
// (`rmmi` inverts), `sgm` geometric mean, `shm` harmonic means, `oss`/`noss` only show / hide
// results matching a title, `ftt`/`ftb` only results where one system is faster than another,
// `spr` notable results, `swl` PTS's wins/losses, `cmw` (or PTS's `cts`) / `cmv` / `imw`
// condense option sets / condense versions / transpose a multi-way comparison (multi_way.h), the
// result orders `grs`/`grt`/`gru`, the system orders `sor`/`sro`/`rdt` (`rro` reverses) and
// `export=`.
// Each `obr_` form is accepted too (old OpenBenchmarking links; PTS reads those only on
// openbenchmarking.org itself), and in values longer than 5 characters `_DD_` stands for '.'.
//
// The figures are PTS's own definitions (docs/result-viewer.md lists them): the noisy cut, "little
// change", incomplete, normalization and the geometric mean compute what PTS computes on the same
// file. Pure functions of the file: no I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "results-xml/model/result_file.h"

namespace ptsn::results {

// grs: by spread, largest first; grt: by title; gru: by direction and unit; grr: by run time,
// longest first (PTS's orders); grw: by the suites holding each test, which a result file does not
// name, so the file's order (said on the page).
enum class ResultOrder { kFile, kSpread, kTitle, kUnit, kRunTime, kCommonSuites };
// sro: by identifier; sor: each result's values best first; rdt: by the systems' run dates.
enum class SystemOrder { kFile, kIdentifier, kPerformance, kRunDate };

struct ViewerOptions {
  bool normalize = false;           // nor
  bool hide_noisy = false;          // hnr
  bool hide_little_change = false;  // hlc
  bool hide_incomplete = false;     // hni
  bool geometric_mean = false;      // sgm
  bool invert_hidden = false;       // rmmi: hide every system but those of rmm
  bool confidence_charts = false;   // src: every trial as a box plot
  bool detailed_systems = false;    // sdt: the full systems table
  bool harmonic_means = false;      // shm
  bool notable = false;             // spr
  bool wins_losses = false;         // swl: PTS's first/last-place counts beside ours
  bool reverse_systems = false;     // rro
  bool condense_multi_way = false;  // cmw (PTS's cts): a test's option sets as one result (multi_way.h)
  bool condense_versions = false;   // cmv: a test's versions as one result (multi_way.h)
  bool transpose_multi_way = false; // imw: "GROUP: NAME" values as "NAME: GROUP"
  ResultOrder result_order = ResultOrder::kFile;
  SystemOrder system_order = SystemOrder::kFile;
  std::string faster, slower;  // ftt, ftb: only results where `faster` beats `slower`
  // ftd=K (ours, with ftt/ftb): ... and decidedly: the verdict between their set-ups that the
  // overview's cells use (by instance pairs, verdict.h, for a run across targets; else by runs,
  // runs_verdict.h) is "different" and its whole interval is at least K % the better way (K >= 0).
  std::optional<double> decided_by_percent;
  std::string export_format;     // export: txt, csv, csv-all, json, xml, html, pdf ("" none)
  std::vector<std::string> highlight;      // hgv
  std::vector<std::string> hide_systems;   // rmm
  std::vector<std::string> only_show;      // oss (comma list, case-insensitive substrings)
  std::vector<std::string> hide_matching;  // noss

  bool Any() const;
  // The options as a query string under their short names ("nor&hnr&hgv%5B%5D=A%20B"), "" for
  // none: the link to a view, and the key its rendering is cached under.
  std::string ToQuery() const;
  // ToQuery() decoded for people to read ("hgv[]=A B"); not a link (a value's '&' is ambiguous).
  std::string ToReadableQuery() const;
};

// Decoded query parameters, in order (a name may repeat: hgv[]=A&hgv[]=B).
using QueryParams = std::vector<std::pair<std::string, std::string>>;

// A name present is on, whatever its value (PTS: an empty value is true, "0" is empty too).
ViewerOptions ParseViewerOptions(const QueryParams& params);
// From a URL query ("?nor&hgv%5B%5D=A+B"; the leading '?' optional, '+' is a space).
ViewerOptions ParseViewerQuery(std::string_view query);

// ---- PTS's figures --------------------------------------------------------------------------

// pts_test_result::has_noisy_result(6): for a BAR_GRAPH result, an entry with more than two
// trials is noisy when their SD is above 6 % of their mean; a result of up to 5 systems is noisy
// with one noisy entry, a larger one with more than ceil(0.2 x systems). The SD/mean (%) of the
// entry that made it noisy; nullopt when it is not.
std::optional<double> NoisyPercent(const Result& r);

// pts_test_result::result_flat(0.03): best / worst under 1.03 (a result without HIB/LIB, a
// monitor child or a worst of 0 counts as flat, as in PTS), or, with more than 3 systems, more
// than 30 % of the values within ±3 % of the mean of those within 1.5 SD of the mean.
bool LittleChange(const Result& r);

// grr's key, pts_test_result::get_run_time_avg: the mean over the systems of their trials' run
// times added up (the entries' "test-run-times"), counting only systems above 0; -1 if none.
double RunTimeAverage(const Result& r);
// Whether any result has a run time (files before PTS recorded them have none: grr cannot order).
bool HasRunTimes(const ResultFile& file);

// hni: fewer entries than the file has systems, or a failed (empty) entry.
bool Incomplete(const Result& r, size_t system_count);

// pts_result_file_analyzer::generate_geometric_mean_result: over the test results (an identifier,
// BAR_GRAPH) where every system has a numeric, non-zero value; lower-is-better values as 100/x;
// each system needs at least two. `counted` of `comparable` test results were used.
struct GeometricMeans {
  std::vector<std::string> systems;  // the file's systems, in order
  std::vector<double> values;        // one per system; empty when fewer than two results count
  size_t counted = 0;
  size_t comparable = 0;  // test results (identifier, BAR_GRAPH) in the file
  // Ours, not PTS's: each system's 95 % interval (low, high; empty when some counted value has
  // fewer than two trials) and its ratio to the first system's mean with the ratio's interval.
  // Delta method on the log scale: each counted value is a mean of n trials, so the variance of
  // its log is about (SD/mean)^2 / n; the log of the mean is the average of k such logs, so its
  // variance is their sum over k^2; the ratio's log adds the first system's variance
  // (independent runs). exp(log +- 1.96 SE): a normal approximation (optimistic with few trials).
  std::vector<double> low, high;
  std::vector<double> ratio_low, ratio_high;  // against systems[0]; empty as above
};
GeometricMeans GeometricMeanOfResults(const ResultFile& file);

// pts_test_result::normalize_buffer_values: a BAR_GRAPH result's numeric values, lower-is-better
// as 1/x, divided by the base's (the first entry whose identifier contains `base`), else by the
// lowest; a multi-way comparison ("GROUP: NAME" identifiers) per group, by the group's largest
// when the base is not in it. One per entry; nullopt where PTS leaves the value as it is. The
// decimals PTS shows them with: max(3, the values' own).
struct Normalized {
  std::vector<std::optional<double>> values;
  int decimals = 3;
};
std::optional<Normalized> NormalizeResult(const Result& r, const std::string& base);

// pts_result_file_analyzer::generate_harmonic_mean_result: per result unit that is a rate (a '/',
// " per ", FPS, bps or IOPS in it), over the higher-is-better BAR_GRAPH test results every system
// has with numeric values, each system's harmonic mean when it has at least 4 such results; one
// "Harmonic Mean Of UNIT Test Results" result per unit with at least two systems, values to 3
// decimals, best first (file order in a multi-way comparison).
std::vector<Result> HarmonicMeanResults(const ResultFile& file);

// pts_test_result::get_spread: best / worst by the result's direction; -1 for a noisy result
// (when `noisy_check`), a monitor child, no direction or a worst of 0.
double Spread(const Result& r, bool noisy_check = true);

// spr: the indexes of the notable results, PTS's way: the min(results / 4, 10) largest spreads
// (monitor children counted in "results"; the means sgm and shm add are not results), largest
// first; a spread of -1 (noisy) can still be listed when too few others are left, as in PTS.
std::vector<size_t> NotableResults(const ResultFile& file);

// The base of the comparison: the one highlighted system (hgv with one name) when some system's
// identifier contains it (under imw, contains it or its swap: see HighlightedNames), else "".
// `file` as ApplyViewerOptions left it.
std::string NormalizationBase(const ResultFile& file, const ViewerOptions& options);
// hgv's names and, under imw, each "A: B" of them swapped ("B: A"): a reader picks a system by the
// name the file gave it (the form lists those) or by the name imw shows; both highlight it.
std::vector<std::string> HighlightedNames(const ViewerOptions& options);

// The options applied to `file` in PTS's order: rdt, oss, noss, ftt/ftb (values compared as PHP
// compares them), hlc, hnr, hni (each removed result takes its monitor children with it), rmm,
// the result order, then shm's and sgm's results added as PTS adds them, then the order of each
// result's values (sor, sro, rro). The normalization base, when there is one, becomes the first
// system, so that every comparison (colours, verdicts) is against it. cmw, cmv and imw come before the
// result order. Returns one line per option that had no effect on this file (cmw or cmv with
// nothing to condense, imw with no multi-way result), for the page to say so.
std::vector<std::string> ApplyViewerOptions(ResultFile& file, const ViewerOptions& options);

}  // namespace ptsn::results
