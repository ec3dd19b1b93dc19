#include "runner/profile/xml_tree.h"

#include <libxml/parser.h>
#include <libxml/tree.h>

#include <unistd.h>

#include <functional>
#include <mutex>

#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/strings.h"

namespace ptsn::profile {

const XmlElement* XmlElement::Child(std::string_view child_name) const {
  for (const auto& c : children)
    if (c.name == child_name) return &c;
  return nullptr;
}

std::vector<const XmlElement*> XmlElement::Children(std::string_view child_name) const {
  std::vector<const XmlElement*> out;
  for (const auto& c : children)
    if (c.name == child_name) out.push_back(&c);
  return out;
}

std::string XmlElement::ChildText(std::string_view child_name) const {
  const XmlElement* c = Child(child_name);
  return c ? c->text : std::string();
}

namespace {

void SilentStructuredError(void*, xmlErrorPtr) {}
void SilentGenericError(void*, const char*, ...) {}

void InitLibxml() {
  static std::once_flag once;
  std::call_once(once, [] { xmlInitParser(); });
  // libxml2 2.9 keeps these per thread; errors are reported through our exception instead.
  xmlSetStructuredErrorFunc(nullptr, SilentStructuredError);
  xmlSetGenericErrorFunc(nullptr, SilentGenericError);
}

XmlElement Convert(xmlNode* node) {
  XmlElement e;
  e.name = reinterpret_cast<const char*>(node->name);
  e.line = static_cast<int>(xmlGetLineNo(node));
  for (xmlNode* c = node->children; c; c = c->next) {
    if (c->type == XML_ELEMENT_NODE) {
      e.children.push_back(Convert(c));
    } else if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) && c->content) {
      e.text += reinterpret_cast<const char*>(c->content);
    }
  }
  return e;
}

}  // namespace

namespace {

// NONET: never fetch anything; no NOENT/DTDLOAD/HUGE: entities stay unexpanded and libxml2's
// amplification limits stay on.
constexpr int kSafeOptions = XML_PARSE_NONET | XML_PARSE_NOWARNING | XML_PARSE_NOERROR;

XmlElement Parse(const std::string& name_for_errors, const std::function<xmlDocPtr(xmlParserCtxtPtr)>& read) {
  InitLibxml();
  xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
  if (!ctxt) throw FileError(name_for_errors, "cannot allocate an XML parser");
  xmlDocPtr doc = read(ctxt);
  if (!doc) {
    xmlErrorPtr err = xmlCtxtGetLastError(ctxt);
    std::string msg = err && err->message ? Trim(err->message) : "not well-formed XML";
    int line = err ? err->line : 0;
    xmlFreeParserCtxt(ctxt);
    throw FileError(name_for_errors + (line > 0 ? ":" + std::to_string(line) : ""), "malformed XML: " + msg);
  }
  xmlFreeParserCtxt(ctxt);
  if (doc->intSubset && doc->intSubset->entities) {
    xmlFreeDoc(doc);
    throw FileError(name_for_errors, "DOCTYPE entity declarations are not allowed in profile files");
  }
  xmlNode* root = xmlDocGetRootElement(doc);
  if (!root) {
    xmlFreeDoc(doc);
    throw FileError(name_for_errors, "empty XML document");
  }
  XmlElement out = Convert(root);
  xmlFreeDoc(doc);
  return out;
}

}  // namespace

XmlElement ParseXmlString(std::string_view xml, const std::string& name_for_errors) {
  return Parse(name_for_errors, [&](xmlParserCtxtPtr ctxt) {
    return xmlCtxtReadMemory(ctxt, xml.data(), static_cast<int>(xml.size()), name_for_errors.c_str(), nullptr,
                             kSafeOptions);
  });
}

XmlElement ParseXmlFile(const std::string& path) {
  // libxml2 reads the file itself (one read, no copy); an unreadable file gets our own message.
  if (access(path.c_str(), R_OK) != 0) ReadFile(path);  // throws "PATH: cannot open: ..."
  return Parse(path, [&](xmlParserCtxtPtr ctxt) { return xmlCtxtReadFile(ctxt, path.c_str(), nullptr, kSafeOptions); });
}

}  // namespace ptsn::profile
