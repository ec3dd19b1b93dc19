#include "runner/profile/validate.h"

#include <libxml/parser.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/profile/php_compat.h"
#include "runner/profile/profile_files.h"
#include "runner/profile/schema_set.h"

#ifndef PTSN_SHARED_DIR
#define PTSN_SHARED_DIR ""
#endif

namespace ptsn::profile {

namespace fs = std::filesystem;

std::string DefaultSchemaDirectory(const std::string& setting_value) {
  if (!setting_value.empty()) return setting_value;
  std::string shared = std::string(PTSN_SHARED_DIR) + "/reference/schemas";
  std::error_code ec;
  if (!std::string(PTSN_SHARED_DIR).empty() && fs::is_regular_file(shared + "/test-profile.xsd", ec)) return shared;
  return "";
}

namespace {
void IgnoreError(void*, xmlErrorPtr) {}
}  // namespace

std::vector<LoadIssue> ValidateAgainstSchema(const std::string& xml_path, const std::string& xsd_path) {
  std::vector<LoadIssue> issues;
  xmlSetStructuredErrorFunc(nullptr, IgnoreError);
  std::string content, error;
  xmlDocPtr doc = ReadWholeFile(xml_path, &content, &error)
                      ? xmlReadMemory(content.data(), static_cast<int>(content.size()), xml_path.c_str(), nullptr,
                                      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING)
                      : nullptr;
  if (!doc) {
    issues.push_back({xml_path, "", "malformed XML", true});
    return issues;
  }
  try {
    ValidateDocument(doc, xml_path, xsd_path, &issues);
  } catch (...) {
    xmlFreeDoc(doc);
    throw;
  }
  xmlFreeDoc(doc);
  return issues;
}

bool AllowedInTestPackage(const std::string& name) {
  // pts_validation::test_profile_permitted_files(); changelog.json and generated.json are
  // deleted by PTS's validate-test-profile before it looks, so they never fail it.
  static const std::set<std::string> kAllowed = [] {
    std::set<std::string> files = {"downloads.xml", "test-definition.xml", "results-definition.xml", "install.sh",
                                   "support-check.sh", "pre.sh", "post.sh", "interim.sh", "post-cache-share.sh",
                                   "changelog.json", "generated.json"};
    for (const char* os : {"linux", "solaris", "bsd", "macosx", "windows", "hurd"})
      for (const char* script : {"support-check", "install", "pre", "post", "interim"})
        files.insert(std::string(script) + "_" + os + ".sh");
    return files;
  }();
  return kAllowed.count(name) > 0;
}

std::vector<LoadIssue> StructuralChecks(const TestProfile& p) {
  std::vector<LoadIssue> out;
  std::string def = p.directory + "/test-definition.xml";
  auto warn = [&](const std::string& file, const std::string& element, const std::string& msg) {
    out.push_back({file, element, msg, false});
  };
  bool base = p.software_type == "BaseTestProfile";
  std::error_code ec;
  std::vector<std::string> extra;
  for (fs::directory_iterator it(p.directory, ec), end; !ec && it != end; it.increment(ec))
    if (!it->is_regular_file() || !AllowedInTestPackage(it->path().filename().string()))
      extra.push_back(it->path().filename().string());
  std::sort(extra.begin(), extra.end());
  for (const auto& name : extra)
    warn(p.directory + "/" + name, "", "not allowed in the test package (PTS's validate-test-profile fails the profile)");
  if (!base && p.title.empty()) warn(def, "TestInformation/Title", "missing: PTS skips profiles without a title");
  if (!base && p.test_type.empty()) warn(def, "TestProfile/TestType", "missing (Disk, System, Processor, ...)");
  static const std::set<std::string> kFormats = {"BAR_GRAPH", "LINE_GRAPH", "FILLED_LINE_GRAPH", "PASS_FAIL",
                                                 "MULTI_PASS_FAIL", "IMAGE_COMPARISON", "NO_RESULT",
                                                 "TEST_COUNT_PASS"};
  if (!kFormats.count(p.display_format)) warn(def, "TestInformation/DisplayFormat", "unknown value '" + p.display_format + "'");
  if (!p.proportion.empty() && p.proportion != "HIB" && p.proportion != "LIB")
    warn(def, "TestInformation/Proportion", "'" + p.proportion + "' is neither HIB nor LIB");
  if (!p.result_quantifier.empty() && p.result_quantifier != "AVG" && p.result_quantifier != "MAX" &&
      p.result_quantifier != "MIN")
    warn(def, "TestInformation/ResultQuantifier", "'" + p.result_quantifier + "' is not AVG, MAX or MIN");
  std::string times = Trim(p.Field("TestInformation/TimesToRun"));
  if (!times.empty() && !php::IsNumericString(times)) warn(def, "TestInformation/TimesToRun", "'" + times + "' is not a number");
  std::string_view dir_name(p.directory);
  dir_name.remove_prefix(dir_name.rfind('/') + 1);  // npos + 1 == 0: no '/' keeps it whole
  auto [name, dir_version] = SplitNameVersion(std::string(dir_name));
  if (!dir_version.empty() && !p.version.empty() && Trim(p.version) != dir_version)
    warn(def, "TestProfile/Version", "'" + p.version + "' differs from the directory's version " + dir_version);
  for (size_t i = 0; i < p.options.size(); ++i) {
    const TestOption& o = p.options[i];
    auto where = [i] { return "TestSettings/Option[" + std::to_string(i + 1) + "]"; };  // only for a warning
    auto same_id = [&](const TestOption& earlier) { return earlier.identifier == o.identifier; };
    if (!o.identifier.empty() && std::any_of(p.options.begin(), p.options.begin() + i, same_id))
      warn(def, where() + "/Identifier", "duplicate identifier '" + o.identifier + "'");
    if (!o.default_entry_raw.empty() && o.default_entry_raw != "0" && o.ExplicitDefault() < 0)
      warn(def, where() + "/DefaultEntry", "'" + o.default_entry_raw + "' names no entry (PTS then defaults to the last one)");
    if (o.display_name.empty()) warn(def, where() + "/DisplayName", "missing: descriptions will lack this option");
  }
  const std::string& rd = p.results.path;
  if (!p.results.present() && !base && p.display_format != "NO_RESULT")
    warn(p.directory, "results-definition.xml", "missing: no result can be parsed");
  static const std::set<std::string> kMulti = {"", "NONE", "REPORT_ALL", "AVERAGE", "MEAN", "GEOMETRIC_MEAN",
                                               "HARMONIC_MEAN"};
  for (size_t i = 0; i < p.results.parsers.size(); ++i) {
    const ResultsParserBlock& b = p.results.parsers[i];
    auto where = [i] { return "ResultsParser[" + std::to_string(i + 1) + "]"; };
    if (!kMulti.count(b.multi_match)) warn(rd, where() + "/MultiMatch", "unknown value '" + b.multi_match + "' (treated as AVERAGE)");
    for (const auto& [elem, value] : {std::pair<const char*, const std::string*>{"DivideResultBy", &b.divide_result_by},
                                      {"DivideResultDivisor", &b.divide_result_divisor},
                                      {"MultiplyResultBy", &b.multiply_result_by},
                                      {"ResultPrecision", &b.result_precision}})
      if (!value->empty() && !php::IsNumericString(*value))
        warn(rd, where() + "/" + elem, "'" + *value + "' is not a number: PTS ignores it");
    if (!b.result_proportion.empty() && b.result_proportion != "HIB" && b.result_proportion != "LIB")
      warn(rd, where() + "/ResultProportion", "'" + b.result_proportion + "' is neither HIB nor LIB");
  }
  return out;
}

namespace {

// Runs `load`, recording in `report` whether it worked; returns false when it did not.
template <class T, class Load>
bool TryLoad(ValidationReport* report, const std::string& name, T* out, Load load) {
  report->identifier = name;
  try {
    *out = load();
    report->loaded = true;
    report->identifier = out->identifier;
  } catch (const Error& e) {
    report->error = e.what();
  }
  return report->loaded;
}

}  // namespace

namespace {

// `load(checks, warnings)` loads the profile; the schemas check the trees the loader parses (each
// file read once); their findings follow the loader's, then the structural checks.
template <class Load>
ValidationReport ValidateWith(const std::string& name, const ProfileSchemas* schemas, Load load) {
  ValidationReport report;
  TestProfile& p = report.profile;
  std::vector<LoadIssue> schema_issues;
  LoadChecks checks{schemas, &schema_issues};
  if (!TryLoad(&report, name, &p, [&] { return load(checks, &report.issues); })) return report;
  for (auto& i : schema_issues) report.issues.push_back(std::move(i));
  for (auto& i : StructuralChecks(p)) report.issues.push_back(std::move(i));
  return report;
}

}  // namespace

ValidationReport ValidateProfile(const ProfileRepository& repo, const std::string& name_or_dir,
                                 const ProfileSchemas* schemas) {
  return ValidateWith(name_or_dir, schemas, [&](const LoadChecks& checks, std::vector<LoadIssue>* warnings) {
    return repo.LoadProfile(name_or_dir, warnings, checks);
  });
}

ValidationReport ValidateProfile(const ProfileRepository& repo, const std::string& name_or_dir,
                                 const std::string& schema_dir) {
  if (schema_dir.empty()) return ValidateProfile(repo, name_or_dir, static_cast<const ProfileSchemas*>(nullptr));
  ProfileSchemas schemas(schema_dir);
  return ValidateProfile(repo, name_or_dir, &schemas);
}

std::vector<ValidationReport> ValidateAllProfiles(const ProfileRepository& repo, const ProfileSchemas* schemas,
                                                  unsigned threads,
                                                  const std::function<void(size_t, ValidationReport&)>& then) {
  std::vector<ProfileRef> refs = repo.ListProfiles();  // builds the index before the threads share it
  std::vector<ValidationReport> reports(refs.size());
  ForEachParallel(refs.size(), threads, [&](size_t i) {
    const ProfileRef& ref = refs[i];
    reports[i] = ValidateWith(ref.identifier, schemas, [&](const LoadChecks& checks, std::vector<LoadIssue>* warnings) {
      return repo.LoadDirectory(ref.directory, ref.identifier, warnings, checks);
    });
    if (then) then(i, reports[i]);
  });
  return reports;
}

ValidationReport ValidateSuite(const ProfileRepository& repo, const std::string& name_or_dir,
                               const std::string& schema_dir) {
  ValidationReport report;
  TestSuite s;
  if (!TryLoad(&report, name_or_dir, &s, [&] { return repo.LoadSuite(name_or_dir, &report.issues); })) return report;
  if (!schema_dir.empty())
    for (auto& i : ValidateAgainstSchema(s.directory + "/suite-definition.xml", schema_dir + "/test-suite.xsd"))
      report.issues.push_back(std::move(i));
  for (const auto& e : s.executes)
    if (!repo.FindProfile(e.test) && !repo.FindSuite(e.test))
      report.issues.push_back({s.directory + "/suite-definition.xml", "Execute/Test",
                               "'" + e.test + "' is neither a known profile nor a suite", false});
  return report;
}

}  // namespace ptsn::profile
