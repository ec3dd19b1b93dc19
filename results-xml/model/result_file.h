// The PTS result file (composite.xml) as plain data. Nothing here knows about XML, statistics
// or files; those are free functions in their own units (result_xml.h, statistics.h, merge.h,
// export_*.h). Field order follows the element order of PTS 10.8.6 / result-file.xsd.
//
// std::optional marks elements that PTS writes only "when not empty" (WNE) or that may be
// absent in a file we read: nullopt = element absent, "" = element present and empty. Keeping
// that difference is what makes a read/write round trip lossless.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ptsn::results {

struct Generated {
  std::string title;          // 1..126 chars; the save name as typed
  std::string last_modified;  // "YYYY-MM-DD HH:MM:SS", restamped on every save
  std::string test_client;    // "Phoronix Test Suite v10.8.6" or ours
  std::string description;    // <= 2048 chars
  std::optional<std::string> notes;
  std::optional<std::string> internal_tags;
  std::optional<std::string> reference_id;                  // OpenBenchmarking ID of a clone
  std::optional<std::string> preset_environment_variables;  // "MONITOR=cpu.usage;VAR=..."
};

struct System {
  std::string identifier;  // 1..128 chars; matches Entry::identifier
  std::string hardware;    // "Processor: ..., Memory: ..., Disk: ..."
  std::string software;    // "OS: ..., Kernel: ..., File-System: ..."
  std::string user;
  std::string timestamp;            // "YYYY-MM-DD HH:MM:SS"
  std::string test_client_version;  // "10.8.6"
  std::optional<std::string> notes;  // required by the XSD, always written by PTS; kept optional to round-trip
  std::optional<std::string> json;   // test notes (disk-scheduler, security, ...) as PTS json_encode()d them
  std::optional<std::string> cost_value_for_comparison;
};

// One system's data for one result: the final value and every trial.
struct Entry {
  std::string identifier;                // System::identifier
  std::string value;                     // final value as text ("124.13"); comma list for LINE_GRAPH; "" = failed
  std::optional<std::string> raw_string; // trials joined by ':'; PTS writes "" when it equals value
  std::optional<std::string> json;       // {"test-run-times":"10.66:8.05:7.92", "min-result":..., "error":...}
};

struct Result {
  std::string identifier;   // test profile with version ("pts/fs-mark-1.0.3"); "" for derived (monitor) results
  std::string title;        // 2..50 chars
  std::string app_version;
  std::string arguments;    // chosen option values joined by ' '
  std::string description;  // "Block Size: 4KB" (option display strings joined by " - ")
  std::string scale;        // "MB/s"
  std::string proportion;   // "HIB" | "LIB" | "" (monitor summary)
  std::string display_format = "BAR_GRAPH";  // BAR_GRAPH | LINE_GRAPH | PASS_FAIL | ...
  std::optional<std::string> annotation;
  std::optional<std::string> parent;  // comparison hash of the result this one derives from (monitor children)
  std::vector<Entry> entries;         // <Data>, one per system that has data, in order of addition
};

struct ResultFile {
  // The XML comment PTS writes before the root ("Phoronix Test Suite v10.8.6"); kept to round-trip.
  std::optional<std::string> leading_comment;
  Generated generated;
  std::vector<System> systems;  // in order of addition
  std::vector<Result> results;  // in order of addition; a monitor child follows its test
};

}  // namespace ptsn::results
