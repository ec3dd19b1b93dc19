// How long a run took to tell "target B costs X % +- G % (95 %)" against target A, read from
// `pts-native ... --targets A,B --json-events` streams (bench_targets.sh).
//
//   time_to_confidence paired GOAL RUN.jsonl
//     One interleaved run: after each round (a trial on every target), the paired ratio B/A and
//     its 95 % interval (results::PairRatio); the first round at which the half-width is <= GOAL %
//     and the run's elapsed time then (set-up included).
//   time_to_confidence unpaired GOAL PASS1.jsonl [PASS2.jsonl ...]
//     PTS's way: each file is one pass (all of A's trials, then all of B's, PTS's dynamic run
//     count); after each pass the trials so far are pooled and the ratio of geometric means gets
//     a Welch interval on the log values; the first pass at which it is <= GOAL % and the summed
//     elapsed time of the passes so far.
// Prints a "noise:" line first (per target: median and the standard deviation of the log values,
// i.e. roughly the CV; for a paired run also the correlation of the two targets' log values within
// a round: pairing narrows the interval only as far as that correlation is positive), then one
// line per round/pass and a last line "reached: <seconds> s ..." or, when the goal was
// not reached, "not reached: ~<seconds> s ...": the time it would take at the run's pace, as the
// interval narrows with 1/sqrt(trials) (exit 1).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "results-xml/stats/statistics.h"

namespace {

struct Trial {
  std::string target;
  int trial = 0;
  double value = 0;
  double t = 0;  // run time when it finished
};

struct Run {
  std::vector<Trial> trials;    // counted trials that gave a value, in order
  std::vector<std::string> targets;  // in order of first appearance
  double end = 0;                // the run's last event time
};

Run ReadRun(const char* path) {
  Run run;
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "%s: cannot read\n", path);
    std::exit(2);
  }
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object()) continue;
    if (j.contains("t")) run.end = j["t"].get<double>();
    if (j.value("event", "") != "trial-finished" || j.value("warmup", false) || !j.value("ok", false)) continue;
    Trial t;
    t.target = j.value("target", "");
    t.trial = j.value("trial", 0);
    t.value = std::atof(j.value("value", "0").c_str());  // the first value of "1.5, 2.5"
    t.t = j["t"].get<double>();
    if (std::find(run.targets.begin(), run.targets.end(), t.target) == run.targets.end()) run.targets.push_back(t.target);
    run.trials.push_back(t);
  }
  if (run.targets.size() != 2) {
    std::fprintf(stderr, "%s: expected trials of two targets, found %zu\n", path, run.targets.size());
    std::exit(2);
  }
  return run;
}

// "noise: plain ext4 median 1234 sd(log) 0.300; fscrypt ... ; within-round correlation +0.20"
void PrintNoise(const Run& run, const std::vector<double>& la, const std::vector<double>& lb, bool paired) {
  auto describe = [](const std::string& name, const std::vector<double>& logs) {
    std::vector<double> v = logs;
    std::sort(v.begin(), v.end());
    double median = v.empty() ? 0 : std::exp(v[v.size() / 2]);
    char buffer[200];
    std::snprintf(buffer, sizeof buffer, "%s median %.1f sd(log) %.3f over %zu", name.c_str(), median,
                  v.size() > 1 ? ptsn::results::SampleStandardDeviation(v) : 0.0, v.size());
    return std::string(buffer);
  };
  std::printf("noise: %s; %s", describe(run.targets[0], la).c_str(), describe(run.targets[1], lb).c_str());
  if (paired && la.size() > 2 && la.size() == lb.size()) {
    double ma = ptsn::results::Mean(la), mb = ptsn::results::Mean(lb), sab = 0, saa = 0, sbb = 0;
    for (size_t i = 0; i < la.size(); ++i) {
      sab += (la[i] - ma) * (lb[i] - mb);
      saa += (la[i] - ma) * (la[i] - ma);
      sbb += (lb[i] - mb) * (lb[i] - mb);
    }
    std::printf("; within-round correlation %+.2f", saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0.0);
  }
  std::printf("\n");
}

int Paired(double goal, const char* path) {
  Run run = ReadRun(path);
  std::map<int, double> a, b, done_at;
  for (const auto& t : run.trials) {
    (t.target == run.targets[0] ? a : b)[t.trial] = t.value;
    done_at[t.trial] = std::max(done_at[t.trial], t.t);
  }
  std::vector<double> la, lb;
  for (const auto& [round, va] : a)
    if (b.count(round)) {
      la.push_back(std::log(va));
      lb.push_back(std::log(b[round]));
    }
  PrintNoise(run, la, lb, true);
  std::vector<double> ra, rb;
  double last_half = 0, last_t = 0;
  for (const auto& [round, va] : a) {
    if (!b.count(round)) continue;
    ra.push_back(va);
    rb.push_back(b[round]);
    auto r = ptsn::results::PairRatio(ra, rb);
    if (!r) continue;
    std::printf("round %2d  t=%7.1f s  ratio %.4f  [%.4f, %.4f]  +-%.2f %%\n", round, done_at[round], r->ratio,
                r->ci_low, r->ci_high, r->half_width_percent());
    last_half = r->half_width_percent();
    last_t = done_at[round];
    if (r->half_width_percent() <= goal) {
      std::printf("reached: %.1f s (round %d of %zu, run ended at %.1f s)\n", done_at[round], round, a.size(), run.end);
      return 0;
    }
  }
  // The interval narrows as 1/sqrt(rounds): the time the goal would take at this run's pace.
  std::printf("not reached: ~%.0f s (extrapolated: +-%.2f %% at %.1f s, run ended at %.1f s)\n",
              last_t * (last_half / goal) * (last_half / goal), last_half, last_t, run.end);
  return 1;
}

int Unpaired(double goal, int files, char** paths) {
  {
    std::vector<double> all_a, all_b;
    Run first = ReadRun(paths[0]);
    for (int f = 0; f < files; ++f)
      for (const auto& t : ReadRun(paths[f]).trials) (t.target == first.targets[0] ? all_a : all_b).push_back(std::log(t.value));
    PrintNoise(first, all_a, all_b, false);
  }
  std::vector<double> la, lb;
  double elapsed = 0, last_half = 0;
  std::vector<std::string> targets;
  for (int f = 0; f < files; ++f) {
    Run run = ReadRun(paths[f]);
    if (targets.empty()) targets = run.targets;
    for (const auto& t : run.trials) (t.target == targets[0] ? la : lb).push_back(std::log(t.value));
    elapsed += run.end;
    if (la.size() < 2 || lb.size() < 2) continue;
    double ma = ptsn::results::Mean(la), mb = ptsn::results::Mean(lb);
    double va = std::pow(ptsn::results::SampleStandardDeviation(la), 2) / la.size();
    double vb = std::pow(ptsn::results::SampleStandardDeviation(lb), 2) / lb.size();
    double se = std::sqrt(va + vb);
    // Welch-Satterthwaite degrees of freedom.
    double df = se == 0 ? 1e6 : std::pow(va + vb, 2) / (va * va / (la.size() - 1) + vb * vb / (lb.size() - 1));
    double tq = ptsn::results::StudentTQuantile(0.95, std::max(1, static_cast<int>(std::floor(df))));
    double ratio = std::exp(mb - ma), lo = std::exp(mb - ma - tq * se), hi = std::exp(mb - ma + tq * se);
    double half = (hi - lo) / 2 / ratio * 100;
    last_half = half;
    std::printf("pass %d  t=%7.1f s  n=%zu+%zu  ratio %.4f  [%.4f, %.4f]  +-%.2f %%\n", f + 1, elapsed, la.size(),
                lb.size(), ratio, lo, hi, half);
    if (half <= goal) {
      std::printf("reached: %.1f s (pass %d)\n", elapsed, f + 1);
      return 0;
    }
  }
  std::printf("not reached: ~%.0f s (extrapolated: +-%.2f %% after %.1f s in %d passes)\n",
              elapsed * (last_half / goal) * (last_half / goal), last_half, elapsed, files);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: time_to_confidence paired|unpaired GOAL_PERCENT FILE...\n");
    return 2;
  }
  std::string mode = argv[1];
  double goal = std::atof(argv[2]);
  if (mode == "paired") return Paired(goal, argv[3]);
  if (mode == "unpaired") return Unpaired(goal, argc - 3, argv + 3);
  std::fprintf(stderr, "time_to_confidence: mode %s (paired|unpaired)\n", mode.c_str());
  return 2;
}
