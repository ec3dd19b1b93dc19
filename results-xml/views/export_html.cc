#include "results-xml/views/export_html.h"

#include <cstdio>
#include <unordered_map>

#include "results-xml/stats/statistics.h"
#include "results-xml/views/export_common.h"
#include "results-xml/views/export_compare.h"
#include "results-xml/views/export_html_overview.h"
#include "results-xml/views/export_svg.h"
#include "results-xml/views/system_notes.h"
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
    "section{page-break-inside:avoid}"
    "@media (prefers-color-scheme:dark){body{background:#16181b;color:#e3e3e3}th{background:#2a2d31}"
    "th,td,form.options fieldset{border-color:#4a4d52}.meta{color:#a8a8a8}a{color:#8ab4f8}"
    "td.better{background:#1f4424}td.worse{background:#552226}.noisy{color:#f0b060}svg{background:#fff}}"
    "#view code{word-break:break-all}form.options fieldset{min-width:0}form.options select,form.options input"
    "{max-width:100%}"
    "@media (max-width:480px){body{margin:.6em auto}table{font-size:.75em}th,td{padding:.2em .3em}"
    "form.options label{white-space:normal}}";

void Esc(std::string& out, std::string_view s) { AppendXmlEscaped(out, s); }

std::string Fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

void SystemsTable(std::string& out, const ResultFile& file) {
  // Component names in first-seen order; one column per system.
  std::vector<std::string> names;
  std::unordered_map<std::string, size_t> row_of;
  std::vector<std::unordered_map<size_t, std::string>> cells(file.systems.size());
  for (size_t s = 0; s < file.systems.size(); ++s)
    for (const std::string* text : {&file.systems[s].hardware, &file.systems[s].software})
      for (auto& [k, v] : SplitComponents(*text)) {
        auto [it, added] = row_of.emplace(k, names.size());
        if (added) names.push_back(k);
        cells[s][it->second] = v;
      }
  out += "<table class=\"systems\"><tr><th></th>";
  for (const auto& s : file.systems) {
    out += "<th>";
    Esc(out, s.identifier);
    out += "</th>";
  }
  out += "</tr>";
  for (size_t r = 0; r < names.size(); ++r) {
    out += "<tr><th>";
    Esc(out, names[r]);
    out += "</th>";
    for (size_t s = 0; s < file.systems.size(); ++s) {
      out += "<td>";
      auto it = cells[s].find(r);
      if (it != cells[s].end()) Esc(out, it->second);
      out += "</td>";
    }
    out += "</tr>";
  }
  out += "<tr><th>Tested</th>";
  for (const auto& s : file.systems) {
    out += "<td>";
    Esc(out, s.timestamp);
    out += "</td>";
  }
  out += "</tr></table>";
}

// Each system's notes as PTS's HTML export words them ("Kernel Notes: ..."), after the systems
// table; systems whose notes equal the previous one's are not repeated.
void SystemNotes(std::string& out, const ResultFile& file) {
  std::string section, previous;
  for (const auto& s : file.systems) {
    std::string notes;
    for (const auto& [name, text] : SystemNoteSections(s)) {
      notes += "<strong>";
      Esc(notes, name);
      notes += " Notes:</strong> ";
      Esc(notes, text);
      notes += "<br>";
    }
    if (notes.empty()) continue;
    section += "<p class=\"notes\"><b>";
    Esc(section, s.identifier);
    section += "</b><br>";
    section += notes == previous ? std::string("(as above)") : notes;
    section += "</p>";
    previous = notes;
  }
  if (!section.empty()) out += "<h2>System Notes</h2>" + section;
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
    Esc(out, view.options.ToQuery());
    out += "</code>";
    if (view.results_before_options > 0)
      out += " (" + std::to_string(view.results_before_options) + " results before the options)";
    out += "</p>";
  }
  if (view.form) AppendOptionsForm(out, file, view);
  AppendOverview(out, file, view);
  out += "<h2>Systems</h2><div class=\"scroll\">";
  SystemsTable(out, file);
  out += "</div>";
  SystemNotes(out, file);
  SvgOptions svg;
  svg.xml_declaration = false;
  for (size_t i = 0; i < file.results.size(); ++i) {
    const Result& r = file.results[i];
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
    out += "<div class=\"chart\">";
    AppendResultSvg(out, r, svg);
    out += "</div>";
    ValuesTable(out, r, view.options.normalize ? NormalizeResult(r, NormalizationBase(file, view.options)) : std::nullopt);
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
