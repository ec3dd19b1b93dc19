#include "runner/reproduce/encryption_cost.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "runner/common/strings.h"

namespace ptsn::reproduce {

namespace {

std::string Fixed(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string Pad(const std::string& s, size_t width) { return s + std::string(width > s.size() ? width - s.size() : 1, ' '); }

// The trials of the instances of `kinds` (in that order) in `all`.
std::vector<results::SystemTrials> OfKinds(const std::vector<results::SystemTrials>& all, const std::vector<std::string>& kinds) {
  std::vector<results::SystemTrials> out;
  for (const auto& kind : kinds)
    for (const auto& s : all)
      if (results::ParseInstanceName(s.identifier).kind == kind) out.push_back(s);
  return out;
}

// A verdict's ratio as speed relative to the other side: a lower-is-better value inverted.
double Speed(const results::Verdict& v, const results::Result& r) { return r.proportion == "LIB" ? 1 / v.ratio : v.ratio; }

}  // namespace

const std::vector<Workload>& NamedWorkloads() {
  static const std::vector<Workload> kAll = {
      {"rand-read-4k-qd1", "native/disk-rand-read", "block-size=4k;size=64m;threads=1;iodepth=1;direct=Yes",
       "4 KiB random reads, queue depth 1, O_DIRECT"},
      {"rand-read-4k-qd32", "native/disk-rand-read", "block-size=4k;size=64m;threads=1;iodepth=32;direct=Yes",
       "4 KiB random reads, queue depth 32, O_DIRECT"},
      {"seq-write-1m", "native/disk-seq-write", "record-size=1m;file-size=512m;direct=Yes",
       "1 MiB sequential writes, 512 MiB, O_DIRECT"},
      {"many-files", "native/fs-files", "test=1000 Files, 1MB Size", "1000 files of 1 MiB, fsync'd (as the seeds' FS-Mark)"},
      {"rand-write-4k-qd1", "native/disk-rand-write", "block-size=4k;size=64m;threads=1;iodepth=1;direct=Yes",
       "4 KiB random writes, queue depth 1, O_DIRECT"},
      {"rand-write-4k-qd32", "native/disk-rand-write", "block-size=4k;size=64m;threads=1;iodepth=32;direct=Yes",
       "4 KiB random writes, queue depth 32, O_DIRECT"},
      {"seq-read-1m", "native/disk-seq-read", "record-size=1m;file-size=512m;direct=Yes",
       "1 MiB sequential reads, 512 MiB, O_DIRECT"},
  };
  return kAll;
}

std::vector<std::string> DefaultWorkloadNames() { return {"rand-read-4k-qd1", "rand-read-4k-qd32", "seq-write-1m", "many-files"}; }

const Workload* FindWorkload(const std::string& name) {
  for (const auto& w : NamedWorkloads())
    if (w.name == name) return &w;
  return nullptr;
}

std::vector<std::string> DefaultSetups() {
  // Each kind at its defaults, then the choices that change what a kind costs: fscrypt's
  // Adiantum, dm-crypt's plain mode (no header; cipher given explicitly, not Debian 12's
  // aes-cbc-essiv default) and loop-AES volumes, eCryptfs.
  return {"plain", "fscrypt", "fscrypt:adiantum", "dm-crypt", "dm-crypt:plain", "dm-crypt:loopaes", "ecryptfs"};
}

std::string CostPlanText(const CostPlan& plan) {
  std::string out = "This machine:\n";
  for (const auto& line : plan.probe) out += "  " + line + "\n";
  std::string build, cannot;
  size_t buildable = 0;
  for (const auto& s : plan.setups) {
    if (s.why_not.empty()) {
      build += "  " + s.identifier + (buildable == 0 ? "  (the reference)" : "") + "  [" + s.spec + "]\n";
      ++buildable;
    } else {
      cannot += "  " + s.spec + ": " + s.why_not + "\n";
    }
  }
  out += "Will build (" + std::to_string(buildable) + "):\n" + (build.empty() ? "  nothing\n" : build);
  if (!cannot.empty()) out += "Cannot build here:\n" + cannot;
  if (!plan.unoffered.empty()) {
    out += "Not compared (no target option yet):\n";
    for (const auto& u : plan.unoffered) out += "  " + u + "\n";
  }
  out += "Workloads (" + std::to_string(plan.workloads.size()) + "):\n";
  for (const auto& w : plan.workloads) out += "  " + w + "\n";
  if (!plan.instances.empty()) out += plan.instances + "\n";
  out += "Estimated run time: " + plan.estimate + "; extra rounds of each test stop at run.time_budget (" +
         FormatDuration(plan.time_budget_seconds) + ")\n";
  return out;
}

std::string CostAnswerText(const results::ResultFile& file, const std::string& reference,
                           const std::vector<std::string>& setups, const std::vector<WorkloadLabel>& labels,
                           const results::VerdictSettings& settings) {
  struct Row {
    std::string setup, workload, verdict;
  };
  std::vector<Row> rows;
  std::map<std::string, std::vector<double>> speeds;  // set-up -> its speed against plain, per workload
  std::vector<const results::Result*> measured;
  std::set<std::string> tests_seen;  // identifier and arguments of the results counted in `speeds`
  for (const auto& r : file.results) {
    if (r.identifier.empty() || r.display_format != "BAR_GRAPH") continue;
    std::string label = r.title + (r.description.empty() ? "" : " - " + r.description);
    for (const auto& l : labels)
      if (l.identifier == r.identifier && l.arguments == r.arguments) label = l.name;
    if (!r.scale.empty()) label += " (" + r.scale + ")";
    const bool first_of_test = tests_seen.insert(r.identifier + "\n" + r.arguments).second;
    const auto trials = results::ResultSystemTrials(file, r);
    std::vector<std::string> kinds{reference};
    kinds.insert(kinds.end(), setups.begin(), setups.end());
    const results::VerdictSettings level = results::LevelOfRun(r, settings);
    bool any = false;
    for (const auto& kv : results::VerdictsAgainstFirst(OfKinds(trials, kinds), level)) {
      // A set-up whose every trial failed (eCryptfs refuses O_DIRECT, a target too small) has no
      // ratio: it is neither cheap nor dear, and never the answer.
      if (kv.verdict.instances == 0) {
        rows.push_back({kv.kind, label, "no values: its trials failed (the run above says why)"});
        continue;
      }
      rows.push_back({kv.kind, label, results::VerdictText(kv.verdict, level)});
      if (first_of_test && kv.verdict.ratio > 0) speeds[kv.kind].push_back(Speed(kv.verdict, r));
      any = true;
    }
    if (any && first_of_test) measured.push_back(&r);
  }
  if (rows.empty()) return "";
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    return std::find(setups.begin(), setups.end(), a.setup) < std::find(setups.begin(), setups.end(), b.setup);
  });
  size_t w_setup = 6, w_workload = 8;
  for (const auto& row : rows) w_setup = std::max(w_setup, row.setup.size() + 2), w_workload = std::max(w_workload, row.workload.size() + 2);
  std::string out = "Encryption cost here against " + reference + " (each value over plain's; " +
                    Fixed("%g %%", settings.confidence * 100) + Fixed(" interval; same within +-%g %%):\n", settings.same_within_percent) +
                    "  " + Pad("set-up", w_setup) + Pad("workload", w_workload) + "verdict: ratio [interval]\n";
  for (const auto& row : rows) out += "  " + Pad(row.setup, w_setup) + Pad(row.workload, w_workload) + row.verdict + "\n";

  // The set-up that costs least: the highest geometric mean speed over the workloads.
  std::string best;
  double best_mean = 0;
  for (const auto& setup : setups) {
    auto it = speeds.find(setup);
    if (it == speeds.end() || it->second.size() != measured.size()) continue;
    double log_sum = 0;
    for (double s : it->second) log_sum += std::log(s);
    double mean = std::exp(log_sum / it->second.size());
    if (best.empty() || mean > best_mean) best = setup, best_mean = mean;
  }
  if (best.empty()) return out + "Costs least here: unknown (no set-up has a value in every workload)\n";
  // Against each other set-up, workload by workload: told apart in its favour, the same, or not decided.
  std::vector<std::string> undecided, same, faster_elsewhere;
  for (const auto& other : setups) {
    if (other == best || !speeds.count(other)) continue;
    bool ahead = false, behind = false, all_same = true;
    for (const auto* r : measured) {
      auto v = results::VerdictsAgainstFirst(OfKinds(results::ResultSystemTrials(file, *r), {best, other}),
                                             results::LevelOfRun(*r, settings));
      if (v.empty()) continue;
      const results::Verdict& verdict = v.front().verdict;
      if (verdict.kind != results::VerdictKind::kSame) all_same = false;
      if (verdict.kind == results::VerdictKind::kDifferent) (Speed(verdict, *r) > 1 ? behind : ahead) = true;
    }
    if (behind) faster_elsewhere.push_back(other);
    else if (all_same) same.push_back(other);
    else if (!ahead) undecided.push_back(other);
  }
  std::string line = "Costs least here: " + best + Fixed(" (x%.3f of plain's speed, geometric mean over ", best_mean) +
                     std::to_string(measured.size()) + " workload" + (measured.size() == 1 ? "" : "s") + "): ";
  if (speeds.size() == 1)
    line += "the only set-up measured (its cost against plain is its verdicts above)";
  else if (undecided.empty() && faster_elsewhere.empty())
    line += "verdict" + (same.empty() ? std::string() : Fixed("; the same within +-%g %% as ", settings.same_within_percent) + Join(same, ", "));
  else
    line += "unknown" + (undecided.empty() ? std::string() : "; not told apart from " + Join(undecided, ", ")) +
            (faster_elsewhere.empty() ? std::string() : "; slower than " + Join(faster_elsewhere, ", ") + " in some workload");
  return out + line + "\n";
}

}  // namespace ptsn::reproduce
