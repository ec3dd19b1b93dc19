// A tiny read-only element tree built from libxml2 with the safe options (no network, no DTD
// loading, no entity substitution; documents declaring entities are refused). The profile files
// are small, so copying them into plain structs keeps the rest of the code free of libxml2.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

struct _xmlDoc;  // libxml2's document, for callers that also validate it

namespace ptsn::profile {

struct XmlElement {
  std::string name;
  std::string text;  // the element's own text (text and CDATA children), verbatim as SimpleXML gives it
  int line = 0;
  std::vector<XmlElement> children;

  const XmlElement* Child(std::string_view child_name) const;  // first child with that name
  std::vector<const XmlElement*> Children(std::string_view child_name) const;
  // Text of the first child with that name; "" when absent (SimpleXML's __toString of a missing node).
  std::string ChildText(std::string_view child_name) const;
  bool HasChild(std::string_view child_name) const { return Child(child_name) != nullptr; }
};

// Parses a file or an in-memory document. Throws ptsn::Error "PATH:LINE: what is wrong".
XmlElement ParseXmlFile(const std::string& path);
XmlElement ParseXmlString(std::string_view xml, const std::string& name_for_errors);
// The same, handing the parsed libxml2 document to `inspect` first (schema validation of the very
// tree that is converted, so a file is read and parsed once).
XmlElement ParseXmlString(std::string_view xml, const std::string& name_for_errors,
                          const std::function<void(_xmlDoc*)>& inspect);

}  // namespace ptsn::profile
