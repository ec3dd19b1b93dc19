#include "runner/profile/schema_set.h"

#include <libxml/parser.h>
#include <libxml/xmlschemas.h>

#include <unistd.h>

#include <map>
#include <memory>
#include <mutex>

#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/profile/profile_files.h"

namespace ptsn::profile {

namespace {

struct SchemaDeleter {
  void operator()(xmlSchema* s) const { xmlSchemaFree(s); }
};

void IgnoreError(void*, xmlErrorPtr) {}

// Compiled schemas are immutable once built, so threads share them; only the cache needs a lock.
xmlSchema* GetSchema(const std::string& xsd_path) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<xmlSchema, SchemaDeleter>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(xsd_path);
  if (it != cache.end()) return it->second.get();
  xmlSetStructuredErrorFunc(nullptr, IgnoreError);
  xmlSchemaParserCtxtPtr pctxt = xmlSchemaNewParserCtxt(xsd_path.c_str());
  if (!pctxt) throw FileError(xsd_path, "cannot read the schema");
  xmlSchemaSetParserStructuredErrors(pctxt, IgnoreError, nullptr);
  xmlSchema* schema = xmlSchemaParse(pctxt);
  xmlSchemaFreeParserCtxt(pctxt);
  if (!schema) throw FileError(xsd_path, "not a usable XML schema");
  cache[xsd_path].reset(schema);
  return schema;
}

struct Collector {
  const std::string* file;
  std::vector<LoadIssue>* issues;
};

void CollectError(void* data, xmlErrorPtr err) {
  auto* c = static_cast<Collector*>(data);
  if (!err) return;
  std::string element = err->node ? reinterpret_cast<const char*>(static_cast<xmlNode*>(err->node)->name) : "";
  std::string where = element + (err->line > 0 ? " (line " + std::to_string(err->line) + ")" : "");
  std::string msg = err->message ? Trim(err->message) : "schema violation";
  // libxml2 repeats "Element 'X': " at the start of the message.
  if (StartsWith(msg, "Element '")) {
    size_t end = msg.find("': ");
    if (end != std::string::npos) msg = msg.substr(end + 3);
  }
  c->issues->push_back({*c->file, where, "schema: " + msg, false});
}

const char* SchemaFor(const std::string& file_name) {
  if (file_name == "test-definition.xml") return "test-profile.xsd";
  if (file_name == "results-definition.xml") return "results-parser.xsd";
  if (file_name == "downloads.xml") return "test-profile-downloads.xsd";
  return nullptr;
}

}  // namespace

void ValidateDocument(_xmlDoc* doc, const std::string& xml_path, const std::string& xsd_path,
                      std::vector<LoadIssue>* issues) {
  xmlSchema* schema = GetSchema(xsd_path);
  Collector collector{&xml_path, issues};
  xmlSchemaValidCtxtPtr vctxt = xmlSchemaNewValidCtxt(schema);
  if (!vctxt) throw FileError(xsd_path, "cannot allocate a schema validation context");
  xmlSchemaSetValidStructuredErrors(vctxt, CollectError, &collector);
  xmlSchemaValidateDoc(vctxt, doc);
  xmlSchemaFreeValidCtxt(vctxt);
}

ProfileSchemas::ProfileSchemas(const std::string& dir) : dir_(dir) {
  // Compiled on first use: a load served by the profile cache needs only the hash.
  std::vector<DirEntry> entries;
  ListDirectory(dir_, &entries);
  hash_ = ContentHash(dir_);
  std::string content, error;
  for (const auto& e : entries) {
    if (!EndsWith(e.name, ".xsd")) continue;
    if (!ReadWholeFile(dir_ + "/" + e.name, &content, &error)) throw FileError(dir_ + "/" + e.name, "cannot open: " + error);
    hash_ = ContentHash(content, ContentHash(e.name, hash_));
  }
  for (const char* name : {"test-definition.xml", "results-definition.xml", "downloads.xml"})
    if (access((dir_ + "/" + SchemaFor(name)).c_str(), R_OK) != 0) throw FileError(dir_ + "/" + SchemaFor(name), "cannot read the schema");
}

bool ProfileSchemas::Covers(const std::string& file_name) const { return SchemaFor(file_name) != nullptr; }

void ProfileSchemas::Validate(const std::string& file_name, const std::string& path, _xmlDoc* doc,
                              std::vector<LoadIssue>* issues) const {
  if (const char* xsd = SchemaFor(file_name)) ValidateDocument(doc, path, dir_ + "/" + xsd, issues);
}

}  // namespace ptsn::profile
