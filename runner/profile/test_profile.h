// Plain data of PTS test profiles and suites, as read from a profile directory in PTS's layout
// (`<root>/<repo>/<name>-<version>/test-definition.xml`, results-definition.xml, downloads.xml,
// the scripts beside them; `<repo>/<name>-<version>/suite-definition.xml` for suites).
//
// API overview (runner/profile/):
//   profile_loader.h     ReadProfileDirectory(): one directory -> ProfileSource (no inheritance)
//   profile_repository.h ProfileRepository: search paths, name resolution (pts/fio, pts/fio-2.1,
//                        fio, local/x), Load() with <Extends> inheritance -> TestProfile; suites
//   options.h            option expansion: batch combinations, defaults, PRESET_OPTIONS(_VALUES),
//                        suite OptionSelect -> RunOption {arguments, description}; PtsTestArguments()
//   results_parser.h     ParseLog() per trial log -> ParsedResult buckets; FinalizeResult() -> the
//                        value PTS stores
//   validate.h           XSD + structural checks -> issues "FILE: element: what is wrong"
// Every string field keeps the element text verbatim (PTS does not trim); "" means absent/empty,
// which PTS treats the same way (PHP `== null`).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptsn::profile {

// A problem found while reading a file: "FILE: element: message".
struct LoadIssue {
  std::string file;
  std::string element;  // e.g. "TestSettings/Option[2]/Menu", may be empty
  std::string message;
  bool fatal = false;  // the file could not be used at all
  std::string ToString() const;
  bool operator==(const LoadIssue&) const = default;
};

struct OptionEntry {
  std::string name;
  std::string value;
  std::string message;
  bool operator==(const OptionEntry&) const = default;
};

struct TestOption {
  std::string identifier;    // key for PRESET_OPTIONS, e.g. "test"
  std::string display_name;  // label in descriptions, e.g. "Test"
  std::string message;       // help text
  std::string prefix;        // ArgumentPrefix, spaces kept
  std::string postfix;       // ArgumentPostfix
  std::string default_entry_raw;  // DefaultEntry text (1-based)
  std::vector<OptionEntry> entries;  // empty: a free-text option

  // pts_test_option::get_option_default(): DefaultEntry-1 when that entry exists, else the LAST
  // entry (PTS's quirk: an absent/invalid DefaultEntry makes the default the last entry,
  // except that DefaultEntry ""/"0" means 1).
  int DefaultIndex() const;
  // The 0-based default PTS's option tools report (DefaultEntry-1 when valid, else 0).
  int DefaultIndexRaw() const;
  int ExplicitDefault() const;  // DefaultEntry-1 when it names an existing entry, else -1
  bool operator==(const TestOption&) const = default;
};

struct ResultsParserBlock {
  int line = 0;  // line of <ResultsParser> in results-definition.xml
  std::string output_template, match_to_test_arguments, result_key, line_hint, line_before_hint, line_after_hint,
      result_before_string, result_after_string, strip_from_result, strip_result_postfix, multi_match,
      divide_result_by, divide_result_divisor, multiply_result_by, result_scale, result_proportion,
      result_precision, arguments_description, append_to_arguments_description, file_format,
      turn_chars_to_space, delete_output_before, delete_output_after, display_format, importance;
  bool operator==(const ResultsParserBlock&) const = default;
};

struct SystemMonitorDef {
  std::string sensor;             // "sys.time", "cpu.usage", ...
  std::string polling_frequency;  // seconds
  std::string report;             // MAX, MIN, AVG, ALL
  bool operator==(const SystemMonitorDef&) const = default;
};

struct ImageParserDef {
  std::string source_image, match_to_test_arguments, image_x, image_y, image_width, image_height;
  bool operator==(const ImageParserDef&) const = default;
};

struct ResultsDefinition {
  std::string path;  // the results-definition.xml used ("" when none, also none in the Extends chain)
  std::vector<ResultsParserBlock> parsers;
  std::vector<SystemMonitorDef> system_monitors;
  std::vector<std::string> extra_data;  // ExtraData/Identifier
  std::vector<ImageParserDef> image_parsers;
  bool present() const { return !path.empty(); }
  bool operator==(const ResultsDefinition&) const = default;
};

struct Download {
  std::vector<std::string> urls;  // mirrors, in the file's order
  std::string md5, sha256;
  std::string file_name;  // FileName, else basename of the first URL
  long long file_size = 0;  // informational only
  std::vector<std::string> platform_specific;      // e.g. Linux, BSD; empty = all
  std::vector<std::string> architecture_specific;  // e.g. x86_64; empty = all
  bool optional = false;
  bool operator==(const Download&) const = default;
};

// The raw content of one profile directory, before <Extends> inheritance.
struct ProfileSource {
  std::string identifier;  // "pts/fs-mark-1.0.3"
  std::string directory;   // absolute path, no trailing '/'
  // Every element of test-definition.xml under TestInformation/TestProfile/TestSettings/Default as
  // "Section/Element" -> text of its first occurrence (PTS's xg()).
  std::map<std::string, std::string, std::less<>> fields;
  std::vector<TestOption> options;  // never inherited
  std::optional<ResultsDefinition> results;  // results-definition.xml of this directory
  std::vector<Download> downloads;
  bool has_downloads_file = false;
  std::map<std::string, std::string> scripts;  // "install.sh", "install_linux.sh", "pre.sh", ... -> path
  bool operator==(const ProfileSource&) const = default;
};

// A loaded profile with inheritance applied (what PTS's getters return).
struct TestProfile {
  std::string identifier;  // "pts/fs-mark-1.0.3"
  std::string directory;
  std::vector<std::string> extends_chain;  // identifiers of the parents, direct parent first
  std::vector<std::string> extends_dirs;   // their directories, same order

  // TestInformation
  std::string title, app_version, description, result_scale, proportion, result_quantifier, display_format,
      subtitle, executable, pre_install_message, post_install_message, installation_agreement, pre_run_message,
      post_run_message;
  int times_to_run = 3;
  std::vector<int> ignore_runs;
  // TestProfile
  std::string version, extends, software_type, test_type, license, status, maintainer, project_url,
      repository_url;
  std::vector<std::string> supported_platforms, supported_architectures, external_dependencies,
      system_dependencies, internal_tags;
  double environment_size = 0, environment_testing_size = 0, estimated_time_per_run = 0;
  bool requires_root = false, requires_root_install = false, requires_display = false, requires_network = false,
       requires_internet = false, install_requires_internet = false, auto_save_results = false,
       allow_results_sharing = true, remove_install_directory_on_reinstall = true;
  int requires_core_version_min = 2950, requires_core_version_max = 19990;
  // TestSettings
  std::string default_arguments, default_post_arguments;
  bool allow_cache_share = true;
  std::string minimum_length, maximum_length;
  std::vector<TestOption> options;

  std::map<std::string, std::string, std::less<>> fields;  // every element after inheritance
  ResultsDefinition results;                  // own, else the nearest parent's
  std::vector<Download> downloads;            // own downloads.xml only (parents install separately)
  std::map<std::string, std::string> scripts;  // own scripts (see ScriptPath)

  std::string BaseName() const;  // "fs-mark"
  std::string IdentifierWithoutVersion() const;  // "pts/fs-mark"
  // The first existing of `<kind>_<os>.sh` and `<kind>.sh` ("install", "pre", "interim", "post",
  // "support-check", "validate-install"); "" if neither. os is lowercase ("linux").
  std::string ScriptPath(const std::string& kind, const std::string& os = "linux") const;
  std::string Field(std::string_view key) const;  // fields lookup, "" when absent
  bool operator==(const TestProfile&) const = default;
};

struct SuiteExecute {
  std::string test;         // profile or suite identifier, often unversioned
  std::string arguments;    // used when mode is empty
  std::string description;  // used when mode is empty
  std::string mode;         // "", BATCH, DEFAULTS
  std::string option_select;  // "option=Name,option=Name2" with BATCH
  std::string override_test_options;  // present in suites, not read by PTS 10.8.6
};

struct TestSuite {
  std::string identifier;  // "pts/disk-1.3.2"
  std::string directory;
  std::string title, version, test_type, description, maintainer, status, run_mode, pre_run_message,
      post_run_message, requires_core_version_min, requires_core_version_max;
  std::vector<SuiteExecute> executes;
};

// PTS's string booleans (FILTER_VALIDATE_BOOLEAN): TRUE, true, 1, yes, on.
bool ParsePtsBool(const std::string& text, bool fallback);
// "a, b,c" -> {"a","b","c"} (trimmed, empties dropped).
std::vector<std::string> CommaList(const std::string& text);
// pts_strings::is_version: only digits and '.', at least one '.'.
bool IsVersionString(const std::string& s);
// Splits "name-1.2.3" into {"name", "1.2.3"}; version "" when the suffix is not a version.
std::pair<std::string, std::string> SplitNameVersion(const std::string& base);
// Numeric dotted-version comparison (1.10.0 > 1.9.2).
int CompareVersions(const std::string& a, const std::string& b);

}  // namespace ptsn::profile
