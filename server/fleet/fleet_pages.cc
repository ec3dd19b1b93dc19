#include "server/fleet/fleet_pages.h"

#include <cstdio>
#include <map>

#include "results-xml/model/result_file.h"
#include "results-xml/views/export_svg.h"
#include "runner/common/strings.h"
#include "server/results/pages.h"

namespace ptsn::server {

namespace {

std::string Ago(std::int64_t then, std::int64_t now) {
  if (then <= 0) return "never";
  std::int64_t d = now - then;
  if (d < 0) d = 0;
  if (d < 120) return std::to_string(d) + " s ago";
  if (d < 7200) return std::to_string(d / 60) + " min ago";
  if (d < 172800) return std::to_string(d / 3600) + " h ago";
  return FormatUtc(then);
}

std::string Pct(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f %%", v);
  return buf;
}

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string VerdictCell(const HistoryRow& h) {
  if (!h.verdict) return "<td>not judged yet</td>";
  if (*h.verdict == 0) return "<td>within noise</td>";
  const bool bad = *h.verdict < 0;
  return std::string("<td class=\"") + (bad ? "regression" : "improvement") + "\"><b>" +
         (bad ? "REGRESSION" : "IMPROVEMENT") + "</b> " + Pct(h.change_pct) + " (95 %: " + Pct((h.ratio_low - 1) * 100) +
         " to " + Pct((h.ratio_high - 1) * 100) + ")</td>";
}

std::string FlagRows(const std::vector<HistoryRow>& flags, bool with_machine) {
  std::string out = "<table class=\"flags\"><tr>" + std::string(with_machine ? "<th>Machine</th>" : "") +
                    "<th>Test</th><th>When</th><th>First result after the change (95 % CI)</th><th>Level before</th><th>Step</th><th>Job</th></tr>\n";
  for (const auto& h : flags) {
    out += "<tr>";
    if (with_machine)
      out += "<td><a href=\"/fleet/machines/" + HtmlEscape(h.machine) + "\">" + HtmlEscape(h.machine) + "</a></td>";
    out += "<td>" + HtmlEscape(h.label) + "</td><td>" + FormatUtc(h.measured_at) + "</td><td>" + Number(h.m.mean) + " " +
           HtmlEscape(h.scale) + " (" + Number(h.m.ci_low) + " - " + Number(h.m.ci_high) + ")</td><td>" +
           Number(h.baseline_mean) + "</td>" + VerdictCell(h) + "<td><a href=\"/fleet/jobs/" + std::to_string(h.job_id) +
           "\">" + std::to_string(h.job_id) + "</a></td></tr>\n";
  }
  return out + "</table>\n";
}

constexpr const char* kFleetStyle =
    "<style>.regression{color:#b00000}.improvement{color:#006000}.online{color:#006000}.offline{color:#888}</style>";

}  // namespace

std::string RenderFleetPage(const std::vector<FleetMachineView>& machines, const std::vector<ScheduleRow>& schedules,
                            const std::vector<JobRow>& jobs, const std::vector<HistoryRow>& flags, std::int64_t now) {
  std::string b = kFleetStyle;
  b += "<nav><a href=\"/results\">Results</a> &middot; <b>Fleet</b></nav>\n<h1>Machines</h1>\n";
  b += "<table class=\"machines\"><tr><th>Machine</th><th>State</th><th>Last seen</th><th>Hardware</th><th>Tags</th>"
       "<th>Current task</th></tr>\n";
  for (const auto& v : machines) {
    const auto& m = v.machine;
    b += "<tr><td><a href=\"/fleet/machines/" + HtmlEscape(m.name) + "\">" + HtmlEscape(m.name) + "</a></td><td class=\"" +
         (v.online ? "online\">online" : "offline\">offline") + "</td><td>" + Ago(m.last_seen, now) + "</td><td>" +
         HtmlEscape(m.hardware) + "</td><td>" + HtmlEscape(m.tags) + "</td><td>" +
         (m.task_id ? "job <a href=\"/fleet/jobs/" + std::to_string(m.job_id) + "\">" + std::to_string(m.job_id) + "</a>: " +
                          HtmlEscape(m.progress.empty() ? "starting" : m.progress)
                    : std::string("idle")) +
         "</td></tr>\n";
  }
  b += "</table>\n";
  if (machines.empty()) b += "<p>No machines yet: <code>pts-native-server token create --agent NAME</code>, then "
                             "<code>pts-native agent --server URL --token T --name NAME</code> on the machine.</p>\n";
  b += "<h1>Schedules</h1>\n<table class=\"schedules\"><tr><th>Name</th><th>Runs</th><th>On</th><th>When</th>"
       "<th>Next</th><th>Owner</th></tr>\n";
  for (const auto& s : schedules)
    b += "<tr><td>" + HtmlEscape(s.name) + "</td><td><code>" + HtmlEscape(s.spec) + "</code></td><td>" +
         HtmlEscape(s.machines) + "</td><td>" + (s.cron.empty() ? "by hand" : "<code>" + HtmlEscape(s.cron) + "</code>") +
         "</td><td>" + (s.next_fire > 0 ? FormatUtc(s.next_fire) : "-") + "</td><td>" + HtmlEscape(s.owner) + "</td></tr>\n";
  b += "</table>\n<h1>Recent jobs</h1>\n<table class=\"jobs\"><tr><th>Job</th><th>Title</th><th>Started</th>"
       "<th>Tasks</th><th>Result</th></tr>\n";
  for (const auto& j : jobs) {
    std::map<std::string, int> states;
    for (const auto& t : j.tasks) ++states[t.state];
    std::vector<std::string> parts;
    for (const auto& [state, n] : states) parts.push_back(std::to_string(n) + " " + state);
    b += "<tr><td><a href=\"/fleet/jobs/" + std::to_string(j.id) + "\">" + std::to_string(j.id) + "</a></td><td>" +
         HtmlEscape(j.title) + "</td><td>" + FormatUtc(j.created_at) + "</td><td>" + Join(parts, ", ") + "</td><td>" +
         (j.result_id.empty() ? HtmlEscape(j.note) : "<a href=\"/result/" + HtmlEscape(j.result_id) + "\">" + HtmlEscape(j.result_id) + "</a>") +
         "</td></tr>\n";
  }
  b += "</table>\n<h1>Regressions and improvements</h1>\n";
  b += flags.empty() ? "<p>None flagged.</p>\n" : FlagRows(flags, true);
  return HtmlPage("Fleet", b);
}

std::string RenderMachinePage(const FleetMachineView& view, const std::vector<HistoryRow>& history, std::int64_t now) {
  const auto& m = view.machine;
  std::string b = kFleetStyle;
  b += "<nav><a href=\"/results\">Results</a> &middot; <a href=\"/fleet\">Fleet</a></nav>\n<h1>" + HtmlEscape(m.name) +
       "</h1>\n<p class=\"" + (view.online ? "online\">online" : "offline\">offline") + "</p><p>Last seen " +
       Ago(m.last_seen, now) + ". " + HtmlEscape(m.hardware) + "<br>" + HtmlEscape(m.software) + "</p>\n";
  std::vector<HistoryRow> flags;
  for (const auto& h : history)
    if (h.verdict && *h.verdict != 0) flags.push_back(h);
  b += "<h2>Regressions and improvements</h2>\n";
  b += flags.empty() ? "<p>None flagged.</p>\n" : FlagRows({flags.rbegin(), flags.rend()}, false);
  // One chart per test, in order of first appearance: the means of its results over time.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const HistoryRow*>> by_test;
  for (const auto& h : history) {
    if (!by_test.count(h.test_key)) order.push_back(h.test_key);
    by_test[h.test_key].push_back(&h);
  }
  b += "<h2>History</h2>\n";
  if (order.empty()) b += "<p>No results yet.</p>\n";
  for (const auto& key : order) {
    const auto& points = by_test[key];
    results::Result r;
    r.title = points.back()->label;
    r.scale = points.back()->scale;
    r.proportion = points.back()->proportion;
    r.display_format = "LINE_GRAPH";
    r.description = std::to_string(points.size()) + " results, " + FormatUtc(points.front()->measured_at) + " to " +
                    FormatUtc(points.back()->measured_at);
    results::Entry means, low, high;
    means.identifier = m.name + " (mean)";
    low.identifier = "95 % CI low";
    high.identifier = "95 % CI high";
    std::vector<std::string> mv, lv, hv;
    for (const auto* p : points) {
      mv.push_back(Number(p->m.mean));
      lv.push_back(Number(p->m.ci_low));
      hv.push_back(Number(p->m.ci_high));
    }
    means.value = Join(mv, ",");
    low.value = Join(lv, ",");
    high.value = Join(hv, ",");
    r.entries = {means, low, high};
    // A single point is no series: the charts want two.
    if (points.size() == 1)
      for (auto& e : r.entries) e.value += "," + e.value;
    results::SvgOptions o;
    o.width = 800;
    o.xml_declaration = false;
    b += "<div class=\"chart\" data-test=\"" + HtmlEscape(key) + "\">" + results::ResultToSvg(r, o) + "</div>\n";
  }
  return HtmlPage(m.name + " - Fleet", b);
}

std::string RenderJobPage(const JobRow& j, const std::string& state) {
  std::string b = "<nav><a href=\"/results\">Results</a> &middot; <a href=\"/fleet\">Fleet</a></nav>\n<h1>Job " +
                  std::to_string(j.id) + ": " + HtmlEscape(j.title) + "</h1>\n<p>" + HtmlEscape(state) + ", started " +
                  FormatUtc(j.created_at) + " by " + HtmlEscape(j.owner) + ". <code>" + HtmlEscape(j.spec) + "</code></p>\n";
  if (!j.result_id.empty())
    b += "<p>Result: <a href=\"/result/" + HtmlEscape(j.result_id) + "\">" + HtmlEscape(j.result_id) + "</a></p>\n";
  if (!j.note.empty()) b += "<p>" + HtmlEscape(j.note) + "</p>\n";
  b += "<table class=\"tasks\"><tr><th>Machine</th><th>State</th><th>Attempts</th><th>Progress / reason</th></tr>\n";
  for (const auto& t : j.tasks)
    b += "<tr><td><a href=\"/fleet/machines/" + HtmlEscape(t.machine) + "\">" + HtmlEscape(t.machine) + "</a></td><td>" +
         HtmlEscape(t.state) + "</td><td>" + std::to_string(t.attempts) + "</td><td>" +
         HtmlEscape(t.state == "running" ? t.progress : t.reason) + "</td></tr>\n";
  return HtmlPage("Job " + std::to_string(j.id), b + "</table>\n");
}

}  // namespace ptsn::server
