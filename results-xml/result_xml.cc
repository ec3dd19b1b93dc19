#include "results-xml/result_xml.h"

#include <libxml/parser.h>
#include <libxml/tree.h>

#include <ctime>
#include <memory>
#include <optional>
#include <string>

#include "runner/common/atomic_file.h"
#include "runner/common/error.h"

namespace ptsn::results {

namespace {

// ---------------------------------------------------------------------------------------------
// Reading

struct DocFree {
  void operator()(xmlDoc* d) const { xmlFreeDoc(d); }
};
struct CtxtFree {
  void operator()(xmlParserCtxt* c) const { xmlFreeParserCtxt(c); }
};

long LineOf(std::string_view xml, size_t offset) {
  long line = 1;
  for (size_t i = 0; i < offset && i < xml.size(); ++i) line += xml[i] == '\n';
  return line;
}

// Our own UTF-8 check so the message names the byte and line instead of libxml2's
// "indicate encoding !". Rejects overlongs, surrogates and code points above U+10FFFF.
void CheckUtf8(std::string_view xml, const std::string& source) {
  const auto* s = reinterpret_cast<const unsigned char*>(xml.data());
  size_t n = xml.size();
  for (size_t i = 0; i < n;) {
    unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    int len = 0;
    uint32_t cp = 0;
    if ((c & 0xE0) == 0xC0) len = 2, cp = c & 0x1F;
    else if ((c & 0xF0) == 0xE0) len = 3, cp = c & 0x0F;
    else if ((c & 0xF8) == 0xF0) len = 4, cp = c & 0x07;
    bool ok = len > 0 && i + len <= n;
    for (int k = 1; ok && k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) ok = false;
      else cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    if (ok) {
      static const uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
      ok = cp >= kMin[len] && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
    }
    if (!ok) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", c);
      throw FileError(source, "line " + std::to_string(LineOf(xml, i)) +
                                  ": not valid UTF-8 (byte " + hex + "); result files are UTF-8");
    }
    i += len;
  }
}

// DOCTYPE is where entity declarations live (billion laughs, external entities). PTS never
// writes one, so any DOCTYPE is refused before libxml2 sees the document. A literal "<!DOCTYPE"
// can only appear as markup, in a comment or in CDATA (text must escape '<'); refusing the last
// two is an acceptable price for never parsing a DTD.
void RejectDoctype(std::string_view xml, const std::string& source) {
  for (std::string_view word : {"<!DOCTYPE", "<!ENTITY"}) {
    size_t at = xml.find(word);
    if (at != std::string_view::npos)
      throw FileError(source, "line " + std::to_string(LineOf(xml, at)) + ": " +
                                  std::string(word.substr(2)) +
                                  " is not allowed in a result file (entity declarations are refused)");
  }
}

class Reader {
 public:
  explicit Reader(const std::string& source) : source_(source) {}

  Error At(const xmlNode* node, const std::string& what) const {
    return FileError(source_, "line " + std::to_string(xmlGetLineNo(node)) + ": " + what);
  }

  // Text of an element that must contain only text (CDATA allowed).
  std::string Text(const xmlNode* el) const {
    std::string out;
    for (const xmlNode* c = el->children; c; c = c->next) {
      switch (c->type) {
        case XML_TEXT_NODE:
        case XML_CDATA_SECTION_NODE:
          if (c->content) out += reinterpret_cast<const char*>(c->content);
          break;
        case XML_COMMENT_NODE:
        case XML_PI_NODE:
          break;
        case XML_ELEMENT_NODE:
          throw At(c, "unexpected element <" + Name(c) + "> inside <" + Name(el) + ">");
        default:
          throw At(c, "unexpected content (entity reference?) inside <" + Name(el) + ">");
      }
    }
    return out;
  }

  static std::string Name(const xmlNode* n) { return reinterpret_cast<const char*>(n->name); }

  // Element children of `parent`, refusing stray non-whitespace text.
  template <typename F>
  void ForEachChild(const xmlNode* parent, F&& f) const {
    for (const xmlNode* c = parent->children; c; c = c->next) {
      if (c->type == XML_ELEMENT_NODE) {
        f(c);
      } else if (c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) {
        const char* t = reinterpret_cast<const char*>(c->content);
        for (; t && *t; ++t)
          if (*t != ' ' && *t != '\t' && *t != '\n' && *t != '\r')
            throw At(c, "unexpected text inside <" + Name(parent) + ">");
      } else if (c->type != XML_COMMENT_NODE && c->type != XML_PI_NODE) {
        throw At(c, "unexpected content (entity reference?) inside <" + Name(parent) + ">");
      }
    }
  }

  // A table of the text fields of one container element.
  struct Field {
    const char* name;
    std::string* plain = nullptr;               // required element
    std::optional<std::string>* opt = nullptr;  // optional element
    bool seen = false;
  };

  // Fills `fields` from the children of `el`; `other` handles element children not in the table
  // (returns false if it does not know them either).
  template <typename F>
  void ReadFields(const xmlNode* el, std::vector<Field>& fields, F&& other) const {
    ForEachChild(el, [&](const xmlNode* c) {
      std::string name = Name(c);
      for (Field& f : fields) {
        if (name != f.name) continue;
        if (f.seen) throw At(c, "duplicate <" + name + "> in <" + Name(el) + ">");
        f.seen = true;
        if (f.plain) *f.plain = Text(c);
        else *f.opt = Text(c);
        return;
      }
      if (!other(c)) throw At(c, "unknown element <" + name + "> in <" + Name(el) + ">");
    });
    for (const Field& f : fields)
      if (f.plain && !f.seen)
        throw At(el, "<" + Name(el) + "> lacks the required element <" + f.name + ">");
  }

  Generated ReadGenerated(const xmlNode* el) const {
    Generated g;
    std::vector<Field> fields = {
        {"Title", &g.title},
        {"LastModified", &g.last_modified},
        {"TestClient", &g.test_client},
        {"Description", &g.description},
        {"Notes", nullptr, &g.notes},
        {"InternalTags", nullptr, &g.internal_tags},
        {"ReferenceID", nullptr, &g.reference_id},
        {"PreSetEnvironmentVariables", nullptr, &g.preset_environment_variables},
    };
    ReadFields(el, fields, [](const xmlNode*) { return false; });
    return g;
  }

  System ReadSystem(const xmlNode* el) const {
    System s;
    std::vector<Field> fields = {
        {"Identifier", &s.identifier},
        {"Hardware", &s.hardware},
        {"Software", &s.software},
        {"User", &s.user},
        {"TimeStamp", &s.timestamp},
        {"TestClientVersion", &s.test_client_version},
        {"Notes", nullptr, &s.notes},
        {"JSON", nullptr, &s.json},
        {"CostValueForComparison", nullptr, &s.cost_value_for_comparison},
    };
    ReadFields(el, fields, [](const xmlNode*) { return false; });
    return s;
  }

  Entry ReadEntry(const xmlNode* el) const {
    Entry e;
    std::vector<Field> fields = {
        {"Identifier", &e.identifier},
        {"Value", &e.value},
        {"RawString", nullptr, &e.raw_string},
        {"JSON", nullptr, &e.json},
    };
    ReadFields(el, fields, [](const xmlNode*) { return false; });
    return e;
  }

  Result ReadResult(const xmlNode* el) const {
    Result r;
    bool data_seen = false;
    std::vector<Field> fields = {
        {"Identifier", &r.identifier},
        {"Title", &r.title},
        {"AppVersion", &r.app_version},
        {"Arguments", &r.arguments},
        {"Description", &r.description},
        {"Scale", &r.scale},
        {"Proportion", &r.proportion},
        {"DisplayFormat", &r.display_format},
        {"Annotation", nullptr, &r.annotation},
        {"Parent", nullptr, &r.parent},
    };
    ReadFields(el, fields, [&](const xmlNode* c) {
      if (Name(c) != "Data") return false;
      if (data_seen) throw At(c, "duplicate <Data> in <Result>");
      data_seen = true;
      ForEachChild(c, [&](const xmlNode* e) {
        if (Name(e) != "Entry") throw At(e, "unknown element <" + Name(e) + "> in <Data>");
        r.entries.push_back(ReadEntry(e));
      });
      return true;
    });
    if (!data_seen) throw At(el, "<Result> lacks the required element <Data>");
    return r;
  }

  ResultFile ReadDocument(const xmlDoc* doc) const {
    ResultFile file;
    const xmlNode* root = nullptr;
    for (const xmlNode* n = doc->children; n; n = n->next) {
      if (n->type == XML_COMMENT_NODE && !root && !file.leading_comment)
        file.leading_comment = std::string(reinterpret_cast<const char*>(n->content));
      if (n->type == XML_ELEMENT_NODE) root = n;
    }
    if (!root) throw FileError(source_, "no root element");
    if (Name(root) != "PhoronixTestSuite")
      throw At(root, "root element is <" + Name(root) +
                         ">, not <PhoronixTestSuite>: this is not a PTS result file");
    bool generated_seen = false;
    ForEachChild(root, [&](const xmlNode* c) {
      std::string name = Name(c);
      if (name == "Generated") {
        if (generated_seen) throw At(c, "duplicate <Generated>");
        generated_seen = true;
        file.generated = ReadGenerated(c);
      } else if (name == "System") {
        file.systems.push_back(ReadSystem(c));
      } else if (name == "Result") {
        file.results.push_back(ReadResult(c));
      } else {
        throw At(c, "unknown element <" + name + "> in <PhoronixTestSuite>");
      }
    });
    if (!generated_seen) throw At(root, "<PhoronixTestSuite> lacks the required element <Generated>");
    return file;
  }

 private:
  const std::string& source_;
};

// ---------------------------------------------------------------------------------------------
// Writing

// libxml2's xmlEscapeEntities for a document without a declared encoding (PHP's
// DOMDocument('1.0')): < > & escaped, tab/newline and printable ASCII literal, every other byte
// sequence as an upper-case hexadecimal character reference (so non-ASCII is written as &#xE9;,
// \r as &#xD;). Control bytes XML 1.0 cannot carry are dropped (PTS would write an empty element).
void AppendEscaped(std::string& out, std::string_view text) {
  static const char kHex[] = "0123456789ABCDEF";
  auto hexref = [&](uint32_t v) {
    char buf[16];
    int n = 0;
    do {
      buf[n++] = kHex[v & 0xF];
      v >>= 4;
    } while (v);
    out += "&#x";
    while (n) out += buf[--n];
    out += ';';
  };
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  size_t n = text.size();
  for (size_t i = 0; i < n;) {
    unsigned char c = s[i];
    if (c == '<') out += "&lt;", ++i;
    else if (c == '>') out += "&gt;", ++i;
    else if (c == '&') out += "&amp;", ++i;
    else if ((c >= 0x20 && c < 0x80) || c == '\n' || c == '\t') out += static_cast<char>(c), ++i;
    else if (c >= 0x80) {
      int len = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
      uint32_t v = len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : len == 4 ? c & 0x07 : c;
      for (int k = 1; k < len && i + k < n; ++k) v = (v << 6) | (s[i + k] & 0x3F);
      hexref(v);
      i += len;
    } else if (c == '\r') {
      hexref(c);
      ++i;
    } else {
      ++i;  // other control bytes cannot be represented in XML 1.0 (libxml2 gives up on the whole text)
    }
  }
}

class Writer {
 public:
  explicit Writer(std::string& out) : out_(out) {}
  void Open(int depth, const char* name) {
    out_.append(depth * 2, ' ');
    out_ += '<';
    out_ += name;
    out_ += ">\n";
  }
  void Close(int depth, const char* name) {
    out_.append(depth * 2, ' ');
    out_ += "</";
    out_ += name;
    out_ += ">\n";
  }
  void Leaf(int depth, const char* name, std::string_view text) {
    out_.append(depth * 2, ' ');
    out_ += '<';
    out_ += name;
    out_ += '>';
    AppendEscaped(out_, text);
    out_ += "</";
    out_ += name;
    out_ += ">\n";
  }
  void LeafIf(int depth, const char* name, const std::optional<std::string>& text) {
    if (text) Leaf(depth, name, std::string_view(*text));
  }

 private:
  std::string& out_;
};

size_t EstimateSize(const ResultFile& f) {
  size_t n = 1024;
  for (const System& s : f.systems) n += 300 + s.hardware.size() + s.software.size() + (s.json ? s.json->size() : 0);
  for (const Result& r : f.results) {
    n += 400 + r.title.size() + r.arguments.size() + r.description.size();
    for (const Entry& e : r.entries)
      n += 140 + e.identifier.size() + e.value.size() + (e.raw_string ? e.raw_string->size() : 0) +
           (e.json ? e.json->size() : 0);
  }
  return n;
}

}  // namespace

ResultFile ParseResultFile(std::string_view xml, const std::string& source_name) {
  if (xml.find_first_not_of(" \t\r\n") == std::string_view::npos)
    throw FileError(source_name, "empty file, not a result file");
  CheckUtf8(xml, source_name);
  RejectDoctype(xml, source_name);
  if (xml.size() > static_cast<size_t>(INT32_MAX)) throw FileError(source_name, "file too large");

  xmlInitParser();
  std::unique_ptr<xmlParserCtxt, CtxtFree> ctxt(xmlNewParserCtxt());
  if (!ctxt) throw FileError(source_name, "out of memory creating the XML parser");
  // NONET: never fetch anything. No NOENT (entities are not substituted), no DTDLOAD/DTDATTR,
  // no HUGE (keeps libxml2's depth and size limits). NOERROR/NOWARNING: we report errors ourselves.
  int options = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES;
  std::unique_ptr<xmlDoc, DocFree> doc(xmlCtxtReadMemory(ctxt.get(), xml.data(), static_cast<int>(xml.size()),
                                                         source_name.c_str(), "UTF-8", options));
  const xmlError* err = xmlCtxtGetLastError(ctxt.get());
  if (!doc || !ctxt->wellFormed || (err && err->level >= XML_ERR_ERROR)) {
    std::string msg = err && err->message ? err->message : "malformed XML";
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    long line = err ? err->line : 0;
    throw FileError(source_name, (line > 0 ? "line " + std::to_string(line) + ": " : std::string()) +
                                     "malformed XML: " + msg);
  }
  if (doc->intSubset || doc->extSubset)
    throw FileError(source_name, "a DOCTYPE is not allowed in a result file");
  return Reader(source_name).ReadDocument(doc.get());
}

ResultFile ReadResultFile(const std::string& path) { return ParseResultFile(ReadFile(path), path); }

std::string CurrentTimestamp() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

std::string SerializeResultFile(const ResultFile& file, const SerializeOptions& options) {
  std::string out;
  out.reserve(EstimateSize(file));
  Writer w(out);
  out += "<?xml version=\"1.0\"?>\n";
  const Generated& g = file.generated;
  std::optional<std::string> comment = options.keep_as_read ? file.leading_comment : kPtsProgramTitle;
  if (comment) out += "<!--" + *comment + "-->\n";
  w.Open(0, "PhoronixTestSuite");
  w.Open(1, "Generated");
  w.Leaf(2, "Title", std::string_view(g.title));
  if (options.keep_as_read) {
    w.Leaf(2, "LastModified", std::string_view(g.last_modified));
    w.Leaf(2, "TestClient", std::string_view(g.test_client));
  } else {
    w.Leaf(2, "LastModified", std::string_view(options.now.empty() ? CurrentTimestamp() : options.now));
    w.Leaf(2, "TestClient", std::string_view(kPtsProgramTitle));
  }
  w.Leaf(2, "Description", std::string_view(g.description));
  w.LeafIf(2, "Notes", g.notes);
  w.LeafIf(2, "InternalTags", g.internal_tags);
  w.LeafIf(2, "ReferenceID", g.reference_id);
  w.LeafIf(2, "PreSetEnvironmentVariables", g.preset_environment_variables);
  w.Close(1, "Generated");
  for (const System& s : file.systems) {
    w.Open(1, "System");
    w.Leaf(2, "Identifier", std::string_view(s.identifier));
    w.Leaf(2, "Hardware", std::string_view(s.hardware));
    w.Leaf(2, "Software", std::string_view(s.software));
    w.Leaf(2, "User", std::string_view(s.user));
    w.Leaf(2, "TimeStamp", std::string_view(s.timestamp));
    w.Leaf(2, "TestClientVersion", std::string_view(s.test_client_version));
    // PTS always writes System/Notes; an absent one is kept absent only in a verbatim round trip.
    if (s.notes || !options.keep_as_read) w.Leaf(2, "Notes", std::string_view(s.notes ? *s.notes : ""));
    w.LeafIf(2, "JSON", s.json);
    w.LeafIf(2, "CostValueForComparison", s.cost_value_for_comparison);
    w.Close(1, "System");
  }
  for (const Result& r : file.results) {
    if (r.entries.empty()) continue;
    w.Open(1, "Result");
    w.Leaf(2, "Identifier", std::string_view(r.identifier));
    w.Leaf(2, "Title", std::string_view(r.title));
    w.Leaf(2, "AppVersion", std::string_view(r.app_version));
    w.Leaf(2, "Arguments", std::string_view(r.arguments));
    w.Leaf(2, "Description", std::string_view(r.description));
    w.Leaf(2, "Scale", std::string_view(r.scale));
    w.Leaf(2, "Proportion", std::string_view(r.proportion));
    w.Leaf(2, "DisplayFormat", std::string_view(r.display_format));
    w.LeafIf(2, "Annotation", r.annotation);
    w.LeafIf(2, "Parent", r.parent);
    w.Open(2, "Data");
    for (const Entry& e : r.entries) {
      w.Open(3, "Entry");
      w.Leaf(4, "Identifier", std::string_view(e.identifier));
      w.Leaf(4, "Value", std::string_view(e.value));
      // PTS always writes RawString (empty when it equals Value).
      if (e.raw_string || !options.keep_as_read)
        w.Leaf(4, "RawString", std::string_view(e.raw_string ? *e.raw_string : ""));
      w.LeafIf(4, "JSON", e.json);
      w.Close(3, "Entry");
    }
    w.Close(2, "Data");
    w.Close(1, "Result");
  }
  w.Close(0, "PhoronixTestSuite");
  return out;
}

void WriteResultFile(const std::string& path, const ResultFile& file, const SerializeOptions& options) {
  WriteFileAtomically(path, SerializeResultFile(file, options));
}

}  // namespace ptsn::results
