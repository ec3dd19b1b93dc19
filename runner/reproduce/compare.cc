#include "runner/reproduce/compare.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "results-xml/views/export_compare.h"
#include "results-xml/model/comparison_hash.h"
#include "results-xml/views/export_text.h"
#include "results-xml/stats/statistics.h"
#include "runner/reproduce/append.h"

namespace ptsn::reproduce {

namespace {

// The runs of the set-up `identifier` names in `r`: its entries "NAME", "NAME run 2" ... (each its trials).
std::vector<std::vector<double>> RunsOf(const results::Result& r, const std::string& identifier) {
  const std::string kind = results::SetUpOf(identifier);
  std::vector<std::vector<double>> runs;
  for (const auto& e : r.entries)
    if (results::SetUpOf(e.identifier) == kind && results::PhpIsNumeric(e.value)) {
      auto trials = results::NumericTrials(e);
      runs.push_back(trials.empty() ? std::vector<double>{results::PhpToNumber(e.value)} : trials);
    }
  return runs;
}

// "MiB/s, higher is better".
std::string UnitWords(const results::Result& r) {
  std::string out = r.scale.empty() ? "no unit" : r.scale;
  if (r.proportion == "HIB") out += ", higher is better";
  else if (r.proportion == "LIB") out += ", lower is better";
  return out;
}

// The published Result a kept-apart stand-in entry points at; nullptr when none.
const results::Result* KeptApartOriginal(const results::ResultFile& file, const results::Entry& e) {
  auto hash = StandInForOf(e);
  if (!hash) return nullptr;
  for (const auto& r : file.results)
    if (results::ComparisonHash(r) == *hash) return &r;
  return nullptr;
}

std::string Percent(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", p);
  return buf;
}

}  // namespace

const results::Entry* FindEntry(const results::Result& r, const std::string& identifier) {
  for (const auto& e : r.entries)
    if (e.identifier == identifier) return &e;
  return nullptr;
}

std::vector<ResultComparison> CompareWithPublished(const results::ResultFile& file, const std::string& identifier) {
  std::vector<ResultComparison> out;
  for (size_t i = 0; i < file.results.size(); ++i) {
    const results::Result& r = file.results[i];
    if (r.identifier.empty()) continue;  // derived (monitor) results: shown by the text view only
    const results::Entry* mine = FindEntry(r, identifier);
    if (!mine) continue;
    ResultComparison c;
    c.result_index = i;
    c.stand_in = StandInOf(*mine);
    auto scale = StandInScaleOf(*mine);
    if (const results::Result* original = KeptApartOriginal(file, *mine))
      c.not_comparable = "stand-in for " + original->title + " measured in " + UnitWords(r) + "; the original reports " +
                         UnitWords(*original) + ": no percentage across units";
    else if (scale && !SameUnit(*scale, r.scale)) c.not_comparable = "the stand-in measured in " + *scale + ", not " + r.scale;
    else if (!results::PhpIsNumeric(mine->value)) c.not_comparable = mine->value.empty() ? "this run failed" : "not a number";
    else if (r.display_format != "BAR_GRAPH") c.not_comparable = "not a bar result";
    else if (scale) c.caveat = "stand-in measured in " + *scale + ", published in " + r.scale;
    if (c.not_comparable.empty()) {
      double value = results::PhpToNumber(mine->value);
      const auto my_runs = RunsOf(r, identifier);
      const std::string my_kind = results::SetUpOf(identifier);
      for (const auto& e : r.entries) {
        if (results::SetUpOf(e.identifier) == my_kind || !results::PhpIsNumeric(e.value)) continue;
        double published = results::PhpToNumber(e.value);
        if (published == 0) continue;
        VersusPublished v;
        v.published = e.identifier;
        v.percent = value / published * 100.0;
        v.better = r.proportion == "LIB" ? value < published : value > published;
        v.verdict = results::DecideRunsVerdict(RunsOf(r, e.identifier), my_runs, {});
        c.versus.push_back(v);
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::string ComparisonText(const results::ResultFile& file, const std::string& identifier, int width) {
  std::string out;
  auto comparisons = CompareWithPublished(file, identifier);
  std::map<size_t, const ResultComparison*> by_index;
  for (const auto& c : comparisons) by_index[c.result_index] = &c;

  // Geometric mean of relative performance per published system (stand-ins excluded: they
  // measured something else).
  std::map<std::string, std::pair<double, int>> geo;
  std::vector<std::string> order;
  std::set<const results::Result*> shown;  // published charts already printed above a stand-in's

  for (size_t i = 0; i < file.results.size(); ++i) {
    const results::Result& r = file.results[i];
    const results::Entry* mine = FindEntry(r, identifier);
    if (!mine) continue;
    // The text view marks stand-in rows ("This Box *") and footnotes them itself.
    std::optional<std::string> stand_in = StandInOf(*mine);
    // A stand-in kept apart: the published chart first (once), untouched, then the stand-in's own.
    if (const results::Result* original = KeptApartOriginal(file, *mine); original && shown.insert(original).second) {
      results::AppendResultText(out, *original, width, "");
      out += '\n';
    }
    results::AppendResultText(out, r, width, "");
    out += '\n';
    if (by_index.count(i) && !by_index[i]->caveat.empty()) out += "    note: " + by_index[i]->caveat + "\n";
    auto it = by_index.find(i);
    if (it == by_index.end()) continue;
    const ResultComparison& c = *it->second;
    if (!c.not_comparable.empty()) {
      out += "    " + identifier + ": no comparison (" + c.not_comparable + ")\n";
      continue;
    }
    for (const auto& v : c.versus) {
      std::string verdict =
          v.verdict ? results::VerdictWord(v.verdict->kind, v.verdict->ratio, r.proportion, {}) : "not compared";
      if (v.verdict && v.verdict->has_interval) {
        char interval[64];
        std::snprintf(interval, sizeof interval, ": x%.3f [%.3f, %.3f]", v.verdict->ratio, v.verdict->ci_low,
                      v.verdict->ci_high);
        verdict += interval;
      }
      out += "    " + identifier + " = " + Percent(v.percent) + " of " + v.published + "  [" + verdict + "]\n";
      if (!stand_in) {
        double rel = r.proportion == "LIB" ? 100.0 / v.percent : v.percent / 100.0;
        if (rel > 0) {
          if (!geo.count(v.published)) order.push_back(v.published);
          geo[v.published].first += std::log(rel);
          geo[v.published].second += 1;
        }
      }
    }
  }
  if (!order.empty()) {
    out += "\nRelative performance of " + identifier + " (geometric mean, higher is better, stand-ins excluded):\n";
    for (const auto& name : order) {
      auto [sum, n] = geo[name];
      out += "    vs " + name + ": " + Percent(std::exp(sum / n) * 100.0) + " over " + std::to_string(n) +
             (n == 1 ? " result\n" : " results\n");
    }
    out += "\n" + results::RunsVerdictNote({});
  }
  return out;
}

}  // namespace ptsn::reproduce
