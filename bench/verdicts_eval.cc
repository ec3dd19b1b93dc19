// The verdict harness's evaluation (issue 30, docs/verdicts.md): old and new verdict methods on
// the same raw trials, saved by bench/verdicts_collect.sh, against known truth.
//
//   verdicts_eval TRIALS.csv... [--same PERCENT] [--stopping FROM:TO]
//   (each with its TRIALS-runs.csv beside it; stopping runs with their TRIALS-verdicts.csv)
//
// Truth by construction: every collected run is A/A (two identical set-ups). A known difference of
// e (5 %, 10 %) is the same data with B doing (1 + e) times the work per reported unit: B's values
// divided by 1 + e and its trial times multiplied by it, so the true ratio B/A is 1 / (1 + e) and
// the noise is the machine's own. (Dividing the reported figure is exactly what a workload knob
// that scales its figure would do; the noise of a real slower workload could differ a little.)
//
// Methods:
//  * old paired: one pair of targets, its rounds, t interval of the mean log ratio (PairRatio);
//    "different" when the interval leaves out 1. What batch-run and compare-results --paired said.
//  * old unpaired: compare-results' rule, the two means' 95 % intervals do not overlap; on the
//    targets runs and on PTS's way (systems runs: two systems one after the other, PTS's dynamic
//    run count).
//  * new fixed: K instance pairs (K consecutive targets runs, each a fresh pair) x R rounds each,
//    results::DecideVerdict at 95 %.
//  * new sequential: looks at K0, K0 + step ... KMAX instance pairs with Pocock's per-look level;
//    stops at the first "different" or "same within +-X %", "unknown" at KMAX.
//  * the defaults (DESIGN=defaults, issue 50): as the product's stopping, with the defaults'
//    rounds; power replayed on the pairs each A/A run made with B scaled (a lower bound: a run
//    that would have added a pair past those it made counts as "unknown").
//  * runs (DESIGN=runs, issue 50): separately run systems, several runs of each in a random
//    order, judged by results::DecideRunsVerdict as compare-results judges them; beside it the
//    old rule (intervals apart) on the first run of each, and the new rule on one run of each.
// For each: the rate of "different" (A/A: false; 5 %, 10 %: power, right direction only) with its
// Wilson 95 % interval, the coverage of the true ratio by the interval, "same"/"unknown" rates and
// the mean time to the verdict. Time is what the trials took (their own seconds) plus, for the
// new methods, the targets' set-up and tear-down: each instance pair is made for the comparison.
// Runs are used in the order they were collected, each in one evaluation only (so evaluations are
// independent and the Wilson interval holds; a method that uses K runs per verdict has N/K).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "results-xml/stats/runs_verdict.h"
#include "results-xml/stats/statistics.h"
#include "results-xml/stats/verdict.h"

namespace {

using ptsn::results::InstanceRounds;
using ptsn::results::VerdictKind;
using ptsn::results::VerdictSettings;

// One instance pair: the reference's trials and the other's, by round (or, for a systems run, in
// the order they ran, not paired).
struct Pair {
  std::vector<double> a, b, a_seconds, b_seconds;
};

struct Run {
  int id = 0;
  std::string design;       // "targets", "systems", "instances", "stopping", "defaults" or "runs"
  std::vector<Pair> pairs;  // instance k at [k - 1] (runs: run k of A and of B)
  double set_up = 0;        // set-up + tear-down of all the run's targets
  double wall = 0;          // the whole run's wall time
};

std::vector<std::string> SplitCsv(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
  return cells;
}

// trials.csv (design,run,system,round,value,seconds) and its -runs.csv beside it. Systems are
// "A"/"B" or, with instances, "A #k"/"B #k".
std::vector<Run> ReadRuns(const std::string& trials_path) {
  if (trials_path.size() < 5 || trials_path.substr(trials_path.size() - 4) != ".csv") {
    std::fprintf(stderr, "verdicts_eval: %s: expected a .csv file\n", trials_path.c_str());
    std::exit(2);
  }
  std::map<int, Run> runs;
  std::ifstream trials(trials_path);
  if (!trials) {
    std::fprintf(stderr, "verdicts_eval: cannot read %s\n", trials_path.c_str());
    std::exit(2);
  }
  std::string line;
  std::getline(trials, line);  // header
  while (std::getline(trials, line)) {
    auto c = SplitCsv(line);
    if (c.size() < 6) continue;
    Run& r = runs[std::atoi(c[1].c_str())];
    r.id = std::atoi(c[1].c_str());
    r.design = c[0];
    r.set_up = -1;  // until its row in -runs.csv says it ended well
    auto name = ptsn::results::ParseInstanceName(c[2]);
    if (auto at = c[2].rfind(" run "); name.instance == 1 && at != std::string::npos)  // DESIGN=runs: "A run 2"
      name = {c[2].substr(0, at), std::atoi(c[2].c_str() + at + 5)};
    if (r.pairs.size() < static_cast<size_t>(name.instance)) r.pairs.resize(static_cast<size_t>(name.instance));
    Pair& p = r.pairs[static_cast<size_t>(name.instance) - 1];
    bool is_a = name.kind == "A";
    (is_a ? p.a : p.b).push_back(std::atof(c[4].c_str()));
    (is_a ? p.a_seconds : p.b_seconds).push_back(std::atof(c[5].c_str()));
  }
  std::string runs_path = trials_path.substr(0, trials_path.size() - 4) + "-runs.csv";
  std::ifstream rows(runs_path);
  std::getline(rows, line);
  while (std::getline(rows, line)) {
    auto c = SplitCsv(line);  // design,run,epoch,wall_seconds,load1,setup_seconds,teardown_seconds,rc
    if (c.size() < 8) continue;
    auto it = runs.find(std::atoi(c[1].c_str()));
    if (it == runs.end()) continue;
    if (c[7] != "0") runs.erase(it);  // a failed run is left out whole
    else it->second.set_up = std::atof(c[5].c_str()) + std::atof(c[6].c_str()), it->second.wall = std::atof(c[3].c_str());
  }
  std::vector<Run> out;
  for (auto& [id, r] : runs) {
    bool whole = !r.pairs.empty() && r.set_up >= 0;
    for (const Pair& p : r.pairs)
      whole = whole && !p.a.empty() && !p.b.empty() && (r.design == "systems" || r.design == "runs" || p.a.size() == p.b.size());
    if (whole) out.push_back(r);
  }
  return out;
}

// DESIGN=stopping: the verdict `compare-results --paired` printed for each run, from the
// -verdicts.csv beside the trials (design,run,verdict,ratio,low,high,pairs).
struct Printed {
  std::string verdict;  // "different", "same", "unknown"
  double low = 0, high = 0;
  size_t pairs = 0;
};
std::map<int, Printed> ReadPrinted(const std::string& trials_path) {
  std::map<int, Printed> printed;
  std::ifstream rows(trials_path.substr(0, trials_path.size() - 4) + "-verdicts.csv");
  std::string line;
  std::getline(rows, line);
  while (std::getline(rows, line)) {
    auto c = SplitCsv(line);
    if (c.size() < 7) continue;
    printed[std::atoi(c[1].c_str())] = {c[2], std::atof(c[4].c_str()), std::atof(c[5].c_str()),
                                         static_cast<size_t>(std::atoi(c[6].c_str()))};
  }
  return printed;
}

// B doing (1 + e) times the work per reported unit.
Run WithEffect(Run r, double e) {
  for (Pair& p : r.pairs) {
    for (double& v : p.b) v /= 1 + e;
    for (double& s : p.b_seconds) s *= 1 + e;
  }
  return r;
}

double Sum(const std::vector<double>& v, size_t n = SIZE_MAX) {
  double s = 0;
  for (size_t i = 0; i < v.size() && i < n; ++i) s += v[i];
  return s;
}

struct Outcome {
  int direction = 0;  // "different": +1 B higher, -1 B lower; 0 otherwise
  bool same = false;
  bool has_interval = false, covered = false;
  double seconds = 0;
};

struct Tally {
  int n = 0, different = 0, right = 0, same = 0, with_interval = 0, covered = 0;
  double seconds = 0;
  void Add(const Outcome& o, int truth_direction) {
    ++n;
    if (o.direction != 0) ++different;
    if (o.direction != 0 && o.direction == truth_direction) ++right;
    if (o.same) ++same;
    if (o.has_interval) ++with_interval, covered += o.covered;
    seconds += o.seconds;
  }
};

// Wilson score interval of k successes in n, 95 %.
std::string Rate(int k, int n) {
  if (n == 0) return "                     -";  // as wide as a rate with its interval
  double z = 1.959964, p = static_cast<double>(k) / n;
  double centre = (p + z * z / (2 * n)) / (1 + z * z / n);
  double half = z * std::sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / (1 + z * z / n);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%5.1f %% [%4.1f, %4.1f]", 100 * p, 100 * (centre - half), 100 * (centre + half));
  return buffer;
}

Outcome FromInterval(double low, double high, double truth, double seconds) {
  Outcome o;
  o.has_interval = true;
  o.covered = low <= truth && truth <= high;
  o.direction = low > 1 ? 1 : high < 1 ? -1 : 0;
  o.seconds = seconds;
  return o;
}

double PairSeconds(const Pair& p, size_t rounds = SIZE_MAX) { return Sum(p.a_seconds, rounds) + Sum(p.b_seconds, rounds); }

// The first instance pair, all its rounds: what batch-run and compare-results --paired said.
Outcome OldPaired(const Run& r, double truth) {
  const Pair& p = r.pairs.front();
  auto ratio = ptsn::results::PairRatio(p.a, p.b);
  if (!ratio) return {};
  return FromInterval(ratio->ci_low, ratio->ci_high, truth, PairSeconds(p) + r.set_up / static_cast<double>(r.pairs.size()));
}

// compare-results' unpaired rule: the two means' 95 % intervals do not overlap.
Outcome OldUnpaired(const Run& r) {
  const Pair& p = r.pairs.front();
  auto a = ptsn::results::Summarize(p.a), b = ptsn::results::Summarize(p.b);
  Outcome o;
  o.direction = b.ci95_low > a.ci95_high ? 1 : b.ci95_high < a.ci95_low ? -1 : 0;
  o.seconds = PairSeconds(p);
  return o;
}

Outcome FromVerdict(const ptsn::results::Verdict& v, double truth, double seconds) {
  Outcome o;
  if (v.has_interval) o = FromInterval(v.ci_low, v.ci_high, truth, seconds);
  if (v.kind != VerdictKind::kDifferent) o.direction = 0;
  o.same = v.kind == VerdictKind::kSame;
  o.seconds = seconds;
  return o;
}

// How the new verdict is reached: instance pairs looked at from k0 on, every `step`, up to kmax
// (k0 == kmax: one look, a fixed design), `rounds` rounds of each.
struct Design {
  size_t k0 = 3, step = 1, kmax = 6, rounds = 2;
  double same_within = 5;
};

// The pairs of one verdict, from the instance pairs of `runs` in order (a targets run has one pair,
// an instances run several); consumes whole runs from `at`. Time: the trials of the rounds used
// and the set-up of the runs used.
Outcome NewVerdict(const std::vector<const Run*>& runs, size_t& at, const Design& d, double truth) {
  int looks = static_cast<int>((d.kmax - d.k0) / d.step + 1);
  VerdictSettings settings{d.same_within, ptsn::results::PocockConfidence(0.95, looks)};
  InstanceRounds pairs;
  double seconds = 0;
  ptsn::results::Verdict v;
  bool decided = false;
  while (at < runs.size() && pairs.size() < d.kmax && !decided) {
    const Run& r = *runs[at++];
    seconds += r.set_up * static_cast<double>(std::min(r.pairs.size(), d.kmax - pairs.size())) /
               static_cast<double>(r.pairs.size());
    for (const Pair& p : r.pairs) {
      if (pairs.size() >= d.kmax || decided) break;
      size_t n = std::min(d.rounds, p.a.size());
      pairs.push_back(ptsn::results::LogRatios(std::span(p.a).first(n), std::span(p.b).first(n)));
      seconds += PairSeconds(p, d.rounds);
      if (pairs.size() < d.k0 || (pairs.size() - d.k0) % d.step != 0) continue;
      v = ptsn::results::DecideVerdict(pairs, settings);
      decided = v.kind != VerdictKind::kUnknown;
    }
  }
  return FromVerdict(v, truth, seconds);
}

void PrintRow(const char* name, const Tally (&t)[3]) {
  if (t[0].n == 0) return;  // no runs of that design
  char coverage[32] = "    -";
  int with = t[0].with_interval + t[1].with_interval + t[2].with_interval;
  int covered = t[0].covered + t[1].covered + t[2].covered;
  if (with > 0) std::snprintf(coverage, sizeof coverage, "%5.1f %%", 100.0 * covered / with);
  char same[32] = "   -";
  if (t[0].same > 0 || t[1].same > 0) std::snprintf(same, sizeof same, "%4.0f %%", 100.0 * t[0].same / t[0].n);
  std::printf("%-46s %5d  %s  %s  %s  %s  %s  %7.2f s\n", name, t[0].n, Rate(t[0].different, t[0].n).c_str(),
              coverage, Rate(t[1].right, t[1].n).c_str(), Rate(t[2].right, t[2].n).c_str(), same,
              t[0].n ? (t[0].seconds + t[1].seconds + t[2].seconds) / (t[0].n + t[1].n + t[2].n) : 0.0);
}

constexpr double kEffects[3] = {0, 0.05, 0.10};

template <typename Method>
void EvaluatePerRun(const std::string& name, const std::vector<const Run*>& runs, Method method) {
  Tally t[3];
  for (int e = 0; e < 3; ++e)
    for (const Run* r : runs) t[e].Add(method(WithEffect(*r, kEffects[e]), 1 / (1 + kEffects[e])), e == 0 ? 0 : -1);
  PrintRow(name.c_str(), t);
}

void EvaluateNew(const std::string& name, const std::vector<const Run*>& runs, const Design& d) {
  Tally t[3];
  for (int e = 0; e < 3; ++e) {
    std::vector<Run> scaled;
    for (const Run* r : runs) scaled.push_back(WithEffect(*r, kEffects[e]));
    std::vector<const Run*> pointers;
    for (const Run& r : scaled) pointers.push_back(&r);
    size_t per_run = pointers.empty() ? 1 : pointers.front()->pairs.size();
    for (size_t at = 0; (pointers.size() - at) * per_run >= d.kmax;)
      t[e].Add(NewVerdict(pointers, at, d, 1 / (1 + kEffects[e])), e == 0 ? 0 : -1);
  }
  PrintRow(name.c_str(), t);
}

std::string Name(const char* format, size_t a, size_t b) {
  char buffer[128];
  std::snprintf(buffer, sizeof buffer, format, a, b);
  return buffer;
}

// The product's own stopping (DESIGN=stopping, A/A only): the verdict it printed; the same trials
// replayed through the stopping rule (pairs k0..kmax, Pocock's level), which must agree with it;
// and the last look judged at a plain 95 %, what views of the file said before they read the
// run's looks ("verdict-looks"). Time: the run's trials and its targets' set-up and tear-down.
void EvaluateStopping(const char* label, const std::vector<const Run*>& runs, const std::map<int, Printed>& printed,
                      size_t k0, size_t kmax) {
  if (runs.empty()) return;
  Tally shown[3], replayed[3], at95[3];
  int agree = 0, compared = 0;
  const size_t rounds = runs.front()->pairs.front().a.size();
  for (const Run* r : runs) {
    double seconds = r->set_up;
    for (const Pair& p : r->pairs) seconds += PairSeconds(p);
    if (auto it = printed.find(r->id); it != printed.end()) {
      Outcome o = FromInterval(it->second.low, it->second.high, 1, seconds);
      if (it->second.verdict != "different") o.direction = 0;
      o.same = it->second.verdict == "same";
      shown[0].Add(o, 0);
    }
    Outcome o;
    for (int e = 0; e < 3; ++e) {  // A/A, then B scaled on the pairs this run made (a lower bound of power)
      Run scaled = WithEffect(*r, kEffects[e]);
      std::vector<const Run*> one{&scaled};
      size_t at = 0;
      Outcome oe = NewVerdict(one, at, {k0, 1, kmax, rounds, 5}, 1 / (1 + kEffects[e]));
      oe.seconds = seconds;
      replayed[e].Add(oe, e == 0 ? 0 : -1);
      if (e == 0) o = oe;
    }
    if (auto it = printed.find(r->id); it != printed.end()) {
      ++compared;
      agree += (o.direction != 0) == (it->second.verdict == "different") && o.same == (it->second.verdict == "same");
    }
    InstanceRounds pairs;
    for (const Pair& p : r->pairs) pairs.push_back(ptsn::results::LogRatios(p.a, p.b));
    at95[0].Add(FromVerdict(ptsn::results::DecideVerdict(pairs, {5, 0.95}), 1, seconds), 0);
  }
  PrintRow(Name((std::string(label) + " %zu..%zu pairs, as printed").c_str(), k0, kmax).c_str(), shown);
  PrintRow(Name((std::string(label) + " %zu..%zu pairs, replayed").c_str(), k0, kmax).c_str(), replayed);
  PrintRow("  its last look judged at 95 % (views before)", at95);
  double pairs = 0, trials = 0;
  std::vector<double> logs;
  for (const Run* r : runs) {
    pairs += static_cast<double>(r->pairs.size());
    for (const Pair& p : r->pairs) {
      trials += static_cast<double>(p.a.size());
      for (double d : ptsn::results::LogRatios(p.a, p.b)) logs.push_back(d);
    }
  }
  const double n = static_cast<double>(runs.size());
  std::printf("  (%s: %.1f instance pairs x %zu rounds a run on average; printed and replayed verdicts agree in %d "
              "of %d runs)\n", label, pairs / n, rounds, agree, compared);
  // The fewest paired trials any unbiased comparison needs for 90 % power at 10 % at this spread
  // (all of it: round to round and between instances), ((z_a + z_b) sd / log 1.1)^2.
  const double sd = ptsn::results::SampleStandardDeviation(logs);
  const double bound = std::pow((1.959964 + 1.281552) * sd / std::log(1.1), 2);
  std::printf("  (%s: trials per target %.1f a run; sd of the per-round log ratio %.3f: 90 %% power at 10 %% needs "
              "at least %.0f paired trials per target, %.2fx of what a run spent)\n",
              label, trials / n, sd, bound, bound / (trials / n));
}

// Separately run systems (DESIGN=runs): the runs verdict over all runs of each, as compare-results
// prints it (checked against what it printed), and on the same data the old rule (the first run of
// each, intervals apart) and the new rule on one run of each (always "unknown" by construction).
void EvaluateRuns(const std::vector<const Run*>& runs, const std::map<int, Printed>& printed, double same) {
  if (runs.empty()) return;
  Tally all[3], old_rule[3], one[3], shown[3];
  int agree = 0, compared = 0;
  double per_side = 0;
  std::vector<double> summaries_sd;
  for (const Run* r0 : runs) {
    for (int e = 0; e < 3; ++e) {
      Run r = WithEffect(*r0, kEffects[e]);
      const double truth = 1 / (1 + kEffects[e]);
      std::vector<std::vector<double>> a, b;
      for (const Pair& p : r.pairs) a.push_back(p.a), b.push_back(p.b);
      double seconds = r.wall > 0 ? r.wall : 0;
      ptsn::results::RunsVerdict v = ptsn::results::DecideRunsVerdict(a, b, {same, 0.95});
      Outcome o;
      if (v.has_interval) o = FromInterval(v.ci_low, v.ci_high, truth, seconds);
      if (v.kind != VerdictKind::kDifferent) o.direction = 0;
      o.same = v.kind == VerdictKind::kSame;
      o.seconds = seconds;
      all[e].Add(o, e == 0 ? 0 : -1);
      if (e == 0) {
        if (auto it = printed.find(r.id); it != printed.end()) {
          ++compared;
          agree += (o.direction != 0) == (it->second.verdict == "different" || it->second.verdict == "better" ||
                                          it->second.verdict == "worse") &&
                   o.same == (it->second.verdict == "same");
          Outcome p = FromInterval(it->second.low, it->second.high, 1, seconds);
          if (it->second.verdict != "different" && it->second.verdict != "better" && it->second.verdict != "worse")
            p.direction = 0;
          p.same = it->second.verdict == "same";
          shown[0].Add(p, 0);
        }
        per_side += static_cast<double>(r.pairs.size());
        std::vector<double> sa, sb;
        for (const auto& x : a) sa.push_back(ptsn::results::RunSummary(x));
        for (const auto& x : b) sb.push_back(ptsn::results::RunSummary(x));
        if (sa.size() > 1 && sb.size() > 1)
          summaries_sd.push_back((std::pow(ptsn::results::SampleStandardDeviation(sa), 2) +
                                  std::pow(ptsn::results::SampleStandardDeviation(sb), 2)) / 2);
      }
      Outcome first = OldUnpaired(r);
      first.seconds = seconds / static_cast<double>(r.pairs.size());
      old_rule[e].Add(first, e == 0 ? 0 : -1);
      auto v1 = ptsn::results::DecideRunsVerdict({a.front()}, {b.front()}, {same, 0.95});
      Outcome o1;
      o1.direction = v1.kind == VerdictKind::kDifferent ? 1 : 0;
      o1.seconds = first.seconds;
      one[e].Add(o1, e == 0 ? 0 : -1);
    }
  }
  const double n = static_cast<double>(runs.size());
  PrintRow(Name("runs: %zu of each, by runs, as printed", static_cast<size_t>(per_side / n + 0.5), 0).c_str(), shown);
  PrintRow(Name("runs: %zu of each, by runs, replayed", static_cast<size_t>(per_side / n + 0.5), 0).c_str(), all);
  PrintRow("runs: 1 of each, by runs (always unknown)", one);
  PrintRow("runs: 1 of each, old rule (intervals apart)", old_rule);
  const double sd = std::sqrt(ptsn::results::Mean(summaries_sd));
  const double bound = 2 * std::pow((1.959964 + 1.281552) * sd / std::log(1.1), 2);
  std::printf("  (runs: printed and replayed verdicts agree in %d of %d; run-to-run sd of a run's mean log %.3f: 90 %% "
              "power at 10 %% needs at least %.1f runs of each, against %.1f run)\n",
              agree, compared, sd, bound, per_side / n);
}

// The noise of a design's instance pairs: where the variation of the log ratio is.
void PrintNoise(const char* design, const std::vector<const Run*>& runs) {
  std::vector<double> within, run_means, deviations, la, lb;
  size_t rounds = 0;
  std::vector<const Pair*> all;
  for (const Run* run : runs)
    for (const Pair& p : run->pairs) all.push_back(&p);
  for (const Pair* r : all) {
    auto logs = ptsn::results::LogRatios(r->a, r->b);
    if (logs.size() < 2) continue;
    rounds = logs.size();
    double m = ptsn::results::Mean(logs);
    run_means.push_back(m);
    within.push_back(std::pow(ptsn::results::SampleStandardDeviation(logs), 2));
    for (double x : logs) deviations.push_back(x - m);
    double ma = 0, mb = 0;
    for (size_t i = 0; i < r->a.size(); ++i) ma += std::log(r->a[i]) / r->a.size(), mb += std::log(r->b[i]) / r->b.size();
    for (size_t i = 0; i < r->a.size(); ++i) la.push_back(std::log(r->a[i]) - ma), lb.push_back(std::log(r->b[i]) - mb);
  }
  if (run_means.size() < 2) return;
  double var_within = ptsn::results::Mean(within);
  double var_between = std::pow(ptsn::results::SampleStandardDeviation(run_means), 2);
  double instance = std::sqrt(std::max(0.0, var_between - var_within / static_cast<double>(rounds)));
  double sab = 0, saa = 0, sbb = 0, m4 = 0, m2 = 0;
  for (size_t i = 0; i < la.size(); ++i) sab += la[i] * lb[i], saa += la[i] * la[i], sbb += lb[i] * lb[i];
  for (double d : deviations) m2 += d * d, m4 += d * d * d * d;
  m2 /= static_cast<double>(deviations.size());
  m4 /= static_cast<double>(deviations.size());
  std::printf("noise (%s): log ratio B/A: sd round to round %.3f; sd of instance-pair means %.3f over %zu pairs "
              "of %zu rounds; between-instance sd %.3f; in-round correlation of A and B %+.2f; excess kurtosis %.1f\n",
              design, std::sqrt(var_within), std::sqrt(var_between), run_means.size(), rounds, instance,
              sab / std::sqrt(saa * sbb), m4 / (m2 * m2) - 3);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: verdicts_eval TRIALS.csv... [--same PERCENT] [--stopping FROM:TO]\n");
    return 2;
  }
  double same = 5;
  size_t stop_from = 3, stop_to = 12;  // DESIGN=stopping's INSTANCES and MAX_INSTANCES
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--same") same = std::atof(argv[i + 1]);
    if (std::string(argv[i]) == "--stopping" &&
        std::sscanf(argv[i + 1], "%zu:%zu", &stop_from, &stop_to) != 2) {
      std::fprintf(stderr, "verdicts_eval: --stopping %s: expected FROM:TO instance pairs, e.g. 3:12\n", argv[i + 1]);
      return 2;
    }
  }
  std::vector<Run> all;
  std::map<int, Printed> printed;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]).rfind("--", 0) == 0) {
      ++i;
      continue;
    }
    for (Run& r : ReadRuns(argv[i])) all.push_back(std::move(r));
    printed.merge(ReadPrinted(argv[i]));
  }
  std::map<std::string, std::vector<const Run*>> by;
  for (const Run& r : all) by[r.design].push_back(&r);
  const auto& targets = by["targets"];
  const auto& systems = by["systems"];
  const auto& instances = by["instances"];
  size_t k = instances.empty() ? 0 : instances.front()->pairs.size();
  size_t rounds = instances.empty() ? 0 : instances.front()->pairs.front().a.size();
  std::printf("runs: %zu targets (A/A: two fresh plain targets, rounds interleaved), %zu systems (PTS's way), "
              "%zu instances (%zu instance pairs x %zu rounds, random order), %zu stopping (the product's own)\n",
              targets.size(), systems.size(), instances.size(), k, rounds, by["stopping"].size());
  PrintNoise("targets", targets);
  PrintNoise("instances", instances);
  std::printf("\n%-46s %5s  %-22s  %-7s  %-22s  %-22s  %-5s  %s\n", "method", "n", "A/A \"different\" [95 %]",
              "cover", "power at 5 % [95 %]", "power at 10 % [95 %]", "same", "time/verdict");
  EvaluatePerRun("old paired (1 pair, all rounds)", targets, OldPaired);
  EvaluatePerRun("old unpaired CIs overlap (1 pair)", targets, [](const Run& r, double) { return OldUnpaired(r); });
  EvaluatePerRun("PTS's way (2 systems, dynamic runs, CIs)", systems, [](const Run& r, double) { return OldUnpaired(r); });
  if (!instances.empty()) {
    EvaluatePerRun(Name("old paired on instance pair 1 (%zu rounds)", rounds, 0), instances, OldPaired);
    for (size_t r = 1; r <= rounds; ++r)
      EvaluateNew(Name("new: %zu pairs x %zu rounds (one batch-run)", k, r), instances, {k, 1, k, r, same});
    for (size_t r = 1; r <= rounds; ++r)
      EvaluateNew(Name("new, stop early: pairs 3..%zu x %zu rounds", k, r), instances, {3, 1, k, r, same});
  }
  EvaluateStopping("product stopping", by["stopping"], printed, stop_from, stop_to);
  EvaluateStopping("defaults", by["defaults"], printed, stop_from, stop_to);
  EvaluateRuns(by["runs"], printed, same);
  // The same designs made of the targets runs (one fresh pair each, run at different times).
  for (size_t r : {1, 5})
    for (size_t kk : {6, 16})
      EvaluateNew(Name("targets runs as %zu pairs x %zu rounds", kk, r), targets, {kk, 1, kk, r, same});
  for (size_t r : {1, 5})
    EvaluateNew(Name("targets runs, stop early: pairs 3..%zu x %zu", 24, r), targets, {3, 1, 24, r, same});
  return 0;
}
