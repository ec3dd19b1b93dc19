#include "results-xml/views/export_html_overview.h"

#include <cmath>
#include <cstdio>
#include <unordered_map>

#include "results-xml/model/comparison_hash.h"
#include "results-xml/views/export_common.h"
#include "results-xml/views/export_compare.h"
#include "results-xml/views/export_svg.h"
#include "results-xml/stats/runs_verdict.h"
#include "results-xml/stats/verdict.h"
#include "runner/common/strings.h"

namespace ptsn::results {

namespace {

void Esc(std::string& out, std::string_view s) { AppendXmlEscaped(out, s); }

std::string Printf(const char* format, double a, double b = 0, double c = 0) {
  char buf[96];
  std::snprintf(buf, sizeof buf, format, a, b, c);
  return buf;
}

// "±" where the text views write "+-".
std::string Plus(std::string s) {
  for (size_t at = 0; (at = s.find("+-", at)) != std::string::npos;) s.replace(at, 2, "\u00b1");
  return s;
}

// A verdict in a cell: its word, the ratio and the interval ("different, x0.770 [0.720, 0.810]");
// the full sentence (runs, what would decide it) goes in the cell's title.
struct CellVerdict {
  std::string shown, full;
};

// V: a Verdict (instance pairs) or a RunsVerdict (separate runs), which carry the same fields;
// `sentence` is what the CLI prints for it.
template <typename V>
CellVerdict Cell(const V& v, const std::string& sentence, const VerdictSettings& settings) {
  CellVerdict c;
  c.shown = Plus(VerdictWord(v.kind, v.ratio, "", settings)) +
            (v.has_interval ? Printf(", x%.3f [%.3f, %.3f]", v.ratio, v.ci_low, v.ci_high) : Printf(", x%.3f", v.ratio));
  c.full = Plus(sentence);
  return c;
}

bool Highlighted(const std::string& identifier, const ViewerOptions& o) {
  for (const auto& h : o.highlight)
    if (identifier.find(h) != std::string::npos) return true;
  return false;
}

// The change against the base, by colour class, arrow and words: the value's direction (▲ higher,
// ▼ lower) and, where the result says which way is better, "better" or "worse".
void AppendChange(std::string& out, double value, double base, const std::string& proportion) {
  if (base == 0) return;
  const double pct = (value - base) / std::fabs(base) * 100;
  const bool known = proportion == "HIB" || proportion == "LIB";
  const bool better = proportion == "HIB" ? pct > 0 : pct < 0;
  std::string word = pct == 0 ? "same value" : known ? (better ? "better" : "worse") : (pct > 0 ? "higher" : "lower");
  out += "<span class=\"chg\">";
  out += pct > 0 ? "\u25b2 " : pct < 0 ? "\u25bc " : "= ";
  out += Printf("%+.1f %% ", pct) + word + "</span>";
}

std::string ChangeClass(double value, double base, const std::string& proportion) {
  if (base == 0 || value == base || (proportion != "HIB" && proportion != "LIB")) return "";
  return (proportion == "HIB") == (value > base) ? " better" : " worse";
}

}  // namespace

void AppendOverview(std::string& out, const ResultFile& file, const HtmlView& view) {
  if (file.systems.empty()) return;
  const VerdictSettings settings;
  const Comparison c = CompareResultFiles({file}, {""}, CompareMode::kUnpaired, settings);
  const bool by_pairs = TrialsInterleaved(file);
  // The comparison's rows are the results by comparison hash, in order of first appearance.
  std::vector<size_t> row_of_result(file.results.size());
  {
    std::unordered_map<std::string, size_t> row_of_hash;
    for (size_t i = 0; i < file.results.size(); ++i)
      row_of_result[i] = row_of_hash.emplace(ComparisonHash(file.results[i]), row_of_hash.size()).first->second;
  }
  const std::string& base = file.systems.front().identifier;
  const std::string norm_base = NormalizationBase(file, view.options);
  const GeometricMeans g = view.geometric_means ? *view.geometric_means : GeometricMeanOfResults(file);

  out += "<section id=\"overview\"><h2>Overview</h2><p class=\"meta\">Each value against <b>";
  Esc(out, base);
  out += "</b> (the base";
  if (!norm_base.empty()) out += ", highlighted";
  out += "): \u25b2/\u25bc the value is higher/lower, in words better or worse where the result says which way is "
         "better, and coloured the same way (green better, red worse). The verdict says whether a difference is "
         "decided: different, same within \u00b15 % or unknown, with the ratio and its 95 % interval, from the code "
         "compare-results uses";
  out += by_pairs ? " (by instance pairs: the trials were run in rounds across targets)." : " (by runs).";
  out += "</p><div class=\"scroll\"><table class=\"overview\"><tr><th>Result</th><th>Unit</th>";
  for (const auto& s : file.systems) {
    out += "<th data-system=\"";
    Esc(out, s.identifier);
    out += Highlighted(s.identifier, view.options) ? "\" class=\"hl\">" : "\">";
    Esc(out, s.identifier);
    if (s.identifier == base) out += " (base)";
    out += "</th>";
  }
  out += "</tr>";
  for (size_t i = 0; i < file.results.size(); ++i) {
    const Result& r = file.results[i];
    bool numeric = false;
    for (const auto& e : r.entries) numeric = numeric || (!IsSeries(e) && NumericValue(e.value));
    if (!numeric) continue;
    const std::string label = Trim(r.title + " " + r.app_version) + (r.description.empty() ? "" : " - " + r.description);
    const ComparedResult* row = row_of_result[i] < c.results.size() ? &c.results[row_of_result[i]] : nullptr;
    std::unordered_map<std::string, CellVerdict> pair_verdicts;
    if (by_pairs) {
      const VerdictSettings level = LevelOfRun(r, settings);
      for (const auto& kv : VerdictsAgainstFirst(ResultSystemTrials(file, r), level))
        pair_verdicts[kv.kind] = Cell(kv.verdict, VerdictText(kv.verdict, level), level);
    }
    std::optional<Normalized> normalized;
    if (view.options.normalize) normalized = NormalizeResult(r, norm_base);
    std::optional<double> base_value;
    for (const auto& e : r.entries)
      if (e.identifier == base && !IsSeries(e)) base_value = NumericValue(e.value);
    out += "<tr data-result=\"r" + std::to_string(i + 1) + "\"><th><a href=\"#r" + std::to_string(i + 1) + "\">";
    Esc(out, label);
    out += "</a></th><td>";
    Esc(out, r.scale);
    out += r.proportion == "HIB" ? " <span title=\"higher is better\">\u2191 more is better</span>"
           : r.proportion == "LIB" ? " <span title=\"lower is better\">\u2193 less is better</span>" : "";
    out += "</td>";
    for (size_t s = 0; s < file.systems.size(); ++s) {
      const std::string& id = file.systems[s].identifier;
      const Entry* entry = nullptr;
      size_t entry_index = 0;
      for (size_t k = 0; k < r.entries.size() && !entry; ++k)
        if (r.entries[k].identifier == id) entry = &r.entries[k], entry_index = k;
      // (A plain flag and number: GCC 12 takes an optional here for maybe-uninitialized.)
      double number = 0;
      bool has_value = false;
      if (entry && !IsSeries(*entry))
        if (const auto v = NumericValue(entry->value)) number = *v, has_value = true;
      std::string cls = "num";
      if (has_value && base_value && s > 0) cls += ChangeClass(number, *base_value, r.proportion);
      if (Highlighted(id, view.options)) cls += " hl";
      if (!has_value) cls += " missing";
      out += "<td class=\"" + cls + "\" data-system=\"";
      Esc(out, id);
      out += "\">";
      if (!has_value) {
        if (entry && entry->value.empty()) out += "<span class=\"meta\">failed</span>";
        out += "</td>";
        continue;
      }
      out += "<span class=\"v\">";
      Esc(out, entry->value);
      out += "</span>";
      // A stand-in is marked as every view marks it; in another unit it is shown, never compared.
      if (auto mark = StandInMark(*entry)) {
        out += " <span class=\"stand-in\" title=\"";
        Esc(out, StandInFootnote(*mark));
        out += "\">* stand-in</span>";
        if (StandInInOtherUnit(*entry, r)) {
          out += "<br><span class=\"meta\">in its own unit: not compared</span></td>";
          continue;
        }
      }
      if (normalized && normalized->values[entry_index]) {
        char rel[64];
        std::snprintf(rel, sizeof rel, "%.*f", normalized->decimals, *normalized->values[entry_index]);
        out += "<br><span class=\"nor\" title=\"normalized as PTS normalizes\">rel " + std::string(rel) + "</span>";
      }
      if (s == 0) {
        out += "<br><span class=\"meta\">base</span></td>";
        continue;
      }
      if (base_value) {
        out += "<br>";
        AppendChange(out, number, *base_value, r.proportion);
      }
      std::optional<CellVerdict> verdict;
      if (by_pairs) {
        if (auto it = pair_verdicts.find(ParseInstanceName(id).kind); it != pair_verdicts.end()) verdict = it->second;
      } else if (row && s < row->values.size() && row->values[s].runs) {
        verdict = Cell(*row->values[s].runs, RunsVerdictText(*row->values[s].runs, settings), settings);
      }
      if (verdict) {
        out += "<br><span class=\"verdict\" title=\"";
        Esc(out, verdict->full);
        out += "\">";
        Esc(out, verdict->shown);
        out += "</span>";
      } else if (SetUpOf(id) == SetUpOf(base)) {
        out += "<br><span class=\"meta\">a run of the base</span>";
      }
      out += "</td>";
    }
    out += "</tr>";
  }
  // The geometric mean, as PTS computes it, over the results every system has.
  out += "<tr class=\"geomean\"><th>Geometric mean";
  out += g.counted == g.comparable ? " (over all " + std::to_string(g.counted) + " results)"
                                   : " (over " + std::to_string(g.counted) + " of " + std::to_string(g.comparable) +
                                         " results: those every system has)";
  out += "</th><td>lower-is-better as 100/x; \u2191 more is better</td>";
  for (size_t s = 0; s < file.systems.size(); ++s) {
    size_t k = 0;
    while (k < g.systems.size() && g.systems[k] != file.systems[s].identifier) ++k;
    const bool has = k < g.values.size();
    const bool base_has = !g.values.empty() && g.systems[0] == base;
    std::string cls = "num";
    if (has && s > 0 && base_has) cls += ChangeClass(g.values[k], g.values[0], "HIB");
    if (Highlighted(file.systems[s].identifier, view.options)) cls += " hl";
    out += "<td class=\"" + cls + "\" data-system=\"";
    Esc(out, file.systems[s].identifier);
    out += "\">";
    if (has) {
      out += "<span class=\"v\">" + Printf("%.3f", g.values[k]) + "</span>";
      if (s > 0 && base_has) {
        out += "<br>";
        AppendChange(out, g.values[k], g.values[0], "HIB");
      }
    } else if (s == 0) {
      out += "<span class=\"meta\">fewer than 2 results in common</span>";
    }
    out += "</td>";
  }
  out += "</tr></table></div></section>";
}

void AppendOptionsForm(std::string& out, const ResultFile& file, const HtmlView& view) {
  const ViewerOptions& o = view.options;
  auto box = [&](const char* name, bool on, const char* what) {
    out += std::string("<label><input type=\"checkbox\" name=\"") + name + "\"" + (on ? " checked" : "") + "> " + name +
           ": " + what + "</label> ";
  };
  out += "<form class=\"options\" method=\"get\"><fieldset><legend>View (OpenBenchmarking's option names; "
         "obr_ forms work too)</legend>";
  box("nor", o.normalize, "normalize");
  box("hnr", o.hide_noisy, "hide noisy (SD above 6 % of the mean)");
  box("hlc", o.hide_little_change, "hide little change");
  box("hni", o.hide_incomplete, "hide incomplete");
  box("sgm", o.geometric_mean, "geometric mean chart");
  box("src", o.confidence_charts, "every trial (box plots)");
  box("sdt", o.detailed_systems, "full systems table");
  const std::vector<std::string> systems = [&] {
    if (!view.all_systems.empty()) return view.all_systems;
    std::vector<std::string> v;
    for (const auto& s : file.systems) v.push_back(s.identifier);
    return v;
  }();
  out += "<br><label>hgv: highlight (and normalize against) <select name=\"hgv\"><option value=\"\">(none)</option>";
  for (const auto& s : systems) {
    out += "<option value=\"";
    Esc(out, s);
    out += "\"";
    if (o.highlight.size() == 1 && o.highlight[0] == s) out += " selected";
    out += ">";
    Esc(out, s);
    out += "</option>";
  }
  out += "</select></label><br>rmm[]: hide ";
  for (const auto& s : systems) {
    bool hidden = false;
    for (const auto& h : o.hide_systems) hidden = hidden || h == s;
    out += "<label><input type=\"checkbox\" name=\"rmm[]\" value=\"";
    Esc(out, s);
    out += "\"" + std::string(hidden ? " checked" : "") + "> ";
    Esc(out, s);
    out += "</label> ";
  }
  auto text = [&](const char* name, const std::vector<std::string>& words, const char* what) {
    std::string joined;
    for (const auto& w : words) joined += (joined.empty() ? "" : ",") + w;
    out += std::string("<br><label>") + name + ": " + what + " <input name=\"" + name + "\" value=\"";
    Esc(out, joined);
    out += "\"></label>";
  };
  text("oss", o.only_show, "only results matching (comma list)");
  text("noss", o.hide_matching, "hide results matching");
  out += "<br><button>Show</button> <a id=\"view-link\" href=\"?";
  Esc(out, o.ToQuery());
  out += "\">link to this view</a></fieldset></form>";
}

}  // namespace ptsn::results
