// Views of result files: result-file-to-text|csv|json|svg|html, show-result, compare-results,
// result-file-confidence, result-file-raw-to-csv. Output goes to stdout, or with -o atomically
// to a file.
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "results-xml/export_compare.h"
#include "results-xml/export_csv.h"
#include "results-xml/export_html.h"
#include "results-xml/export_json.h"
#include "results-xml/export_svg.h"
#include "results-xml/export_text.h"
#include "results-xml/result_store.h"
#include "results-xml/result_xml.h"
#include "runner/cli/command.h"
#include "runner/common/args.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/settings.h"

namespace ptsn::cli {

namespace {

namespace fs = std::filesystem;
using results::ResultFile;

// FILE = a path to a composite.xml, a result directory, or a saved name (ours, then PTS's).
ResultFile LoadResultFileArgument(const std::string& arg) {
  return results::ReadResultFile(
      results::ResolveResultFile(arg, results::ResultDirectories(GlobalSettings())));
}

// -o/--output PATH: written atomically (temporary file + rename); otherwise standard output.
void Emit(const Args& args, const std::string& content) {
  std::string path = args.ValueOr("-o", args.ValueOr("--output", ""));
  if (!path.empty()) {
    WriteFileAtomically(path, content);
    return;
  }
  std::cout.write(content.data(), static_cast<std::streamsize>(content.size()));
  std::cout.flush();
  if (!std::cout) throw Error("cannot write to standard output");
}

const std::string& SingleFile(const Args& args, const char* command) {
  if (args.positional().size() != 1)
    throw Error(std::string(command) + ": expected exactly one FILE (a path or a saved result name)", 2);
  return args.positional()[0];
}

// PTS honours TERMINAL_WIDTH; its text export defaults to 79 columns.
int TextWidth(const Args& args) {
  std::string w = args.ValueOr("--width", "");
  if (w.empty()) {
    const char* env = std::getenv("TERMINAL_WIDTH");
    w = env ? env : "";
  }
  if (w.empty()) return results::kDefaultTextWidth;
  char* end = nullptr;
  long v = std::strtol(w.c_str(), &end, 10);
  if (*end != '\0' || v < 20 || v > 10000) throw Error("--width/TERMINAL_WIDTH: '" + w + "' is not a width (20..10000)", 2);
  return static_cast<int>(v);
}

const ArgSpec kOutputSpec{{"-o", "--output"}, {}};
const ArgSpec kTextSpec{{"-o", "--output", "--width"}, {}};

int ToText(const std::vector<std::string>& argv) {
  Args a = Args::Parse(argv, kTextSpec);
  Emit(a, results::ResultFileToText(LoadResultFileArgument(SingleFile(a, "result-file-to-text")), TextWidth(a)));
  return 0;
}

int ToCsv(const std::vector<std::string>& argv) {
  Args a = Args::Parse(argv, kOutputSpec);
  Emit(a, results::ResultFileToCsv(LoadResultFileArgument(SingleFile(a, "result-file-to-csv"))));
  return 0;
}

int RawToCsv(const std::vector<std::string>& argv) {
  Args a = Args::Parse(argv, kOutputSpec);
  Emit(a, results::ResultFileRawToCsv(LoadResultFileArgument(SingleFile(a, "result-file-raw-to-csv"))));
  return 0;
}

int ToJson(const std::vector<std::string>& argv) {
  Args a = Args::Parse(argv, {{"-o", "--output"}, {"--pts-only"}});
  results::JsonOptions options;
  options.statistics = !a.Has("--pts-only");
  std::string json = results::ResultFileToJson(LoadResultFileArgument(SingleFile(a, "result-file-to-json")), options);
  json += '\n';
  Emit(a, json);
  return 0;
}

int Confidence(const std::vector<std::string>& argv) {
  Args a = Args::Parse(argv, kOutputSpec);
  Emit(a, results::ResultFileConfidenceText(LoadResultFileArgument(SingleFile(a, "result-file-confidence"))));
  return 0;
}

int ToSvg(const std::vector<std::string>& argv) {
  Args a = Args::Parse(argv, {{"-o", "--output", "--result"}, {}});
  const ResultFile file = LoadResultFileArgument(SingleFile(a, "result-file-to-svg"));
  if (auto n = a.Value("--result")) {
    char* end = nullptr;
    long i = std::strtol(n->c_str(), &end, 10);
    if (*end != '\0' || i < 1 || static_cast<size_t>(i) > file.results.size())
      throw Error("--result: '" + *n + "' is not a result number (1.." + std::to_string(file.results.size()) + ")", 2);
    Emit(a, results::ResultToSvg(file.results[static_cast<size_t>(i - 1)]));
  } else {
    Emit(a, results::ResultFileToSvg(file));
  }
  return 0;
}

int ToHtml(const std::vector<std::string>& argv) {
  Args a = Args::Parse(argv, kOutputSpec);
  Emit(a, results::ResultFileToHtml(LoadResultFileArgument(SingleFile(a, "result-file-to-html"))));
  return 0;
}

int Compare(const std::vector<std::string>& argv) {
  Args a = Args::Parse(argv, kOutputSpec);
  if (a.positional().size() < 2) throw Error("compare-results: expected at least two FILEs", 2);
  std::vector<ResultFile> files;
  std::vector<std::string> names;
  for (const auto& p : a.positional()) {
    files.push_back(LoadResultFileArgument(p));
    names.push_back(fs::path(p).filename() == "composite.xml" ? fs::path(p).parent_path().filename().string()
                                                               : fs::path(p).stem().string());
  }
  Emit(a, results::ComparisonToText(results::CompareResultFiles(files, names)));
  return 0;
}

}  // namespace

std::vector<Command> ExportCommands() {
  const std::string file_o = "FILE [-o PATH]";
  return {
      {"result-file-to-text", {"to-text"}, "Results", "FILE [-o PATH] [--width N]",
       "the result file as PTS's text view (bars, MIN/AVG/MAX; width: --width, TERMINAL_WIDTH, 79)", ToText},
      {"show-result", {"show"}, "Results", "FILE [--width N]", "print the text view of a result file", ToText},
      {"result-file-to-csv", {"to-csv"}, "Results", file_o,
       "results x systems CSV matrix (empty cell = no result)", ToCsv},
      {"result-file-raw-to-csv", {"to-raw-csv"}, "Results", file_o, "every trial as one CSV row", RawToCsv},
      {"result-file-confidence", {"confidence"}, "Results", file_o,
       "PTS's per-trial view: values, mean, std deviation %, three-sigma limits and trials outside them",
       Confidence},
      {"result-file-to-json", {"to-json"}, "Results", "FILE [-o PATH] [--pts-only]",
       "PTS's JSON plus every trial's statistics (--pts-only: PTS's keys only)", ToJson},
      {"result-file-to-svg", {"to-svg"}, "Results", "FILE [-o PATH] [--result N]",
       "SVG charts (bars with SE labels, line charts for monitor series); --result N: only the Nth", ToSvg},
      {"result-file-to-html", {"to-html"}, "Results", file_o,
       "self-contained HTML report: systems table, one inline SVG chart and statistics table per result", ToHtml},
      {"compare-results", {"compare"}, "Results", "A B [...] [-o PATH]",
       "side-by-side table: change vs the first system, and whether it is within noise (95% CIs overlap)",
       Compare},
  };
}

}  // namespace ptsn::cli
