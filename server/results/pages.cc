#include "server/results/pages.h"

#include <ctime>

#include "results-xml/model/result_xml.h"
#include "results-xml/store/merge.h"
#include "results-xml/views/export_html.h"
#include "results-xml/views/export_svg.h"
#include "results-xml/views/monitor_parents.h"
#include "results-xml/views/view_export.h"
#include "server/http/http.h"

namespace ptsn::server {

namespace {

constexpr const char* kStyle =
    "body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse}"
    "td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}"
    "th{background:#eee}.chart{margin:1.5em 0}h1{font-size:1.4em}";

std::string Page(const std::string& title, const std::string& body) {
  return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + HtmlEscape(title) +
         "</title><style>" + kStyle + "</style></head><body>\n" + body + "\n</body></html>\n";
}

}  // namespace

std::string HtmlEscape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  results::AppendXmlEscaped(out, s);  // the same five entities serve HTML text and attributes
  return out;
}

namespace {

// One result as it is; several merged as merge-results (and OpenBenchmarking's /result/A,B) does,
// so their systems appear side by side in every chart.
results::ResultFile StoredFile(const std::vector<std::shared_ptr<const StoredResult>>& stored) {
  std::vector<results::MergeInput> inputs;
  for (const auto& r : stored) inputs.push_back({r->id, results::ParseResultFile(r->xml, r->id)});
  return inputs.size() == 1 ? std::move(inputs[0].file) : results::MergeResultFiles(std::move(inputs)).merged;
}

}  // namespace

std::string RenderResultExport(const std::vector<std::shared_ptr<const StoredResult>>& stored,
                               const results::ViewerOptions& options) {
  results::ResultFile file = StoredFile(stored);
  results::ApplyViewerOptions(file, options);
  return results::ExportView(file, options);
}

std::string RenderResultPage(const std::vector<std::shared_ptr<const StoredResult>>& stored, PageWindow window,
                             const results::ViewerOptions& options) {
  results::ResultFile file = StoredFile(stored);
  results::HtmlView view;
  view.options = options;
  view.form = true;
  view.results_before_options = options.Any() ? file.results.size() : 0;
  for (const auto& s : file.systems) view.all_systems.push_back(s.identifier);
  view.notes = results::ApplyViewerOptions(file, options);
  view.geometric_means = results::GeometricMeanOfResults(file);
  const std::string query = options.ToQuery();
  std::string pager;
  if (window.size > 0 && (file.results.size() > window.size || window.index > 0)) {
    // Pages of tests with their monitor series: a series goes on its test's page, in its section.
    const std::vector<std::vector<size_t>> paged = results::ResultPages(file, window.size);
    const size_t pages = paged.size();
    if (window.index >= pages)
      throw HttpError{404, "no page " + std::to_string(window.index + 1) + ": this result has " + std::to_string(pages)};
    size_t first = 0;
    for (size_t p = 0; p < window.index; ++p) first += paged[p].size();
    const size_t end = first + paged[window.index].size();
    std::vector<results::Result> page;
    page.reserve(paged[window.index].size());
    for (size_t k : paged[window.index]) page.push_back(std::move(file.results[k]));
    file.results = std::move(page);
    view.paged = true;
    pager = "<p class=\"pager\">Results " + std::to_string(first + 1) + "&ndash;" + std::to_string(end) +
            " (page " + std::to_string(window.index + 1) + " of " + std::to_string(pages) + "):";
    for (size_t p = 0; p < pages; ++p) {
      pager += p == window.index ? " <b>" + std::to_string(p + 1) + "</b>"
                                 : " <a href=\"?page=" + std::to_string(p + 1) + (query.empty() ? "" : "&amp;" + HtmlEscape(query)) + "\">" + std::to_string(p + 1) + "</a>";
    }
    pager += "</p>";
  }
  std::string html = results::ResultFileToHtml(file, view);
  // Our header above the report: where it came from and how to get the file.
  std::string header = "<nav style=\"font:13px sans-serif;margin-bottom:1em\"><a href=\"/results\">All results</a>";
  for (const auto& r : stored) {
    header += " &middot; <b>" + HtmlEscape(r->id) + "</b> uploaded " + FormatUtc(r->uploaded_at) + " by " +
              HtmlEscape(r->owner) + " (<a href=\"/api/v1/results/" + HtmlEscape(r->id) + "/composite.xml\">composite.xml</a>)";
  }
  header += "</nav>" + pager;
  if (auto body = html.find("<body>"); body != std::string::npos) html.insert(body + 6, header);
  return html;
}

std::string RenderListPage(const std::vector<ListedResult>& results, const SearchQuery& q) {
  std::string body = "<h1>Results</h1>\n<form action=\"/results\" method=\"get\">"
                     "Title <input name=\"q\" value=\"" + HtmlEscape(q.text) + "\"> Test <input name=\"test\" value=\"" +
                     HtmlEscape(q.test) + "\"> System <input name=\"system\" value=\"" + HtmlEscape(q.system) +
                     "\"> <button>Search</button></form>\n";
  body += "<table class=\"results\"><tr><th>ID</th><th>Title</th><th>Systems</th><th>Tests</th><th>Uploaded</th></tr>\n";
  for (const auto& r : results) {
    body += "<tr><td><a href=\"/result/" + HtmlEscape(r.id) + "\">" + HtmlEscape(r.id) + "</a></td><td>" +
            HtmlEscape(r.title) + "</td><td>" + HtmlEscape(r.systems) + "</td><td>" + HtmlEscape(r.tests) +
            "</td><td>" + FormatUtc(r.uploaded_at) + "</td></tr>\n";
  }
  body += "</table>\n";
  if (results.empty()) body += "<p>No results.</p>\n";
  return Page("Results", body);
}

std::string RenderErrorPage(int status, const std::string& message) {
  return Page("Error " + std::to_string(status),
              "<h1>Error " + std::to_string(status) + "</h1>\n<p>" + HtmlEscape(message) + "</p>");
}

std::string HtmlPage(const std::string& title, const std::string& body_html) { return Page(title, body_html); }

std::string FormatUtc(std::int64_t unix_seconds, bool with_seconds) {
  std::time_t t = unix_seconds;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, with_seconds ? "%Y-%m-%d %H:%M:%S UTC" : "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

}  // namespace ptsn::server
