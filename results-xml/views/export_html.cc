#include "results-xml/views/export_html.h"

#include <algorithm>
#include <cstdio>

#include "results-xml/stats/statistics.h"
#include "results-xml/views/export_common.h"
#include "results-xml/views/export_compare.h"
#include "results-xml/views/export_html_overview.h"
#include "results-xml/views/export_html_systems.h"
#include "results-xml/views/export_svg.h"
#include "results-xml/views/monitor_parents.h"
#include "results-xml/views/multi_way.h"
#include "runner/common/strings.h"

namespace ptsn::results {

namespace {

// Light and dark (prefers-color-scheme), readable at 360 px: wide tables scroll inside their box,
// charts shrink to the width. Charts keep their white ground in dark mode (their colours are PTS's).
constexpr const char* kStyle =
    ":root{color-scheme:light dark}"
    "body{font-family:sans-serif;margin:2em auto;max-width:960px;padding:0 .6em;color:#231f20;background:#fff}"
    "h1{margin-bottom:.2em;font-size:1.5em}h2{font-size:1.1em;margin:1.6em 0 .3em}"
    "table{border-collapse:collapse;margin:.5em 0;font-size:.85em}"
    "th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}"
    "th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}"
    ".meta{color:#666;font-size:.85em}.outlier{color:#c80000;font-weight:bold}"
    ".stand-in{color:#c80000;font-weight:bold}.notes{font-size:.85em}"
    ".scroll{overflow-x:auto;max-width:100%}svg{max-width:100%;height:auto}"
    "td.better{background:#dff3df}td.worse{background:#f8dddd}.hl{outline:3px solid #d89b00;outline-offset:-3px}"
    ".chg,.verdict,.nor{font-size:.85em;white-space:nowrap}.noisy{color:#a05a00}"
    "form.options fieldset{font-size:.85em;border:1px solid #ccc}form.options label{white-space:nowrap}"
    "section{page-break-inside:avoid}caption{text-align:left;font-size:.9em}tr.same td{text-align:center}th.same-head{text-align:center;font-weight:normal;font-style:italic}"
    "@media (prefers-color-scheme:dark){body{background:#16181b;color:#e3e3e3}th{background:#2a2d31}"
    "th,td,form.options fieldset{border-color:#4a4d52}.meta{color:#a8a8a8}a{color:#8ab4f8}"
    "td.better{background:#1f4424}td.worse{background:#552226}.noisy{color:#f0b060}svg{background:#fff}}"
    "#view code{word-break:break-all}form.options fieldset{min-width:0}form.options select,form.options input"
    "{max-width:100%}"
    "#verdicts pre{white-space:pre-wrap;overflow-wrap:anywhere}"
    "@media (max-width:480px){body{margin:.6em auto}table{font-size:.75em}th,td{padding:.2em .3em}"
    "form.options label{white-space:normal}}";

void Esc(std::string& out, std::string_view s) { AppendXmlEscaped(out, s); }

std::string Fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// A multi-way result ("GROUP: NAME" values, multi_way.h) as one table: a row per group, a column
// per name, in the order they first appear (imw swaps the two).
void MultiWayTable(std::string& out, const Result& r) {
  std::vector<std::string> groups, names;
  for (const auto& e : r.entries) {
    for (auto [list, part] : {std::pair{&groups, GroupOf(e.identifier)}, std::pair{&names, NameInGroup(e.identifier)}})
      if (std::find(list->begin(), list->end(), part) == list->end()) list->push_back(part);
  }
  out += "<div class=\"scroll\"><table class=\"multiway\"><caption>By group (rows) and name (columns); imw swaps "
         "them</caption><tr><th></th>";
  for (const auto& n : names) {
    out += "<th>";
    Esc(out, n);
    out += "</th>";
  }
  out += "</tr>";
  for (const auto& g : groups) {
    out += "<tr><th>";
    Esc(out, g);
    out += "</th>";
    for (const auto& n : names) {
      out += "<td class=\"num\">";
      for (const auto& e : r.entries)
        if (GroupOf(e.identifier) == g && NameInGroup(e.identifier) == n) {
          if (IsSeries(e)) out += "avg " + Fixed(Summarize(EntryNumbers(e)).mean, 2);
          else Esc(out, e.value.empty() ? "(failed)" : e.value);
          break;
        }
      out += "</td>";
    }
    out += "</tr>";
  }
  out += "</table></div>";
}

void ValuesTable(std::string& out, const Result& r, const std::optional<Normalized>& normalized) {
  out += "<div class=\"scroll\"><table><tr><th>System</th><th>Value</th>";
  if (normalized) out += "<th>Normalized</th>";
  out += "<th>N</th><th>SE</th><th>Median</th><th>Min</th><th>Max</th>"
         "<th>95% CI</th><th>Trials</th></tr>";
  for (size_t k = 0; k < r.entries.size(); ++k) {
    const Entry& e = r.entries[k];
    out += "<tr><td>";
    Esc(out, e.identifier);
    if (auto label = StandInMark(e)) {
      out += " <span class=\"stand-in\">*&nbsp;";
      Esc(out, StandInFootnote(*label).substr(2));
      out += "</span>";
    }
    out += "</td>";
    const bool series = IsSeries(e);
    const std::vector<double> values = EntryNumbers(e);
    const TrialSummary st = Summarize(values);
    out += "<td class=\"num\">";
    if (series) out += "avg " + Fixed(st.mean, 2);
    else if (e.value.empty()) out += "(failed)";
    else Esc(out, e.value);
    out += "</td>";
    if (normalized) {
      out += "<td class=\"num nor\">";
      if (normalized->values[k]) out += Fixed(*normalized->values[k], normalized->decimals);
      out += "</td>";
    }
    out += "<td class=\"num\">" + std::to_string(st.n) + "</td><td class=\"num\">";
    if (!series && st.n > 1) out += Fixed(st.se, 3);
    out += "</td>";
    for (double v : {st.median, st.min, st.max}) out += "<td class=\"num\">" + (st.n ? Fixed(v, 2) : "") + "</td>";
    out += "<td class=\"num\">";
    if (!series && st.n > 1) out += Fixed(st.ci95_low, 2) + " – " + Fixed(st.ci95_high, 2);
    out += "</td><td>";
    if (!series) {
      std::vector<std::string> trials = EntryTrials(e);
      for (size_t i = 0; i < trials.size(); ++i) {
        if (i) out += ' ';
        const bool outlier = i < st.outliers.size() && st.outliers[i] && trials.size() == values.size();
        if (outlier) out += "<span class=\"outlier\" title=\"outlier (modified Z-score > 3.5)\">";
        Esc(out, trials[i]);
        if (outlier) out += "</span>";
      }
    }
    out += "</td></tr>";
  }
  out += "</table></div>";
}

// A monitor series beside the result it was recorded with: min / avg / max per system.
void MonitorTable(std::string& out, const Result& m) {
  out += "<div class=\"scroll\"><table class=\"monitor\"><caption>";
  Esc(out, Trim(m.description.empty() ? m.title : m.description));
  out += " during this test";
  if (!m.scale.empty()) {
    out += " (";
    Esc(out, m.scale);
    out += ")";
  }
  out += "</caption><tr><th>System</th><th>Min</th><th>Avg</th><th>Max</th><th>Samples</th></tr>";
  for (const Entry& e : m.entries) {
    const TrialSummary st = Summarize(EntryNumbers(e));
    out += "<tr><td>";
    Esc(out, EntryLabel(e));
    out += "</td>";
    for (double v : {st.min, st.mean, st.max}) out += "<td class=\"num\">" + (st.n ? Fixed(v, 2) : "") + "</td>";
    out += "<td class=\"num\">" + std::to_string(st.n) + "</td></tr>";
  }
  out += "</table></div>";
}

// The numbers of the box plots (src), so that the chart is not the only way to read them.
void TrialsTable(std::string& out, const Result& r) {
  out += "<details class=\"trials\"><summary>The box plots' numbers</summary><div class=\"scroll\"><table>"
         "<tr><th>System</th><th>N</th><th>Min</th><th>Q1</th><th>Median</th><th>Q3</th><th>Max</th><th>Mean</th>"
         "<th>95% CI of the mean</th></tr>";
  for (const Entry& e : r.entries) {
    if (IsSeries(e)) continue;
    const std::vector<double> t = NumericTrials(e);
    if (t.empty()) continue;
    const TrialSummary st = Summarize(t);
    const auto [q1, q3] = Quartiles(t);
    out += "<tr><td>";
    Esc(out, e.identifier);
    out += "</td><td class=\"num\">" + std::to_string(st.n) + "</td>";
    for (double v : {st.min, q1, st.median, q3, st.max, st.mean}) out += "<td class=\"num\">" + Fixed(v, 2) + "</td>";
    out += "<td class=\"num\">" + (st.n > 1 ? Fixed(st.ci95_low, 2) + " – " + Fixed(st.ci95_high, 2) : "") + "</td></tr>";
  }
  out += "</table></div></details>";
}

}  // namespace

std::string ResultFileToHtml(const ResultFile& file, const HtmlView& view) {
  std::string out;
  out.reserve(4096 + file.results.size() * (4096 + file.systems.size() * 400));
  out += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>";
  Esc(out, file.generated.title);
  out += "</title><style>";
  out += kStyle;
  out += "</style></head><body><h1>";
  Esc(out, file.generated.title);
  out += "</h1><p>";
  Esc(out, file.generated.description);
  out += "</p><p class=\"meta\">";
  out += std::to_string(file.systems.size()) + " systems, " + std::to_string(file.results.size()) + " results";
  if (!file.generated.last_modified.empty()) {
    out += ", last modified ";
    Esc(out, file.generated.last_modified);
  }
  out += "</p>";
  if (view.options.Any()) {
    out += "<p class=\"meta\" id=\"view\">View: <code>";
    Esc(out, view.options.ToReadableQuery());
    out += "</code>";
    if (view.results_before_options > 0)
      out += " (" + std::to_string(view.results_before_options) + " results before the options)";
    out += "</p>";
    if (view.options.result_order == ResultOrder::kRunTime && !HasRunTimes(file))
      out += "<p class=\"meta\" id=\"no-run-times\">grr: this file records no test run times, so its results "
             "keep the file's order.</p>";
  }
  for (const auto& note : view.notes) {
    out += "<p class=\"meta\" data-note=\"option\">";
    Esc(out, note);
    out += "</p>";
  }
  if (view.form) AppendOptionsForm(out, file, view);
  AppendOverview(out, file, view);
  AppendSystemsHtml(out, file, view.options.detailed_systems);
  SvgOptions svg;
  svg.xml_declaration = false;
  const std::vector<size_t> monitor_parent = MonitorParents(file);
  const std::string norm_base = view.options.normalize ? NormalizationBase(file, view.options) : "";
  for (size_t i = 0; i < file.results.size(); ++i) {
    const Result& r = file.results[i];
    if (monitor_parent[i] != kNoMonitorParent) continue;  // shown with its test
    out += "<section id=\"r" + std::to_string(i + 1) + "\"><h2>";
    Esc(out, Trim(r.title + " " + r.app_version));
    if (!r.description.empty()) {
      out += " — ";
      Esc(out, r.description);
    }
    out += "</h2>";
    // Noisy as PTS calls it: flagged with its spread, not only hidden (hnr hides it).
    if (auto noisy = NoisyPercent(r))
      out += "<p class=\"noisy\">Noisy by PTS's cut: a system's trials vary by " + Fixed(*noisy, 1) +
             " % of their mean (SD), above 6 %; hnr hides such results.</p>";
    const std::optional<Normalized> normalized = view.options.normalize ? NormalizeResult(r, norm_base) : std::nullopt;
    // Only when asked for, so that the pages of other views stay as they were.
    const bool multi_way_view =
        view.options.condense_multi_way || view.options.condense_versions || view.options.transpose_multi_way;
    SvgOptions chart = svg;
    chart.grouped = multi_way_view;
    if (normalized) chart.relative = &normalized->values, chart.relative_decimals = normalized->decimals;
    out += "<div class=\"chart\">";
    AppendResultSvg(out, r, chart);
    out += "</div>";
    if (view.options.confidence_charts) {
      std::string trials;
      if (AppendTrialsSvg(trials, r, svg) > 0) {
        out += "<div class=\"chart trials\">" + trials + "</div>";
        TrialsTable(out, r);
      }
    }
    if (multi_way_view && MultiWay(r)) MultiWayTable(out, r);
    ValuesTable(out, r, normalized);
    // The monitor series recorded with this test: its chart and min / avg / max, here rather than
    // in sections of their own that a reader has to match to their test by title.
    for (size_t k = 0; k < file.results.size(); ++k)
      if (monitor_parent[k] == i) {
        out += "<div class=\"chart monitor\">";
        AppendResultSvg(out, file.results[k], svg);
        out += "</div>";
        MonitorTable(out, file.results[k]);
      }
    out += "</section>";
  }
  // The verdicts, in the same words as compare-results (issue 50).
  if (const std::string verdicts = FileVerdictsText(file, {}); !verdicts.empty()) {
    out += "<section id=\"verdicts\"><h2>Verdicts</h2><pre>";
    Esc(out, Trim(verdicts));
    out += "</pre></section>";
  }
  out += "<p class=\"meta\">Generated by pts-native.</p></body></html>\n";
  return out;
}

}  // namespace ptsn::results
