// Views of result files: result-file-to-text|csv|json|svg|html, show-result, compare-results,
// result-file-confidence, result-file-raw-to-csv. Output goes to stdout, or with -o atomically
// to a file; never over a result file (RefuseWritingOverResults).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>

#include "results-xml/model/result_xml.h"
#include "results-xml/stats/verdict.h"
#include "results-xml/store/result_store.h"
#include "results-xml/views/export_compare.h"
#include "results-xml/views/export_csv.h"
#include "results-xml/views/export_html.h"
#include "results-xml/views/export_json.h"
#include "results-xml/views/export_svg.h"
#include "results-xml/views/export_text.h"
#include "results-xml/views/view_export.h"
#include "runner/cli/command.h"
#include "runner/common/args.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/output_spool.h"
#include "runner/common/settings.h"
#include "runner/common/terminal.h"

namespace ptsn::cli {

namespace {

namespace fs = std::filesystem;
using results::ResultFile;

// FILE = a path to a composite.xml, a result directory, or a saved name (ours, then PTS's).
std::string ResultFilePath(const std::string& arg) {
  return results::ResolveResultFile(arg, results::ResultDirectories(GlobalSettings()));
}

std::string OutputPath(const Args& args) { return args.ValueOr("-o", args.ValueOr("--output", "")); }

// No view writes over a result file: -o naming a file it reads (however spelled) or any saved
// result's composite.xml, or standard output opened on a file it reads (`>> composite.xml`), is
// refused before anything is read.
void RefuseWritingOverResults(const Args& args, const std::vector<std::string>& inputs) {
  if (std::string out = OutputPath(args); !out.empty()) {
    results::RefuseExportOverResults(out, inputs, results::ResultDirectories(GlobalSettings()));
    return;
  }
  struct stat so {};
  if (::fstat(STDOUT_FILENO, &so) != 0 || !S_ISREG(so.st_mode)) return;
  for (const std::string& input : inputs) {
    struct stat in {};
    if (::stat(input.c_str(), &in) == 0 && in.st_dev == so.st_dev && in.st_ino == so.st_ino)
      throw Error("standard output is " + input + ", the result file this command reads; write the view elsewhere", 2);
  }
}

// FILE's path, once checked against where the view goes.
std::string InputPath(const Args& args, const std::string& arg) {
  std::string path = ResultFilePath(arg);
  RefuseWritingOverResults(args, {path});
  return path;
}

// -o/--output PATH: written atomically (temporary file + rename); otherwise standard output.
void Emit(const Args& args, const std::string& content) {
  std::string path = OutputPath(args);
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

// --width, else PTS's terminal_width(): TERMINAL_WIDTH, the terminal's columns, 80 (terminal.h).
int TextWidth(const Args& args) {
  if (auto w = args.Value("--width")) return ParseTextWidth(*w, "--width");
  return TerminalWidth();
}

const ArgSpec kOutputSpec{{"-o", "--output"}, {}};
const ArgSpec kTextSpec{{"-o", "--output", "--width"}, {}};

// The shape every single-file view shares: parse options, load FILE, render, emit.
int RunFileView(const std::vector<std::string>& argv, const ArgSpec& spec, const char* command,
                const std::function<std::string(const ResultFile&, const Args&)>& render) {
  Args a = Args::Parse(argv, spec);
  Emit(a, render(results::ReadResultFile(InputPath(a, SingleFile(a, command))), a));
  return 0;
}

// Views that render while the file is parsed (export_stream.h): memory for one Result, not the model.
// Standard output redirected to a regular file (`> out.json`), written at its end: the text goes
// straight into it as it is rendered, and if the export fails the file is cut back to where it
// ended, so nothing is printed, as through the spool, without copying the whole export twice more.
class StdoutFileSink : public results::TextSink {
 public:
  static std::unique_ptr<StdoutFileSink> IfStdoutIsAFile() {
    struct stat st {};
    const int flags = ::fcntl(STDOUT_FILENO, F_GETFL);
    if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY || ::fstat(STDOUT_FILENO, &st) != 0 || !S_ISREG(st.st_mode))
      return nullptr;
    const off_t at = (flags & O_APPEND) ? st.st_size : ::lseek(STDOUT_FILENO, 0, SEEK_CUR);
    if (at != st.st_size) return nullptr;  // text after the offset would be overwritten, then cut
    std::cout.flush();
    return std::unique_ptr<StdoutFileSink>(new StdoutFileSink(at));
  }
  ~StdoutFileSink() override {
    if (!committed_) CutBack();
  }
  void Write(std::string_view text) override {
    if (!WriteAll(STDOUT_FILENO, text)) throw Error(std::string("cannot write to standard output: ") + std::strerror(errno));
  }
  void Restart() override {
    if (!CutBack()) throw Error(std::string("cannot write to standard output: ") + std::strerror(errno));
  }
  void Commit() { committed_ = true; }

 private:
  explicit StdoutFileSink(off_t start) : start_(start) {}
  bool CutBack() { return ::ftruncate(STDOUT_FILENO, start_) == 0 && ::lseek(STDOUT_FILENO, start_, SEEK_SET) == start_; }
  off_t start_;
  bool committed_ = false;
};

int RunStreamingView(const std::vector<std::string>& argv, const ArgSpec& spec, const char* command,
                     const std::function<std::unique_ptr<results::StreamingView>(const Args&)>& make,
                     const std::function<std::string(const ResultFile&, const Args&)>& whole,
                     std::string_view trailer = "") {
  Args a = Args::Parse(argv, spec);
  const std::string path = InputPath(a, SingleFile(a, command));
  auto view = make(a);
  auto render_whole = [&](const ResultFile& f) { return whole(f, a); };
  std::string out_path = OutputPath(a);
  if (out_path.empty()) {
    // Standard output: nothing is printed unless the whole file rendered.
    if (auto direct = StdoutFileSink::IfStdoutIsAFile()) {
      results::RenderResultFile(path, *view, render_whole, *direct);
      direct->Write(trailer);
      direct->Commit();
      return 0;
    }
    // A pipe or terminal: the text waits in an OutputSpool (memory up to 1 MiB, then an unlinked
    // temporary file), so a large export does not sit in memory whole.
    results::SpoolSink sink;
    results::RenderResultFile(path, *view, render_whole, sink);
    sink.Write(trailer);
    std::cout.flush();
    sink.spool.CopyTo(STDOUT_FILENO, "standard output");
    return 0;
  }
  // -o: written to the temporary file as it is rendered (large JSON never sits in memory whole).
  struct FileSink : results::TextSink {
    explicit FileSink(const std::string& p) : file(p) {}
    void Write(std::string_view text) override { file.Write(text); }
    void Restart() override { file.Restart(); }
    AtomicFileWriter file;
  } sink(out_path);
  results::RenderResultFile(path, *view, render_whole, sink);
  sink.Write(trailer);
  sink.file.Commit();
  return 0;
}

int ToText(const std::vector<std::string>& argv) {
  return RunStreamingView(
      argv, kTextSpec, "result-file-to-text", [](const Args& a) { return results::MakeTextView(TextWidth(a)); },
      [](const ResultFile& f, const Args& a) { return results::ResultFileToText(f, TextWidth(a)); });
}

int ToCsv(const std::vector<std::string>& argv) {
  return RunStreamingView(
      argv, kOutputSpec, "result-file-to-csv", [](const Args&) { return results::MakeCsvView(); },
      [](const ResultFile& f, const Args&) { return results::ResultFileToCsv(f); });
}

int RawToCsv(const std::vector<std::string>& argv) {
  return RunFileView(argv, kOutputSpec, "result-file-raw-to-csv",
                     [](const ResultFile& f, const Args&) { return results::ResultFileRawToCsv(f); });
}

// PTS's document by default; --statistics (or the setting results.json_statistics) adds ours,
// --pts-only leaves out even what PTS would drop (export_json.h).
results::JsonOptions JsonOptionsOf(const Args& a) {
  using Extras = results::JsonOptions::Extras;
  if (a.Has("--pts-only") && a.Has("--statistics")) throw Error("result-file-to-json: --pts-only and --statistics exclude each other", 2);
  results::JsonOptions options;
  if (a.Has("--pts-only")) options.extras = Extras::kPtsOnly;
  else if (a.Has("--statistics") || GlobalSettings().GetBool("results.json_statistics")) options.extras = Extras::kStatistics;
  return options;
}

int ToJson(const std::vector<std::string>& argv) {
  return RunStreamingView(
      argv, {{"-o", "--output"}, {"--pts-only", "--statistics"}}, "result-file-to-json",
      [](const Args& a) { return results::MakeJsonView(JsonOptionsOf(a)); },
      [](const ResultFile& f, const Args& a) { return results::ResultFileToJson(f, JsonOptionsOf(a)); }, "\n");
}

int Confidence(const std::vector<std::string>& argv) {
  return RunFileView(argv, kOutputSpec, "result-file-confidence",
                     [](const ResultFile& f, const Args&) { return results::ResultFileConfidenceText(f); });
}

int ToSvg(const std::vector<std::string>& argv) {
  return RunFileView(argv, {{"-o", "--output", "--result"}, {}}, "result-file-to-svg",
                     [](const ResultFile& f, const Args& a) {
                       auto n = a.Value("--result");
                       if (!n) return results::ResultFileToSvg(f);
                       char* end = nullptr;
                       long i = std::strtol(n->c_str(), &end, 10);
                       if (*end != '\0' || i < 1 || static_cast<size_t>(i) > f.results.size())
                         throw Error("--result: '" + *n + "' is not a result number (1.." +
                                         std::to_string(f.results.size()) + ")", 2);
                       return results::ResultToSvg(f.results[static_cast<size_t>(i - 1)]);
                     });
}

int ToHtml(const std::vector<std::string>& argv) {
  // --view: OpenBenchmarking's view options as a URL query ("nor&hnr&hgv[]=NAME"), the same the
  // server's pages take, so a file shows the view a link shows.
  return RunFileView(argv, {{"-o", "--output", "--view"}, {}}, "result-file-to-html",
                     [](const ResultFile& f, const Args& a) {
                       results::HtmlView view;
                       view.options = results::ParseViewerQuery(a.ValueOr("--view", ""));
                       if (!view.options.Any()) return results::ResultFileToHtml(f, view);
                       ResultFile shown = f;
                       view.results_before_options = shown.results.size();
                       view.notes = results::ApplyViewerOptions(shown, view.options);
                       // export=csv and the like: the view in that format instead (view_export.h).
                       if (!view.options.export_format.empty()) return results::ExportView(shown, view.options);
                       return results::ResultFileToHtml(shown, view);
                     });
}

int Compare(const std::vector<std::string>& argv) {
  Args a = Args::Parse(argv, {{"-o", "--output"}, {"--paired"}});
  const bool paired = a.Has("--paired");
  if (a.positional().empty()) throw Error("compare-results: expected a FILE with several systems, or two or more FILEs", 2);
  std::vector<std::string> paths;
  for (const auto& p : a.positional()) paths.push_back(ResultFilePath(p));
  RefuseWritingOverResults(a, paths);
  std::vector<ResultFile> files;
  std::vector<std::string> names;
  for (size_t i = 0; i < paths.size(); ++i) {
    const std::string& p = a.positional()[i];
    files.push_back(results::ReadResultFile(paths[i]));
    names.push_back(fs::path(p).filename() == "composite.xml" ? fs::path(p).parent_path().filename().string()
                                                               : fs::path(p).stem().string());
  }
  // One file compares its own systems (each system is a column either way).
  if (files.size() == 1 && files[0].systems.size() < 2)
    throw Error("compare-results: " + a.positional()[0] + " has " + std::to_string(files[0].systems.size()) +
                    " system; give a file with several systems, or two or more FILEs",
                2);
  // A file of a run across targets (trials interleaved in rounds) is judged by instance pairs in
  // every view, --paired or not; separate files and separately run systems by runs.
  const bool rounds = paired || (files.size() == 1 && results::TrialsInterleaved(files[0]));
  const results::VerdictSettings settings{GlobalSettings().GetDouble("run.same_within"), 0.95};
  std::string text = results::ComparisonToText(results::CompareResultFiles(
      files, names, rounds ? results::CompareMode::kPaired : results::CompareMode::kUnpaired, settings));
  if (rounds && files.size() == 1) text += results::VerdictView(files[0], settings);
  Emit(a, text);
  return 0;
}

}  // namespace

std::vector<Command> ExportCommands() {
  const std::string file_o = "FILE [-o PATH]";
  return {
      {"result-file-to-text", {"to-text"}, "Results", "FILE [-o PATH] [--width N]",
       "the result file as PTS's text view (bars, MIN/AVG/MAX; width: --width, TERMINAL_WIDTH, the terminal's, 80)", ToText},
      {"show-result", {"show"}, "Results", "FILE [--width N]", "print the text view of a result file", ToText},
      {"result-file-to-csv", {"to-csv"}, "Results", file_o,
       "results x systems CSV matrix (empty cell = no result)", ToCsv},
      {"result-file-raw-to-csv", {"to-raw-csv"}, "Results", file_o, "every trial as one CSV row", RawToCsv},
      {"result-file-confidence", {"confidence"}, "Results", file_o,
       "PTS's per-trial view: values, mean, std deviation %, three-sigma limits and trials outside them",
       Confidence},
      {"result-file-to-json", {"to-json"}, "Results", "FILE [-o PATH] [--statistics|--pts-only]",
       "PTS's JSON (--statistics: plus each entry's statistics; --pts-only: PTS's keys only)", ToJson},
      {"result-file-to-svg", {"to-svg"}, "Results", "FILE [-o PATH] [--result N]",
       "SVG charts (bars with SE labels, line charts for monitor series); --result N: only the Nth", ToSvg},
      {"result-file-to-html", {"to-html"}, "Results", "FILE [-o PATH] [--view QUERY]",
       "self-contained HTML report: an overview against the base system (verdicts, geometric mean), systems table, "
       "one inline SVG chart and statistics table per result; --view 'nor&hnr&hgv[]=NAME': OpenBenchmarking's view "
       "options (docs/result-viewer.md); with export=txt|csv|csv-all|json|xml the view in that format",
       ToHtml},
      {"compare-results", {"compare"}, "Results", "A B [...] [-o PATH] [--paired]\nFILE [-o PATH] [--paired]",
       "side-by-side table: change vs the first system and the verdict by runs (systems NAME, NAME #2 ... are "
       "runs of one set-up; one run of each: unknown); a run across targets (or --paired): the paired ratio and "
       "the verdict by instance pairs (docs/verdicts.md)",
       Compare},
  };
}

}  // namespace ptsn::cli
