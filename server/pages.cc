#include "server/pages.h"

#include <ctime>

#include "runner/client/wire.h"

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

std::string FormatTime(std::int64_t t) {
  std::time_t tt = t;
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

}  // namespace

std::string HtmlEscape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string RenderResultPage(const std::vector<StoredResult>& results) {
  std::string ids, body;
  for (const auto& r : results) ids += (ids.empty() ? "" : ",") + r.id;
  for (const auto& r : results) {
    ResultSummary s = CheckResultFile(r.xml);
    body += "<h1>" + HtmlEscape(s.title) + "</h1>\n<p>" + HtmlEscape(r.id) + " &middot; uploaded " +
            FormatTime(r.uploaded_at) + " by " + HtmlEscape(r.owner) + " &middot; <a href=\"/api/v1/results/" +
            HtmlEscape(r.id) + "/composite.xml\">composite.xml</a></p>\n<p>" + HtmlEscape(s.description) + "</p>\n";
    body += "<table class=\"systems\"><tr><th>System</th><th>Hardware</th></tr>\n";
    for (size_t i = 0; i < s.systems.size(); ++i)
      body += "<tr><td>" + HtmlEscape(s.systems[i]) + "</td><td>" + HtmlEscape(s.hardware[i]) + "</td></tr>\n";
    body += "</table>\n<ul>\n";
    for (size_t i = 0; i < s.tests.size(); ++i)
      body += "<li>" + HtmlEscape(s.result_titles[i]) + " <small>" + HtmlEscape(s.tests[i]) + "</small></li>\n";
    body += "</ul>\n";
  }
  return Page(ids, body);
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
            "</td><td>" + FormatTime(r.uploaded_at) + "</td></tr>\n";
  }
  body += "</table>\n";
  if (results.empty()) body += "<p>No results.</p>\n";
  return Page("Results", body);
}

std::string RenderErrorPage(int status, const std::string& message) {
  return Page("Error " + std::to_string(status),
              "<h1>Error " + std::to_string(status) + "</h1>\n<p>" + HtmlEscape(message) + "</p>");
}

}  // namespace ptsn::server
