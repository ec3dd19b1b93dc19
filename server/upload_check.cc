#include "server/upload_check.h"

#include <libxml/parser.h>
#include <libxml/parserInternals.h>

#include <cstdint>

#include <memory>

#include "results-xml/result_xml.h"
#include "results-xml/validate.h"
#include "runner/common/error.h"

namespace ptsn::server {

namespace {

// Pass 1: bounds only; structure is the reader's job. SAX callbacks and no tree: this pass
// must cost little next to the real parse that follows.
struct Bounds {
  const UploadLimits* limits;
  xmlParserCtxt* ctxt = nullptr;
  std::vector<std::string> stack;
  size_t nodes = 0;
  size_t text = 0;  // bytes of the current text node so far (libxml2 delivers text in pieces)
  std::string rejected;

  void Reject(std::string why) {
    if (rejected.empty()) rejected = std::move(why);
    xmlStopParser(ctxt);
  }
  std::string Path() const {
    std::string out;
    for (const auto& e : stack) out += "/" + e;
    return out;
  }
  bool Count() {
    if (++nodes > limits->max_nodes) Reject("composite.xml: too many XML nodes");
    return rejected.empty();
  }
  void Text(int len) {
    if (text == 0 && !Count()) return;
    text += static_cast<size_t>(len);
    if (text > limits->max_value_bytes)
      Reject("composite.xml: value of " + Path() + " is over " + std::to_string(limits->max_value_bytes) + " bytes");
  }

  static Bounds& Of(void* ctx) { return *static_cast<Bounds*>(static_cast<xmlParserCtxt*>(ctx)->_private); }
  static void NoEntities(void* ctx) {
    Of(ctx).Reject("composite.xml: DOCTYPE and entities are not allowed in a result file");
  }
  static void StartElement(void* ctx, const xmlChar* local, const xmlChar*, const xmlChar*, int, const xmlChar**,
                           int n_attributes, int, const xmlChar** attrs) {
    Bounds& b = Of(ctx);
    b.text = 0;
    if (!b.Count()) return;
    std::string name = reinterpret_cast<const char*>(local);
    for (int i = 0; i < n_attributes; ++i) {
      // Each attribute is localname, prefix, URI, value start, value end.
      if (static_cast<size_t>(attrs[i * 5 + 4] - attrs[i * 5 + 3]) > b.limits->max_attribute_bytes)
        return b.Reject("composite.xml: attribute of " + b.Path() + "/" + name + " is over " +
                        std::to_string(b.limits->max_attribute_bytes) + " bytes");
    }
    b.stack.push_back(std::move(name));
    if (b.stack.size() > b.limits->max_depth)
      b.Reject("composite.xml: elements nested deeper than " + std::to_string(b.limits->max_depth) + " at " + b.Path());
  }
  static void EndElement(void* ctx, const xmlChar*, const xmlChar*, const xmlChar*) {
    Bounds& b = Of(ctx);
    b.text = 0;
    if (!b.stack.empty()) b.stack.pop_back();
  }
  static void Characters(void* ctx, const xmlChar*, int len) { Of(ctx).Text(len); }
  static void Other(void* ctx, const xmlChar*, const xmlChar*) {
    Of(ctx).text = 0;
    Of(ctx).Count();
  }
  static void Comment(void* ctx, const xmlChar*) {
    Of(ctx).text = 0;
    Of(ctx).Count();
  }
  static void InternalSubset(void* ctx, const xmlChar*, const xmlChar*, const xmlChar*) { NoEntities(ctx); }
  static void EntityDecl(void* ctx, const xmlChar*, int, const xmlChar*, const xmlChar*, xmlChar*) { NoEntities(ctx); }
  static void Reference(void* ctx, const xmlChar*) { NoEntities(ctx); }
  static void NoStructuredErrors(void*, xmlError*) {}
};

struct CtxtDeleter {
  void operator()(xmlParserCtxt* c) const { xmlFreeParserCtxt(c); }
};

void CheckBounds(std::string_view xml, const UploadLimits& limits) {
  if (xml.size() > static_cast<size_t>(INT32_MAX)) throw UploadRejected{"composite.xml: too large"};
  std::unique_ptr<xmlParserCtxt, CtxtDeleter> ctxt(xmlCreateMemoryParserCtxt(xml.data(), static_cast<int>(xml.size())));
  if (!ctxt) throw UploadRejected{"composite.xml: cannot be read as XML"};
  xmlSAXHandler sax{};
  sax.initialized = XML_SAX2_MAGIC;
  sax.startElementNs = Bounds::StartElement;
  sax.endElementNs = Bounds::EndElement;
  sax.characters = Bounds::Characters;
  sax.cdataBlock = Bounds::Characters;
  sax.ignorableWhitespace = Bounds::Characters;
  sax.processingInstruction = Bounds::Other;
  sax.comment = Bounds::Comment;
  sax.internalSubset = Bounds::InternalSubset;
  sax.externalSubset = Bounds::InternalSubset;
  sax.entityDecl = Bounds::EntityDecl;
  sax.reference = Bounds::Reference;
  sax.serror = Bounds::NoStructuredErrors;
  // The context's default handler is replaced; libxml2 frees ctxt->sax with the context.
  auto* owned = static_cast<xmlSAXHandler*>(xmlMalloc(sizeof(xmlSAXHandler)));
  *owned = sax;
  xmlFree(ctxt->sax);
  ctxt->sax = owned;
  Bounds bounds{&limits};
  bounds.ctxt = ctxt.get();
  ctxt->_private = &bounds;
  // NONET and no NOENT/DTDLOAD/DTDVALID: entities are never fetched or substituted.
  xmlCtxtUseOptions(ctxt.get(), XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  xmlParseDocument(ctxt.get());
  if (!bounds.rejected.empty()) throw UploadRejected{bounds.rejected};
  if (!ctxt->wellFormed) {
    const xmlError* err = xmlCtxtGetLastError(ctxt.get());
    std::string why = err && err->message ? err->message : "malformed XML";
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    throw UploadRejected{"composite.xml: not well-formed XML (" + why + ")"};
  }
}

}  // namespace

ResultSummary SummaryOf(const results::ResultFile& file) {
  ResultSummary out;
  out.title = file.generated.title;
  out.description = file.generated.description;
  for (const auto& s : file.systems) {
    out.systems.push_back(s.identifier);
    out.hardware.push_back(s.hardware);
  }
  for (const auto& r : file.results) {
    out.tests.push_back(r.identifier);
    out.result_titles.push_back(r.title);
  }
  return out;
}

ResultSummary CheckResultFile(std::string_view xml, const UploadLimits& limits) {
  CheckBounds(xml, limits);
  results::ResultFile file;
  try {
    file = results::ParseResultFile(xml, "composite.xml");
  } catch (const Error& e) {
    throw UploadRejected{e.what()};
  }
  for (const auto& issue : results::ValidateResultFile(file))
    if (issue.error) throw UploadRejected{"composite.xml: " + issue.where + ": " + issue.what};
  return SummaryOf(file);
}

}  // namespace ptsn::server
