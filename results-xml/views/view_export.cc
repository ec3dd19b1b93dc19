#include "results-xml/views/view_export.h"

#include "results-xml/model/result_xml.h"
#include "results-xml/views/export_csv.h"
#include "results-xml/views/export_html.h"
#include "results-xml/views/export_json.h"
#include "results-xml/views/export_text.h"
#include "runner/common/error.h"

namespace ptsn::results {

namespace {

constexpr ExportFormat kFormats[] = {
    {"txt", "text/plain; charset=utf-8", "txt"},  {"csv", "text/csv; charset=utf-8", "csv"},
    {"csv-all", "text/csv; charset=utf-8", "csv"}, {"json", "application/json", "json"},
    {"xml", "application/xml", "xml"},             {"html", "text/html; charset=utf-8", "html"},
};

}  // namespace

const ExportFormat& FindExportFormat(const std::string& name) {
  for (const auto& f : kFormats)
    if (name == f.name) return f;
  if (name == "pdf") throw Error("export=pdf is not offered: open export=html and print it to PDF from the browser");
  throw Error("export=" + name.substr(0, 32) + " is not a format: use txt, csv, csv-all, json, xml or html");
}

std::string ExportView(const ResultFile& file, const ViewerOptions& options) {
  const std::string name = FindExportFormat(options.export_format).name;
  if (name == "txt") return ResultFileToText(file);
  if (name == "csv") return ResultFileToCsv(file);
  if (name == "csv-all") return ResultFileRawToCsv(file);
  if (name == "json") return ResultFileToJson(file);
  if (name == "xml") return SerializeResultFile(file);
  HtmlView view;  // html: the report as a file gets it, with the view it shows
  view.options = options;
  view.options.export_format.clear();
  return ResultFileToHtml(file, view);
}

}  // namespace ptsn::results
