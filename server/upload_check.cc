#include "server/upload_check.h"

#include <libxml/xmlreader.h>

#include <memory>

namespace ptsn::server {

namespace {

struct ReaderDeleter {
  void operator()(xmlTextReader* r) const { xmlFreeTextReader(r); }
};

std::string Str(const xmlChar* s) { return s ? reinterpret_cast<const char*>(s) : ""; }

std::string PathOf(const std::vector<std::string>& stack) {
  std::string out;
  for (const auto& s : stack) out += "/" + s;
  return out;
}

void NoErrors(void*, const char*, xmlParserSeverities, xmlTextReaderLocatorPtr) {}

}  // namespace

ResultSummary CheckResultFile(std::string_view xml, const UploadLimits& limits) {
  // NONET and no NOENT/DTDLOAD/DTDVALID: entities are never fetched or substituted.
  std::unique_ptr<xmlTextReader, ReaderDeleter> reader(
      xmlReaderForMemory(xml.data(), static_cast<int>(xml.size()), "composite.xml", nullptr, XML_PARSE_NONET));
  if (!reader) throw UploadRejected{"composite.xml: cannot be read as XML"};
  xmlTextReaderSetErrorHandler(reader.get(), NoErrors, nullptr);

  ResultSummary out;
  std::vector<std::string> stack;
  size_t nodes = 0, systems = 0, results = 0;
  bool saw_root = false, saw_title = false;
  int rc;
  while ((rc = xmlTextReaderRead(reader.get())) == 1) {
    if (++nodes > limits.max_nodes) throw UploadRejected{"composite.xml: too many XML nodes"};
    int type = xmlTextReaderNodeType(reader.get());
    if (type == XML_READER_TYPE_DOCUMENT_TYPE || type == XML_READER_TYPE_ENTITY_REFERENCE ||
        type == XML_READER_TYPE_ENTITY)
      throw UploadRejected{"composite.xml: DOCTYPE and entities are not allowed in a result file"};
    if (type == XML_READER_TYPE_ELEMENT) {
      std::string name = Str(xmlTextReaderConstName(reader.get()));
      if (stack.empty()) {
        if (saw_root || name != "PhoronixTestSuite")
          throw UploadRejected{"composite.xml: root element is <" + name + ">, expected <PhoronixTestSuite>"};
        saw_root = true;
      }
      if (xmlTextReaderHasAttributes(reader.get()) == 1) {
        while (xmlTextReaderMoveToNextAttribute(reader.get()) == 1) {
          if (Str(xmlTextReaderConstValue(reader.get())).size() > limits.max_attribute_bytes)
            throw UploadRejected{"composite.xml: attribute of " + PathOf(stack) + "/" + name + " is over " +
                                 std::to_string(limits.max_attribute_bytes) + " bytes"};
        }
        xmlTextReaderMoveToElement(reader.get());
      }
      bool empty = xmlTextReaderIsEmptyElement(reader.get()) == 1;
      stack.push_back(name);
      if (stack.size() > limits.max_depth)
        throw UploadRejected{"composite.xml: elements nested deeper than " + std::to_string(limits.max_depth) +
                             " at " + PathOf(stack)};
      if (stack.size() == 2 && name == "System") {
        ++systems;
        out.systems.emplace_back();
        out.hardware.emplace_back();
      }
      if (stack.size() == 2 && name == "Result") {
        ++results;
        out.tests.emplace_back();
        out.result_titles.emplace_back();
      }
      if (empty) stack.pop_back();
    } else if (type == XML_READER_TYPE_END_ELEMENT) {
      if (!stack.empty()) stack.pop_back();
    } else if (type == XML_READER_TYPE_TEXT || type == XML_READER_TYPE_CDATA) {
      std::string value = Str(xmlTextReaderConstValue(reader.get()));
      if (value.size() > limits.max_value_bytes)
        throw UploadRejected{"composite.xml: value of " + PathOf(stack) + " is over " +
                             std::to_string(limits.max_value_bytes) + " bytes"};
      if (stack.size() != 3) continue;
      const std::string& parent = stack[1];
      const std::string& leaf = stack[2];
      if (parent == "Generated" && leaf == "Title") {
        out.title = value;
        saw_title = !value.empty();
      } else if (parent == "Generated" && leaf == "Description") {
        out.description = value;
      } else if (parent == "System" && leaf == "Identifier") {
        out.systems.back() = value;
      } else if (parent == "System" && leaf == "Hardware") {
        out.hardware.back() = value;
      } else if (parent == "Result" && leaf == "Identifier") {
        out.tests.back() = value;
      } else if (parent == "Result" && leaf == "Title") {
        out.result_titles.back() = value;
      }
    }
  }
  if (rc != 0) {
    const xmlError* err = xmlGetLastError();
    std::string why = err && err->message ? Str(reinterpret_cast<const xmlChar*>(err->message)) : "malformed XML";
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    throw UploadRejected{"composite.xml: not well-formed XML (" + why + ")"};
  }
  if (!saw_root) throw UploadRejected{"composite.xml: no <PhoronixTestSuite> root element"};
  if (!saw_title) throw UploadRejected{"composite.xml: Generated/Title is missing or empty"};
  if (systems == 0) throw UploadRejected{"composite.xml: no <System> element"};
  if (results == 0) throw UploadRejected{"composite.xml: no <Result> element"};
  for (const auto& id : out.systems)
    if (id.empty()) throw UploadRejected{"composite.xml: a <System> has no Identifier"};
  return out;
}

}  // namespace ptsn::server
