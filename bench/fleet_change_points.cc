// False alarms and detection delay of the fleet's regression detector (server/fleet_regression:
// change points by E-divisive means) beside the rule it replaced (a new result's 95 % interval
// outside the band of the last 5 results' intervals, and at least 2 % away from their mean), on
// the same synthetic histories (bench_fleet_change_points.sh; docs/fleet-regressions.md).
//
//   fleet_change_points DATA [--histories N] [--length L] [--trials K] [--seed S] [--ordered] [--scale F]
//   fleet_change_points DATA --timing
//
// DATA: real A/A trials, one value per line ('#' comments), in the order they were measured.
// A history is L results; each result is the mean of K trials taken consecutively from DATA at a
// random place (K consecutive trials keep whatever the trials of one run share), or with
// --ordered, consecutive blocks from a random start, so the history also carries the machine's
// slow drift. A step multiplies the trials of every result from a random index on (between 30 %
// and 90 % of L) by 1 - STEP (a regression on a higher-is-better test). Both rules see the
// results one at a time, as a server does; an alert is raised when a rule flags something it had
// not flagged before (for change points: NewChangePoints, a point moved by up to 2 results is
// the same change). --scale F shrinks every trial's distance from the median on the log scale
// (v -> median * (v / median)^F): the same shape of noise (its tails, skew and drift), a
// smaller spread, to show how the figures depend on a machine's noise.
//
// Printed per rule and step (none, 3 %, 5 %, 10 %):
//   false alarms per 100 results: alerts in step-free histories, and alerts in stepped histories
//     that are not the step (elsewhere or upwards), per 100 results seen;
//   found within 5: the share of stepped histories where the step is flagged (downwards, within
//     2 results of it) by the time its 5th result has arrived, and the mean delay in results;
//   covered: (change points) the share of the step's final 95 % intervals that hold 1 - STEP.
// --timing: milliseconds for one judgement of a history of 100, 200 and 300 A/A results.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "results-xml/stats/statistics.h"
#include "server/fleet/fleet_regression.h"

namespace {

using ptsn::server::JudgeHistory;
using ptsn::server::NewChangePoints;
using ptsn::server::RegressionPolicy;
using ptsn::server::ResultJudgement;

struct Options {
  std::string data;
  size_t histories = 200, length = 100, trials = 3;
  std::uint64_t seed = 1;
  bool ordered = false, timing = false;
  double scale = 1;
  RegressionPolicy policy;  // the server's defaults unless --significance, --min-change
};

constexpr size_t kLocate = 2;  // an alert within this many results of the step is the step
constexpr size_t kWithin = 5;  // found by the time this many results after the step are known

std::vector<double> ReadTrials(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "%s: cannot read\n", path.c_str());
    std::exit(2);
  }
  std::vector<double> v;
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') v.push_back(std::strtod(line.c_str(), nullptr));
  if (v.size() < 50) {
    std::fprintf(stderr, "%s: %zu trials; at least 50 needed\n", path.c_str(), v.size());
    std::exit(2);
  }
  return v;
}

// One history: each result's trials (before any step).
using History = std::vector<std::vector<double>>;

History DrawHistory(const std::vector<double>& data, const Options& o, std::mt19937_64& rng) {
  History h;
  size_t at = rng() % data.size();
  for (size_t r = 0; r < o.length; ++r) {
    if (!o.ordered) at = rng() % data.size();
    std::vector<double> trials;
    for (size_t k = 0; k < o.trials; ++k) trials.push_back(data[(at + k) % data.size()]);
    if (o.ordered) at += o.trials;
    h.push_back(std::move(trials));
  }
  return h;
}

struct Alert {
  size_t index = 0;    // the result flagged (a change point's first result)
  size_t arrival = 0;  // how many results had arrived when it was raised
  int direction = 0;
};

struct Outcome {
  std::vector<Alert> alerts;
  std::optional<ResultJudgement> step;  // the final judgement of the result at the step (change points)
};

// Today's rule as it stood (server/fleet_regression before change points), from the trials.
Outcome OldRule(const History& h) {
  Outcome out;
  std::vector<ptsn::results::TrialSummary> seen;
  for (size_t t = 0; t < h.size(); ++t) {
    const auto now = ptsn::results::Summarize(h[t]);
    const size_t base = std::min<size_t>(seen.size(), 5);
    if (base >= 2) {
      double sum = 0, lo = seen.back().ci95_low, hi = seen.back().ci95_high;
      for (size_t i = seen.size() - base; i < seen.size(); ++i) {
        sum += seen[i].mean;
        lo = std::min(lo, seen[i].ci95_low);
        hi = std::max(hi, seen[i].ci95_high);
      }
      const double mean = sum / static_cast<double>(base), change = (now.mean - mean) / mean * 100;
      if ((now.ci95_low > hi || now.ci95_high < lo) && std::fabs(change) >= 2)
        out.alerts.push_back({t, t + 1, now.mean > mean ? 1 : -1});
    }
    seen.push_back(now);
  }
  return out;
}

std::vector<double> Means(const History& h, size_t n) {
  std::vector<double> m;
  for (size_t i = 0; i < n; ++i) m.push_back(ptsn::results::Mean(h[i]));
  return m;
}

Outcome ChangePointRule(const History& h, const RegressionPolicy& policy, std::optional<size_t> step) {
  Outcome out;
  const std::vector<double> means = Means(h, h.size());
  std::vector<std::optional<int>> stored;
  for (size_t t = 1; t <= h.size(); ++t) {
    const size_t from = t > policy.window ? t - policy.window : 0;
    const auto judged = JudgeHistory(std::span(means).subspan(from, t - from), "HIB", policy);
    std::vector<std::optional<int>> before(stored.begin() + static_cast<std::ptrdiff_t>(from), stored.end());
    for (size_t i : NewChangePoints(before, judged, policy.same_change_within))
      out.alerts.push_back({from + i, t, *judged[i].verdict});
    stored.resize(t);
    for (size_t i = 0; i < judged.size(); ++i) stored[from + i] = judged[i].verdict;
    if (t == h.size() && step && *step >= from) {
      // The change point nearest the step, as the whole history finally shows it.
      for (size_t d = 0; d <= kLocate && !out.step; ++d)
        for (size_t i : {*step + d, *step - d})
          if (i >= from && i - from < judged.size() && judged[i - from].verdict && *judged[i - from].verdict < 0 && !out.step)
            out.step = judged[i - from];
    }
  }
  return out;
}

struct Tally {
  size_t histories = 0, results = 0, false_alarms = 0, found = 0, covered = 0, intervals = 0;
  double delay = 0;
};

void Count(Tally& t, const Outcome& o, std::optional<size_t> step, double true_ratio, size_t length) {
  ++t.histories;
  t.results += length;
  bool found = false;
  for (const auto& a : o.alerts) {
    // Flagged after the step's first result arrived, downwards, where the step is.
    const bool at_step = step && a.arrival > *step && a.direction < 0 && a.index + kLocate >= *step &&
                         a.index <= *step + kLocate;
    if (!at_step) {
      ++t.false_alarms;
      continue;
    }
    if (!found && a.arrival <= *step + kWithin) {
      found = true;
      ++t.found;
      t.delay += static_cast<double>(a.arrival - *step);
    }
  }
  if (o.step) {
    ++t.intervals;
    if (o.step->ratio_low <= true_ratio && true_ratio <= o.step->ratio_high) ++t.covered;
  }
}

void Print(const char* rule, double step_pct, const Tally& t, bool with_intervals) {
  char found[64] = "-", covered[64] = "-";
  if (step_pct > 0)
    std::snprintf(found, sizeof found, "%5.1f %% (delay %.1f)", 100.0 * static_cast<double>(t.found) / static_cast<double>(t.histories),
                  t.found ? t.delay / static_cast<double>(t.found) : 0.0);
  if (step_pct > 0 && with_intervals && t.intervals)
    std::snprintf(covered, sizeof covered, "%5.1f %% of %zu", 100.0 * static_cast<double>(t.covered) / static_cast<double>(t.intervals), t.intervals);
  std::printf("%-14s %5.0f %%  %8.2f  %-22s %s\n", rule, step_pct,
              100.0 * static_cast<double>(t.false_alarms) / static_cast<double>(t.results), found, covered);
}

void Timing(const std::vector<double>& data, const Options& o) {
  std::mt19937_64 rng(o.seed);
  RegressionPolicy policy;
  for (size_t n : {100, 200, 300}) {
    Options on = o;
    on.length = n;
    policy.window = n;
    double worst = 0, total = 0;
    const int reps = 10;
    for (int r = 0; r < reps; ++r) {
      const auto means = Means(DrawHistory(data, on, rng), n);
      auto stepped = means;
      for (size_t i = n / 2; i < n; ++i) stepped[i] *= 0.95;  // a step: every permutation runs
      for (const std::vector<double>& m : {means, stepped}) {
        const auto start = std::chrono::steady_clock::now();
        JudgeHistory(m, "HIB", policy);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        worst = std::max(worst, ms);
        total += ms;
      }
    }
    std::printf("judging %zu results: mean %.1f ms, max %.1f ms (A/A and with a 5 %% step, %d each)\n", n,
                total / (2 * reps), worst, reps);
  }
}

Options Parse(int argc, char** argv) {
  Options o;
  if (argc < 2) {
    std::fprintf(stderr, "usage: fleet_change_points DATA [--histories N] [--length L] [--trials K] [--seed S] [--ordered] [--timing]\n");
    std::exit(2);
  }
  o.data = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> unsigned long long {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return std::strtoull(argv[++i], nullptr, 10);
    };
    if (a == "--histories") o.histories = next();
    else if (a == "--length") o.length = next();
    else if (a == "--trials") o.trials = next();
    else if (a == "--seed") o.seed = next();
    else if (a == "--significance") o.policy.detector.significance = std::strtod(argv[++i < argc ? i : i - 1], nullptr);
    else if (a == "--min-change") o.policy.min_change_pct = std::strtod(argv[++i < argc ? i : i - 1], nullptr);
    else if (a == "--ordered") o.ordered = true;
    else if (a == "--scale") o.scale = std::strtod(argv[++i < argc ? i : i - 1], nullptr);
    else if (a == "--timing") o.timing = true;
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      std::exit(2);
    }
  }
  if (o.length < 20 || o.trials < 1 || o.histories < 1) {
    std::fprintf(stderr, "--length must be >= 20, --trials and --histories >= 1\n");
    std::exit(2);
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = Parse(argc, argv);
  std::vector<double> data = ReadTrials(o.data);
  if (o.scale != 1) {
    const double median = ptsn::results::Median(data);
    for (double& v : data) v = median * std::pow(v / median, o.scale);
  }
  if (o.timing) {
    Timing(data, o);
    return 0;
  }
  const RegressionPolicy& policy = o.policy;
  std::printf("%zu trials from %s%s; %zu histories of %zu results, each the mean of %zu %s trials\n", data.size(),
              o.data.c_str(), o.scale != 1 ? (" (spread x" + std::to_string(o.scale).substr(0, 4) + ")").c_str() : "",
              o.histories, o.length, o.trials, o.ordered ? "consecutive (time order kept)" : "randomly placed");
  {
    // The noise a detector faces: the spread of one result's logarithm (about its CV).
    std::mt19937_64 rng(o.seed);
    Options many = o;
    many.length = 2000;
    std::vector<double> logs;
    for (double m : Means(DrawHistory(data, many, rng), many.length)) logs.push_back(std::log(m));
    std::printf("a result's noise: sd of its logarithm %.1f %%\n", 100 * ptsn::results::SampleStandardDeviation(logs));
  }
  std::printf("%-14s %7s  %8s  %-22s %s\n", "rule", "step", "FA/100", "found within 5", "interval covers");
  for (double step_pct : {0.0, 3.0, 5.0, 10.0}) {
    Tally old_rule, change_points;
    for (size_t k = 0; k < o.histories; ++k) {
      std::mt19937_64 rng(o.seed * 1000003 + k);  // the same histories for every step and rule
      History h = DrawHistory(data, o, rng);
      std::optional<size_t> step;
      const double ratio = 1 - step_pct / 100;
      if (step_pct > 0) {
        step = o.length * 3 / 10 + rng() % (o.length * 6 / 10);
        for (size_t i = *step; i < h.size(); ++i)
          for (double& v : h[i]) v *= ratio;
      }
      Count(old_rule, OldRule(h), step, ratio, h.size());
      Count(change_points, ChangePointRule(h, policy, step), step, ratio, h.size());
    }
    Print("last-5 band", step_pct, old_rule, false);
    Print("change points", step_pct, change_points, true);
  }
  return 0;
}
