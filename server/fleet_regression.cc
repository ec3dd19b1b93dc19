#include "server/fleet_regression.h"

#include <algorithm>
#include <cmath>

#include "results-xml/comparison_hash.h"
#include "results-xml/export_common.h"
#include "results-xml/statistics.h"
#include "runner/common/strings.h"

namespace ptsn::server {

Judgement JudgeAgainstRecent(const Measurement& now, const std::vector<Measurement>& recent,
                             const std::string& proportion, const RegressionPolicy& policy) {
  Judgement j;
  std::vector<const Measurement*> base;
  for (const auto& m : recent)
    if (m.n >= 2 && base.size() < policy.window) base.push_back(&m);
  if (base.empty()) return j;
  double sum = 0, lo = base[0]->ci_low, hi = base[0]->ci_high;
  for (const auto* m : base) {
    sum += m->mean;
    lo = std::min(lo, m->ci_low);
    hi = std::max(hi, m->ci_high);
  }
  j.baseline_mean = sum / static_cast<double>(base.size());
  if (j.baseline_mean != 0) j.change_pct = (now.mean - j.baseline_mean) / std::fabs(j.baseline_mean) * 100;
  if (now.n < 2 || base.size() < policy.min_history || (proportion != "HIB" && proportion != "LIB")) return j;
  const bool overlaps = now.ci_low <= hi && lo <= now.ci_high;
  if (overlaps || std::fabs(j.change_pct) < policy.min_change_pct) {
    j.verdict = 0;
    return j;
  }
  const bool higher = now.mean > j.baseline_mean;
  j.verdict = higher == (proportion == "HIB") ? 1 : -1;
  return j;
}

std::vector<TestMeasurement> MeasurementsOf(const results::ResultFile& file, const std::string& system_identifier) {
  std::vector<TestMeasurement> out;
  for (const auto& r : file.results) {
    for (const auto& e : r.entries) {
      if (e.identifier != system_identifier || results::IsSeries(e) || !results::NumericValue(e.value)) continue;
      const std::vector<double> trials = results::EntryNumbers(e);
      if (trials.empty()) continue;
      const results::TrialSummary s = results::Summarize(trials);
      TestMeasurement t;
      t.test_key = results::ComparisonHash(r);
      t.label = Trim(r.title + " " + r.app_version) + (r.description.empty() ? "" : " - " + r.description);
      t.scale = r.scale;
      t.proportion = r.proportion;
      t.m = {s.n, s.mean, s.ci95_low, s.ci95_high};
      std::vector<std::string> parts;
      for (double v : trials) parts.push_back(results::PhpFloatToString(v));
      t.trials = Join(parts, ":");
      out.push_back(std::move(t));
      break;
    }
  }
  return out;
}

}  // namespace ptsn::server
