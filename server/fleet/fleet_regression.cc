#include "server/fleet/fleet_regression.h"

#include <algorithm>
#include <cmath>

#include "results-xml/model/comparison_hash.h"
#include "results-xml/stats/statistics.h"
#include "results-xml/views/export_common.h"
#include "runner/common/strings.h"

namespace ptsn::server {

namespace {

int Direction(double ratio, const std::string& proportion) { return (ratio > 1) == (proportion == "HIB") ? 1 : -1; }

double LevelOf(std::span<const double> means) {
  double sum = 0;
  for (double m : means) sum += m;
  return sum / static_cast<double>(means.size());
}

}  // namespace

std::vector<ResultJudgement> JudgeHistory(std::span<const double> means, const std::string& proportion,
                                          const RegressionPolicy& policy) {
  std::vector<ResultJudgement> out(means.size());
  const size_t min_segment = std::max<size_t>(policy.detector.min_segment, 2);
  if ((proportion != "HIB" && proportion != "LIB") || means.size() < 2 * min_segment) return out;
  if (std::any_of(means.begin(), means.end(), [](double m) { return !(m > 0) || !std::isfinite(m); })) return out;
  std::vector<ChangePoint> steps = FindChangePoints(means, policy.detector);
  std::erase_if(steps, [&](const ChangePoint& cp) { return std::fabs(cp.ratio - 1) * 100 < policy.min_change_pct; });
  // Segment k runs from bounds[k] to bounds[k + 1]; steps[k - 1] starts it.
  std::vector<size_t> bounds{0};
  for (const auto& cp : steps) bounds.push_back(cp.index);
  bounds.push_back(means.size());
  const size_t judged = means.size() - (min_segment - 1);  // later results cannot start a change yet
  for (size_t k = 0; k + 1 < bounds.size(); ++k) {
    const double level = LevelOf(means.subspan(bounds[k], bounds[k + 1] - bounds[k]));
    for (size_t i = bounds[k]; i < bounds[k + 1] && i < judged; ++i) {
      out[i].verdict = 0;
      out[i].baseline_mean = level;
      out[i].change_pct = (means[i] / level - 1) * 100;
    }
    if (k == 0) continue;
    const ChangePoint& cp = steps[k - 1];
    ResultJudgement& first = out[cp.index];
    first.verdict = Direction(cp.ratio, proportion);
    first.baseline_mean = LevelOf(means.subspan(bounds[k - 1], bounds[k] - bounds[k - 1]));
    first.change_pct = (cp.ratio - 1) * 100;
    first.ratio_low = cp.ratio_low;
    first.ratio_high = cp.ratio_high;
    first.p_value = cp.p_value;
  }
  return out;
}

std::vector<size_t> NewChangePoints(const std::vector<std::optional<int>>& before,
                                    const std::vector<ResultJudgement>& now, size_t tolerance) {
  std::vector<size_t> news;
  for (size_t i = 0; i < now.size(); ++i) {
    if (!now[i].verdict || *now[i].verdict == 0) continue;
    bool known = false;
    for (size_t j = i > tolerance ? i - tolerance : 0; j <= i + tolerance && j < before.size() && !known; ++j)
      known = before[j] == now[i].verdict;
    if (!known) news.push_back(i);
  }
  return news;
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
