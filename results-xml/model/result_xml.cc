#include "results-xml/model/result_xml.h"

#include <libxml/parser.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <exception>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/strings.h"

namespace ptsn::results {

namespace {

// ---------------------------------------------------------------------------------------------
// Checks on the whole text, before libxml2 sees it

long LineOf(std::string_view xml, size_t offset) {
  long line = 1;
  for (size_t i = 0; i < offset && i < xml.size(); ++i) line += xml[i] == '\n';
  return line;
}

// Our own UTF-8 check so the message names the byte and line instead of libxml2's
// "indicate encoding !". Rejects overlongs, surrogates and code points above U+10FFFF.
void CheckUtf8(std::string_view xml, const std::string& source) {
  for (size_t i = 0; i < xml.size();) {
    uint64_t word;  // eight ASCII bytes at a time (result files are almost all ASCII)
    if (i + 8 <= xml.size() && (std::memcpy(&word, xml.data() + i, 8), (word & 0x8080808080808080ULL) == 0)) {
      i += 8;
      continue;
    }
    const auto c = static_cast<unsigned char>(xml[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    const size_t len = DecodeUtf8(xml, i).length;
    if (len == 0) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", c);
      throw FileError(source, "line " + std::to_string(LineOf(xml, i)) + ": not valid UTF-8 (byte " + hex +
                                  "); result files are UTF-8");
    }
    i += len;
  }
}

// DOCTYPE is where entity declarations live (billion laughs, external entities). PTS never
// writes one, so any DOCTYPE is refused before libxml2 sees the document. A literal "<!DOCTYPE"
// can only appear as markup, in a comment or in CDATA (text must escape '<'); refusing the last
// two is an acceptable price for never parsing a DTD. A DOCTYPE anywhere is named in preference
// to an ENTITY before it.
size_t FindDeclaration(std::string_view xml, std::string_view word) {
  // By its '!', which is rare in a result file ('<' is everywhere).
  for (size_t at = xml.find('!'); at != std::string_view::npos; at = xml.find('!', at + 1))
    if (at > 0 && xml[at - 1] == '<' && xml.substr(at + 1).starts_with(word)) return at - 1;
  return std::string_view::npos;
}
void RejectDoctype(std::string_view xml, const std::string& source) {
  const size_t doctype = FindDeclaration(xml, "DOCTYPE");
  const size_t at = doctype != std::string_view::npos ? doctype : FindDeclaration(xml, "ENTITY");
  if (at == std::string_view::npos) return;
  throw FileError(source, "line " + std::to_string(LineOf(xml, at)) + ": " +
                              (doctype != std::string_view::npos ? "DOCTYPE" : "ENTITY") +
                              " is not allowed in a result file (entity declarations are refused)");
}

void CheckText(std::string_view xml, const std::string& source_name) {
  if (xml.find_first_not_of(" \t\r\n") == std::string_view::npos)
    throw FileError(source_name, "empty file, not a result file");
  CheckUtf8(xml, source_name);
  RejectDoctype(xml, source_name);
  if (xml.size() > static_cast<size_t>(INT32_MAX)) throw FileError(source_name, "file too large");
}

// ---------------------------------------------------------------------------------------------
// Reading: libxml2's SAX2 parser, each text going straight into the model (no DOM). The first
// error found in a callback is recorded (exceptions must not cross libxml2's C frames) and the
// rest of the document is only checked for well-formedness, so a truncated file is reported as
// malformed rather than by whatever half-read tag precedes the cut; Parse() throws after
// libxml2 returns.

template <typename T>
struct FieldSpec {
  const char* name;
  std::string T::*plain;                // required element
  std::optional<std::string> T::*opt;  // optional element
};

constexpr FieldSpec<Generated> kGeneratedFields[] = {
    {"Title", &Generated::title, nullptr},
    {"LastModified", &Generated::last_modified, nullptr},
    {"TestClient", &Generated::test_client, nullptr},
    {"Description", &Generated::description, nullptr},
    {"Notes", nullptr, &Generated::notes},
    {"InternalTags", nullptr, &Generated::internal_tags},
    {"ReferenceID", nullptr, &Generated::reference_id},
    {"PreSetEnvironmentVariables", nullptr, &Generated::preset_environment_variables},
};
constexpr FieldSpec<System> kSystemFields[] = {
    {"Identifier", &System::identifier, nullptr},
    {"Hardware", &System::hardware, nullptr},
    {"Software", &System::software, nullptr},
    {"User", &System::user, nullptr},
    {"TimeStamp", &System::timestamp, nullptr},
    {"TestClientVersion", &System::test_client_version, nullptr},
    {"Notes", nullptr, &System::notes},
    {"JSON", nullptr, &System::json},
    {"CostValueForComparison", nullptr, &System::cost_value_for_comparison},
};
constexpr FieldSpec<Result> kResultFields[] = {
    {"Identifier", &Result::identifier, nullptr},
    {"Title", &Result::title, nullptr},
    {"AppVersion", &Result::app_version, nullptr},
    {"Arguments", &Result::arguments, nullptr},
    {"Description", &Result::description, nullptr},
    {"Scale", &Result::scale, nullptr},
    {"Proportion", &Result::proportion, nullptr},
    {"DisplayFormat", &Result::display_format, nullptr},
    {"Annotation", nullptr, &Result::annotation},
    {"Parent", nullptr, &Result::parent},
};
constexpr FieldSpec<Entry> kEntryFields[] = {
    {"Identifier", &Entry::identifier, nullptr},
    {"Value", &Entry::value, nullptr},
    {"RawString", nullptr, &Entry::raw_string},
    {"JSON", nullptr, &Entry::json},
};

// Text between elements: XML's white space (anything else there is an error).
bool IsBlank(std::string_view text) {
  for (char c : text)
    if (c != ' ' && c != '\n' && c != '\t' && c != '\r') return false;
  return true;
}

bool Is(const xmlChar* name, const char* literal) { return std::strcmp(reinterpret_cast<const char*>(name), literal) == 0; }

enum class Kind { kRoot, kGenerated, kSystem, kResult, kData, kEntry, kLeaf };

struct Open {
  Kind kind;
  const char* name;  // libxml2's dictionary string, valid while the parser lives
  long line;
  uint32_t seen = 0;  // bit i: field i of the container's table seen; kDataBit, kGeneratedBit, kResultBit
  size_t next_field = 0;  // where the search for the next field starts: after the last one found
};

constexpr uint32_t kDataBit = 1u << 31;       // on a Result
constexpr uint32_t kGeneratedBit = 1u << 0;   // on the root
constexpr uint32_t kResultBit = 1u << 30;     // on the root, for ReadLimits::schema_structure

class SaxReader {
 public:
  // visitor == nullptr: build the whole model (Take()). Otherwise stream: the visitor gets the
  // head at the first <Result> and each Result at its end tag, and only one Result is kept.
  SaxReader(xmlParserCtxt* ctxt, ResultVisitor* visitor, const ReadLimits& limits)
      : ctxt_(ctxt), visitor_(visitor), limits_(limits), schema_(limits.schema_structure) {}

  static void Install(xmlSAXHandler& sax) {
    sax = xmlSAXHandler{};
    sax.initialized = XML_SAX2_MAGIC;
    sax.startElementNs = &StartElement;
    sax.endElementNs = &EndElement;
    sax.serror = &RecordError;
    sax.characters = &Characters;
    sax.ignorableWhitespace = &Characters;
    sax.cdataBlock = &Characters;
    sax.comment = &Comment;
    sax.processingInstruction = &Instruction;
    sax.reference = &Reference;
    sax.internalSubset = &Subset;
    sax.externalSubset = &Subset;
  }

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  // The first error libxml2 reported (line, message), if any.
  const std::optional<std::pair<long, std::string>>& xml_error() const { return xml_error_; }
  // The ReadLimits bound that stopped the parse, "" if none did.
  const std::string& limit_error() const { return limit_error_; }
  // Unknown elements and attributes read past: how many, and the first ("line N: ...").
  size_t ignored_count() const { return ignored_count_; }
  const std::string& first_ignored() const { return first_ignored_; }
  ResultFile Take() { return std::move(file_); }
  // Streaming only: a <Generated> or <System> came after a <Result> (PTS never writes that).
  bool out_of_order() const { return out_of_order_; }
  // Streaming only: what the visitor threw (rethrown once libxml2's frames are gone).
  std::exception_ptr visitor_error() const { return visitor_error_; }
  // Streaming only: gives the visitor the head if no <Result> did (a file without results).
  void FinishHead() {
    if (visitor_ && !head_sent_) {
      head_sent_ = true;
      visitor_->Head(file_);
    }
  }

 private:
  static SaxReader& Self(void* ctx) { return *static_cast<SaxReader*>(static_cast<xmlParserCtxt*>(ctx)->_private); }

  // libxml2 goes on after some fatal errors (a mismatched end tag) and its last error is then
  // only the consequence ("Premature end of data"): keep the first one, the cause.
  static void RecordError(void* ctx, xmlErrorPtr err) {
    SaxReader& r = Self(ctx);
    if (!err || err->level < XML_ERR_ERROR || r.xml_error_) return;
    r.xml_error_.emplace(err->line, err->message ? err->message : "malformed XML");
  }

  long Line() const { return ctxt_->input ? ctxt_->input->line : 0; }

  void Fail(long line, std::initializer_list<std::string_view> what) {
    if (failed()) return;
    error_ = "line " + std::to_string(line) + ": ";
    for (std::string_view part : what) error_ += part;
    leaf_ = nullptr;  // nothing more goes into the model
  }

  void StopStreaming() {
    out_of_order_ = true;
    xmlStopParser(ctxt_);
  }

  // The open elements, pushed only while nothing failed and only where the structure allows (a
  // leaf takes no child): never deeper than <PhoronixTestSuite> <Result> <Data> <Entry> <Value>.
  Open& Top() { return stack_.back(); }

  // Streaming keeps one Result, replaced by each new one.
  Result& NewResult() {
    if (visitor_) file_.results.clear();
    return file_.results.emplace_back();
  }
  Result& CurrentResult() { return file_.results.back(); }
  Entry& CurrentEntry() { return CurrentResult().entries.back(); }

  void ResultDone() {
    if (!visitor_ || failed()) return;
    try {
      visitor_->OnResult(CurrentResult());
    } catch (...) {
      visitor_error_ = std::current_exception();
      Fail(Line(), {"stopped"});
      xmlStopParser(ctxt_);
    }
  }

  // Opens `element` as a field of `target` if `table` names it (false if it does not): its text
  // goes straight into the field, a present optional is "" at least.
  template <typename T, size_t N>
  bool OpenField(T& target, const FieldSpec<T> (&table)[N], const xmlChar* element, Open& parent) {
    // PTS writes the fields in table order: the search starts after the last one found.
    size_t i = parent.next_field, tried = 0;
    for (; tried < N && !Is(element, table[i].name); ++tried) i = (i + 1) % N;
    if (tried == N) return false;
    parent.next_field = (i + 1) % N;
    const char* name = reinterpret_cast<const char*>(element);
    if (parent.seen & (1u << i)) {
      Fail(Line(), {"duplicate <", name, "> in <", parent.name, ">"});
      return true;
    }
    if (schema_ && (parent.seen >> i) > 1u) {
      Fail(Line(), {"<", name, "> in <", parent.name, "> is out of the schema's order"});
      return true;
    }
    parent.seen |= 1u << i;
    leaf_ = table[i].plain ? &(target.*table[i].plain) : &(target.*table[i].opt).emplace();
    leaf_->clear();  // (a field with a default: Result::display_format)
    stack_.push_back({Kind::kLeaf, name, 0});  // a leaf's line is never reported
    return true;
  }

  template <typename T, size_t N>
  void CheckRequired(const FieldSpec<T> (&table)[N], const Open& open) {
    for (size_t i = 0; i < N; ++i)
      if (table[i].plain && !(open.seen & (1u << i)))
        return Fail(open.line, {"<", open.name, "> lacks the required element <", table[i].name, ">"});
  }

  // ReadLimits: counted ahead of the failed() early returns, so an earlier structural error does
  // not switch the bounds off for the rest of the file. Each returns true once a bound is exceeded.
  bool OverLimit(std::string what) {
    if (limit_error_.empty()) limit_error_ = std::move(what);
    xmlStopParser(ctxt_);
    return true;
  }
  static size_t Bound(size_t limit) { return limit == 0 ? SIZE_MAX : limit; }  // 0 = none
  bool CountNode() {
    if (++nodes_ <= Bound(limits_.max_nodes)) return false;
    return OverLimit("more than " + std::to_string(limits_.max_nodes) + " XML nodes");
  }
  std::string OpenPath() const {
    std::string path;
    for (const Open& open : stack_) path += "/" + std::string(open.name);
    return path;
  }
  bool LimitStart(const char* name) {
    text_bytes_ = 0;
    if (CountNode()) return true;
    if (++nesting_ <= Bound(limits_.max_depth)) return false;
    return OverLimit("elements nested deeper than " + std::to_string(limits_.max_depth) + " at line " +
                     std::to_string(Line()) + " (<" + name + ">)");
  }
  bool LimitText(int len) {
    if (text_bytes_ == 0 && CountNode()) return true;
    text_bytes_ += static_cast<size_t>(len);
    if (text_bytes_ <= Bound(limits_.max_value_bytes)) return false;
    return OverLimit("value of " + (failed() ? "the element at line " + std::to_string(Line()) : OpenPath()) +
                     " is over " + std::to_string(limits_.max_value_bytes) + " bytes");
  }
  bool LimitOther() {
    text_bytes_ = 0;
    return CountNode();
  }

  // An element PTS does not know. PTS reads past it (SimpleXML picks the elements it knows) and
  // drops it when it writes the file again; so does this reader, skipping the element and all it
  // holds, and the read reports it (Parse: NoteIgnored). The XSD refuses it: schema_structure
  // still does.
  void Unknown(const xmlChar* name, const Open& parent) {
    const char* element = reinterpret_cast<const char*>(name);
    if (schema_) return Fail(Line(), {"unknown element <", element, "> in <", parent.name, ">"});
    Ignored({"unknown element <", element, "> in <", parent.name, ">"});
    ignored_depth_ = 1;
  }
  [[gnu::cold, gnu::noinline]] void Ignored(std::initializer_list<std::string_view> what) {
    if (ignored_count_++ > 0) return;
    first_ignored_ = "line " + std::to_string(Line()) + ": ";
    for (std::string_view part : what) first_ignored_ += part;
  }

  static void StartElement(void* ctx, const xmlChar* localname, const xmlChar*, const xmlChar* uri, int,
                           const xmlChar**, int nb_attributes, int, const xmlChar**) {
    Self(ctx).Start(localname, uri, nb_attributes);
  }
  void Start(const xmlChar* localname, const xmlChar* uri, int nb_attributes) {
    const char* name = reinterpret_cast<const char*>(localname);
    if (LimitStart(name)) return;
    if (failed()) return;
    if (ignored_depth_ > 0) return void(++ignored_depth_);  // inside an unknown element
    if (nb_attributes > 0) {
      if (schema_) return Fail(Line(), {"unexpected attribute on <", name, ">"});
      Ignored({"attribute on <", name, ">"});  // PTS reads no attribute
    }
    if (uri && schema_) return Fail(Line(), {"<", name, "> is in an XML namespace; result files use none"});
    if (stack_.empty()) {
      if (!Is(localname, "PhoronixTestSuite"))
        return Fail(Line(), {"root element is <", name, ">, not <PhoronixTestSuite>: this is not a PTS result file"});
      root_seen_ = true;
      stack_.push_back({Kind::kRoot, name, Line()});
      return;
    }
    Open& parent = Top();
    switch (parent.kind) {
      case Kind::kLeaf:
        return Fail(Line(), {"unexpected element <", name, "> inside <", parent.name, ">"});
      case Kind::kRoot:
        if (Is(localname, "Generated")) {
          if (head_sent_) return StopStreaming();
          if (parent.seen & kGeneratedBit) return Fail(Line(), {"duplicate <Generated>"});
          parent.seen |= kGeneratedBit;
          stack_.push_back({Kind::kGenerated, name, Line()});
        } else if (Is(localname, "System")) {
          if (head_sent_) return StopStreaming();
          if (schema_ && (!(parent.seen & kGeneratedBit) || (parent.seen & kResultBit)))
            return Fail(Line(), {"<System> out of the schema's order (after <Generated>, before every <Result>)"});
          file_.systems.emplace_back();
          stack_.push_back({Kind::kSystem, name, Line()});
        } else if (Is(localname, "Result")) {
          if (visitor_ && !head_sent_) {
            if (!(parent.seen & kGeneratedBit)) return StopStreaming();  // no <Generated> yet
            FinishHead();
          }
          if (schema_ && !(parent.seen & kGeneratedBit))
            return Fail(Line(), {"<Result> out of the schema's order (after <Generated>)"});
          parent.seen |= kResultBit;
          NewResult();
          stack_.push_back({Kind::kResult, name, Line()});
        } else {
          Unknown(localname, parent);
        }
        return;
      case Kind::kGenerated:
        if (!OpenField(file_.generated, kGeneratedFields, localname, parent)) Unknown(localname, parent);
        return;
      case Kind::kSystem:
        if (!OpenField(file_.systems.back(), kSystemFields, localname, parent)) Unknown(localname, parent);
        return;
      case Kind::kResult:
        if (OpenField(CurrentResult(), kResultFields, localname, parent)) return;
        if (!Is(localname, "Data")) return Unknown(localname, parent);
        if (parent.seen & kDataBit) return Fail(Line(), {"duplicate <Data> in <Result>"});
        parent.seen |= kDataBit;
        stack_.push_back({Kind::kData, name, Line()});
        return;
      case Kind::kData:
        if (!Is(localname, "Entry")) return Unknown(localname, parent);
        CurrentResult().entries.emplace_back();
        stack_.push_back({Kind::kEntry, name, Line()});
        return;
      case Kind::kEntry:
        if (!OpenField(CurrentEntry(), kEntryFields, localname, parent)) Unknown(localname, parent);
        return;
    }
  }

  static void EndElement(void* ctx, const xmlChar*, const xmlChar*, const xmlChar*) { Self(ctx).End(); }
  void End() {
    text_bytes_ = 0, --nesting_;
    if (failed() || stack_.empty()) return;
    if (ignored_depth_ > 0) return void(--ignored_depth_);
    const Open open = stack_.back();
    stack_.pop_back();
    switch (open.kind) {
      case Kind::kLeaf:
        leaf_ = nullptr;
        return;
      case Kind::kRoot:
        if (!(open.seen & kGeneratedBit)) Fail(open.line, {"<PhoronixTestSuite> lacks the required element <Generated>"});
        return;
      case Kind::kGenerated:
        return CheckRequired(kGeneratedFields, open);
      case Kind::kSystem:
        return CheckRequired(kSystemFields, open);
      case Kind::kResult:
        CheckRequired(kResultFields, open);
        if (!(open.seen & kDataBit)) Fail(open.line, {"<Result> lacks the required element <Data>"});
        return ResultDone();
      case Kind::kData:
        if (schema_ && CurrentResult().entries.empty()) Fail(open.line, {"<Data> has no <Entry> (the schema requires one)"});
        return;
      case Kind::kEntry:
        return CheckRequired(kEntryFields, open);
    }
  }

  static void Characters(void* ctx, const xmlChar* ch, int len) {
    SaxReader& r = Self(ctx);
    const std::string_view text(reinterpret_cast<const char*>(ch), static_cast<size_t>(len));
    if (r.LimitText(len)) return;
    // leaf_ is set exactly while a leaf element is open and nothing has failed.
    if (r.leaf_) return void(r.leaf_->append(text));
    if (r.failed() || r.stack_.empty() || r.ignored_depth_ > 0) return;
    if (!IsBlank(text)) r.Fail(r.Line(), {"unexpected text inside <", r.Top().name, ">"});
  }

  static void Comment(void* ctx, const xmlChar* value) {
    SaxReader& r = Self(ctx);
    if (r.LimitOther()) return;
    if (!r.root_seen_ && !r.file_.leading_comment) r.file_.leading_comment = reinterpret_cast<const char*>(value);
  }

  static void Instruction(void* ctx, const xmlChar*, const xmlChar*) {
    SaxReader& r = Self(ctx);
    r.LimitOther();
  }

  static void Reference(void* ctx, const xmlChar* name) {
    SaxReader& r = Self(ctx);
    r.Fail(r.Line(), {"entity reference &", reinterpret_cast<const char*>(name), "; is not allowed"});
  }

  static void Subset(void* ctx, const xmlChar*, const xmlChar*, const xmlChar*) {
    SaxReader& r = Self(ctx);
    r.Fail(r.Line(), {"a DOCTYPE is not allowed in a result file"});
  }

  xmlParserCtxt* ctxt_;
  ResultVisitor* visitor_;
  const ReadLimits& limits_;
  const bool schema_;  // limits_.schema_structure
  ResultFile file_;
  std::vector<Open> stack_;
  std::string* leaf_ = nullptr;  // the field the open leaf element's text goes to
  bool root_seen_ = false, head_sent_ = false, out_of_order_ = false;
  std::exception_ptr visitor_error_;
  std::string error_;
  std::optional<std::pair<long, std::string>> xml_error_;
  size_t nesting_ = 0, nodes_ = 0, text_bytes_ = 0;  // for limits_
  std::string limit_error_;
  size_t ignored_depth_ = 0;  // > 0: inside an unknown element (this deep), whose content is skipped
  size_t ignored_count_ = 0;
  std::string first_ignored_;
};

// Where the notices of what a read skipped go (SetReadNoticeHandler), and the files already
// named: one notice per file and process, however often it is read.
struct ReadNotices {
  std::mutex mutex;
  ReadNoticeHandler handler;
  std::set<std::string> noted;
};
ReadNotices& Notices() {
  static auto* notices = new ReadNotices();  // (never destroyed: a read may come late in exit)
  return *notices;
}

void NoteIgnored(const std::string& source_name, const std::string& first, size_t count) {
  std::string message = source_name + ": " + first + (count > 1 ? " (and " + std::to_string(count - 1) + " more)" : "") +
                        " ignored: PTS does not read it either, and it is not written back when the file is saved";
  ReadNotices& n = Notices();
  std::lock_guard<std::mutex> lock(n.mutex);
  if (!n.noted.insert(source_name).second) return;
  if (n.handler) n.handler(message);
  else std::cerr << "pts-native: warning: " << message << "\n";
}

struct CtxtFree {
  void operator()(xmlParserCtxt* c) const { xmlFreeParserCtxt(c); }
};

// The one parse: checks, libxml2 SAX pass, errors. Returns false only when streaming met a file
// out of PTS's element order.
bool Parse(std::string_view xml, const std::string& source_name, ResultVisitor* visitor, ResultFile* model,
           const ReadLimits& limits) {
  CheckText(xml, source_name);
  xmlInitParser();
  std::unique_ptr<xmlParserCtxt, CtxtFree> ctxt(xmlNewParserCtxt());
  if (!ctxt) throw FileError(source_name, "out of memory creating the XML parser");
  SaxReader reader(ctxt.get(), visitor, limits);
  SaxReader::Install(*ctxt->sax);
  ctxt->_private = &reader;
  // NONET: never fetch anything. No NOENT (entities are not substituted), no DTDLOAD/DTDATTR,
  // no HUGE (keeps libxml2's depth and size limits). NOERROR/NOWARNING: we report errors
  // ourselves. IGNORE_ENC: the bytes are UTF-8 (CheckUtf8), whatever an encoding declaration claims.
  xmlCtxtReadMemory(ctxt.get(), xml.data(), static_cast<int>(xml.size()), nullptr, nullptr,
                    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES |
                        XML_PARSE_IGNORE_ENC);
  if (!reader.limit_error().empty()) throw FileError(source_name, reader.limit_error());
  if (reader.visitor_error()) std::rethrow_exception(reader.visitor_error());
  if (reader.out_of_order()) return false;
  const bool malformed = !ctxt->wellFormed || reader.xml_error();
  if (reader.failed() && !malformed) throw FileError(source_name, reader.error());
  if (malformed) {
    std::string msg = reader.xml_error() ? reader.xml_error()->second : "malformed XML";
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    const long line = reader.xml_error() ? reader.xml_error()->first : 0;
    throw FileError(source_name, (line > 0 ? "line " + std::to_string(line) + ": " : std::string()) +
                                     "malformed XML: " + msg);
  }
  reader.FinishHead();
  if (reader.ignored_count() > 0) NoteIgnored(source_name, reader.first_ignored(), reader.ignored_count());
  if (model) *model = reader.Take();
  return true;
}

// ---------------------------------------------------------------------------------------------
// Writing

// The text of a result file: PTS's indentation, tags and libxml2's escaping.
class Writer {
 public:
  std::string out;

  void Open(int depth, std::string_view name) { Tag(depth, "<", name, ">\n"); }
  void Close(int depth, std::string_view name) { Tag(depth, "</", name, ">\n"); }
  void Leaf(int depth, std::string_view name, std::string_view text) {
    Tag(depth, "<", name, ">");
    Escaped(text);
    Tag(0, "</", name, ">\n");
  }
  void LeafIf(int depth, std::string_view name, const std::optional<std::string>& text) {
    if (text) Leaf(depth, name, *text);
  }

 private:
  void Tag(int depth, std::string_view a, std::string_view name, std::string_view b) {
    out.append(2 * static_cast<size_t>(depth), ' ');
    out.append(a).append(name).append(b);
  }

  // Escaped as libxml2's xmlEscapeEntities does for a document without a declared encoding (PHP's
  // DOMDocument('1.0')): < > & escaped, tab/newline and printable ASCII literal, every other
  // byte sequence as an upper-case hexadecimal character reference (so non-ASCII is written as
  // &#xE9;, \r as &#xD;). Control bytes XML 1.0 cannot carry are dropped (PTS would write an
  // empty element).
  void Escaped(std::string_view text) {
    static constexpr auto kPlain = [] {  // written as it is
      std::array<bool, 256> t{};
      for (int c = 0x20; c < 0x80; ++c) t[c] = c != '<' && c != '>' && c != '&';
      t['\t'] = t['\n'] = true;
      return t;
    }();
    auto plain = [](unsigned char c) { return kPlain[c]; };
    auto hexref = [&](uint32_t v) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "&#x%X;", v);
      out += buf;
    };
    const auto* s = reinterpret_cast<const unsigned char*>(text.data());
    const size_t n = text.size();
    for (size_t i = 0; i < n;) {
      size_t run = i;
      while (run < n && plain(s[run])) ++run;
      out.append(text.substr(i, run - i));
      if ((i = run) == n) break;
      const unsigned char c = s[i];
      if (c == '<') out += "&lt;", ++i;
      else if (c == '>') out += "&gt;", ++i;
      else if (c == '&') out += "&amp;", ++i;
      else if (c >= 0x80) {
        const int len = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
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
};

}  // namespace

ResultFile ParseResultFile(std::string_view xml, const std::string& source_name, const ReadLimits& limits) {
  ResultFile file;
  Parse(xml, source_name, nullptr, &file, limits);
  return file;
}

ResultFile ReadResultFile(const std::string& path) { return ParseResultFile(ReadFile(path), path); }

bool StreamResultFile(std::string_view xml, const std::string& source_name, ResultVisitor& visitor,
                      const ReadLimits& limits) {
  return Parse(xml, source_name, &visitor, nullptr, limits);
}

void SetReadNoticeHandler(ReadNoticeHandler handler) {
  ReadNotices& n = Notices();
  std::lock_guard<std::mutex> lock(n.mutex);
  n.handler = std::move(handler);
  n.noted.clear();
}

std::string CurrentTimestamp() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

std::string SerializeResultFile(const ResultFile& file, const SerializeOptions& options) {
  Writer w;
  w.out = "<?xml version=\"1.0\"?>\n";
  const Generated& g = file.generated;
  std::optional<std::string> comment = options.keep_as_read ? file.leading_comment : kPtsProgramTitle;
  if (comment) w.out += "<!--" + *comment + "-->\n";
  w.Open(0, "PhoronixTestSuite");
  w.Open(1, "Generated");
  w.Leaf(2, "Title", g.title);
  if (options.keep_as_read) {
    w.Leaf(2, "LastModified", g.last_modified);
    w.Leaf(2, "TestClient", g.test_client);
  } else {
    w.Leaf(2, "LastModified", options.now.empty() ? CurrentTimestamp() : options.now);
    w.Leaf(2, "TestClient", kPtsProgramTitle);
  }
  w.Leaf(2, "Description", g.description);
  w.LeafIf(2, "Notes", g.notes);
  w.LeafIf(2, "InternalTags", g.internal_tags);
  w.LeafIf(2, "ReferenceID", g.reference_id);
  w.LeafIf(2, "PreSetEnvironmentVariables", g.preset_environment_variables);
  w.Close(1, "Generated");
  for (const System& s : file.systems) {
    w.Open(1, "System");
    w.Leaf(2, "Identifier", s.identifier);
    w.Leaf(2, "Hardware", s.hardware);
    w.Leaf(2, "Software", s.software);
    w.Leaf(2, "User", s.user);
    w.Leaf(2, "TimeStamp", s.timestamp);
    w.Leaf(2, "TestClientVersion", s.test_client_version);
    // PTS always writes System/Notes; an absent one is kept absent only in a verbatim round trip.
    if (s.notes || !options.keep_as_read) w.Leaf(2, "Notes", s.notes ? *s.notes : "");
    w.LeafIf(2, "JSON", s.json);
    w.LeafIf(2, "CostValueForComparison", s.cost_value_for_comparison);
    w.Close(1, "System");
  }
  for (const Result& r : file.results) {
    if (r.entries.empty()) continue;
    w.Open(1, "Result");
    w.Leaf(2, "Identifier", r.identifier);
    w.Leaf(2, "Title", r.title);
    w.Leaf(2, "AppVersion", r.app_version);
    w.Leaf(2, "Arguments", r.arguments);
    w.Leaf(2, "Description", r.description);
    w.Leaf(2, "Scale", r.scale);
    w.Leaf(2, "Proportion", r.proportion);
    w.Leaf(2, "DisplayFormat", r.display_format);
    w.LeafIf(2, "Annotation", r.annotation);
    w.LeafIf(2, "Parent", r.parent);
    w.Open(2, "Data");
    for (const Entry& e : r.entries) {
      w.Open(3, "Entry");
      w.Leaf(4, "Identifier", e.identifier);
      w.Leaf(4, "Value", e.value);
      // PTS always writes RawString (empty when it equals Value).
      if (e.raw_string || !options.keep_as_read) w.Leaf(4, "RawString", e.raw_string ? *e.raw_string : "");
      w.LeafIf(4, "JSON", e.json);
      w.Close(3, "Entry");
    }
    w.Close(2, "Data");
    w.Close(1, "Result");
  }
  w.Close(0, "PhoronixTestSuite");
  return std::move(w.out);
}

void WriteResultFile(const std::string& path, const ResultFile& file, const SerializeOptions& options) {
  WriteFileAtomically(path, SerializeResultFile(file, options));
}

}  // namespace ptsn::results
