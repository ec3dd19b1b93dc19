#include "results-xml/export_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>

#include "results-xml/comparison_hash.h"
#include "results-xml/export_common.h"
#include "results-xml/statistics.h"
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

void Judge(ComparedValue& v, const ComparedValue& first, const std::string& proportion, CompareMode mode) {
  if (!v.value || !first.value || !v.other_unit.empty() || !first.other_unit.empty()) return;
  if (*first.value != 0) v.change_pct = (*v.value - *first.value) / std::fabs(*first.value) * 100;
  if (mode == CompareMode::kPaired) {
    v.paired = PairRatio(first.trials, v.trials);
    if (!v.paired || (proportion != "HIB" && proportion != "LIB")) return;
    if (v.paired->within_noise()) v.verdict = 0;
    else v.verdict = (v.paired->ratio > 1) == (proportion == "HIB") ? 1 : -1;
    return;
  }
  if (!v.ci_low || !first.ci_low || (proportion != "HIB" && proportion != "LIB")) return;
  if (*v.ci_low <= *first.ci_high && *first.ci_low <= *v.ci_high) {
    v.verdict = 0;
    return;
  }
  const bool higher = *v.value > *first.value;
  v.verdict = (higher == (proportion == "HIB")) ? 1 : -1;
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

// What these verdicts are worth, as measured against known truth (docs/verdicts.md, "Measured
// here": bench/verdicts_collect.sh and verdicts_eval on this project's 2-core machine).
std::string VerdictErrorRates(CompareMode mode) {
  if (mode == CompareMode::kPaired)
    return "'better'/'worse': the paired ratio's 95 % interval leaves out 1. It counts the variation from\n"
           "round to round only, not the difference each made target carries: identical targets were called\n"
           "'better' or 'worse' in 14.4 % [12.1, 17.0] of 772 A/A runs (docs/verdicts.md). Verdicts by\n"
           "instance pairs (run.target_instances) hold to 5 %.\n";
  return "'better'/'worse': the two 95 % intervals do not overlap. Each system's result is one run, and a\n"
         "run carries a difference of its own that its interval leaves out: identical set-ups were called\n"
         "'better' or 'worse' in 2.1 % [1.3, 3.3] of 772 A/A runs when their trials were interleaved in one\n"
         "batch-run, and in 10.8 % [6.3, 18.0] of 111 when run one after the other as PTS runs systems\n"
         "(docs/verdicts.md). 'Within noise' is not 'the same': a true 10 % difference was found in 3 to\n"
         "32 % of those runs.\n";
}

Comparison CompareResultFiles(const std::vector<ResultFile>& files, const std::vector<std::string>& names,
                              CompareMode mode) {
  Comparison c;
  c.mode = mode;
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
  for (auto& row : c.results)
    for (size_t k = 1; k < row.values.size(); ++k) Judge(row.values[k], row.values[0], row.proportion, mode);
  return c;
}

std::string ComparisonToText(const Comparison& c) {
  size_t name_width = 8;
  for (const auto& col : c.columns) name_width = std::max(name_width, col.size());
  std::string out;
  std::vector<int> better(c.columns.size()), worse(c.columns.size()), noise(c.columns.size());
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
      if (!v.verdict) out += "  (noise unknown)";
      else if (*v.verdict == 0) out += "  within noise", ++noise[k];
      else if (*v.verdict > 0) out += "  better", ++better[k];
      else out += "  worse", ++worse[k];
      out += '\n';
    }
    out += '\n';
  }
  if (c.columns.size() > 1) {
    out += "Against " + c.columns[0] + ":\n";
    for (size_t k = 1; k < c.columns.size(); ++k) {
      out += "  ";
      Pad(out, c.columns[k], name_width, false);
      out += "  " + std::to_string(better[k]) + " better, " + std::to_string(worse[k]) + " worse, " +
             std::to_string(noise[k]) + " within noise\n";
    }
    int judged = 0;
    for (size_t k = 1; k < c.columns.size(); ++k) judged += better[k] + worse[k] + noise[k];
    if (judged > 0) out += "\n" + VerdictErrorRates(c.mode);  // only beside verdicts it speaks of
  }
  return out;
}

}  // namespace ptsn::results
