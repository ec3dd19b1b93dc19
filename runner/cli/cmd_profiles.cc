// Profile commands: info, list-available-tests, list-available-suites, validate-test-profile,
// debug-result-parser. Thin glue over runner/profile.
#include <algorithm>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "runner/cli/command.h"
#include "runner/cli/profile_fetch.h"
#include "runner/common/args.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/settings.h"
#include "runner/common/strings.h"
#include "runner/profile/options.h"
#include "runner/profile/presets.h"
#include "runner/profile/profile_repository.h"
#include "runner/profile/results_parser.h"
#include "runner/profile/validate.h"

namespace ptsn::cli {

namespace {

using namespace ptsn::profile;

// Profiles are read through the parse cache (profiles.parse_cache) when set; it is saved when the
// repository goes away at the end of the command.
ProfileRepository Repository() {
  ProfileRepository repo = ProfileRepository::FromSettings(GlobalSettings());
  repo.UseCacheFile(GlobalSettings().Get("profiles.parse_cache"));
  return repo;
}

std::string Quoted(const std::string& s) { return "'" + s + "'"; }

std::string Or(const std::string& s, const std::string& fallback) { return s.empty() ? fallback : s; }

void PrintSuite(const TestSuite& s) {
  std::cout << s.title << " (" << s.identifier << ")\n";
  if (!s.description.empty()) std::cout << "  " << s.description << "\n";
  std::cout << "  type: " << Or(s.test_type, "-") << "   maintainer: " << Or(s.maintainer, "-") << "\n  tests:\n";
  for (const auto& e : s.executes) {
    std::cout << "    " << e.test;
    if (!e.mode.empty()) std::cout << "  [mode " << e.mode << (e.option_select.empty() ? "" : ", " + e.option_select) << "]";
    if (!e.description.empty()) std::cout << "  " << e.description;
    else if (!e.arguments.empty()) std::cout << "  args: " << e.arguments;
    std::cout << "\n";
  }
}

// `info --json`: the profile as data, each option entry with its PRESET_OPTIONS syntax.
nlohmann::json ProfileJson(const TestProfile& p) {
  nlohmann::json j;
  j["identifier"] = p.identifier;
  j["title"] = p.title;
  j["directory"] = p.directory;
  j["app_version"] = p.app_version;
  j["test_type"] = p.test_type;
  j["result_scale"] = p.result_scale;
  j["proportion"] = p.proportion;
  j["display_format"] = p.display_format;
  j["times_to_run"] = p.times_to_run;
  j["external_dependencies"] = p.external_dependencies;
  j["system_dependencies"] = p.system_dependencies;
  j["extends"] = p.extends_chain;
  j["options"] = nlohmann::json::array();
  for (const auto& o : p.options) {
    nlohmann::json jo{{"identifier", o.identifier}, {"display_name", o.display_name}, {"prefix", o.prefix},
                      {"postfix", o.postfix}, {"default_index", o.DefaultIndex()}};
    jo["entries"] = nlohmann::json::array();
    for (size_t i = 0; i < o.entries.size(); ++i)
      jo["entries"].push_back({{"name", o.entries[i].name}, {"value", o.entries[i].value},
                               {"preset", PresetSyntax(p, o, static_cast<int>(i))}});
    j["options"].push_back(jo);
  }
  return j;
}

// `info`'s text: what the profile is, runs, needs and reports.
void PrintProfileSummary(const TestProfile& p) {
  std::cout << Or(p.title, p.identifier) << " " << p.app_version << "  (" << p.identifier << ")\n";
  if (!p.description.empty()) std::cout << "  " << p.description << "\n";
  std::cout << "  directory:      " << p.directory << "\n";
  std::cout << "  test type:      " << Or(p.test_type, "-") << "   software type: " << Or(p.software_type, "-")
            << "   license: " << Or(p.license, "-") << "   status: " << Or(p.status, "-") << "\n";
  std::cout << "  maintainer:     " << Or(p.maintainer, "-") << "   project: " << Or(p.project_url, "-") << "\n";
  std::cout << "  result:         " << Or(p.result_scale, "(no scale)") << ", " << Or(p.proportion, "-") << ", "
            << p.display_format << (p.result_quantifier.empty() ? "" : ", " + p.result_quantifier) << "\n";
  std::cout << "  runs:           " << p.times_to_run;
  if (p.estimated_time_per_run > 0) std::cout << " x ~" << p.estimated_time_per_run << " s";
  std::cout << "\n  dependencies:   " << Or(Join(p.external_dependencies, ", "), "-") << "\n";
  if (!p.system_dependencies.empty()) std::cout << "  system needs:   " << Join(p.system_dependencies, ", ") << "\n";
  std::cout << "  platforms:      " << Or(Join(p.supported_platforms, ", "), "all")
            << "   architectures: " << Or(Join(p.supported_architectures, ", "), "all") << "\n";
  if (p.environment_size > 0) std::cout << "  install size:   " << p.environment_size << " MB\n";
  if (!p.extends_chain.empty()) std::cout << "  extends:        " << Join(p.extends_chain, " -> ") << "\n";
  if (!p.default_arguments.empty() || !p.default_post_arguments.empty())
    std::cout << "  arguments:      " << Quoted(p.default_arguments) << " ... " << Quoted(p.default_post_arguments) << "\n";
  long long download_bytes = 0;
  for (const auto& d : p.downloads) download_bytes += d.file_size;
  std::cout << "  downloads:      " << p.downloads.size() << " file(s)";
  if (download_bytes > 0) std::cout << ", " << (download_bytes + 524288) / 1048576 << " MB";
  std::cout << "\n  results parser: " << p.results.parsers.size() << " block(s)";
  if (!p.results.system_monitors.empty()) std::cout << ", monitor " << p.results.system_monitors[0].sensor;
  std::cout << "\n";
}

// `info`'s options: each entry with its value and the PRESET_OPTIONS that selects it.
void PrintProfileOptions(const TestProfile& p) {
  if (p.options.empty()) {
    std::cout << "\n  no options\n";
    return;
  }
  std::cout << "\n  options (select with PRESET_OPTIONS='" << p.BaseName() << ".<identifier>=<entry name or value>'):\n";
  for (const auto& o : p.options) {
    std::cout << "    " << o.identifier << "  \"" << o.display_name << "\"";
    if (!o.prefix.empty() || !o.postfix.empty()) std::cout << "  value = " << Quoted(o.prefix) << " + entry + " << Quoted(o.postfix);
    std::cout << "\n";
    if (o.entries.empty()) {
      std::cout << "      (free text)  " << PresetSyntax(p, o, -1) << "\n";
      continue;
    }
    int def = o.DefaultIndex();
    for (size_t i = 0; i < o.entries.size(); ++i) {
      const auto& e = o.entries[i];
      std::cout << "      " << i << ". " << e.name << "  -> " << Quoted(OptionEntryValue(o, static_cast<int>(i)))
                << (static_cast<int>(i) == def ? "  [default]" : "") << "\n         PRESET_OPTIONS="
                << Quoted(PresetSyntax(p, o, static_cast<int>(i))) << "\n";
    }
  }
  size_t combos = BatchOptions(p.options).size();
  std::cout << "\n  " << combos << " combination(s) in batch mode\n";
}

int Info(const std::vector<std::string>& argv) {
  Args args = Args::Parse(argv, {{"--server"}, {"--json", "--offline"}});
  if (args.positional().size() != 1) throw Error("usage: pts-native info PROFILE|SUITE [--server URL] [--offline]");
  ProfileRepository repo = Repository();
  const std::string& name = args.positional()[0];
  ProfileFetcher(repo, NetworkChoice::From(args)).EnsureProfile(name);  // pts/NAME not on disk: from the servers
  if (!repo.FindProfile(name) && repo.FindSuite(name)) {
    PrintSuite(repo.LoadSuite(name));
    return 0;
  }
  TestProfile p = repo.LoadProfile(name);
  if (args.Has("--json")) {
    std::cout << ProfileJson(p).dump(2) << "\n";
    return 0;
  }
  PrintProfileSummary(p);
  PrintProfileOptions(p);
  return 0;
}

// Newest version per repo/name unless every version is wanted.
std::vector<ProfileRef> NewestOnly(const std::vector<ProfileRef>& refs) {
  std::map<std::string, ProfileRef> newest;
  for (const auto& r : refs) {
    size_t slash = r.identifier.find('/');
    auto [name, version] = SplitNameVersion(r.identifier.substr(slash + 1));
    std::string key = r.identifier.substr(0, slash + 1) + name;
    auto it = newest.find(key);
    if (it == newest.end()) {
      newest.emplace(key, r);
      continue;
    }
    std::string old_version = SplitNameVersion(it->second.identifier.substr(slash + 1)).second;
    if (CompareVersions(version, old_version) > 0) it->second = r;
  }
  std::vector<ProfileRef> out;
  for (auto& [k, r] : newest) out.push_back(r);
  return out;
}

void PrintTestRow(const std::string& identifier, const std::string& title, const std::string& type, const char* mark) {
  std::string id = identifier, t = title;
  if (id.size() < 34) id.resize(34, ' ');
  if (t.size() < 36) t.resize(36, ' ');
  std::string line = id + " " + t + " " + type + mark;
  while (!line.empty() && line.back() == ' ') line.pop_back();
  std::cout << line << "\n";
}

// The tests of the servers' indexes (cached for profiles.index_ttl_days) that are not on disk,
// marked so; what is on disk is listed from the files. Returns how many were listed.
int ListIndexedTests(ProfileRepository& repo, const Args& args, const std::string& type) {
  ProfileFetcher fetcher(repo, NetworkChoice::From(args));
  int shown = 0;
  for (const std::string repo_name : {"pts", "system"}) {
    std::string why;
    auto index = fetcher.Source().Index(repo_name, &why);
    if (!index) {
      if (repo_name == "pts") std::cerr << "pts-native: the " << repo_name << " index is not available: " << why << "\n";
      continue;
    }
    for (const auto& [name, t] : index->tests) {
      if (t.versions.empty() || (!type.empty() && ToLower(t.test_type) != type)) continue;
      if (t.software_type == "BaseTestProfile") continue;
      const std::string base = repo_name + "/" + name;
      std::vector<std::string> versions = args.Has("--all-versions") ? t.versions : std::vector<std::string>{t.versions.front()};
      for (const auto& v : versions) {
        if (fetcher.Source().OnDisk(base + "-" + v)) continue;  // listed from its files
        PrintTestRow(base + "-" + v, t.title, t.test_type, "  (not downloaded)");
        ++shown;
      }
    }
  }
  return shown;
}

int ListTests(const std::vector<std::string>& argv) {
  Args args = Args::Parse(argv, {{"--type", "--server"}, {"--all-versions", "--offline", "--local"}});
  ProfileRepository repo = Repository();
  std::string type = ToLower(args.ValueOr("--type", ""));
  auto refs = repo.ListProfiles();
  if (!args.Has("--all-versions")) refs = NewestOnly(refs);
  int shown = 0, failed = 0;
  for (const auto& ref : refs) {
    TestProfile p;
    try {
      p = repo.LoadProfile(ref.identifier);
    } catch (const Error& e) {
      ++failed;
      std::cerr << "pts-native: skipped " << ref.identifier << ": " << e.what() << "\n";
      continue;
    }
    if (p.software_type == "BaseTestProfile") continue;
    if (!type.empty() && ToLower(p.test_type) != type) continue;
    PrintTestRow(p.identifier, p.title, p.test_type, "");
    ++shown;
  }
  if (!args.Has("--local")) shown += ListIndexedTests(repo, args, type);
  if (shown == 0) std::cerr << "no test profiles found (search paths: " << Join(repo.roots(), ", ") << ")\n";
  return failed > 0 && shown == 0 ? 1 : 0;
}

// PTS ranks OpenBenchmarking.org's tests by their download counts; with no network here, the
// ranking is what runs soonest on this machine: tests the suites found here run, then tests with
// nothing to download, then the rest. PTS's filters are kept: supported on Linux, Verified (or no
// status), a title; at most ten per subsystem.
int ListRecommended(const std::vector<std::string>& argv) {
  Args::Parse(argv, {{}, {}});
  ProfileRepository repo = Repository();
  auto unversioned = [](const std::string& id) {
    const size_t slash = id.find('/') + 1;  // (npos + 1 == 0: no repository part)
    return id.substr(0, slash) + SplitNameVersion(id.substr(slash)).first;
  };
  std::set<std::string> in_suites;
  for (const auto& ref : repo.ListSuites()) {
    try {
      for (const auto& e : repo.LoadSuite(ref.identifier).executes)
        if (auto found = repo.FindProfile(e.test)) in_suites.insert(unversioned(found->identifier));
    } catch (const Error&) {
    }
  }
  struct Pick {
    int rank;
    std::string identifier, title;
  };
  std::map<std::string, std::vector<Pick>> by_type;
  std::vector<std::string> types;
  for (const auto& ref : NewestOnly(repo.ListProfiles())) {
    TestProfile p;
    try {
      p = repo.LoadProfile(ref.identifier);
    } catch (const Error&) {
      continue;
    }
    const bool on_linux = p.supported_platforms.empty() ||
                       std::any_of(p.supported_platforms.begin(), p.supported_platforms.end(),
                                   [](const std::string& os) { return ToLower(os) == "linux"; });
    if (!on_linux || p.title.empty() || p.software_type == "BaseTestProfile") continue;
    if (!p.status.empty() && p.status != "Verified") continue;
    const int rank = in_suites.count(p.IdentifierWithoutVersion()) ? 0 : p.downloads.empty() ? 1 : 2;
    const std::string type = p.test_type.empty() ? "Other" : p.test_type;
    if (!by_type.count(type)) types.push_back(type);
    by_type[type].push_back({rank, p.identifier, p.title});
  }
  if (types.empty()) {
    std::cerr << "no test profiles found (search paths: " << Join(repo.roots(), ", ") << ")\n";
    return 0;
  }
  std::sort(types.begin(), types.end());
  std::cout << "Recommended Test Profiles (runnable here soonest: in a suite, then nothing to download)\n";
  for (const auto& type : types) {
    auto& picks = by_type[type];
    std::stable_sort(picks.begin(), picks.end(), [](const Pick& a, const Pick& b) { return a.rank < b.rank; });
    if (picks.size() > 10) picks.resize(10);
    std::cout << "\n" << type << " Tests\n";
    for (const auto& pick : picks) {
      std::string id = pick.identifier;
      if (id.size() < 34) id.resize(34, ' ');
      std::cout << "  " << id << " " << pick.title << "\n";
    }
  }
  return 0;
}

int ListSuites(const std::vector<std::string>& argv) {
  Args args = Args::Parse(argv, {{}, {}});
  ProfileRepository repo = Repository();
  int shown = 0;
  for (const auto& ref : repo.ListSuites()) {
    try {
      TestSuite s = repo.LoadSuite(ref.identifier);
      std::string id = s.identifier;
      if (id.size() < 34) id.resize(34, ' ');
      std::cout << id << " " << s.title << " (" << s.executes.size() << " tests)\n";
      ++shown;
    } catch (const Error& e) {
      std::cerr << "pts-native: skipped " << ref.identifier << ": " << e.what() << "\n";
    }
  }
  if (shown == 0) std::cerr << "no test suites found (search paths: " << Join(repo.roots(), ", ") << ")\n";
  return 0;
}

int ValidateCmd(const std::vector<std::string>& argv) {
  Args args = Args::Parse(argv, {{"--schemas"}, {"--strict", "--no-schemas", "--quiet"}});
  if (args.positional().empty()) throw Error("usage: pts-native validate-test-profile PROFILE_DIR|NAME...");
  ProfileRepository repo = Repository();
  std::string schemas = args.Has("--no-schemas")
                            ? ""
                            : DefaultSchemaDirectory(args.ValueOr("--schemas", GlobalSettings().Get("profiles.schema_dir")));
  int exit_code = 0;
  for (const auto& name : args.positional()) {
    bool suite = !repo.FindProfile(name) && repo.FindSuite(name);
    ValidationReport r = suite ? ValidateSuite(repo, name, schemas) : ValidateProfile(repo, name, schemas);
    if (!r.loaded) {
      std::cout << "FAIL " << name << ": " << r.error << "\n";
      exit_code = 1;
      continue;
    }
    if (!args.Has("--quiet"))
      for (const auto& i : r.issues) std::cout << "  warning: " << i.ToString() << "\n";
    std::cout << (r.issues.empty() ? "OK   " : "OK   ") << r.identifier
              << (r.issues.empty() ? "" : " (" + std::to_string(r.issues.size()) + " warning(s))")
              << (schemas.empty() ? " [no schemas available: structural checks only]" : "") << "\n";
    if (args.Has("--strict") && !r.issues.empty()) exit_code = 1;
  }
  return exit_code;
}

// The description of `arguments` among the profile's option combinations ("" when none fits).
std::string DescriptionFor(const TestProfile& p, const std::string& arguments, bool* found) {
  *found = false;
  std::vector<TestOption> processed = p.options;
  AutoProcessOptions(&processed, DetectMachineFacts(), p.external_dependencies);
  for (const std::vector<TestOption>* options : {&p.options, static_cast<const std::vector<TestOption>*>(&processed)})
    for (const auto& combo : BatchOptions(*options))
      if (combo.arguments == arguments) {
        *found = true;
        return combo.description;
      }
  return "";
}

// The arguments and description the parser is given: the options as asked, else the profile's
// defaults (with a note saying so).
struct ParserInput {
  std::string arguments, description;
  std::vector<std::string> notes;
};

ParserInput ParserInputFor(const TestProfile& p, const Args& args) {
  ParserInput in;
  if (auto a = args.Value("--args")) {
    in.arguments = *a;
  } else if (!p.options.empty()) {
    std::vector<RunOption> defaults = DefaultOptions(p.options);
    if (!defaults.empty()) in.arguments = defaults[0].arguments;
    in.notes.push_back("no --args: using the profile's default options '" + in.arguments + "'");
  }
  if (auto d = args.Value("--description")) {
    in.description = *d;
  } else {
    bool found = false;
    in.description = DescriptionFor(p, in.arguments, &found);
    if (!found && !p.options.empty())
      in.notes.push_back("no option combination has the arguments '" + in.arguments + "': description left empty");
  }
  return in;
}

// Each result the parser made, saved or dropped (and why), with its trials.
void PrintParsedResults(const TestProfile& p, const std::vector<ParsedResult>& results) {
  int saved = 0;
  for (const auto& r : results) {
    FinalValue f = FinalizeResult(r, p.result_quantifier);
    std::cout << (f.saved ? "RESULT  " : "DROPPED ") << Or(f.value, "(empty)") << " " << r.scale << " (" << r.proportion
              << ", " << r.display_format << ")  " << Quoted(r.description) << "  from block " << r.block;
    if (r.is_secondary) std::cout << ", secondary";
    std::cout << "\n        trials: " << Join(r.trial_values, ", ");
    if (f.min) std::cout << "  min " << *f.min;
    if (f.max) std::cout << "  max " << *f.max;
    if (!f.saved) std::cout << "  (" << f.reason << ")";
    std::cout << "\n";
    if (f.saved) ++saved;
  }
  if (results.empty()) std::cout << "no result: no ResultsParser block matched (see the trace above)\n";
  else if (saved == 0) std::cout << "no result saved\n";
}

int DebugResultParser(const std::vector<std::string>& argv) {
  Args args = Args::Parse(argv, {{"--args", "--description"}, {"--json"}});
  if (args.positional().size() < 2)
    throw Error("usage: pts-native debug-result-parser PROFILE_DIR OUTPUT_FILE... [--args ARGS] [--description DESC] [--json]");
  ProfileRepository repo = Repository();
  TestProfile p = repo.LoadProfile(args.positional()[0]);
  const ParserInput in = ParserInputFor(p, args);
  ParseSession session(p.results, ParseContextFor(p, in.arguments, in.description));
  std::vector<std::string> trace;
  for (size_t i = 1; i < args.positional().size(); ++i) {
    const std::string& path = args.positional()[i];
    std::string log = ReadFile(path);  // throws "PATH: ..." when unreadable
    if (args.positional().size() > 2) trace.push_back("--- trial " + std::to_string(i) + ": " + path);
    session.ParseLog(log, &trace);
  }
  std::vector<ParsedResult> results = session.Results();
  if (args.Has("--json")) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& r : results) {
      FinalValue f = FinalizeResult(r, p.result_quantifier);
      if (!f.saved) continue;
      out.push_back({{"value", f.value}, {"scale", r.scale}, {"proportion", r.proportion}, {"description", r.description}});
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::cout << "profile:     " << p.identifier << " (" << p.directory << ")\n";
  std::cout << "arguments:   " << Quoted(in.arguments) << "\nprogram got: " << Quoted(session.pts_test_arguments())
            << "\ndescription: " << Quoted(in.description) << "\n";
  for (const auto& n : in.notes) std::cout << "note:        " << n << "\n";
  std::cout << "\n";
  for (const auto& t : trace) std::cout << "  " << t << "\n";
  std::cout << "\n";
  PrintParsedResults(p, results);
  return 0;
}

}  // namespace

std::vector<Command> ProfileCommands() {
  return {
      {"info", {"profile-info"}, "Profiles", "PROFILE|SUITE [--json] [--server URL] [--offline]",
       "title, options with the PRESET_OPTIONS to pick them, scale, runs, dependencies (pts/NAME fetched when not on disk)", Info},
      {"list-available-tests", {"list-tests"}, "Profiles",
       "[--type Disk|System|Processor...] [--all-versions] [--server URL] [--offline] [--local]",
       "test profiles on disk, and the servers' index of those not yet downloaded (marked)", ListTests},
      {"list-available-suites", {"list-suites"}, "Profiles", "", "test suites found in the search paths", ListSuites},
      {"list-recommended-tests", {}, "Profiles", "",
       "up to ten tests per subsystem that run here soonest (in a suite, nothing to download)", ListRecommended,
       "PTS ranks OpenBenchmarking.org's tests by download counts, which needs the network; this command\n"
       "opens no socket and ranks the profiles found here: tests of the suites first, then tests with\n"
       "nothing to download, then the rest. Like PTS it lists only Verified (or unrated) tests that\n"
       "support Linux."},
      {"validate-test-profile", {"validate-profile"}, "Profiles",
       "PROFILE_DIR|NAME... [--strict] [--schemas DIR] [--no-schemas]",
       "check that profiles load; report schema and structural problems", ValidateCmd},
      {"debug-result-parser", {}, "Profiles",
       "PROFILE_DIR OUTPUT_FILE... [--args ARGS] [--description DESC] [--json]",
       "run the results parser on program output and explain what matched", DebugResultParser},
  };
}

}  // namespace ptsn::cli
