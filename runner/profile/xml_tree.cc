#include "runner/profile/xml_tree.h"

#include <libxml/parser.h>
#include <libxml/tree.h>

#include <functional>
#include <mutex>

#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/profile/profile_files.h"

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

void Convert(xmlNode* node, XmlElement* e) {
  e->name = reinterpret_cast<const char*>(node->name);
  e->line = static_cast<int>(xmlGetLineNo(node));
  size_t elements = 0;
  for (xmlNode* c = node->children; c; c = c->next) elements += c->type == XML_ELEMENT_NODE;
  e->children.reserve(elements);
  for (xmlNode* c = node->children; c; c = c->next) {
    if (c->type == XML_ELEMENT_NODE) {
      Convert(c, &e->children.emplace_back());
    } else if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) && c->content) {
      e->text += reinterpret_cast<const char*>(c->content);
    }
  }
}

}  // namespace

namespace {

// NONET: never fetch anything; no NOENT/DTDLOAD/HUGE: entities stay unexpanded and libxml2's
// amplification limits stay on.
constexpr int kSafeOptions = XML_PARSE_NONET | XML_PARSE_NOWARNING | XML_PARSE_NOERROR;

XmlElement Parse(const std::string& name_for_errors, const std::function<xmlDocPtr(xmlParserCtxtPtr)>& read,
                 const std::function<void(xmlDocPtr)>* inspect) {
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
  XmlElement out;
  try {
    if (inspect) (*inspect)(doc);
    Convert(root, &out);
  } catch (...) {
    xmlFreeDoc(doc);
    throw;
  }
  xmlFreeDoc(doc);
  return out;
}

}  // namespace

XmlElement ParseXmlString(std::string_view xml, const std::string& name_for_errors,
                          const std::function<void(_xmlDoc*)>& inspect) {
  return Parse(
      name_for_errors,
      [&](xmlParserCtxtPtr ctxt) {
        return xmlCtxtReadMemory(ctxt, xml.data(), static_cast<int>(xml.size()), name_for_errors.c_str(), nullptr,
                                 kSafeOptions);
      },
      inspect ? &inspect : nullptr);
}

XmlElement ParseXmlString(std::string_view xml, const std::string& name_for_errors) {
  return ParseXmlString(xml, name_for_errors, nullptr);
}

XmlElement ParseXmlFile(const std::string& path) {
  // One open and read of our own, then an in-memory parse: libxml2's file loader probes the path
  // (stat, access, URI checks) several times per file.
  std::string content, error;
  if (!ReadWholeFile(path, &content, &error)) throw FileError(path, "cannot open: " + error);
  return ParseXmlString(content, path);
}

}  // namespace ptsn::profile
