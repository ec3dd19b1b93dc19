#include "results-xml/views/export_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>

#include "results-xml/model/comparison_hash.h"
#include "results-xml/stats/statistics.h"
#include "results-xml/views/export_common.h"
#include "runner/common/strings.h"

namespace ptsn::results {

namespace {

ComparedValue Measure(const Entry& e) {
  ComparedValue v;
  const std::vector<double> numbers = EntryNumbers(e);
  v.n = numbers.size();
  if (IsSeries(e)) {  // a series: compare its mean; samples are not trials, so no interval
    if (!numbers.empty()) v.value = Mean(numbers);
    return v;
  }
  v.trials = numbers;
  v.value = NumericValue(e.value);
  if (v.value && numbers.size() >= 2) {
    const TrialSummary s = Summarize(numbers);
    v.ci_low = s.ci95_low;
    v.ci_high = s.ci95_high;
  }
  return v;
}

void Judge(ComparedValue& v, const ComparedValue& first, CompareMode mode) {
  if (!v.value || !first.value || !v.other_unit.empty() || !first.other_unit.empty()) return;
  if (*first.value != 0) v.change_pct = (*v.value - *first.value) / std::fabs(*first.value) * 100;
  // One pair of targets measures that pair, not the set-ups (14.4 % of A/A pairs were called
  // different by this interval): the verdict is by instance pairs (VerdictView), never per column.
  if (mode == CompareMode::kPaired) v.paired = PairRatio(first.trials, v.trials);
}

// Unpaired: every other set-up of the row against the first column's, by runs (a set-up's runs
// are its columns "NAME", "NAME run 2" or "NAME #2" ...: SetUpOf).
void JudgeRuns(ComparedResult& row, const std::vector<std::string>& columns, const VerdictSettings& settings) {
  auto runs_of = [&](const std::string& kind) {
    std::vector<std::vector<double>> runs;
    for (size_t k = 0; k < columns.size(); ++k) {
      const ComparedValue& v = row.values[k];
      if (SetUpOf(columns[k]) != kind || !v.value || !v.other_unit.empty()) continue;
      runs.push_back(v.trials.empty() ? std::vector<double>{*v.value} : v.trials);
    }
    return runs;
  };
  if (row.values.empty() || !row.values[0].value || !row.values[0].other_unit.empty() || !row.values[0].trials.size())
    return;
  const std::string reference = SetUpOf(columns[0]);
  const auto reference_runs = runs_of(reference);
  for (size_t k = 1; k < columns.size(); ++k) {
    const std::string kind = SetUpOf(columns[k]);
    ComparedValue& v = row.values[k];
    if (kind == reference || !v.value || !v.other_unit.empty() || v.trials.empty()) continue;
    v.runs = DecideRunsVerdict(reference_runs, runs_of(kind), settings);
    if (row.proportion != "HIB" && row.proportion != "LIB") continue;
    if (v.runs->kind == VerdictKind::kSame) v.verdict = 0;
    else if (v.runs->kind == VerdictKind::kDifferent) v.verdict = VerdictWord(v.runs->kind, v.runs->ratio, row.proportion, settings) == "better" ? 1 : -1;
  }
}

std::string Format(double v) {
  char buf[64];
  const double a = std::fabs(v);
  std::snprintf(buf, sizeof buf, a >= 1000 ? "%.0f" : a >= 10 ? "%.2f" : "%.3f", v);
  return buf;
}

void Pad(std::string& out, const std::string& s, size_t width, bool right) {
  if (right && s.size() < width) out.append(width - s.size(), ' ');
  out += s;
  if (!right && s.size() < width) out.append(width - s.size(), ' ');
}

}  // namespace

Comparison CompareResultFiles(const std::vector<ResultFile>& files, const std::vector<std::string>& names,
                              CompareMode mode, const VerdictSettings& settings) {
  Comparison c;
  c.mode = mode;
  c.settings = settings;
  // Columns: (file, system identifier); identifiers that repeat get "name: " prefixes.
  struct Column {
    size_t file;
    std::string identifier;
  };
  std::vector<Column> columns;
  std::unordered_map<std::string, size_t> seen;
  for (size_t f = 0; f < files.size(); ++f)
    for (const auto& s : files[f].systems) {
      bool dup = false;
      for (const auto& col : columns) dup |= col.file == f && col.identifier == s.identifier;
      if (!dup) columns.push_back({f, s.identifier}), ++seen[s.identifier];
    }
  for (const auto& col : columns)
    c.columns.push_back(seen[col.identifier] > 1 && col.file < names.size() ? names[col.file] + ": " + col.identifier
                                                                              : col.identifier);

  // Rows in order of first appearance of each comparison hash.
  std::unordered_map<std::string, size_t> row_of;
  for (size_t f = 0; f < files.size(); ++f) {
    for (const auto& r : files[f].results) {
      const std::string hash = ComparisonHash(r);
      auto [it, added] = row_of.emplace(hash, c.results.size());
      if (added) {
        ComparedResult row;
        row.label = Trim(r.title + " " + r.app_version) + (r.description.empty() ? "" : " - " + r.description);
        row.scale = r.scale;
        row.proportion = r.proportion;
        row.values.resize(columns.size());
        c.results.push_back(std::move(row));
      }
      ComparedResult& row = c.results[it->second];
      for (size_t k = 0; k < columns.size(); ++k) {
        if (columns[k].file != f || row.values[k].value) continue;
        for (const auto& e : r.entries)
          if (e.identifier == columns[k].identifier) {
            row.values[k] = Measure(e);
            if (StandInInOtherUnit(e, r)) row.values[k].other_unit = *EntryJsonString(e, kStandInScaleKey);
            if (row.values[k].value) break;  // a failed entry may be followed by a good one
          }
      }
    }
  }
  for (auto& row : c.results) {
    for (size_t k = 1; k < row.values.size(); ++k) Judge(row.values[k], row.values[0], mode);
    if (mode == CompareMode::kUnpaired) JudgeRuns(row, c.columns, settings);
  }
  return c;
}

namespace {
// Unpaired: each set-up's tally against the first, then each result's verdicts and what they mean.
std::string RunsVerdictsText(const Comparison& c) {
  const std::string reference = SetUpOf(c.columns[0]);
  std::vector<std::string> kinds;  // in order of their first column
  std::vector<size_t> first_column;
  for (size_t k = 1; k < c.columns.size(); ++k) {
    const std::string kind = SetUpOf(c.columns[k]);
    if (kind != reference && std::find(kinds.begin(), kinds.end(), kind) == kinds.end())
      kinds.push_back(kind), first_column.push_back(k);
  }
  if (kinds.empty()) return "";
  size_t width = 8;
  for (const auto& kind : kinds) width = std::max(width, kind.size());
  std::string tallies = "Against " + reference + ":\n", verdicts;
  bool any = false;
  for (size_t i = 0; i < kinds.size(); ++i) {
    int better = 0, worse = 0, same = 0, unknown = 0;
    for (const auto& row : c.results) {
      const ComparedValue& v = row.values[first_column[i]];
      if (!v.runs) continue;
      any = true;
      if (v.runs->kind == VerdictKind::kSame) ++same;
      else if (v.runs->kind == VerdictKind::kUnknown || !v.verdict) ++unknown;
      else ++(*v.verdict > 0 ? better : worse);
    }
    tallies += "  ";
    Pad(tallies, kinds[i], width, false);
    char buf[128];
    std::snprintf(buf, sizeof buf, "  %d better, %d worse, %d same within +-%g %%, %d unknown\n", better, worse, same,
                  c.settings.same_within_percent, unknown);
    tallies += buf;
  }
  if (!any) return "";
  for (const auto& row : c.results) {
    std::string lines;
    for (size_t i = 0; i < kinds.size(); ++i)
      if (const auto& v = row.values[first_column[i]]; v.runs)
        lines += "    " + kinds[i] + ": " + RunsVerdictText(*v.runs, c.settings) + "\n";
    if (!lines.empty()) verdicts += "  " + row.label + "\n" + lines;
  }
  return tallies + "\nVerdicts against " + reference + ":\n" + verdicts + "\n" + RunsVerdictNote(c.settings);
}
}  // namespace

std::string ComparisonToText(const Comparison& c) {
  size_t name_width = 8;
  for (const auto& col : c.columns) name_width = std::max(name_width, col.size());
  std::string out;
  for (const auto& row : c.results) {
    out += row.label;
    out += " (";
    out += row.scale.empty() ? "no unit" : row.scale;
    if (row.proportion == "HIB") out += ", higher is better";
    else if (row.proportion == "LIB") out += ", lower is better";
    out += ")\n";
    for (size_t k = 0; k < c.columns.size(); ++k) {
      const ComparedValue& v = row.values[k];
      out += "  ";
      Pad(out, c.columns[k], name_width, false);
      out += "  ";
      if (!v.value) {
        out += "-\n";
        continue;
      }
      Pad(out, Format(*v.value), 12, true);
      std::string ci = v.ci_low ? "+/- " + Format((*v.ci_high - *v.ci_low) / 2) : "";
      out += "  ";
      Pad(out, ci, 12, false);
      out += " N=" + std::to_string(v.n);
      if (!v.other_unit.empty()) {
        out += "  (stand-in measured in " + v.other_unit + ": not compared)\n";
        continue;
      }
      if (k == 0) {
        out += "  (reference)\n";
        continue;
      }
      if (v.paired) {
        char buf[128];
        std::snprintf(buf, sizeof buf, "  x%.3f [%.3f, %.3f] paired over %zu rounds (%+.2f%%)", v.paired->ratio,
                      v.paired->ci_low, v.paired->ci_high, v.paired->pairs, (v.paired->ratio - 1) * 100);
        out += buf;
      } else if (v.change_pct) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "  %+.2f%%", *v.change_pct);
        out += buf;
      }
      if (c.mode == CompareMode::kPaired) out += v.paired ? "  (verdict below)" : "  (fewer than 2 paired rounds)";
      else if (v.runs) out += "  " + VerdictWord(v.runs->kind, v.runs->ratio, row.proportion, c.settings);
      else if (SetUpOf(c.columns[k]) == SetUpOf(c.columns[0])) out += "  (a run of the reference)";
      else out += "  (not compared)";
      out += '\n';
    }
    out += '\n';
  }
  if (c.columns.size() > 1 && c.mode == CompareMode::kUnpaired) out += RunsVerdictsText(c);
  return out;
}

std::string FileVerdictsText(const ResultFile& file, const VerdictSettings& settings) {
  if (file.systems.size() < 2) return "";
  if (TrialsInterleaved(file)) return VerdictView(file, settings);
  const Comparison c = CompareResultFiles({file}, {""}, CompareMode::kUnpaired, settings);
  return c.columns.size() > 1 ? RunsVerdictsText(c) : "";
}

}  // namespace ptsn::results
