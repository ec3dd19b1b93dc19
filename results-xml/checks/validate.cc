#include "results-xml/checks/validate.h"

#include <libxml/parser.h>
#include <libxml/xmlschemas.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <type_traits>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "results-xml/model/comparison_hash.h"
#include "results-xml/stats/statistics.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"

namespace ptsn::results {

namespace {

// XSD length facets count characters, not bytes.
size_t CodePoints(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

bool IsTimeStamp(std::string_view s) {
  static const char kPattern[] = "dddd-dd-dd dd:dd:dd";
  if (s.size() != sizeof kPattern - 1) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (kPattern[i] == 'd' ? !(s[i] >= '0' && s[i] <= '9') : s[i] != kPattern[i]) return false;
  }
  return true;
}

bool IsOneOf(std::string_view v, std::initializer_list<std::string_view> set) {
  for (std::string_view s : set)
    if (v == s) return true;
  return false;
}

// Every check takes where it is as a callable building the text: the text is only made when there
// is something to report, so a valid file (every upload the server takes) builds none per result
// or entry.
class Checker {
 public:
  std::vector<ValidationIssue>& issues;

  template <typename Where>
  void Error(const Where& where, const std::string& what) { issues.push_back({true, Text(where), what}); }
  template <typename Where>
  void Warn(const Where& where, const std::string& what) { issues.push_back({false, Text(where), what}); }

  template <typename Where>
  void Length(const Where& where, std::string_view v, size_t min, size_t max) {
    // No more characters than bytes: within `max` bytes only the lower bound can fail, and
    // counting stops as soon as it is met (min is 0 to 2 here).
    if (v.size() <= max) {
      if (min == 0) return;
      size_t seen = 0;
      for (unsigned char c : v)
        if ((c & 0xC0) != 0x80 && ++seen >= min) return;
    }
    size_t n = CodePoints(v);
    if (n < min || n > max)
      Error(where, "is " + std::to_string(n) + " characters long; it must be " + std::to_string(min) + " to " +
                       std::to_string(max));
  }
  template <typename Where>
  void Stamp(const Where& where, std::string_view v) {
    if (!IsTimeStamp(v)) Error(where, "'" + std::string(v) + "' is not a YYYY-MM-DD HH:MM:SS time stamp");
  }
  template <typename Where>
  void Json(const Where& where, const std::optional<std::string>& v) {
    if (v && !v->empty() && !nlohmann::json::accept(*v)) Warn(where, "is not valid JSON");
  }

 private:
  template <typename Where>
  static std::string Text(const Where& where) {
    if constexpr (std::is_invocable_v<const Where&>) return where();
    else return std::string(where);
  }
};

std::string ResultName(size_t i, const Result& r) {
  return "Result " + std::to_string(i + 1) + " (" + r.title + (r.description.empty() ? "" : ", " + r.description) + ")";
}

}  // namespace

std::vector<ValidationIssue> ValidateResultFile(const ResultFile& file) { return ValidateResultFile(file, {}); }

namespace {

// Generated and the systems; `systems` gets their identifiers (what Entry identifiers must name).
void CheckHead(Checker& c, const ResultFile& file, const ValidateOptions& options,
               std::unordered_set<std::string>& systems) {
  const Generated& g = file.generated;
  c.Length("Generated/Title", g.title, 1, 126);
  c.Stamp("Generated/LastModified", g.last_modified);
  c.Length("Generated/Description", g.description, 0, 2048);

  if (file.systems.empty()) c.Error("PhoronixTestSuite", "has no <System>");
  for (size_t i = 0; i < file.systems.size(); ++i) {
    const System& s = file.systems[i];
    auto where = [&](const char* suffix) {
      return [&s, i, suffix] { return "System " + std::to_string(i + 1) + " '" + s.identifier + "'" + suffix; };
    };
    c.Length(where(" Identifier"), s.identifier, 1, 128);
    c.Stamp(where(" TimeStamp"), s.timestamp);
    if (!s.notes) c.Error(where(""), "lacks <Notes> (required by the schema, may be empty)");
    if (options.warnings) c.Json(where(" JSON"), s.json);
    if (!systems.insert(s.identifier).second && options.warnings)
      c.Warn(where(""), "the identifier is used by more than one System (PTS's merge-results does this); "
                        "their entries cannot be told apart");
  }
}

// Result i (0-based). `hashes`: every result's comparison hash, for the Parent warning (only
// with options.warnings). Returns whether the result has entries (is written at all).
bool CheckResult(Checker& c, size_t i, const Result& r, const std::unordered_set<std::string>& systems,
                 const std::unordered_set<std::string>& hashes, const ValidateOptions& options) {
  auto where = [&](const char* suffix) { return [&r, i, suffix] { return ResultName(i, r) + suffix; }; };
  if (r.entries.empty()) {
    c.Warn(where(""), "has no entries (it would not be written)");
    return false;
  }
  c.Length(where(" Title"), r.title, 2, 50);
  if (!IsOneOf(r.proportion, {"LIB", "HIB", "ABSTRACT", "", " "}))
    c.Error(where(" Proportion"), "'" + r.proportion + "' is not one of LIB, HIB, ABSTRACT or empty");
  if (!IsOneOf(r.display_format, {"NO_RESULT", "BAR_GRAPH", "LINE_GRAPH", "SCATTER_PLOT", "PASS_FAIL",
                                  "MULTI_PASS_FAIL", "IMAGE_COMPARISON", "BAR_ANALYZE_GRAPH"}))
    c.Error(where(" DisplayFormat"), "'" + r.display_format + "' is not a PTS display format");
  if (options.warnings && r.parent && !r.parent->empty() && !hashes.count(*r.parent))
    c.Warn(where(" Parent"), "names no result in this file (" + *r.parent + ")");
  bool numeric = r.display_format == "BAR_GRAPH" || r.display_format == "BAR_ANALYZE_GRAPH";
  bool series = r.display_format == "LINE_GRAPH" || r.display_format == "SCATTER_PLOT";
  for (const Entry& e : r.entries) {
    auto ew = [&](const char* suffix) {
      return [&r, &e, i, suffix] { return ResultName(i, r) + " Entry '" + e.identifier + "'" + suffix; };
    };
    c.Length(ew(" Identifier"), e.identifier, 1, 128);
    if (!systems.count(e.identifier)) c.Error(ew(""), "names no <System> of this file");
    if (numeric && !e.value.empty() && !PhpIsNumeric(e.value))
      c.Error(ew(" Value"), "'" + e.value + "' is not a number");
    // Items of a series (',') and trials of a RawString (':', as EntryTrials splits them) are
    // looked at in place.
    auto first_non_number = [](std::string_view v, char sep) -> std::optional<std::string_view> {
      size_t start = 0;
      while (true) {
        size_t cut = v.find(sep, start);
        std::string_view item = v.substr(start, cut == std::string_view::npos ? std::string_view::npos : cut - start);
        if (!PhpIsNumeric(item)) return item;
        if (cut == std::string_view::npos) return std::nullopt;
        start = cut + 1;
      }
    };
    if (series && !e.value.empty())
      if (auto bad = first_non_number(e.value, ','))
        c.Error(ew(" Value"), "'" + std::string(*bad) + "' in the series is not a number");
    if (numeric && e.raw_string && !e.raw_string->empty())
      if (auto bad = first_non_number(*e.raw_string, ':'))
        c.Error(ew(" RawString"), "trial '" + std::string(*bad) + "' is not a number");
    if (options.warnings) c.Json(ew(" JSON"), e.json);
  }
  return true;
}

void CheckWritten(Checker& c, size_t written) {
  if (written == 0) c.Error("PhoronixTestSuite", "has no <Result> with data");
}

}  // namespace

std::vector<ValidationIssue> ValidateResultFile(const ResultFile& file, const ValidateOptions& options) {
  std::vector<ValidationIssue> issues;
  Checker c{issues};
  std::unordered_set<std::string> systems;
  CheckHead(c, file, options, systems);
  std::unordered_set<std::string> hashes;
  if (options.warnings)
    for (const Result& r : file.results) hashes.insert(ComparisonHash(r));
  size_t written = 0;
  for (size_t i = 0; i < file.results.size(); ++i) written += CheckResult(c, i, file.results[i], systems, hashes, options);
  CheckWritten(c, written);
  return issues;
}

void StreamingValidator::Head(const ResultFile& head) {
  Checker c{issues_};
  CheckHead(c, head, {.warnings = false}, systems_);
}

void StreamingValidator::OnResult(const Result& result) {
  Checker c{issues_};
  written_ += CheckResult(c, results_++, result, systems_, {}, {.warnings = false});
}

std::vector<ValidationIssue> StreamingValidator::Finish() {
  Checker c{issues_};
  CheckWritten(c, written_);
  return std::move(issues_);
}

namespace {
struct SchemaParserFree {
  void operator()(xmlSchemaParserCtxt* p) const { xmlSchemaFreeParserCtxt(p); }
};
struct SchemaFree {
  void operator()(xmlSchema* s) const { xmlSchemaFree(s); }
};
struct ValidFree {
  void operator()(xmlSchemaValidCtxt* v) const { xmlSchemaFreeValidCtxt(v); }
};
struct DocFree {
  void operator()(xmlDoc* d) const { xmlFreeDoc(d); }
};

void Collect(void* user, xmlErrorPtr err) {
  auto* out = static_cast<std::vector<std::string>*>(user);
  std::string msg = err && err->message ? err->message : "schema error";
  while (!msg.empty() && msg.back() == '\n') msg.pop_back();
  out->push_back((err && err->line > 0 ? "line " + std::to_string(err->line) + ": " : std::string()) + msg);
}
void Ignore(void*, xmlErrorPtr) {}
}  // namespace

std::vector<std::string> ValidateAgainstSchema(std::string_view xml, const std::string& xsd_path) {
  xmlInitParser();
  std::vector<std::string> load_errors;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(xsd_path, ec)) throw FileError(xsd_path, "schema file not found");
  std::unique_ptr<xmlSchemaParserCtxt, SchemaParserFree> pctxt(xmlSchemaNewParserCtxt(xsd_path.c_str()));
  if (!pctxt) throw FileError(xsd_path, "cannot open the schema");
  xmlSchemaSetParserStructuredErrors(pctxt.get(), Collect, &load_errors);
  std::unique_ptr<xmlSchema, SchemaFree> schema(xmlSchemaParse(pctxt.get()));
  if (!schema)
    throw FileError(xsd_path, "cannot load the schema" + (load_errors.empty() ? "" : ": " + load_errors[0]));

  std::vector<std::string> errors;
  // Same refusal as ParseResultFile: no DTD, so no entity can expand or be fetched.
  if (xml.find("<!DOCTYPE") != std::string_view::npos || xml.find("<!ENTITY") != std::string_view::npos)
    return {"a DOCTYPE is not allowed in a result file"};
  xmlSetStructuredErrorFunc(nullptr, Ignore);
  std::unique_ptr<xmlDoc, DocFree> doc(xmlReadMemory(xml.data(), static_cast<int>(xml.size()), "result.xml", "UTF-8",
                                                     XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING));
  xmlSetStructuredErrorFunc(nullptr, nullptr);
  if (!doc) return {"not well-formed XML"};
  std::unique_ptr<xmlSchemaValidCtxt, ValidFree> vctxt(xmlSchemaNewValidCtxt(schema.get()));
  xmlSchemaSetValidStructuredErrors(vctxt.get(), Collect, &errors);
  int rc = xmlSchemaValidateDoc(vctxt.get(), doc.get());
  if (rc != 0 && errors.empty()) errors.push_back("does not validate against " + xsd_path);
  return errors;
}

}  // namespace ptsn::results
