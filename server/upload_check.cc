#include "server/upload_check.h"

#include <libxml/xmlreader.h>

#include <memory>

#include "results-xml/result_xml.h"
#include "results-xml/validate.h"
#include "runner/common/error.h"

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

// Pass 1: bounds only; structure is the reader's job.
void CheckBounds(std::string_view xml, const UploadLimits& limits) {
  // NONET and no NOENT/DTDLOAD/DTDVALID: entities are never fetched or substituted.
  std::unique_ptr<xmlTextReader, ReaderDeleter> reader(
      xmlReaderForMemory(xml.data(), static_cast<int>(xml.size()), "composite.xml", nullptr, XML_PARSE_NONET));
  if (!reader) throw UploadRejected{"composite.xml: cannot be read as XML"};
  xmlTextReaderSetErrorHandler(reader.get(), NoErrors, nullptr);
  std::vector<std::string> stack;
  size_t nodes = 0;
  int rc;
  while ((rc = xmlTextReaderRead(reader.get())) == 1) {
    if (++nodes > limits.max_nodes) throw UploadRejected{"composite.xml: too many XML nodes"};
    int type = xmlTextReaderNodeType(reader.get());
    if (type == XML_READER_TYPE_DOCUMENT_TYPE || type == XML_READER_TYPE_ENTITY_REFERENCE ||
        type == XML_READER_TYPE_ENTITY)
      throw UploadRejected{"composite.xml: DOCTYPE and entities are not allowed in a result file"};
    if (type == XML_READER_TYPE_ELEMENT) {
      std::string name = Str(xmlTextReaderConstName(reader.get()));
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
      if (empty) stack.pop_back();
    } else if (type == XML_READER_TYPE_END_ELEMENT) {
      if (!stack.empty()) stack.pop_back();
    } else if (type == XML_READER_TYPE_TEXT || type == XML_READER_TYPE_CDATA) {
      if (Str(xmlTextReaderConstValue(reader.get())).size() > limits.max_value_bytes)
        throw UploadRejected{"composite.xml: value of " + PathOf(stack) + " is over " +
                             std::to_string(limits.max_value_bytes) + " bytes"};
    }
  }
  if (rc != 0) {
    const xmlError* err = xmlGetLastError();
    std::string why = err && err->message ? Str(reinterpret_cast<const xmlChar*>(err->message)) : "malformed XML";
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
