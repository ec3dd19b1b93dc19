#include "runner/profile/profile_loader.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/profile/schema_set.h"

namespace ptsn::profile {

namespace fs = std::filesystem;

namespace {

// Element names PTS 10.8.6 reads (and the schemas list); anything else is reported.
const std::set<std::string, std::less<>> kTestInformation = {
    "Title", "AppVersion", "Description", "ResultScale", "Proportion", "ResultQuantifier", "DisplayFormat",
    "SubTitle", "Executable", "TimesToRun", "IgnoreRuns", "PreInstallMessage", "PostInstallMessage",
    "InstallationAgreement", "PreRunMessage", "PostRunMessage"};
const std::set<std::string, std::less<>> kTestProfile = {
    "Version", "SupportedPlatforms", "SoftwareType", "TestType", "License", "Status", "SupportedArchitectures",
    "ExternalDependencies", "SystemDependencies", "Extends", "RequiresRoot", "RequiresRootInstall",
    "RequiresDisplay", "RequiresNetwork", "RequiresInternet", "InstallRequiresInternet", "EnvironmentSize",
    "EnvironmentTestingSize", "EstimatedTimePerRun", "ProjectURL", "RepositoryURL", "InternalTags", "Maintainer",
    "AutoSaveResults", "AllowResultsSharing", "RemoveInstallDirectoryOnReinstall", "RequiresCoreVersionMin",
    "RequiresCoreVersionMax"};
const std::set<std::string, std::less<>> kDefault = {"Arguments", "PostArguments", "AllowCacheShare", "MinimumLength",
                                                     "MaximumLength"};
const std::set<std::string, std::less<>> kOption = {"DisplayName", "Identifier", "ArgumentPrefix", "ArgumentPostfix",
                                                    "Message", "DefaultEntry", "Menu"};
const std::set<std::string, std::less<>> kEntry = {"Name", "Value", "Message"};
const std::set<std::string, std::less<>> kSystemMonitor = {"Sensor", "PollingFrequency", "Report"};
const std::set<std::string, std::less<>> kImageParser = {"SourceImage", "MatchToTestArguments", "ImageX", "ImageY",
                                                         "ImageWidth", "ImageHeight"};
const std::set<std::string, std::less<>> kPackage = {"URL", "MD5", "SHA256", "FileName", "FileSize",
                                                     "PlatformSpecific", "ArchitectureSpecific", "Optional"};
const std::set<std::string, std::less<>> kSuiteInformation = {
    "Title", "Version", "TestType", "Description", "Maintainer", "Status", "RunMode", "RequiresCoreVersionMin",
    "RequiresCoreVersionMax", "PreRunMessage", "PostRunMessage"};
const std::set<std::string, std::less<>> kExecute = {"Test", "Mode", "Arguments", "Description", "OptionSelect",
                                                     "OverrideTestOptions"};

void Issue(std::vector<LoadIssue>* issues, const std::string& file, const std::string& element,
           const std::string& message, bool fatal) {
  if (issues) issues->push_back({file, element, message, fatal});
}

std::string Where(const std::string& path, const XmlElement& e) {
  return path + (e.line > 0 ? " (line " + std::to_string(e.line) + ")" : "");
}

void CheckChildren(const XmlElement& parent, const std::set<std::string, std::less<>>& known,
                   const std::string& path, const std::string& file, std::vector<LoadIssue>* issues) {
  for (const auto& c : parent.children)
    if (!known.count(c.name))
      Issue(issues, file, Where(path + "/" + c.name, c), "unknown element (PTS ignores it)", true);
}

void CheckRoot(const XmlElement& root, const std::string& file) {
  if (root.name != "PhoronixTestSuite")
    throw FileError(file, root.name + ": root element must be <PhoronixTestSuite>");
}

const std::string kTemplateFrameTime[] = {"libframetime-output", "libframetime-output-no-limit",
                                          "csv-dump-frame-latencies"};

}  // namespace

void ParseTestDefinition(const XmlElement& root, const std::string& file, ProfileSource* out,
                         std::vector<LoadIssue>* issues) {
  CheckRoot(root, file);
  for (const auto& section : root.children) {
    if (section.name == "TestInformation" || section.name == "TestProfile") {
      CheckChildren(section, section.name == "TestInformation" ? kTestInformation : kTestProfile, section.name, file,
                    issues);
      for (const auto& e : section.children) out->fields.try_emplace(section.name + "/" + e.name, e.text);
    } else if (section.name == "TestSettings") {
      int option_no = 0;
      for (const auto& e : section.children) {
        if (e.name == "Default") {
          CheckChildren(e, kDefault, "TestSettings/Default", file, issues);
          for (const auto& d : e.children) out->fields.try_emplace("TestSettings/Default/" + d.name, d.text);
        } else if (e.name == "Option") {
          ++option_no;
          std::string path = "TestSettings/Option[" + std::to_string(option_no) + "]";
          CheckChildren(e, kOption, path, file, issues);
          TestOption o;
          o.identifier = e.ChildText("Identifier");
          o.display_name = e.ChildText("DisplayName");
          o.message = e.ChildText("Message");
          o.prefix = e.ChildText("ArgumentPrefix");
          o.postfix = e.ChildText("ArgumentPostfix");
          o.default_entry_raw = e.ChildText("DefaultEntry");
          if (o.identifier.empty())
            Issue(issues, file, Where(path + "/Identifier", e), "option has no Identifier (PRESET_OPTIONS cannot name it)",
                  false);
          // Like SimpleXML's $option->Menu->Entry: only the first Menu counts.
          if (const XmlElement* menu = e.Child("Menu")) {
            for (const auto& m : menu->children) {
              if (m.name != "Entry") {
                Issue(issues, file, Where(path + "/Menu/" + m.name, m), "unknown element (PTS ignores it)", true);
                continue;
              }
              CheckChildren(m, kEntry, path + "/Menu/Entry", file, issues);
              o.entries.push_back({m.ChildText("Name"), m.ChildText("Value"), m.ChildText("Message")});
            }
            if (o.entries.empty())
              Issue(issues, file, Where(path + "/Menu", *menu),
                    "option '" + o.identifier + "' has a Menu without any Entry", true);
          }
          out->options.push_back(std::move(o));
        } else {
          Issue(issues, file, Where("TestSettings/" + e.name, e), "unknown element (PTS ignores it)", true);
        }
      }
    } else {
      Issue(issues, file, Where(section.name, section), "unknown element (PTS ignores it)", true);
    }
  }
}

ResultsDefinition ParseResultsDefinition(const XmlElement& root, const std::string& file,
                                         std::vector<LoadIssue>* issues) {
  CheckRoot(root, file);
  ResultsDefinition def;
  def.path = file;
  int parser_no = 0;
  for (const auto& b : root.children) {
    if (b.name == "ResultsParser") {
      ++parser_no;
      ResultsParserBlock p;
      p.line = b.line;
      const std::pair<const char*, std::string ResultsParserBlock::*> kFields[] = {
          {"OutputTemplate", &ResultsParserBlock::output_template},
          {"MatchToTestArguments", &ResultsParserBlock::match_to_test_arguments},
          {"ResultKey", &ResultsParserBlock::result_key},
          {"LineHint", &ResultsParserBlock::line_hint},
          {"LineBeforeHint", &ResultsParserBlock::line_before_hint},
          {"LineAfterHint", &ResultsParserBlock::line_after_hint},
          {"ResultBeforeString", &ResultsParserBlock::result_before_string},
          {"ResultAfterString", &ResultsParserBlock::result_after_string},
          {"StripFromResult", &ResultsParserBlock::strip_from_result},
          {"StripResultPostfix", &ResultsParserBlock::strip_result_postfix},
          {"MultiMatch", &ResultsParserBlock::multi_match},
          {"DivideResultBy", &ResultsParserBlock::divide_result_by},
          {"DivideResultDivisor", &ResultsParserBlock::divide_result_divisor},
          {"MultiplyResultBy", &ResultsParserBlock::multiply_result_by},
          {"ResultScale", &ResultsParserBlock::result_scale},
          {"ResultProportion", &ResultsParserBlock::result_proportion},
          {"ResultPrecision", &ResultsParserBlock::result_precision},
          {"ArgumentsDescription", &ResultsParserBlock::arguments_description},
          {"AppendToArgumentsDescription", &ResultsParserBlock::append_to_arguments_description},
          {"FileFormat", &ResultsParserBlock::file_format},
          {"TurnCharsToSpace", &ResultsParserBlock::turn_chars_to_space},
          {"DeleteOutputBefore", &ResultsParserBlock::delete_output_before},
          {"DeleteOutputAfter", &ResultsParserBlock::delete_output_after},
          {"DisplayFormat", &ResultsParserBlock::display_format},
          {"Importance", &ResultsParserBlock::importance},
      };
      std::string path = "ResultsParser[" + std::to_string(parser_no) + "]";
      for (const auto& c : b.children) {
        bool known = false;
        for (const auto& [name, member] : kFields)
          if (c.name == name) known = true;
        if (!known) Issue(issues, file, Where(path + "/" + c.name, c), "unknown element (PTS ignores it)", true);
      }
      for (const auto& [name, member] : kFields) p.*member = b.ChildText(name);
      if (!b.HasChild("OutputTemplate")) {
        Issue(issues, file, Where(path, b), "no OutputTemplate: this block can never produce a result", false);
      } else if (p.file_format != "XML" && p.result_key.empty() &&
                 std::find(std::begin(kTemplateFrameTime), std::end(kTemplateFrameTime), p.output_template) ==
                     std::end(kTemplateFrameTime) &&
                 p.output_template.find("#_RESULT_#") == std::string::npos) {
        Issue(issues, file, Where(path + "/OutputTemplate", b),
              "template has no #_RESULT_# key; PTS falls back to guessing the token position", false);
      }
      if (!p.file_format.empty() && p.file_format != "CSV" && p.file_format != "XML")
        Issue(issues, file, Where(path + "/FileFormat", b), "FileFormat '" + p.file_format + "' is neither CSV nor XML",
              false);
      def.parsers.push_back(std::move(p));
    } else if (b.name == "SystemMonitor") {
      CheckChildren(b, kSystemMonitor, "SystemMonitor", file, issues);
      def.system_monitors.push_back({b.ChildText("Sensor"), b.ChildText("PollingFrequency"), b.ChildText("Report")});
    } else if (b.name == "ExtraData") {
      def.extra_data.push_back(b.ChildText("Identifier"));
    } else if (b.name == "ImageParser") {
      CheckChildren(b, kImageParser, "ImageParser", file, issues);
      def.image_parsers.push_back({b.ChildText("SourceImage"), b.ChildText("MatchToTestArguments"),
                                   b.ChildText("ImageX"), b.ChildText("ImageY"), b.ChildText("ImageWidth"),
                                   b.ChildText("ImageHeight")});
    } else {
      Issue(issues, file, Where(b.name, b), "unknown element (PTS ignores it)", true);
    }
  }
  return def;
}

std::vector<Download> ParseDownloads(const XmlElement& root, const std::string& file, std::vector<LoadIssue>* issues) {
  CheckRoot(root, file);
  std::vector<Download> out;
  for (const auto& section : root.children) {
    if (section.name != "Downloads") {
      Issue(issues, file, Where(section.name, section), "unknown element (PTS ignores it)", true);
      continue;
    }
    for (const auto& pkg : section.children) {
      if (pkg.name != "Package") {
        Issue(issues, file, Where("Downloads/" + pkg.name, pkg), "unknown element (PTS ignores it)", true);
        continue;
      }
      CheckChildren(pkg, kPackage, "Downloads/Package", file, issues);
      Download d;
      d.urls = CommaList(pkg.ChildText("URL"));
      d.md5 = Trim(pkg.ChildText("MD5"));
      d.sha256 = Trim(pkg.ChildText("SHA256"));
      d.file_name = Trim(pkg.ChildText("FileName"));
      std::string raw_url = pkg.ChildText("URL");
      if (d.file_name.empty()) {
        // PTS: basename() of the whole URL text (with several mirrors that is the last one's name).
        std::string u = raw_url;
        while (!u.empty() && u.back() == '/') u.pop_back();
        d.file_name = u.substr(u.rfind('/') == std::string::npos ? 0 : u.rfind('/') + 1);
      }
      if (d.file_name == raw_url) d.urls.clear();  // PTS: FileName == URL means no URL
      std::string size = Trim(pkg.ChildText("FileSize"));
      d.file_size = size.empty() ? 0 : std::atoll(size.c_str());
      d.platform_specific = CommaList(pkg.ChildText("PlatformSpecific"));
      d.architecture_specific = CommaList(pkg.ChildText("ArchitectureSpecific"));
      d.optional = ParsePtsBool(pkg.ChildText("Optional"), false);
      if (d.file_name.empty())
        Issue(issues, file, Where("Downloads/Package", pkg), "package has neither URL nor FileName", true);
      out.push_back(std::move(d));
    }
  }
  return out;
}

TestSuite ParseSuiteDefinition(const XmlElement& root, const std::string& file, std::vector<LoadIssue>* issues) {
  CheckRoot(root, file);
  TestSuite s;
  for (const auto& section : root.children) {
    if (section.name == "SuiteInformation") {
      CheckChildren(section, kSuiteInformation, "SuiteInformation", file, issues);
      s.title = section.ChildText("Title");
      s.version = section.ChildText("Version");
      s.test_type = section.ChildText("TestType");
      s.description = section.ChildText("Description");
      s.maintainer = section.ChildText("Maintainer");
      s.status = section.ChildText("Status");
      s.run_mode = section.ChildText("RunMode");
      s.pre_run_message = section.ChildText("PreRunMessage");
      s.post_run_message = section.ChildText("PostRunMessage");
      s.requires_core_version_min = section.ChildText("RequiresCoreVersionMin");
      s.requires_core_version_max = section.ChildText("RequiresCoreVersionMax");
    } else if (section.name == "Execute") {
      CheckChildren(section, kExecute, "Execute", file, issues);
      SuiteExecute e;
      e.test = Trim(section.ChildText("Test"));
      e.arguments = section.ChildText("Arguments");
      e.description = section.ChildText("Description");
      e.mode = Trim(section.ChildText("Mode"));
      e.option_select = section.ChildText("OptionSelect");
      e.override_test_options = section.ChildText("OverrideTestOptions");
      if (e.test.empty()) Issue(issues, file, Where("Execute/Test", section), "Execute without a Test", true);
      if (!e.mode.empty() && e.mode != "BATCH" && e.mode != "DEFAULTS")
        Issue(issues, file, Where("Execute/Mode", section), "Mode '" + e.mode + "' is neither BATCH nor DEFAULTS", false);
      s.executes.push_back(std::move(e));
    } else {
      Issue(issues, file, Where(section.name, section), "unknown element (PTS ignores it)", true);
    }
  }
  return s;
}

std::string IdentifierForDirectory(const std::string& dir) {
  fs::path p = fs::path(dir).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  std::string base = p.filename().string();
  std::string repo = p.parent_path().filename().string();
  return repo.empty() ? base : repo + "/" + base;
}

namespace {

// No empty, "." or ".." component and no trailing '/': lexically_normal() would return it as is.
bool AlreadyNormal(std::string_view dir) {
  if (dir.empty() || (dir.size() > 1 && dir.back() == '/')) return false;
  size_t start = dir[0] == '/' ? 1 : 0;
  while (start <= dir.size()) {
    size_t end = dir.find('/', start);
    if (end == std::string_view::npos) end = dir.size();
    std::string_view part = dir.substr(start, end - start);
    if (part.empty() ? dir.size() > 1 : part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

}  // namespace

std::string NormalizeDirectory(const std::string& dir) {
  if (AlreadyNormal(dir)) return dir;
  std::string d = fs::path(dir).lexically_normal().string();
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  return d;
}

uint64_t ListingHash(const std::vector<DirEntry>& entries) {
  uint64_t h = entries.size();
  for (const auto& e : entries) h = ContentHash(e.name, h * 4 + e.is_directory * 2 + e.is_regular);
  return h;
}

bool IsProfileInput(std::string_view name) {
  return name == "test-definition.xml" || name == "results-definition.xml" || name == "downloads.xml";
}

ProfileSource ReadProfileDirectory(const std::string& dir, const std::string& identifier,
                                   std::vector<LoadIssue>* issues, const DirectoryRead& how) {
  ProfileSource src;
  src.directory = NormalizeDirectory(dir);
  src.identifier = identifier.empty() ? IdentifierForDirectory(src.directory) : identifier;
  // One directory listing tells which files exist (no stat per file).
  std::vector<DirEntry> own_listing;
  const std::vector<DirEntry>* listing = how.listing;
  if (!listing) {
    ListDirectory(src.directory, &own_listing);
    listing = &own_listing;
  }
  auto has = [&](std::string_view name) {
    auto it = std::lower_bound(listing->begin(), listing->end(), name,
                               [](const DirEntry& e, std::string_view n) { return e.name < n; });
    return it != listing->end() && it->name == name;
  };
  if (how.inputs) *how.inputs = ProfileInputs{ListingHash(*listing), {}};
  if (!has("test-definition.xml")) throw FileError(src.directory, "no test-definition.xml (not a test profile)");
  std::string content, error;
  // Reads `name` once, hashes it for the cache, parses it once and validates that same tree.
  auto parse = [&](const std::string& name, const std::string& path) {
    FileStamp stamp;
    if (!ReadWholeFile(path, &content, &error, how.inputs ? &stamp : nullptr))
      throw FileError(path, "cannot open: " + error);
    if (how.inputs) how.inputs->files.push_back({name, ContentHash(content), stamp});
    if (!how.schemas || !how.schema_issues) return ParseXmlString(content, path);
    return ParseXmlString(content, path, [&](_xmlDoc* doc) { how.schemas->Validate(name, path, doc, how.schema_issues); });
  };
  std::string def_path = src.directory + "/test-definition.xml";
  ParseTestDefinition(parse("test-definition.xml", def_path), def_path, &src, issues);
  if (has("results-definition.xml")) {
    std::string results_path = src.directory + "/results-definition.xml";
    src.results = ParseResultsDefinition(parse("results-definition.xml", results_path), results_path, issues);
  }
  if (has("downloads.xml")) {
    std::string downloads_path = src.directory + "/downloads.xml";
    src.has_downloads_file = true;
    src.downloads = ParseDownloads(parse("downloads.xml", downloads_path), downloads_path, issues);
  }
  for (const auto& e : *listing)
    if (EndsWith(e.name, ".sh")) src.scripts.emplace_hint(src.scripts.end(), e.name, src.directory + "/" + e.name);
  return src;
}

TestSuite ReadSuiteDirectory(const std::string& dir, const std::string& identifier, std::vector<LoadIssue>* issues) {
  std::string d = NormalizeDirectory(dir);
  std::string path = d + "/suite-definition.xml";
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw FileError(d, "no suite-definition.xml (not a test suite)");
  TestSuite s = ParseSuiteDefinition(ParseXmlFile(path), path, issues);
  s.directory = d;
  s.identifier = identifier.empty() ? IdentifierForDirectory(d) : identifier;
  return s;
}

namespace {

// How one "Section/Element" field sets the typed members. An absent field is handled as an empty
// one (PTS's xg() gives "" for both), which gives every member its default.
struct TypedField {
  std::string_view key;
  void (*set)(TestProfile* p, const std::string& text);
};

double Number(const std::string& text, double fallback) {
  std::string t = Trim(text);
  return t.empty() ? fallback : std::atof(t.c_str());
}

template <std::string TestProfile::*M>
void SetText(TestProfile* p, const std::string& t) {
  p->*M = t;
}
template <std::vector<std::string> TestProfile::*M>
void SetList(TestProfile* p, const std::string& t) {
  p->*M = CommaList(t);
}
template <bool TestProfile::*M, bool kFallback>
void SetBool(TestProfile* p, const std::string& t) {
  p->*M = ParsePtsBool(t, kFallback);
}

// Sorted by key (checked below) so one pass over the sorted fields map finds them all.
constexpr TypedField kTypedFields[] = {
    {"TestInformation/AppVersion", SetText<&TestProfile::app_version>},
    {"TestInformation/Description", SetText<&TestProfile::description>},
    {"TestInformation/DisplayFormat",
     [](TestProfile* p, const std::string& t) { p->display_format = t.empty() ? "BAR_GRAPH" : t; }},
    {"TestInformation/Executable", SetText<&TestProfile::executable>},  // defaulted after the walk
    {"TestInformation/IgnoreRuns",
     [](TestProfile* p, const std::string& t) {
       p->ignore_runs.clear();
       for (const auto& r : CommaList(t)) p->ignore_runs.push_back(std::atoi(r.c_str()));
     }},
    {"TestInformation/InstallationAgreement", SetText<&TestProfile::installation_agreement>},
    {"TestInformation/PostInstallMessage", SetText<&TestProfile::post_install_message>},
    {"TestInformation/PostRunMessage", SetText<&TestProfile::post_run_message>},
    {"TestInformation/PreInstallMessage", SetText<&TestProfile::pre_install_message>},
    {"TestInformation/PreRunMessage", SetText<&TestProfile::pre_run_message>},
    {"TestInformation/Proportion", SetText<&TestProfile::proportion>},
    {"TestInformation/ResultQuantifier", SetText<&TestProfile::result_quantifier>},
    {"TestInformation/ResultScale", SetText<&TestProfile::result_scale>},
    {"TestInformation/SubTitle", SetText<&TestProfile::subtitle>},
    {"TestInformation/TimesToRun",
     [](TestProfile* p, const std::string& t) { p->times_to_run = static_cast<int>(Number(t, 3)); }},
    {"TestInformation/Title", SetText<&TestProfile::title>},
    {"TestProfile/AllowResultsSharing", SetBool<&TestProfile::allow_results_sharing, true>},
    {"TestProfile/AutoSaveResults", SetBool<&TestProfile::auto_save_results, false>},
    {"TestProfile/EnvironmentSize", [](TestProfile* p, const std::string& t) { p->environment_size = Number(t, 0); }},
    {"TestProfile/EnvironmentTestingSize",
     [](TestProfile* p, const std::string& t) { p->environment_testing_size = Number(t, 0); }},
    {"TestProfile/EstimatedTimePerRun",
     [](TestProfile* p, const std::string& t) { p->estimated_time_per_run = Number(t, 0); }},
    {"TestProfile/Extends", [](TestProfile* p, const std::string& t) { p->extends = Trim(t); }},
    {"TestProfile/ExternalDependencies", SetList<&TestProfile::external_dependencies>},
    {"TestProfile/InstallRequiresInternet", SetBool<&TestProfile::install_requires_internet, false>},
    {"TestProfile/InternalTags", SetList<&TestProfile::internal_tags>},
    {"TestProfile/License", SetText<&TestProfile::license>},
    {"TestProfile/Maintainer", SetText<&TestProfile::maintainer>},
    {"TestProfile/ProjectURL", SetText<&TestProfile::project_url>},
    {"TestProfile/RemoveInstallDirectoryOnReinstall",
     SetBool<&TestProfile::remove_install_directory_on_reinstall, true>},
    {"TestProfile/RepositoryURL", SetText<&TestProfile::repository_url>},
    {"TestProfile/RequiresCoreVersionMax",
     [](TestProfile* p, const std::string& t) { p->requires_core_version_max = static_cast<int>(Number(t, 19990)); }},
    {"TestProfile/RequiresCoreVersionMin",
     [](TestProfile* p, const std::string& t) { p->requires_core_version_min = static_cast<int>(Number(t, 2950)); }},
    {"TestProfile/RequiresDisplay", SetBool<&TestProfile::requires_display, false>},
    {"TestProfile/RequiresInternet", SetBool<&TestProfile::requires_internet, false>},
    {"TestProfile/RequiresNetwork", SetBool<&TestProfile::requires_network, false>},
    {"TestProfile/RequiresRoot", SetBool<&TestProfile::requires_root, false>},
    {"TestProfile/RequiresRootInstall", SetBool<&TestProfile::requires_root_install, false>},
    {"TestProfile/SoftwareType", SetText<&TestProfile::software_type>},
    {"TestProfile/Status", SetText<&TestProfile::status>},
    {"TestProfile/SupportedArchitectures", SetList<&TestProfile::supported_architectures>},
    {"TestProfile/SupportedPlatforms", SetList<&TestProfile::supported_platforms>},
    {"TestProfile/SystemDependencies", SetList<&TestProfile::system_dependencies>},
    {"TestProfile/TestType", SetText<&TestProfile::test_type>},
    {"TestProfile/Version", SetText<&TestProfile::version>},
    {"TestSettings/Default/AllowCacheShare", SetBool<&TestProfile::allow_cache_share, true>},
    {"TestSettings/Default/Arguments", SetText<&TestProfile::default_arguments>},
    {"TestSettings/Default/MaximumLength", SetText<&TestProfile::maximum_length>},
    {"TestSettings/Default/MinimumLength", SetText<&TestProfile::minimum_length>},
    {"TestSettings/Default/PostArguments", SetText<&TestProfile::default_post_arguments>},
};
static_assert(std::is_sorted(std::begin(kTypedFields), std::end(kTypedFields),
                             [](const TypedField& a, const TypedField& b) { return a.key < b.key; }),
              "kTypedFields must be sorted by key");

}  // namespace

void FillTypedFields(TestProfile* p) {
  static const std::string kAbsent;
  auto it = p->fields.begin(), end = p->fields.end();
  for (const auto& f : kTypedFields) {
    while (it != end && std::string_view(it->first) < f.key) ++it;
    f.set(p, it != end && it->first == f.key ? it->second : kAbsent);
  }
  if (p->executable.empty()) p->executable = p->BaseName();
}

}  // namespace ptsn::profile
