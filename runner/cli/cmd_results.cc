// Result-file management commands (results-xml/): merge-results, list-saved-results,
// rename-identifier-in-result-file, remove-result-from-result-file, remove-run-from-result-file,
// remove-result, validate-result-file. Exports and show/compare live in cmd_exports.cc. Every
// change of a result file goes through results::UpdateResultFile (its lock, the file as on disk
// then, an atomic write), as a run's saves do; one that renames or removes a system first claims
// it, so it never races a run saving as that system.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>

#include "results-xml/checks/validate.h"
#include "results-xml/model/comparison_hash.h"
#include "results-xml/model/result_xml.h"
#include "results-xml/stats/wins_losses.h"
#include "results-xml/store/edit.h"
#include "results-xml/store/merge.h"
#include "results-xml/store/result_store.h"
#include "results-xml/store/result_update.h"
#include "runner/cli/command.h"
#include "runner/common/args.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/settings.h"

namespace ptsn::cli {

namespace {

using namespace ptsn::results;

std::vector<std::string> Dirs() { return ResultDirectories(GlobalSettings()); }

// The saved result's directory when `path` is <dir>/<name>/composite.xml, else "".
std::string SavedDirOf(const std::string& path) {
  std::filesystem::path p(path);
  return p.filename() == "composite.xml" ? p.parent_path().string() : "";
}

int MergeResults(const std::vector<std::string>& argv) {
  Args args = Args::Parse(argv, {{"-o", "--output", "--on-clash"}, {}});
  const auto& names = args.positional();
  if (names.size() < 2) throw Error("merge-results needs at least two result files (usage: merge-results A B ... -o OUT.xml)", 2);
  ClashPolicy policy = ParseClashPolicy(args.ValueOr("--on-clash", "rename"));
  std::optional<std::string> out = args.Value("-o");
  if (!out) out = args.Value("--output");

  std::vector<std::string> dirs = Dirs();
  std::vector<std::string> paths;
  for (const std::string& n : names) paths.push_back(ResolveResultFile(n, dirs));  // missing input: error, nothing written
  auto merge = [&] {
    ResultMerger merger(policy);
    for (size_t i = 0; i < paths.size(); ++i) merger.Add({names[i], ReadResultFile(paths[i])});
    MergeOutcome m = merger.Finish();
    for (const std::string& notice : m.notices) std::cerr << "pts-native: " << notice << "\n";
    return m;
  };

  std::string written;
  MergeOutcome m;
  if (out) {
    // Into a saved result (a run may be saving into it) or one of the inputs: the inputs are read
    // under its lock, so nothing saved meanwhile is lost.
    std::optional<ResultFileLock> lock;
    std::error_code ec;
    if (SavedResultNameOf(*out, dirs) ||
        std::any_of(paths.begin(), paths.end(), [&](const std::string& p) { return std::filesystem::equivalent(*out, p, ec); }))
      lock.emplace(*out);
    m = merge();
    WriteResultFile(*out, m.merged);
    written = *out;
  } else {
    m = merge();
    std::string results_dir = GlobalSettings().ResultsDirectory();
    written = SaveResult(results_dir, UnusedSaveName(results_dir, "merge"), m.merged);
  }
  std::cout << "Merged Results Saved To: " << written << "\n"
            << "  " << names.size() << " files, " << m.merged.systems.size() << " systems, "
            << m.merged.results.size() << " results\n";
  return 0;
}

int ListSavedCmd(const std::vector<std::string>& argv) {
  Args::Parse(argv, {});
  std::vector<std::string> dirs = Dirs();
  std::vector<SavedResultInfo> list = ListSavedResults(dirs);
  std::cout << list.size() << " Saved Results\n";
  for (const SavedResultInfo& r : list) {
    std::cout << "\n" << r.name;
    if (!r.error.empty()) {
      std::cout << "  [unreadable: " << r.error << "]\n";
      continue;
    }
    std::cout << "  " << r.title << "\n    " << r.results << " results, last modified " << r.last_modified
              << ", in " << r.directory << "\n";
    for (const std::string& s : r.systems) std::cout << "    - " << s << "\n";
  }
  return 0;
}

int RenameIdentifierCmd(const std::vector<std::string>& argv) {
  Args args = Args::Parse(argv, {});
  const auto& p = args.positional();
  if (p.size() != 3) throw Error("usage: rename-identifier-in-result-file FILE OLD-IDENTIFIER NEW-IDENTIFIER", 2);
  std::string path = ResolveResultFile(p[0], Dirs());
  IdentifierClaim claim(path, {p[1], p[2]}, "rename-identifier-in-result-file '" + p[1] + "' '" + p[2] + "'");
  UpdateResultFile(path, [&](ResultFile& f, bool) {
    RenameIdentifier(f, p[1], p[2]);
    if (std::string dir = SavedDirOf(path); !dir.empty()) RenameIdentifierLogs(dir, p[1], p[2]);
  });
  std::cout << path << ": '" << p[1] << "' renamed to '" << p[2] << "'\n";
  return 0;
}

int RemoveResultFromFile(const std::vector<std::string>& argv) {
  Args args = Args::Parse(argv, {});
  const auto& p = args.positional();
  if (p.size() < 2) throw Error("usage: remove-result-from-result-file FILE RESULT-NUMBER-OR-HASH...", 2);
  std::string path = ResolveResultFile(p[0], Dirs());
  std::vector<std::string> removed;
  ResultFile f = UpdateResultFile(path, [&](ResultFile& file, bool) {
    // Every selector is resolved against the file as read, so "1 2" means the first two results.
    std::vector<std::string> hashes;
    for (size_t i = 1; i < p.size(); ++i) hashes.push_back(ComparisonHash(file.results[FindResult(file, p[i])]));
    for (const std::string& h : hashes) {
      for (size_t i = 0; i < file.results.size(); ++i) {
        if (ComparisonHash(file.results[i]) != h) continue;
        for (std::string& t : RemoveResult(file, i)) removed.push_back(std::move(t));
        break;
      }
    }
  });
  for (const std::string& t : removed) std::cout << "removed: " << t << "\n";
  std::cout << path << ": " << f.results.size() << " results left\n";
  return 0;
}

int RemoveRunCmd(const std::vector<std::string>& argv) {
  Args args = Args::Parse(argv, {});
  const auto& p = args.positional();
  if (p.size() != 2) throw Error("usage: remove-run-from-result-file FILE SYSTEM-IDENTIFIER", 2);
  std::string path = ResolveResultFile(p[0], Dirs());
  IdentifierClaim claim(path, {p[1]}, "remove-run-from-result-file '" + p[1] + "'");
  size_t entries = 0;
  UpdateResultFile(path, [&](ResultFile& f, bool) { entries = RemoveSystem(f, p[1]); });
  std::cout << path << ": removed system '" << p[1] << "' and its " << entries << " entries\n";
  return 0;
}

int WinsAndLosses(const std::vector<std::string>& argv) {
  Args args = Args::Parse(argv, {{}, {}});
  if (args.positional().size() != 1) throw Error("usage: pts-native wins-and-losses FILE", 2);
  std::cout << WinsLossesText(ReadResultFile(ResolveResultFile(args.positional()[0], Dirs())));
  return 0;
}

int RemoveResultCmd(const std::vector<std::string>& argv) {
  Args args = Args::Parse(argv, {});
  if (args.positional().size() != 1) throw Error("usage: remove-result SAVED-NAME", 2);
  std::string dir = RemoveSavedResult(args.positional()[0], Dirs());
  std::cout << "removed " << dir << "\n";
  return 0;
}

int ValidateCmd(const std::vector<std::string>& argv) {
  Args args = Args::Parse(argv, {{"--schema"}, {}});
  if (args.positional().size() != 1) throw Error("usage: validate-result-file FILE [--schema result-file.xsd]", 2);
  std::string path = ResolveResultFile(args.positional()[0], Dirs());
  std::string xml = ReadFile(path);
  ResultFile f = ParseResultFile(xml, path);  // malformed/unsafe: ptsn::Error, exit 1
  int errors = 0;
  for (const ValidationIssue& i : ValidateResultFile(f)) {
    (i.error ? std::cout : std::cerr) << path << ": " << (i.error ? "" : "warning: ") << i.where << ": " << i.what
                                      << "\n";
    errors += i.error;
  }
  std::string xsd = args.ValueOr("--schema", GlobalSettings().Get("results.xsd"));
  if (!xsd.empty()) {
    for (const std::string& e : ValidateAgainstSchema(xml, xsd)) {
      std::cout << path << ": " << e << " (" << std::filesystem::path(xsd).filename().string() << ")\n";
      ++errors;
    }
  }
  if (errors) {
    std::cout << path << ": invalid (" << errors << (errors == 1 ? " problem" : " problems") << ")\n";
    return 1;
  }
  std::cout << path << ": valid" << (xsd.empty() ? "" : " (also against " + xsd + ")") << "\n";
  return 0;
}

}  // namespace

std::vector<Command> ResultCommands() {
  return {
      {"merge-results", {"merge"}, "Results", "A B ... [-o OUT.xml] [--on-clash=rename|error|keep]",
       "merge result files (paths or saved names); without -o saves as a new saved result", MergeResults,
       "--on-clash: what happens when two inputs each have a system of the same identifier:\n"
       "  rename  (default) the later one becomes \"Name #2\" (#3, ...), and the merge says so;\n"
       "  error   the merge is refused, nothing is written;\n"
       "  keep    PTS's own merge-results behaviour: both systems are kept under the one name,\n"
       "          so no view can tell their results apart.\n"
       "The same run merged twice is no clash: its system and entries are added once."},
      {"list-saved-results", {"list-test-results"}, "Results", "",
       "list saved results (ours, then PTS's test-results)", ListSavedCmd},
      {"rename-identifier-in-result-file", {"rename-identifier"}, "Results", "FILE OLD NEW",
       "rename a system identifier in a result file", RenameIdentifierCmd},
      {"remove-result-from-result-file", {}, "Results", "FILE RESULT-NUMBER-OR-HASH...",
       "remove results (1-based number or comparison hash) and their monitor children", RemoveResultFromFile},
      {"remove-run-from-result-file", {"remove-system"}, "Results", "FILE SYSTEM-IDENTIFIER",
       "remove one system (run) and all its entries from a result file", RemoveRunCmd},
      {"remove-result", {}, "Results", "SAVED-NAME", "delete a saved result directory", RemoveResultCmd},
      {"wins-and-losses", {"winners-and-losers"}, "Results", "FILE",
       "which system wins and loses the most tests of a result file (PTS's table)", WinsAndLosses,
       "Per test with results from at least two systems (and half of them): the best value by the test's\n"
       "proportion wins, the worst loses. PTS counts only tests whose profile it has locally; every test\n"
       "result in the file counts here."},
      {"validate-result-file", {"validate"}, "Results", "FILE [--schema XSD]",
       "check a result file (our rules; PTS's XSD too with --schema or results.xsd)", ValidateCmd},
  };
}

}  // namespace ptsn::cli
