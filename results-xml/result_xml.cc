#include "results-xml/result_xml.h"

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
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
#include <atomic>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>

#include "results-xml/fast_xml.h"
#include "results-xml/file_bytes.h"
#include "results-xml/parallel_read.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/settings.h"
#include "runner/common/spread_threads.h"
#include "runner/common/strings.h"

namespace ptsn::results {

namespace {

// ---------------------------------------------------------------------------------------------
// Reading

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
    // ASCII fast path, 64 then 8 bytes at a time (result files are almost entirely ASCII).
#if defined(__SSE2__)
    while (i + 64 <= n) {
      const auto* v = reinterpret_cast<const __m128i*>(s + i);
      const __m128i any = _mm_or_si128(_mm_or_si128(_mm_loadu_si128(v), _mm_loadu_si128(v + 1)),
                                       _mm_or_si128(_mm_loadu_si128(v + 2), _mm_loadu_si128(v + 3)));
      if (_mm_movemask_epi8(any) != 0) break;
      i += 64;
    }
#else
    while (i + 32 <= n) {
      uint64_t w[4];
      std::memcpy(w, s + i, 32);
      if ((w[0] | w[1] | w[2] | w[3]) & 0x8080808080808080ULL) break;
      i += 32;
    }
#endif
    while (i + 8 <= n) {
      uint64_t word;
      std::memcpy(&word, s + i, 8);
      if (word & 0x8080808080808080ULL) break;
      i += 8;
    }
    if (i >= n) break;
    unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    const size_t len = DecodeUtf8(xml, i).length;
    if (len == 0) {
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
  // Both words start "<!", and '!' is rare in result files (one leading comment): memchr for it
  // instead of a substring search that stops at every '<'. A DOCTYPE anywhere is named in
  // preference to an ENTITY before it.
  constexpr size_t kNone = std::string_view::npos;
  size_t doctype_at = kNone, entity_at = kNone;
  const char* const end = xml.data() + xml.size();
  for (const char* p = xml.data(); doctype_at == kNone && (p = static_cast<const char*>(std::memchr(p, '!', end - p)));
       ++p) {
    const size_t at = static_cast<size_t>(p - xml.data());
    if (at == 0 || xml[at - 1] != '<') continue;
    const std::string_view word = xml.substr(at + 1);
    if (word.starts_with("DOCTYPE")) doctype_at = at - 1;
    else if (word.starts_with("ENTITY") && entity_at == kNone) entity_at = at - 1;
  }
  if (doctype_at == kNone && entity_at == kNone) return;
  const bool doctype = doctype_at != kNone;
  throw FileError(source, "line " + std::to_string(LineOf(xml, doctype ? doctype_at : entity_at)) + ": " +
                              (doctype ? "DOCTYPE" : "ENTITY") +
                              " is not allowed in a result file (entity declarations are refused)");
}

// Streaming (SAX2) reader: no DOM is built, each text goes straight into the model. The first
// error found in a callback is recorded (exceptions must not cross libxml2's C frames) and the
// rest of the document is only checked for well-formedness, so a truncated file is reported as
// malformed rather than by whatever half-read tag precedes the cut; ParseResultFile throws after
// xmlParseDocument returns.
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

// Bit i: field i of `table` is optional (else required).
template <typename T, size_t N>
constexpr uint32_t OptionalMask(const FieldSpec<T> (&table)[N]) {
  uint32_t mask = 0;
  for (size_t i = 0; i < N; ++i)
    if (table[i].opt) mask |= 1u << i;
  return mask;
}
template <typename T, size_t N>
constexpr uint32_t RequiredMask(const FieldSpec<T> (&table)[N]) {
  return ((N == 32 ? 0u : 1u << N) - 1u) & ~OptionalMask(table);
}
// As constants (a constexpr function called at run time is not always folded).
template <const auto& kTable>
constexpr uint32_t kOptional = OptionalMask(kTable);
template <const auto& kTable>
constexpr uint32_t kRequired = RequiredMask(kTable);

// Text between elements: XML's white space (anything else there is an error).
constexpr auto kXmlBlank = [] {
  std::array<bool, 256> t{};
  t[' '] = t['\t'] = t['\n'] = t['\r'] = true;
  return t;
}();
bool IsBlankSlow(const xmlChar* s, size_t len) {
  for (size_t i = 0; i < len; ++i)
    if (!kXmlBlank[s[i]]) return false;
  return true;
}
// Eight bytes, each ' ' or '\n' (the indentation PTS writes): no bit but 5, 3 and 1, and either
// bit 5 alone (' ') or bits 3 and 1 (\n).
bool SpacesOrNewlines(uint64_t w) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL;
  const uint64_t b5 = (w >> 5) & kOnes, b3 = (w >> 3) & kOnes, b1 = (w >> 1) & kOnes;
  return (w & ~(0x2A * kOnes)) == 0 && (b5 ^ b3) == kOnes && b1 == b3;
}
// The text between two tags is nearly always a newline and some spaces: checked eight bytes at a
// time, with a byte-by-byte check for anything else (tabs, \r, a short text, not blank at all).
bool IsBlank(const xmlChar* s, size_t len) {
  // What PTS writes, a newline and 2 to 8 spaces: two compares of overlapping words.
  if (len >= 5 && len <= 16 && s[0] == '\n') {
    constexpr uint64_t kSpaces = 0x2020202020202020ULL, kNewlineSpaces = 0x202020202020200AULL;
    uint64_t head, tail;
    if (len >= 9) {
      std::memcpy(&head, s, 8);
      std::memcpy(&tail, s + len - 8, 8);  // after the newline
    } else {
      uint32_t head4, tail4;
      std::memcpy(&head4, s, 4);
      std::memcpy(&tail4, s + len - 4, 4);  // after the newline
      head = head4 | (kNewlineSpaces & ~0xFFFFFFFFULL);
      tail = tail4 | (kSpaces & ~0xFFFFFFFFULL);
    }
    if (head == kNewlineSpaces && tail == kSpaces) return true;
  }
  uint64_t w;
  if (len >= 8) {
    for (size_t i = 0; i + 8 < len; i += 8) {
      std::memcpy(&w, s + i, 8);
      if (!SpacesOrNewlines(w)) return IsBlankSlow(s, len);
    }
    std::memcpy(&w, s + len - 8, 8);
  } else if (len >= 4) {
    uint32_t head, tail;  // overlapping
    std::memcpy(&head, s, 4);
    std::memcpy(&tail, s + len - 4, 4);
    w = head | static_cast<uint64_t>(tail) << 32;
  } else {
    return IsBlankSlow(s, len);
  }
  return SpacesOrNewlines(w) || IsBlankSlow(s, len);
}

enum class Kind { kRoot, kGenerated, kSystem, kResult, kData, kEntry, kLeaf };

struct Open {
  Kind kind;
  const char* name;  // libxml2's dictionary string, valid while the parser lives
  long line;
  uint32_t seen = 0;  // bit i: field i of the container's table seen; bit 31: <Data>
};

constexpr uint32_t kDataBit = 1u << 31;
constexpr uint32_t kResultBit = 1u << 30;  // on the root, for ReadLimits::schema_structure

class SaxReader {
 public:
  // The visitor's calls so far (or to leave out: see `skip`).
  struct Given {
    bool head = false;
    size_t results = 0;
  };

  // visitor == nullptr: build the whole model (Take()). Otherwise stream: the visitor gets the
  // head at the first <Result> and each Result at its end tag, and only one Result is kept.
  // fragment: the document is "<PhoronixTestSuite>" + <Result> elements cut out of a file
  // (StreamResultFile on several threads): its root takes nothing else and needs no <Generated>.
  // skip: the visitor calls a first read already made (a re-read with SAX2 after needs_sax2());
  // they are left out.
  // recycled: a model read before, whose Results (with their strings and entries) are reused
  // for this file's, so reading many files one after another allocates little after the first.
  SaxReader(xmlParserCtxt* ctxt, const std::string& source, ResultVisitor* visitor,
            const ReadLimits* limits, bool fragment, Given skip, ResultFile recycled = {})
      : ctxt_(ctxt), source_(source), visitor_(visitor), fragment_(fragment), limits_(limits),
        schema_(limits && limits->schema_structure), skip_(skip) {
    auto bound = [](size_t n) { return n == 0 ? SIZE_MAX : n; };  // 0 = none
    if (limits) {
      max_depth_ = bound(limits->max_depth);
      max_nodes_ = bound(limits->max_nodes);
      max_value_bytes_ = bound(limits->max_value_bytes);
    }
    names_.Intern(ctxt->dict);
    file_.results = std::move(recycled.results);  // (all else of it is read anew)
  }

  // sax1: libxml2's SAX1 tag parser, which costs about a tenth less than SAX2's (it does no
  // namespace processing). For a document without attributes, prefixed names and errors it makes
  // exactly the calls SAX2 makes (the two differ only in how they read start and end tags); a
  // reader installed so stops at the first attribute or prefixed name, and libxml2's errors only
  // set a flag (SaxRun installs ErrorSeen for the read), so that needs_sax2() says the document
  // must be read again with SAX2.
  static void InstallInto(xmlSAXHandler& sax, bool sax1) {
    sax = xmlSAXHandler{};
    if (sax1) {
      sax.initialized = 1;  // not XML_SAX2_MAGIC: xmlDetectSAX2 leaves ctxt->sax2 off
      sax.startElement = &StartElementSax1;
      sax.endElement = &EndElementSax1;
    } else {
      sax.initialized = XML_SAX2_MAGIC;
      sax.startElementNs = &StartElement;
      sax.endElementNs = &EndElement;
      sax.serror = &RecordError;
    }
    sax.characters = &Characters;
    sax.ignorableWhitespace = &Characters;
    sax.cdataBlock = &Characters;
    sax.comment = &Comment;
    sax.processingInstruction = &Instruction;
    sax.reference = &Reference;
    sax.internalSubset = &Subset;
    sax.externalSubset = &Subset;
  }

  // Installed with sax1: the document must be read again with SAX2 for the outcome SAX2 gives
  // (an attribute or a prefixed element name was met, or libxml2 reported an error).
  bool needs_sax2() const { return needs_sax2_ || !ctxt_->wellFormed; }
  // SAX1 reads: libxml2 passes a parser without XML_SAX2_MAGIC no structured errors of its own,
  // so this is the thread's structured error handler (`reader` its context) while it reads.
  static void ErrorSeen(void* reader, xmlErrorPtr err) {
    if (err && err->level >= XML_ERR_ERROR) static_cast<SaxReader*>(reader)->needs_sax2_ = true;
  }
  const Given& given() const { return given_; }

  // The fast reader's calls (fast_xml.h): what libxml2's SAX1 parser would call for the same
  // text (`name` is the parser dictionary's string: FastSax interns it), each returning whether
  // the read goes on: not once the reader failed, was stopped (xmlStopParser) or wants SAX2.
  bool FastStart(const xmlChar* name) {
    Start(*this, name, nullptr, 0);  // (StartElementSax1's checks: the fast reader reads no ':' nor attributes)
    return FastGoesOn();
  }
  bool FastEnd() {
    End(*this);  // (EndElementSax1 without the name it does not use)
    return FastGoesOn();
  }
  bool FastLeaf(const xmlChar* name, std::string_view text) {
    // A field of its container seen for the first time, nothing failed or bounded: the text goes
    // straight into it (what Start, Characters and End make of it, in one step).
    if (!limits_ && !failed() && open_ > 0 && ignored_depth_ == 0) {
      Open& parent = Top();
      switch (parent.kind) {
        case Kind::kGenerated:
          if (SetNewField(file_.generated, kGeneratedFields, names_.generated_fields, name, parent, text)) return true;
          break;
        case Kind::kSystem:
          if (SetNewField(file_.systems.back(), kSystemFields, names_.system_fields, name, parent, text)) return true;
          break;
        case Kind::kResult:
          if (SetNewField(CurrentResult(), kResultFields, names_.result_fields, name, parent, text)) return true;
          break;
        case Kind::kEntry:
          if (SetNewField(CurrentEntry(), kEntryFields, names_.entry_fields, name, parent, text)) return true;
          break;
        default:
          break;
      }
    }
    return FastStart(name) && (text.empty() || FastCharacters(text)) && FastEnd();
  }
  bool FastCharacters(std::string_view text) {
    Characters(ctxt_, reinterpret_cast<const xmlChar*>(text.data()), static_cast<int>(text.size()));
    return FastGoesOn();
  }
  // Characters() for text known to be blank: what it does without IsBlank's check.
  bool FastIndentation(std::string_view text) {
    if (limits_ && LimitText(static_cast<int>(text.size()))) return FastGoesOn();
    if (leaf_) leaf_->append(text);
    return FastGoesOn();
  }
  bool FastComment(const std::string& text) {
    Comment(ctxt_, reinterpret_cast<const xmlChar*>(text.c_str()));
    return FastGoesOn();
  }
  bool FastGoesOn() const { return !failed() && !needs_sax2_ && ctxt_->disableSAX == 0; }
  // FastIndentation would only go on: nothing bounded, no leaf element's text being read.
  bool IndentationIsNothing() const { return !limits_ && !leaf_; }

  bool failed() const { return !error_.empty(); }
  // The first error libxml2 reported (line, message), if any.
  const std::optional<std::pair<long, std::string>>& xml_error() const { return xml_error_; }
  // The ReadLimits bound that stopped the parse, "" if none did.
  const std::string& limit_error() const { return limit_error_; }
  const std::string& error() const { return error_; }
  // Unknown elements and attributes read past: how many, and the first ("line N: ...").
  size_t ignored_count() const { return ignored_count_; }
  const std::string& first_ignored() const { return first_ignored_; }
  ResultFile Take() {
    file_.results.resize(results_read_);  // (recycled ones left over)
    return std::move(file_);
  }
  // Streaming only: a <Generated> or <System> came after a <Result> (PTS never writes that).
  bool out_of_order() const { return out_of_order_; }
  // Streaming only: what the visitor threw (rethrown once libxml2's frames are gone).
  std::exception_ptr visitor_error() const { return visitor_error_; }
  // Streaming only: gives the visitor the head if no <Result> did (a file without results).
  void FinishHead() {
    if (visitor_ && !head_sent_) {
      head_sent_ = true;
      if (skip_.head) return;
      given_.head = true;
      visitor_->Head(file_);
    }
  }

 private:
  // Element names as the parser's dictionary strings: libxml2's SAX2 parser hands every element
  // name out of its per-parser dictionary, so looking the names up there once lets each element
  // be recognised by one pointer comparison. (A name that is not the dictionary's string is
  // still recognised, by its text, on the slow path.)
  template <size_t N>
  using Names = std::array<const xmlChar*, N>;
  struct InternedNames {
    Names<std::size(kGeneratedFields)> generated_fields{};
    Names<std::size(kSystemFields)> system_fields{};
    Names<std::size(kResultFields)> result_fields{};
    Names<std::size(kEntryFields)> entry_fields{};
    const xmlChar *root = nullptr, *generated = nullptr, *system = nullptr, *result = nullptr, *data = nullptr,
                  *entry = nullptr;

    void Intern(xmlDict* dict) {
      if (!dict) return;
      auto lookup = [dict](const char* s) { return xmlDictLookup(dict, reinterpret_cast<const xmlChar*>(s), -1); };
      auto fill = [&](auto& names, const auto& table) {
        for (size_t i = 0; i < names.size(); ++i) names[i] = lookup(table[i].name);
      };
      fill(generated_fields, kGeneratedFields);
      fill(system_fields, kSystemFields);
      fill(result_fields, kResultFields);
      fill(entry_fields, kEntryFields);
      root = lookup("PhoronixTestSuite");
      generated = lookup("Generated");
      system = lookup("System");
      result = lookup("Result");
      data = lookup("Data");
      entry = lookup("Entry");
    }
  };
  static bool Is(const xmlChar* name, const xmlChar* interned, const char* literal) {
    return name == interned || std::strcmp(reinterpret_cast<const char*>(name), literal) == 0;
  }

  static SaxReader& Self(void* ctx) { return *static_cast<SaxReader*>(static_cast<xmlParserCtxt*>(ctx)->_private); }
  // libxml2's pull parser goes on after some fatal errors (a mismatched end tag) and its last
  // error is then only the consequence ("Premature end of data"): keep the first one, the cause.
  static void RecordError(void* ctx, xmlErrorPtr err) {
    SaxReader& r = Self(ctx);
    if (!err || err->level < XML_ERR_ERROR || r.xml_error_) return;
    r.xml_error_.emplace(err->line, err->message ? err->message : "malformed XML");
  }

  long Line() const { return ctxt_->input ? ctxt_->input->line : 0; }

  // Out of line, so the callbacks' common paths build no strings.
  [[gnu::cold, gnu::noinline]] void Fail(long line, std::initializer_list<std::string_view> what) {
    if (failed()) return;
    error_ = "line " + std::to_string(line) + ": ";
    for (std::string_view part : what) error_ += part;
    leaf_ = nullptr;  // nothing more goes into the model
  }

  void StopStreaming() {
    out_of_order_ = true;
    xmlStopParser(ctxt_);
  }

  // The open elements: the root, a container or two, a leaf. Pushed only while nothing failed and
  // only where the structure allows (a leaf takes no child), so never deeper than <PhoronixTestSuite>
  // <Result> <Data> <Entry> <Value>.
  void Push(const Open& open) { stack_[open_++] = open; }
  Open& Top() { return stack_[open_ - 1]; }

  // The Result being read. Streaming reuses one Result and its Entry objects, so their strings
  // keep their capacity from one result to the next (no allocation per value in the steady state).
  // A whole-model read takes a recycled Result (see the constructor) the same way.
  Result& NewResult() {
    entry_count_ = 0;
    Result* r;
    if (visitor_ && !file_.results.empty()) {
      results_read_ = 1;
      r = &file_.results.front();
    } else if (results_read_ < file_.results.size()) {
      r = &file_.results[results_read_++];
    } else {
      ++results_read_;
      return file_.results.emplace_back();
    }
    for (std::string* f : {&r->identifier, &r->title, &r->app_version, &r->arguments, &r->description, &r->scale,
                           &r->proportion, &r->display_format})
      f->clear();
    return *r;  // (every plain field is required) optional fields: kept for their capacity, reset at
                // </Result> if absent (DropUnseen)
  }
  Result& CurrentResult() { return file_.results[results_read_ - 1]; }
  Entry& NewEntry() {
    auto& entries = CurrentResult().entries;
    if (entry_count_++ < entries.size()) {
      Entry& e = entries[entry_count_ - 1];
      e.identifier.clear();
      e.value.clear();
      return e;  // optional fields: kept for their capacity, reset at </Entry> if absent (DropUnseen)
    }
    return entries.emplace_back();
  }
  Entry& CurrentEntry() { return CurrentResult().entries[entry_count_ - 1]; }

  void ResultDone() {
    Result& r = CurrentResult();
    r.entries.resize(entry_count_);
    if (!visitor_ || failed()) return;
    if (skip_.results > 0) return void(--skip_.results);
    ++given_.results;
    try {
      visitor_->OnResult(r);
    } catch (...) {
      visitor_error_ = std::current_exception();
      Fail(Line(), {"stopped"});
      xmlStopParser(ctxt_);
    }
  }

  // The index of `name` in `table`, or N.
  template <typename T, size_t N>
  static size_t FieldIndex(const FieldSpec<T> (&table)[N], const Names<N>& names, const xmlChar* name) {
    for (size_t i = 0; i < N; ++i)
      if (names[i] == name) return i;
    for (size_t i = 0; i < N; ++i)
      if (std::strcmp(table[i].name, reinterpret_cast<const char*>(name)) == 0) return i;
    return N;
  }

  // FastLeaf's one step: false (nothing done) unless `element` names a field of `table` that
  // `parent` has not had yet and the schema's order allows it.
  template <typename T, size_t N>
  bool SetNewField(T& target, const FieldSpec<T> (&table)[N], const Names<N>& names, const xmlChar* element,
                   Open& parent, std::string_view text) {
    const size_t i = FieldIndex(table, names, element);
    if (i == N || (parent.seen & (1u << i)) || (schema_ && (parent.seen >> i) > 1u)) return false;
    parent.seen |= 1u << i;
    if (table[i].plain) {
      (target.*table[i].plain).assign(text);
    } else {
      std::optional<std::string>& field = target.*table[i].opt;
      (field ? *field : field.emplace()).assign(text);  // (a recycled one keeps its capacity)
    }
    return true;
  }

  template <typename T, size_t N>
  bool OpenField(T& target, const FieldSpec<T> (&table)[N], const Names<N>& names, const xmlChar* element,
                 Open& parent) {
    const size_t i = FieldIndex(table, names, element);
    if (i == N) return false;
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
    // Text goes straight into the field (no staging copy); a present optional is "" at least.
    std::string* leaf;
    if (table[i].plain) {
      leaf = &(target.*table[i].plain);
    } else {
      std::optional<std::string>& field = target.*table[i].opt;
      leaf = field ? &*field : &field.emplace();
    }
    leaf->clear();
    leaf_ = leaf;
    Push({Kind::kLeaf, name, 0});  // a leaf's line is never reported
    return true;
  }

  // Optional fields of a reused object that this element did not contain are absent.
  template <typename T, size_t N>
  static void DropUnseen(T& target, const FieldSpec<T> (&table)[N], const Open& open, uint32_t optional) {
    for (uint32_t unseen = optional & ~open.seen; unseen; unseen &= unseen - 1)
      (target.*table[std::countr_zero(unseen)].opt).reset();
  }

  template <typename T, size_t N>
  void CheckRequired(const FieldSpec<T> (&table)[N], const Open& open, uint32_t required) {
    if (const uint32_t missing = required & ~open.seen)
      Fail(open.line, {"<", open.name, "> lacks the required element <", table[std::countr_zero(missing)].name, ">"});
  }

  // ReadLimits: counted ahead of the failed() early returns, so an earlier structural error does
  // not switch the bounds off for the rest of the file. Each returns true once a bound is exceeded.
  [[gnu::cold]] bool OverLimit(std::string what) {
    if (limit_error_.empty()) limit_error_ = std::move(what);
    xmlStopParser(ctxt_);
    return true;
  }
  bool CountNode() {
    if (++nodes_ <= max_nodes_) return false;
    return TooManyNodes();
  }
  [[gnu::cold, gnu::noinline]] bool TooManyNodes() {
    return OverLimit("more than " + std::to_string(limits_->max_nodes) + " XML nodes");
  }
  std::string OpenPath() const {
    std::string path;
    for (size_t i = 0; i < open_; ++i) path += "/" + std::string(stack_[i].name);
    return path;
  }
  bool LimitStart(const char* name) {
    text_bytes_ = 0;
    if (CountNode()) return true;
    if (++nesting_ <= max_depth_) return false;
    return TooDeep(name);
  }
  [[gnu::cold, gnu::noinline]] bool TooDeep(const char* name) {
    return OverLimit("elements nested deeper than " + std::to_string(limits_->max_depth) + " at line " +
                     std::to_string(Line()) + " (<" + name + ">)");
  }
  bool LimitText(int len) {
    if (text_bytes_ == 0 && CountNode()) return true;
    text_bytes_ += static_cast<size_t>(len);
    if (text_bytes_ <= max_value_bytes_) return false;
    return TooLong();
  }
  [[gnu::cold, gnu::noinline]] bool TooLong() {
    return OverLimit("value of " + (failed() ? "the element at line " + std::to_string(Line()) : OpenPath()) +
                     " is over " + std::to_string(limits_->max_value_bytes) + " bytes");
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
    Start(Self(ctx), localname, uri, nb_attributes);
  }
  static void StartElementSax1(void* ctx, const xmlChar* name, const xmlChar** attributes) {
    SaxReader& r = Self(ctx);
    // Ahead of every other check (bounds included), so that whatever SAX2 would make of the tag
    // is SAX2's to say.
    if (attributes || !r.WithoutColon(name)) {
      r.needs_sax2_ = true;
      return xmlStopParser(r.ctxt_);
    }
    Start(r, name, nullptr, 0);
  }
  static void EndElementSax1(void* ctx, const xmlChar*) { End(Self(ctx)); }

  // A name without ':' (what SAX2 reads as an unprefixed name, the same as SAX1). The parser's
  // dictionary hands out one pointer per name and a file has a few dozen names: the answer is
  // kept per pointer in a small direct-mapped cache.
  bool WithoutColon(const xmlChar* name) {
    const xmlChar*& slot = colon_free_[(reinterpret_cast<uintptr_t>(name) >> 4) % colon_free_.size()];
    if (slot == name) return true;
    if (std::strchr(reinterpret_cast<const char*>(name), ':')) return false;
    slot = name;
    return true;
  }

  static void Start(SaxReader& r, const xmlChar* localname, const xmlChar* uri, int nb_attributes) {
    const char* name = reinterpret_cast<const char*>(localname);
    if (r.limits_ && r.LimitStart(name)) return;
    if (r.failed()) return;
    if (r.ignored_depth_ > 0) return void(++r.ignored_depth_);  // inside an unknown element
    if (nb_attributes > 0) {
      if (r.schema_) return r.Fail(r.Line(), {"unexpected attribute on <", name, ">"});
      r.Ignored({"attribute on <", name, ">"});  // PTS reads no attribute
    }
    if (uri && r.schema_) return r.Fail(r.Line(), {"<", name, "> is in an XML namespace; result files use none"});
    if (r.open_ == 0) {
      if (!Is(localname, r.names_.root, "PhoronixTestSuite"))
        return r.Fail(r.Line(), {"root element is <", name, ">, not <PhoronixTestSuite>: this is not a PTS result file"});
      r.Push({Kind::kRoot, name, r.Line(), r.fragment_ ? 1u : 0u});
      return;
    }
    Open& parent = r.Top();
    switch (parent.kind) {
      case Kind::kLeaf:
        return r.Fail(r.Line(), {"unexpected element <", name, "> inside <", parent.name, ">"});
      case Kind::kRoot: {
        const bool result = Is(localname, r.names_.result, "Result");
        const bool generated = !result && Is(localname, r.names_.generated, "Generated");
        const bool system = !result && !generated && Is(localname, r.names_.system, "System");
        if (r.fragment_ && !result) return r.Fail(r.Line(), {"<", name, "> in a piece of <Result>s"});
        if (r.head_sent_ && (generated || system)) return r.StopStreaming();
        if (generated) {
          if (parent.seen & 1u) return r.Fail(r.Line(), {"duplicate <Generated>"});
          parent.seen |= 1u;
          r.Push({Kind::kGenerated, name, r.Line()});
        } else if (system) {
          if (r.schema_ && ((parent.seen & 1u) == 0 || (parent.seen & kResultBit)))
            return r.Fail(r.Line(), {"<System> out of the schema's order (after <Generated>, before every <Result>)"});
          r.file_.systems.emplace_back();
          r.Push({Kind::kSystem, name, r.Line()});
        } else if (result) {
          if (r.visitor_ && !r.head_sent_) {
            if (!(parent.seen & 1u)) return r.StopStreaming();  // no <Generated> yet
            r.FinishHead();
          }
          if (r.schema_ && (parent.seen & 1u) == 0)
            return r.Fail(r.Line(), {"<Result> out of the schema's order (after <Generated>)"});
          parent.seen |= kResultBit;
          r.NewResult();
          r.Push({Kind::kResult, name, r.Line()});
        } else {
          r.Unknown(localname, parent);
        }
        return;
      }
      case Kind::kGenerated:
        if (!r.OpenField(r.file_.generated, kGeneratedFields, r.names_.generated_fields, localname, parent))
          r.Unknown(localname, parent);
        return;
      case Kind::kSystem:
        if (!r.OpenField(r.file_.systems.back(), kSystemFields, r.names_.system_fields, localname, parent))
          r.Unknown(localname, parent);
        return;
      case Kind::kResult:
        if (localname != r.names_.data) {  // a field, or <Data> by its text, or unknown
          if (r.OpenField(r.CurrentResult(), kResultFields, r.names_.result_fields, localname, parent)) return;
          if (!Is(localname, r.names_.data, "Data")) return r.Unknown(localname, parent);
        }
        if (parent.seen & kDataBit) return r.Fail(r.Line(), {"duplicate <Data> in <Result>"});
        parent.seen |= kDataBit;
        r.Push({Kind::kData, name, r.Line()});
        return;
      case Kind::kData:
        if (!Is(localname, r.names_.entry, "Entry")) return r.Unknown(localname, parent);
        r.NewEntry();
        r.Push({Kind::kEntry, name, r.Line()});
        return;
      case Kind::kEntry:
        if (!r.OpenField(r.CurrentEntry(), kEntryFields, r.names_.entry_fields, localname, parent))
          r.Unknown(localname, parent);
        return;
    }
  }

  static void EndElement(void* ctx, const xmlChar*, const xmlChar*, const xmlChar*) { End(Self(ctx)); }
  static void End(SaxReader& r) {
    if (r.limits_) r.text_bytes_ = 0, --r.nesting_;
    if (r.failed() || r.open_ == 0) return;
    if (r.ignored_depth_ > 0) return void(--r.ignored_depth_);
    const Open open = r.stack_[--r.open_];
    switch (open.kind) {
      case Kind::kLeaf:
        r.leaf_ = nullptr;
        return;
      case Kind::kRoot:
        if (!(open.seen & 1u)) r.Fail(open.line, {"<PhoronixTestSuite> lacks the required element <Generated>"});
        return;
      case Kind::kGenerated:
        return r.CheckRequired(kGeneratedFields, open, kRequired<kGeneratedFields>);
      case Kind::kSystem:
        return r.CheckRequired(kSystemFields, open, kRequired<kSystemFields>);
      case Kind::kResult:
        DropUnseen(r.CurrentResult(), kResultFields, open, kOptional<kResultFields>);
        r.CheckRequired(kResultFields, open, kRequired<kResultFields>);
        if (!(open.seen & kDataBit)) r.Fail(open.line, {"<Result> lacks the required element <Data>"});
        return r.ResultDone();
      case Kind::kData:
        if (r.schema_ && r.entry_count_ == 0) r.Fail(open.line, {"<Data> has no <Entry> (the schema requires one)"});
        return;
      case Kind::kEntry:
        DropUnseen(r.CurrentEntry(), kEntryFields, open, kOptional<kEntryFields>);
        return r.CheckRequired(kEntryFields, open, kRequired<kEntryFields>);
    }
  }

  static void Characters(void* ctx, const xmlChar* ch, int len) {
    SaxReader& r = Self(ctx);
    if (r.limits_ && r.LimitText(len)) return;
    // leaf_ is set exactly while a leaf element is open and nothing has failed.
    if (r.leaf_) return void(r.leaf_->append(reinterpret_cast<const char*>(ch), static_cast<size_t>(len)));
    if (r.failed() || r.open_ == 0 || r.ignored_depth_ > 0) return;
    if (!IsBlank(ch, len)) r.Fail(r.Line(), {"unexpected text inside <", r.Top().name, ">"});
  }

  static void Comment(void* ctx, const xmlChar* value) {
    SaxReader& r = Self(ctx);
    if (r.limits_ && r.LimitOther()) return;
    if (r.open_ == 0 && !r.root_seen_comment_ && !r.file_.leading_comment) {
      r.file_.leading_comment = std::string(reinterpret_cast<const char*>(value));
      r.root_seen_comment_ = true;
    }
  }

  static void Instruction(void* ctx, const xmlChar*, const xmlChar*) {
    SaxReader& r = Self(ctx);
    if (r.limits_) r.LimitOther();
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
  const std::string& source_;
  ResultVisitor* visitor_;
  bool fragment_;
  bool head_sent_ = false;
  bool out_of_order_ = false;
  std::exception_ptr visitor_error_;
  size_t entry_count_ = 0;  // Entries of the current Result read so far
  ResultFile file_;
  // Results read so far (streaming: 1, the one reused); file_.results may hold more, recycled ones
  // not reused yet.
  size_t results_read_ = 0;
  std::array<Open, 5> stack_;
  size_t open_ = 0;              // elements in stack_
  std::string* leaf_ = nullptr;  // the field the open leaf element's text goes to
  bool root_seen_comment_ = false;
  std::string error_;
  std::optional<std::pair<long, std::string>> xml_error_;
  InternedNames names_;
  const ReadLimits* limits_;
  const bool schema_;  // limits_->schema_structure
  size_t nesting_ = 0, nodes_ = 0, text_bytes_ = 0;  // for limits_
  size_t max_depth_ = SIZE_MAX, max_nodes_ = SIZE_MAX, max_value_bytes_ = SIZE_MAX;  // limits_, SIZE_MAX for 0
  std::string limit_error_;
  bool needs_sax2_ = false;
  size_t ignored_depth_ = 0;  // > 0: inside an unknown element (this deep), whose content is skipped
  size_t ignored_count_ = 0;
  std::string first_ignored_;
  std::array<const xmlChar*, 64> colon_free_{};  // WithoutColon
  Given skip_, given_;
};

// ---------------------------------------------------------------------------------------------
// Writing

// The text of a result file, written into a buffer of its own: a leaf's tags and text go in with
// one room check and plain copies (std::string's appends and resizes cost more than the copying
// itself: a 50-file merge writes ~25,000 leaves).
class Writer {
 public:
  explicit Writer(size_t reserve) { Reserve(reserve); }
  std::string_view text() const { return {data_.get(), size_}; }
  void Clear() { size_ = 0; }

  // (Inlined, as are the helpers below, so that the tags' lengths are constants and their copies
  // a few moves each rather than calls of memcpy: 3.7 -> 2.7 instructions per byte written.)
  void Raw(std::string_view s) { std::memcpy(Room(s.size()), s.data(), s.size()), size_ += s.size(); }
  [[gnu::always_inline]] void Open(int depth, std::string_view name) { Tag(depth, "<", name, ">\n"); }
  [[gnu::always_inline]] void Close(int depth, std::string_view name) { Tag(depth, "</", name, ">\n"); }
  [[gnu::always_inline]] void Leaf(int depth, std::string_view name, std::string_view text) {
    const char* const end = text.data() + text.size();
    if (XmlTextRunEnd(text.data(), end, '<', '>', '&') == end) {  // nothing to escape (the usual)
      char* p = Room(2 * static_cast<size_t>(depth) + 2 * name.size() + text.size() + 5);
      p = Put(Indent(p, depth), "<", name, ">");
      std::memcpy(p, text.data(), text.size());
      p = Put(p + text.size(), "</", name, ">\n");
      size_ = static_cast<size_t>(p - data_.get());
      return;
    }
    Tag(depth, "<", name, ">");
    Escaped(text);
    Tag(0, "</", name, ">\n");
  }
  [[gnu::always_inline]] void LeafIf(int depth, std::string_view name, const std::optional<std::string>& text) {
    if (text) Leaf(depth, name, std::string_view(*text));
  }

 private:
  static constexpr size_t kSlack = 16;  // Indent writes whole words

  // At least `n` bytes (and kSlack more) free at the end; returns where they start.
  [[gnu::always_inline]] char* Room(size_t n) {
    if (capacity_ - size_ < n + kSlack) Reserve(std::max(2 * capacity_, size_ + n + kSlack));
    return data_.get() + size_;
  }
  [[gnu::noinline]] void Reserve(size_t capacity) {
    auto bigger = std::make_unique_for_overwrite<char[]>(capacity + kSlack);
    if (size_) std::memcpy(bigger.get(), data_.get(), size_);
    data_ = std::move(bigger);
    capacity_ = capacity;
  }
  // 2 * depth spaces (depth <= 4 in a result file; kSlack covers the whole words written).
  [[gnu::always_inline]] static char* Indent(char* p, int depth) {
    const auto n = static_cast<size_t>(depth) * 2;
    if (n <= 8) {
      std::memcpy(p, "        ", 8);
    } else {
      std::memset(p, ' ', n);
    }
    return p + n;
  }
  [[gnu::always_inline]] static char* Put(char* p, std::string_view a, std::string_view name, std::string_view b) {
    std::memcpy(p, a.data(), a.size());
    p += a.size();
    std::memcpy(p, name.data(), name.size());
    p += name.size();
    std::memcpy(p, b.data(), b.size());
    return p + b.size();
  }
  [[gnu::always_inline]] void Tag(int depth, std::string_view a, std::string_view name, std::string_view b) {
    char* p = Room(2 * static_cast<size_t>(depth) + a.size() + name.size() + b.size());
    size_ = static_cast<size_t>(Put(Indent(p, depth), a, name, b) - data_.get());
  }
  void Char(char c) { *Room(1) = c, ++size_; }

  // Escaped as libxml2's xmlEscapeEntities does for a document without a declared encoding (PHP's
  // DOMDocument('1.0')): < > & escaped, tab/newline and printable ASCII literal, every other
  // byte sequence as an upper-case hexadecimal character reference (so non-ASCII is written as
  // &#xE9;, \r as &#xD;). Control bytes XML 1.0 cannot carry are dropped (PTS would write an
  // empty element).
  void Escaped(std::string_view text) {
    static const char kHex[] = "0123456789ABCDEF";
    auto hexref = [&](uint32_t v) {
      char buf[16];
      int n = 0;
      do {
        buf[n++] = kHex[v & 0xF];
        v >>= 4;
      } while (v);
      Raw("&#x");
      while (n) Char(buf[--n]);
      Char(';');
    };
    const auto* s = reinterpret_cast<const unsigned char*>(text.data());
    const size_t n = text.size();
    const char* const end = text.data() + n;
    for (size_t i = 0; i < n;) {
      // Copy the (usual) run of bytes that need no escaping in one go.
      const size_t run = static_cast<size_t>(XmlTextRunEnd(text.data() + i, end, '<', '>', '&') - text.data());
      if (run > i) {
        Raw(text.substr(i, run - i));
        i = run;
        if (i == n) break;
      }
      const unsigned char c = s[i];
      if (c == '<') Raw("&lt;"), ++i;
      else if (c == '>') Raw("&gt;"), ++i;
      else if (c == '&') Raw("&amp;"), ++i;
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

  std::unique_ptr<char[]> data_;
  size_t size_ = 0, capacity_ = 0;
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

namespace {

// What libxml2 reads: `text`, or a piece of a file with the root tags it needs around it.
struct Document {
  std::string_view before, text, after;  // read as one
  bool fragment = false;                 // "<PhoronixTestSuite>" + <Result>s (SaxReader's fragment)
};

// The setting results.fast_xml, unless UseFastXmlReader() said otherwise.
std::atomic<int> fast_xml_reader{-1};  // -1: not decided yet
bool FastXmlReaderOn() {
  int on = fast_xml_reader.load(std::memory_order_relaxed);
  if (on < 0) {
    on = GlobalSettings().GetBool("results.fast_xml") ? 1 : 0;
    fast_xml_reader.store(on, std::memory_order_relaxed);
  }
  return on == 1;
}

// One libxml2 SAX pass of a SaxReader over `doc`.
class SaxRun {
 public:
  // First with libxml2's SAX1 tag parser (SaxReader::InstallInto says why); a document it cannot
  // read as SAX2 would is read again with SAX2 from the start, the visitor being given only the
  // calls it has not had (the two reads make the same calls up to where the first one stopped).
  //
  // Before both, the fast reader (fast_xml.h) when it is on: a document it reads to the end is
  // done; where it gives up, libxml2 reads the document from the start, the visitor again given
  // only the calls it has not had. (It does not give up after a visitor's error or a streaming
  // stop, which libxml2 would meet at the same call.)
  //
  // recycled: a model whose memory the (first) reader reuses (SaxReader's constructor).
  SaxRun(const Document& doc, const std::string& source_name, ResultVisitor* visitor, const ReadLimits* limits,
         ResultFile recycled = {})
      : recycled_(std::move(recycled)) {
    static const bool sax1 = xmlHasFeature(XML_WITH_SAX1);
    SaxReader::Given given;
    if (FastXmlReaderOn()) {
      if (FastRead(doc, source_name, visitor, limits) || reader_->visitor_error() || reader_->out_of_order()) return;
      given = reader_->given();
    }
    auto plus = [](SaxReader::Given a, const SaxReader::Given& b) {
      a.head = a.head || b.head;
      a.results += b.results;
      return a;
    };
    Read(doc, source_name, visitor, limits, sax1, given);
    if (sax1 && reader_->needs_sax2()) Read(doc, source_name, visitor, limits, false, plus(given, reader_->given()));
  }
  SaxReader& reader() { return *reader_; }
  bool malformed() const { return !ctxt_->wellFormed || reader_->xml_error(); }
  // Read to the end with nothing wrong and nothing stopped.
  bool clean() const {
    return !malformed() && !reader_->failed() && reader_->limit_error().empty() && !reader_->visitor_error() &&
           !reader_->out_of_order();
  }

 private:
  void NewReader(const Document& doc, const std::string& source_name, ResultVisitor* visitor, const ReadLimits* limits,
                 SaxReader::Given skip) {
    reader_.reset();
    ctxt_.reset(xmlNewParserCtxt());
    if (!ctxt_) throw FileError(source_name, "out of memory creating the XML parser");
    reader_.emplace(ctxt_.get(), source_name, visitor, limits, doc.fragment, skip, std::move(recycled_));
    ctxt_->_private = &*reader_;
  }

  // The fast reader's calls passed to the SaxReader, each element name interned in the parser's
  // dictionary (as libxml2 hands names out) through a small cache: a file has a few dozen names.
  class FastSax : public FastXmlHandler {
   public:
    FastSax(SaxReader& reader, xmlDict* dict) : reader_(reader), dict_(dict) {}
    bool StartElement(std::string_view name) override { return Noted(reader_.FastStart(Intern(name))); }
    bool EndElement(std::string_view) override { return Noted(reader_.FastEnd()); }
    bool Characters(std::string_view text) override { return reader_.FastCharacters(text); }
    bool Comment(const std::string& text) override { return reader_.FastComment(text); }
    bool Leaf(std::string_view name, std::string_view text) override { return Noted(reader_.FastLeaf(Intern(name), text)); }
    bool Indentation(std::string_view text) override { return reader_.FastIndentation(text); }

   private:
    // After a call that may open or close a leaf element: whether indentation is nothing now.
    bool Noted(bool goes_on) {
      indentation_is_nothing = reader_.IndentationIsNothing();
      return goes_on;
    }
    const xmlChar* Intern(std::string_view name) {
      // (These factors give each element name of a result file a slot of its own.)
      const size_t h = (name.size() + static_cast<unsigned char>(name[0]) * 29 +
                        static_cast<unsigned char>(name[name.size() / 2]) * 7 + static_cast<unsigned char>(name.back())) %
                       cache_.size();
      Cached& c = cache_[h];
      if (c.interned && c.name.size() == name.size() && SameShortBytes(c.name.data(), name.data(), name.size()))
        return c.interned;
      const xmlChar* interned =
          xmlDictLookup(dict_, reinterpret_cast<const xmlChar*>(name.data()), static_cast<int>(name.size()));
      if (!interned) throw std::bad_alloc();
      c.name.assign(name);
      c.interned = interned;
      return interned;
    }
    struct Cached {
      std::string name;
      const xmlChar* interned = nullptr;
    };
    SaxReader& reader_;
    xmlDict* dict_;
    std::array<Cached, 128> cache_;
  };

  // True when the fast reader read the whole document and nothing went wrong.
  bool FastRead(const Document& doc, const std::string& source_name, ResultVisitor* visitor, const ReadLimits* limits) {
    NewReader(doc, source_name, visitor, limits, {});
    FastSax sax(*reader_, ctxt_->dict);
    FastXmlReader fast(sax);
    const bool whole = fast.Feed(doc.before) && fast.Feed(doc.text) && fast.Feed(doc.after) && fast.Finish();
    return whole && clean();
  }

  void Read(const Document& doc, const std::string& source_name, ResultVisitor* visitor, const ReadLimits* limits,
            bool sax1, SaxReader::Given skip) {
    NewReader(doc, source_name, visitor, limits, skip);
    SaxReader::InstallInto(*ctxt_->sax, sax1);
    // A pull parser over the whole text in one call, without the push parser's per-chunk
    // look-ahead scans. libxml2 pulls the text through a read callback, copying one slice at a
    // time into its window and dropping what it has consumed, so it never holds a second copy of
    // the whole file (xmlCtxtReadMemory would copy all of it).
    struct Slices {
      std::string_view parts[3];
      size_t at = 0;
      static int Read(void* self, char* buffer, int len) {
        auto& s = *static_cast<Slices*>(self);
        while (s.at < 3 && s.parts[s.at].empty()) ++s.at;
        if (s.at == 3) return 0;
        std::string_view& rest = s.parts[s.at];
        const size_t n = std::min(rest.size(), static_cast<size_t>(len));
        std::memcpy(buffer, rest.data(), n);
        rest.remove_prefix(n);
        return static_cast<int>(n);
      }
    } slices{{doc.before, doc.text, doc.after}};
    // A SAX1 read learns of libxml2's errors through the thread's structured error handler
    // (per thread in libxml2), ours for the read and the caller's again after it.
    struct ErrorHandlerForTheRead {
      xmlStructuredErrorFunc saved = xmlStructuredError;
      void* saved_context = xmlStructuredErrorContext;
      bool installed;
      ErrorHandlerForTheRead(bool install, SaxReader& reader) : installed(install) {
        if (installed) xmlSetStructuredErrorFunc(&reader, &SaxReader::ErrorSeen);
      }
      ~ErrorHandlerForTheRead() {
        if (installed) xmlSetStructuredErrorFunc(saved_context, saved);
      }
    } error_handler(sax1, *reader_);
    // NONET: never fetch anything. No NOENT (entities are not substituted), no DTDLOAD/DTDATTR,
    // no HUGE (keeps libxml2's depth and size limits). NOERROR/NOWARNING: we report errors
    // ourselves. IGNORE_ENC: the bytes are UTF-8 (CheckUtf8), whatever an encoding declaration
    // claims; read them as they are rather than through a UTF-8 -> UTF-8 conversion copy.
    xmlCtxtReadIO(ctxt_.get(), &Slices::Read, nullptr, &slices, nullptr, nullptr,
                  XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES |
                      XML_PARSE_IGNORE_ENC);
  }

  ResultFile recycled_;  // for the first reader (moved there)
  std::unique_ptr<xmlParserCtxt, CtxtFree> ctxt_;  // (declared first: reader_ goes first)
  std::optional<SaxReader> reader_;
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

// The checks on the whole text that come before the parse (and its errors).
void CheckText(std::string_view xml, const std::string& source_name) {
  if (xml.find_first_not_of(" \t\r\n") == std::string_view::npos)
    throw FileError(source_name, "empty file, not a result file");
  CheckUtf8(xml, source_name);
  RejectDoctype(xml, source_name);
  if (xml.size() > static_cast<size_t>(INT32_MAX)) throw FileError(source_name, "file too large");
}

// The one parse: checks, libxml2 SAX pass, errors. Returns false only when streaming met a file
// out of PTS's element order. `doc`: the file is `xml` cut short with a root end tag added
// (StreamResultFile on several threads; the checks still cover all of `xml`). `model`: where the
// whole model goes; what it held before is reused for it (SaxReader's `recycled`).
bool Parse(std::string_view xml, const std::string& source_name, ResultVisitor* visitor,
           ResultFile* model, const ReadLimits* limits = nullptr, const Document* doc = nullptr) {
  CheckText(xml, source_name);
  xmlInitParser();
  SaxRun run(doc ? *doc : Document{{}, xml, {}}, source_name, visitor, limits,
             model ? std::move(*model) : ResultFile{});
  SaxReader& reader = run.reader();
  if (!reader.limit_error().empty()) throw FileError(source_name, reader.limit_error());
  if (reader.visitor_error()) std::rethrow_exception(reader.visitor_error());
  if (reader.out_of_order()) return false;
  const bool malformed = run.malformed();
  if (reader.failed() && !malformed) throw FileError(source_name, reader.error());
  if (malformed) {
    std::string msg = reader.xml_error() ? reader.xml_error()->second : "malformed XML";
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    long line = reader.xml_error() ? reader.xml_error()->first : 0;
    throw FileError(source_name, (line > 0 ? "line " + std::to_string(line) + ": " : std::string()) +
                                     "malformed XML: " + msg);
  }
  reader.FinishHead();
  if (reader.ignored_count() > 0 && !(doc && doc->fragment))
    NoteIgnored(source_name, reader.first_ignored(), reader.ignored_count());
  if (model) *model = reader.Take();
  return true;
}

// ---------------------------------------------------------------------------------------------
// Streaming on several threads (StreamResultFile with threads > 1)

// Passes on what `to` has not been given yet: a single-threaded read that goes on from where a
// parallel read stopped gives the visitor exactly the calls it would have had from the start.
class ResumingVisitor : public ResultVisitor {
 public:
  ResumingVisitor(ResultVisitor& to, bool head_given, size_t results_given)
      : to_(to), skip_head_(head_given), skip_results_(results_given) {}
  void Head(const ResultFile& head) override {
    if (!skip_head_) to_.Head(head);
  }
  void OnResult(const Result& result) override {
    if (skip_results_ > 0) --skip_results_;
    else to_.OnResult(result);
  }

 private:
  ResultVisitor& to_;
  bool skip_head_;
  size_t skip_results_;
};

// One file read on several threads: the text is cut at top-level <Result> tags (parallel_read.h's
// ResultSplitPoints) into stretches, several per thread. The calling thread parses the first
// (closed with the root's end tag) and gives it to the visitor; each later stretch (opened with
// the root's start tag, and closed with its end tag but the last) is parsed into a fork of the
// visitor by whichever thread takes it first: the threads take the next unread stretch whenever
// they finish one, the calling thread too while the stretch it must join next is still being
// read. So a thread on a slower core reads fewer stretches (this project's test machine often
// runs one vCPU at 60 % of the other's speed; hybrid CPUs do so by design). The forks are
// joined back in file order; nothing else is handed from thread to thread.
//
// The workers start at Head, once the forks exist, and never wait: a thread that sleeps is woken
// by the kernel onto its waker's CPU, where it shares that CPU (spread_threads.h).
//
// The outcome is the single-threaded read's. A cut that is not at the root's child depth leaves a
// stretch that is not well-formed. Anything but a clean read of a stretch with at least one Result
// (an error, a file out of PTS's order, a fork's exception) is settled by reading the file again
// single-threaded from the start, the visitor being given only the calls it has not had yet
// (ResumingVisitor): the error and its line are then the single-threaded read's by construction.
// Exceptions of the visitor itself (OnResult, Fork, Join) come out unchanged, as on one thread.
class ForkedRead {
 public:
  ForkedRead(std::string_view xml, const std::string& source_name, std::vector<size_t> cuts, unsigned threads)
      : xml_(xml), source_name_(source_name), cuts_(std::move(cuts)), stretches_(cuts_.size()), workers_(threads - 1) {}

  ~ForkedRead() {
    cancelled_.store(true, std::memory_order_release);  // what the threads still read is not needed
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }

  bool Run(ResultVisitor& visitor) {
    First first(*this, visitor);
    bool complete = false, failed = false;
    try {
      const Document head_stretch{{}, xml_.substr(0, cuts_.front()), kClose};
      complete = Parse(xml_, source_name_, &first, nullptr, nullptr, &head_stretch);
    } catch (...) {
      if (first.visitor_threw) throw;
      failed = true;
    }
    if (complete && !failed && first.given > 0) {
      for (size_t i = 0; i < stretches_.size(); ++i) {
        Stretch& s = stretches_[i];
        const bool adopted = s.fork && visitor.Adopt(*s.fork);
        while (!s.done.load(std::memory_order_acquire))
          if (!ReadNextStretch()) s.done.wait(false, std::memory_order_acquire);
        if (!s.clean || s.results == 0) {
          // What an adopted fork rendered has gone out: only the whole-file read can follow it.
          if (adopted && s.results > 0) return false;
          break;
        }
        visitor.Join(*s.fork);
        s.fork.reset();  // its buffers go back before the next stretches fill theirs
        first.given += s.results;
        if (i + 1 == stretches_.size()) return true;
      }
    }
    cancelled_.store(true, std::memory_order_release);  // what the threads still read is not needed
    ResumingVisitor resuming(visitor, first.head_given, first.given);
    return Parse(xml_, source_name_, &resuming, nullptr);
  }

 private:
  static constexpr std::string_view kOpen = "<PhoronixTestSuite>", kClose = "</PhoronixTestSuite>";
  struct Cancelled {};

  struct Stretch {
    std::unique_ptr<ResultVisitor> fork;  // set at Head, before any thread reads the stretch
    size_t results = 0;
    bool clean = false;
    std::atomic<bool> done{false};  // results and clean are final
  };

  // The calling thread's visitor: passes everything on, forks and starts the workers right after
  // Head.
  struct First : ResultVisitor {
    First(ForkedRead& r, ResultVisitor& to) : r(r), to(to) {}
    void Head(const ResultFile& head) override {
      Guarded([&] {
        to.Head(head);
        head_given = true;
        for (Stretch& s : r.stretches_) s.fork = to.Fork();
      });
      r.StartWorkers();
    }
    void OnResult(const Result& result) override {
      Guarded([&] { to.OnResult(result); });
      ++given;
    }
    template <typename F>
    void Guarded(F&& f) {
      try {
        f();
      } catch (...) {
        visitor_threw = true;
        throw;
      }
    }
    ForkedRead& r;
    ResultVisitor& to;
    bool head_given = false, visitor_threw = false;
    size_t given = 0;
  };

  // A stretch's reader's visitor: feeds the stretch's fork.
  struct Later : ResultVisitor {
    Later(ForkedRead& r, Stretch& s) : r(r), s(s) {}
    void Head(const ResultFile&) override {}
    void OnResult(const Result& result) override {
      if (r.cancelled_.load(std::memory_order_acquire) || !s.fork) throw Cancelled{};
      s.fork->OnResult(result);
      ++s.results;
    }
    ForkedRead& r;
    Stretch& s;
  };

  // As many workers as threads can be had: with none, the calling thread reads every stretch.
  void StartWorkers() {
    ThreadSpreader spreader;
    try {
      for (unsigned t = 0; t < workers_; ++t)
        threads_.push_back(spreader.Start([this] {
          while (ReadNextStretch()) {
          }
        }));
    } catch (const std::system_error&) {
    }
  }

  // Reads the first stretch no thread has taken; false when none is left (or the read was
  // cancelled).
  bool ReadNextStretch() {
    if (cancelled_.load(std::memory_order_acquire)) return false;
    const size_t i = next_.fetch_add(1, std::memory_order_relaxed);
    if (i >= stretches_.size()) return false;
    Stretch& s = stretches_[i];
    try {
      const size_t from = cuts_[i], to = i + 1 < cuts_.size() ? cuts_[i + 1] : xml_.size();
      Later later(*this, s);
      SaxRun run(Document{kOpen, xml_.substr(from, to - from), i + 1 < cuts_.size() ? kClose : std::string_view(),
                          /*fragment=*/true},
                 source_name_, &later, nullptr);
      s.clean = run.clean();
    } catch (...) {  // out of memory: the single-threaded read will say so
      s.clean = false;
    }
    s.done.store(true, std::memory_order_release);
    s.done.notify_all();
    return true;
  }

  std::string_view xml_;
  const std::string& source_name_;
  const std::vector<size_t> cuts_;
  std::vector<Stretch> stretches_;  // one per cut: the text from it to the next
  const unsigned workers_;  // threads besides the calling one
  std::vector<std::thread> threads_;
  std::atomic<size_t> next_{0};  // the first stretch no thread has taken
  std::atomic<bool> cancelled_{false};
};

}  // namespace

void UseFastXmlReader(bool on) { fast_xml_reader.store(on ? 1 : 0, std::memory_order_relaxed); }

ResultFile ParseResultFile(std::string_view xml, const std::string& source_name) {
  ResultFile file;
  Parse(xml, source_name, nullptr, &file);
  return file;
}

ResultFile ParseResultFile(std::string_view xml, const std::string& source_name, const ReadLimits& limits) {
  ResultFile file;
  Parse(xml, source_name, nullptr, &file, &limits);
  return file;
}

ResultFile ReadResultFile(const std::string& path) {
  ResultFile file;
  ReadResultFile(path, file);
  return file;
}

void ReadResultFile(const std::string& path, ResultFile& into) {
  const FileBytes xml(path);
  Parse(xml.view(), path, nullptr, &into);
}

bool StreamResultFile(std::string_view xml, const std::string& source_name, ResultVisitor& visitor,
                      const StreamOptions& options) {
  if (options.threads <= 1 || xml.size() < options.min_parallel_bytes || !visitor.CanFork())
    return Parse(xml, source_name, &visitor, nullptr);
  // Stretches of at least min_stretch_bytes, up to stretches_per_thread per thread.
  const size_t parts = std::clamp<size_t>(xml.size() / std::max<size_t>(options.min_stretch_bytes, 1), options.threads,
                                          size_t{options.threads} * std::max(options.stretches_per_thread, 1u));
  const double first_share = options.first_share > 0 ? options.first_share : 1.0 / static_cast<double>(parts);
  std::vector<size_t> cuts = ResultSplitPoints(xml, parts, first_share);
  if (cuts.empty()) return Parse(xml, source_name, &visitor, nullptr);
  xmlInitParser();  // before other threads parse
  return ForkedRead(xml, source_name, std::move(cuts), options.threads).Run(visitor);
}

bool StreamResultFile(std::string_view xml, const std::string& source_name, ResultVisitor& visitor,
                      const ReadLimits& limits) {
  return Parse(xml, source_name, &visitor, nullptr, &limits);
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

namespace {

// The text of `file`, handed to flush() in pieces: whenever a Result leaves more than `flush_at`
// bytes unflushed, and the rest at the end.
void Serialize(const ResultFile& file, const SerializeOptions& options, size_t flush_at,
               const std::function<void(std::string_view)>& flush) {
  const size_t estimate = EstimateSize(file);
  Writer w(estimate <= flush_at ? estimate : flush_at + flush_at / 2);
  w.Raw("<?xml version=\"1.0\"?>\n");
  const Generated& g = file.generated;
  std::optional<std::string> comment = options.keep_as_read ? file.leading_comment : kPtsProgramTitle;
  if (comment) w.Raw("<!--" + *comment + "-->\n");
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
    if (w.text().size() >= flush_at) {
      flush(w.text());
      w.Clear();
    }
  }
  w.Close(0, "PhoronixTestSuite");
  flush(w.text());
}

}  // namespace

std::string SerializeResultFile(const ResultFile& file, const SerializeOptions& options) {
  std::string out;
  Serialize(file, options, SIZE_MAX, [&](std::string_view text) { out.append(text); });  // (one piece)
  return out;
}

void WriteResultFile(const std::string& path, const ResultFile& file, const SerializeOptions& options) {
  // Written in pieces of about kPiece bytes through one buffer: a merged file of megabytes is
  // never all in memory, and the buffer stays in cache between the writes.
  constexpr size_t kPiece = 128 << 10;
  AtomicFileWriter writer(path);
  Serialize(file, options, kPiece, [&](std::string_view text) { writer.Write(text); });
  writer.Commit();
}

}  // namespace ptsn::results
