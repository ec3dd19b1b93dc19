#include "results-xml/views/export_html_overview.h"

#include <cmath>
#include <cstdio>
#include <unordered_map>

#include "results-xml/model/comparison_hash.h"
#include "results-xml/views/export_common.h"
#include "results-xml/views/export_compare.h"
#include "results-xml/views/export_svg.h"
#include "results-xml/views/multi_way.h"
#include "results-xml/stats/runs_verdict.h"
#include "results-xml/stats/verdict.h"
#include "results-xml/stats/wins_losses.h"
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
  VerdictKind kind = VerdictKind::kUnknown;
  double ratio = 1;  // the system's value over the base's
};

// Per system, what its verdicts against the base decided: a win is "different" the better way.
struct Decided {
  int wins = 0, losses = 0, same = 0, unknown = 0;
};

// V: a Verdict (instance pairs) or a RunsVerdict (separate runs), which carry the same fields;
// `sentence` is what the CLI prints for it.
template <typename V>
CellVerdict Cell(const V& v, const std::string& sentence, const VerdictSettings& settings) {
  CellVerdict c;
  c.shown = Plus(VerdictWord(v.kind, v.ratio, "", settings)) +
            (v.has_interval ? Printf(", x%.3f [%.3f, %.3f]", v.ratio, v.ci_low, v.ci_high) : Printf(", x%.3f", v.ratio));
  c.full = Plus(sentence);
  c.kind = v.kind;
  c.ratio = v.ratio;
  return c;
}

bool Highlighted(const std::string& identifier, const ViewerOptions& o) {
  for (const auto& h : HighlightedNames(o))
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
  std::vector<Decided> decided(file.systems.size());
  size_t decided_over = 0;  // the test results the decided row counts over

  out += "<section id=\"overview\"><h2>Overview</h2><p class=\"meta\">Each value against <b>";
  Esc(out, base);
  out += "</b> (the base";
  if (!norm_base.empty()) out += ", highlighted";
  out += "): \u25b2/\u25bc the value is higher/lower, in words better or worse where the result says which way is "
         "better, and coloured the same way (green better, red worse). The verdict says whether a difference is "
         "decided: different, same within \u00b15 % or unknown, with the ratio and its 95 % interval, from the code "
         "compare-results uses";
  out += by_pairs ? " (by instance pairs: the trials were run in rounds across targets)." : " (by runs).";
  out += "</p>";
  if (view.options.notable) {
    // spr: PTS's notable results, the largest spreads between best and worst.
    out += "<div id=\"notable\"><h3>Notable results</h3><p class=\"meta\">spr, as PTS picks them: the "
           "min(results/4, 10) with the largest spread between best and worst value (noisy ones last).</p><ol>";
    for (size_t i : NotableResults(file)) {
      const Result& r = file.results[i];
      out += "<li><a href=\"#r" + std::to_string(i + 1) + "\">";
      Esc(out, r.title + (r.description.empty() ? "" : " - " + r.description));
      const double spread = Spread(r);
      out += "</a>" + (spread > 0 ? Printf(" (best/worst %.2f)", spread) : std::string(" (noisy)")) + "</li>";
    }
    out += "</ol></div>";
  }
  out += "<div class=\"scroll\"><table class=\"overview\"><tr><th>Result</th><th>Unit</th>";
  for (const auto& s : file.systems) {
    out += "<th data-system=\"";
    Esc(out, s.identifier);
    out += Highlighted(s.identifier, view.options) ? "\" class=\"hl\">" : "\">";
    Esc(out, s.identifier);
    if (s.identifier == base) out += " (base)";
    out += "</th>";
  }
  out += "</tr>";
  // A condensed result (cmw, cmv) as a row per option set or version, its values under their
  // systems; without verdicts (those are the whole result's, by its "GROUP: SYSTEM" names).
  struct Row {
    size_t index;
    const Result* result;
    std::string group;  // "" for a result's own row
  };
  std::vector<Row> rows;
  std::vector<std::vector<std::pair<std::string, Result>>> parts(file.results.size());
  for (size_t i = 0; i < file.results.size(); ++i) {
    parts[i] = SplitByGroup(file.results[i], file.systems);
    if (parts[i].empty()) rows.push_back({i, &file.results[i], ""});
    for (const auto& [group, part] : parts[i]) rows.push_back({i, &part, group});
  }
  for (const Row& each : rows) {
    const size_t i = each.index;
    const Result& r = *each.result;
    const std::string& group = each.group;
    bool numeric = false;
    for (const auto& e : r.entries) numeric = numeric || (!IsSeries(e) && NumericValue(e.value));
    if (!numeric) continue;
    if (!r.identifier.empty()) ++decided_over;
    const std::string label = Trim(r.title + " " + r.app_version) + (r.description.empty() ? "" : " - " + r.description);
    const ComparedResult* row =
        group.empty() && row_of_result[i] < c.results.size() ? &c.results[row_of_result[i]] : nullptr;
    std::unordered_map<std::string, CellVerdict> pair_verdicts;
    if (by_pairs && group.empty()) {
      const VerdictSettings level = LevelOfRun(r, settings);
      for (const auto& kv : VerdictsAgainstFirst(ResultSystemTrials(file, r), level))
        pair_verdicts[kv.kind] = Cell(kv.verdict, VerdictText(kv.verdict, level), level);
    }
    std::optional<Normalized> normalized;
    if (view.options.normalize) normalized = NormalizeResult(r, norm_base);
    std::optional<double> base_value;
    for (const auto& e : r.entries)
      if (e.identifier == base && !IsSeries(e)) base_value = NumericValue(e.value);
    out += "<tr data-result=\"r" + std::to_string(i + 1) + "\"";
    if (!group.empty()) {
      out += " data-group=\"";
      Esc(out, group);
      out += "\"";
    }
    out += "><th><a href=\"#r" + std::to_string(i + 1) + "\">";
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
      if (verdict && !r.identifier.empty()) {  // a test's result, not a mean sgm or shm added
        Decided& d = decided[s];
        if (verdict->kind == VerdictKind::kSame) ++d.same;
        else if (verdict->kind == VerdictKind::kUnknown) ++d.unknown;
        else if (r.proportion == "HIB" || r.proportion == "LIB") ++((verdict->ratio > 1) == (r.proportion == "HIB") ? d.wins : d.losses);
        else ++d.unknown;  // decided, but the result says no way is better
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
  if (!g.values.empty())
    out += g.low.empty() ? "<br><span class=\"meta\">no interval: some value has fewer than 2 trials</span>"
                         : "<br><span class=\"meta\">[95 % interval from the trials]</span>";
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
      if (k < g.low.size())
        out += "<br><span class=\"gm-ci\" title=\"95 % interval of the geometric mean from each value's trials (delta "
               "method on the log scale)\">[" + Printf("%.3f, %.3f", g.low[k], g.high[k]) + "]</span>";
      if (s > 0 && base_has) {
        out += "<br>";
        AppendChange(out, g.values[k], g.values[0], "HIB");
        if (k < g.ratio_low.size()) {
          const bool apart = g.ratio_low[k] > 1 || g.ratio_high[k] < 1;
          out += "<br><span class=\"gm-ratio\" title=\"against the base, with its 95 % interval from the trials; "
                 "'apart by trials' when it leaves out 1. Trials within one run leave out the run-to-run spread: "
                 "not a verdict\">";
          out += Printf("x%.3f [%.3f, %.3f]", g.values[k] / g.values[0], g.ratio_low[k], g.ratio_high[k]);
          out += apart ? " apart by trials</span>" : " overlaps 1</span>";
        }
      }
    } else if (s == 0) {
      out += "<span class=\"meta\">fewer than 2 results in common</span>";
    }
    out += "</td>";
  }
  out += "</tr>";
  // Wins and losses that count only what a verdict decided ("different"), against the base.
  out += "<tr class=\"decided\"><th>Decided wins / losses against the base (over the " + std::to_string(decided_over) +
         (decided_over == 1 ? " test result" : " test results") + (view.paged ? " on this page, not the whole view)" : ")") +
         "</th><td>counted only where the verdict is \"different\"; PTS's swl counts every first and last place, "
         "however small the gap</td>";
  for (size_t s = 0; s < file.systems.size(); ++s) {
    out += "<td class=\"num\" data-system=\"";
    Esc(out, file.systems[s].identifier);
    out += "\">";
    if (s == 0) out += "<span class=\"meta\">base</span>";
    else {
      const Decided& d = decided[s];
      out += "<span class=\"wl\">" + std::to_string(d.wins) + " won, " + std::to_string(d.losses) + " lost</span><br>"
             "<span class=\"meta\">" + std::to_string(d.same) + " same, " + std::to_string(d.unknown) + " unknown</span>";
    }
    out += "</td>";
  }
  out += "</tr>";
  if (view.options.wins_losses) {
    // swl: PTS's raw counts, for comparison with ours.
    const WinsLosses wl = CountWinsLosses(file);
    auto count = [](const std::vector<std::pair<std::string, int>>& v, const std::string& id) {
      for (const auto& [name, n] : v)
        if (name == id) return n;
      return 0;
    };
    out += "<tr class=\"swl\"><th>swl: PTS's wins / losses (over " + std::to_string(wl.counted) + " of " +
           std::to_string(wl.possible) + " results)</th><td>first / last place per result, no margin, no verdict</td>";
    for (const auto& sys : file.systems) {
      out += "<td class=\"num\" data-system=\"";
      Esc(out, sys.identifier);
      out += "\">" + std::to_string(count(wl.wins, sys.identifier)) + " first, " +
             std::to_string(count(wl.losses, sys.identifier)) + " last</td>";
    }
    out += "</tr>";
  }
  out += "</table></div></section>";
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
  box("shm", o.harmonic_means, "harmonic means of rates");
  box("spr", o.notable, "notable results");
  box("swl", o.wins_losses, "PTS's wins/losses beside ours");
  box("rro", o.reverse_systems, "reverse each result's order");
  box("cmw", o.condense_multi_way, "condense a test's option sets into one result (PTS's cts)");
  box("cmv", o.condense_versions, "condense a test's versions into one result");
  box("imw", o.transpose_multi_way, "transpose multi-way comparisons");
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
  auto pick = [&](const char* name, const std::string& chosen, const char* what) {
    out += std::string("<label>") + name + ": " + what + " <select name=\"" + name + "\"><option value=\"\">(none)</option>";
    for (const auto& s : systems) {
      out += "<option value=\"";
      Esc(out, s);
      out += s == chosen ? "\" selected>" : "\">";
      Esc(out, s);
      out += "</option>";
    }
    out += "</select></label> ";
  };
  out += "<br>";
  pick("ftt", o.faster, "only results where");
  pick("ftb", o.slower, "is faster than");
  out += "<label>ftd: and decidedly, by at least <input name=\"ftd\" size=\"4\" value=\"";
  if (o.decided_by_percent) out += Printf("%g", *o.decided_by_percent);
  out += "\"> % (ours: by the overview's verdict)</label>";
  // The orders and exports as links: each is one name in the query, as on OpenBenchmarking.
  auto link = [&](const ViewerOptions& v, const char* name, const std::string& what, bool current) {
    out += " <a class=\"opt\" data-opt=\"" + std::string(name) + "\" href=\"?";
    Esc(out, v.ToQuery());
    out += current ? "\"><b>" + what + "</b></a>" : "\">" + what + "</a>";
  };
  // One link per value of an order option, the current one in bold.
  auto orders = [&](const char* label, auto ViewerOptions::*field, const auto& choices) {
    out += label;
    for (const auto& [order, what] : choices) {
      ViewerOptions v = o;
      v.*field = order;
      link(v, what, what, o.*field == order);
    }
  };
  const std::pair<ResultOrder, const char*> result_orders[] = {{ResultOrder::kFile, "file order"},
                                                              {ResultOrder::kSpread, "spread (grs)"},
                                                              {ResultOrder::kTitle, "title (grt)"},
                                                              {ResultOrder::kUnit, "unit (gru)"},
                                                              {ResultOrder::kRunTime, "run time (grr)"}};
  orders("<br>Results by:", &ViewerOptions::result_order, result_orders);
  const std::pair<SystemOrder, const char*> system_orders[] = {{SystemOrder::kFile, "file order"},
                                                              {SystemOrder::kIdentifier, "identifier (sro)"},
                                                              {SystemOrder::kPerformance, "performance (sor)"},
                                                              {SystemOrder::kRunDate, "run date (rdt)"}};
  orders("<br>Values by:", &ViewerOptions::system_order, system_orders);
  out += "<br>Export this view:";
  for (const char* format : {"txt", "csv", "csv-all", "json", "xml", "html"}) {
    ViewerOptions v = o;
    v.export_format = format;
    link(v, format, format, false);
  }
  text("oss", o.only_show, "only results matching (comma list)");
  text("noss", o.hide_matching, "hide results matching");
  out += "<br><button>Show</button> <a id=\"view-link\" href=\"?";
  Esc(out, o.ToQuery());
  out += "\">link to this view</a></fieldset></form>";
}

}  // namespace ptsn::results
