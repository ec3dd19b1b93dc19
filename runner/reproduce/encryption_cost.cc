#include "runner/reproduce/encryption_cost.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "runner/common/strings.h"
#include "runner/targets/encryption_options.h"

namespace ptsn::reproduce {

namespace {

std::string Fixed(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string Pad(const std::string& s, size_t width) { return s + std::string(width > s.size() ? width - s.size() : 1, ' '); }

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

DirectIo DirectIoOf(const targets::TargetSpec& spec) {
  switch (spec.kind) {
    case targets::Kind::kFscrypt: return spec.inlinecrypt ? DirectIo::kDirect : DirectIo::kBuffered;
    case targets::Kind::kEcryptfs: return DirectIo::kRefused;
    default: return DirectIo::kDirect;
  }
}

bool IsDirectWorkload(const std::string& arguments) {
  for (const auto& word : Split(arguments, ' '))
    if (word == "--direct") return true;
  return false;
}

void ConfirmDirectIo(CostSetup& setup, const std::string& system_notes) {
  const std::string key = "Direct I/O: ";
  const size_t at = system_notes.find(key);
  if (at == std::string::npos) return;
  const std::string said = system_notes.substr(at + key.size());
  if (StartsWith(said, "yes")) setup.direct_io = DirectIo::kDirect;
  else if (StartsWith(said, "no:")) setup.direct_io = setup.direct_io == DirectIo::kRefused ? DirectIo::kRefused : DirectIo::kBuffered;
  else return;
  setup.direct_io_checked = true;
}

std::string DirectIoSourceText(const std::vector<CostSetup>& setups) {
  std::vector<std::string> checked, by_kind;
  for (const auto& s : setups) (s.direct_io_checked ? checked : by_kind).push_back(s.identifier);
  std::string out = "O_DIRECT, direct or buffered:";
  if (!checked.empty()) out += " the kernel's word (statx STATX_DIOALIGN on the built target) for " + Join(checked, ", ") + ";";
  if (!by_kind.empty()) out += " the rule by kind (the kernel did not say: before Linux 6.1, or not this file system) for " + Join(by_kind, ", ") + ";";
  out.back() = '\n';
  return out;
}

CostSetup DescribeSetup(const targets::TargetSpec& spec, const std::string& identifier) {
  CostSetup c{identifier, DirectIoOf(spec), 0, "", ""};
  switch (spec.kind) {
    case targets::Kind::kPlain: c.protects = "nothing (no encryption)"; return c;
    case targets::Kind::kFscrypt:
      c.protection = 1;
      c.protects = "file contents and names only: sizes, timestamps, permissions and the directory tree stay in the clear";
      return c;
    case targets::Kind::kEcryptfs:
      c.protection = 1;
      c.protects = "files stacked over another file system: their number, approximate sizes and timestamps stay visible there";
      return c;
    case targets::Kind::kDmCrypt: break;
    default: c.protects = "not known to this command"; return c;
  }
  c.protection = 2;
  const std::string cipher = spec.cipher.empty() ? "aes-xts-plain64" : spec.cipher;
  if (spec.dm_format == "loopaes") {
    c.protects = "the whole device, as a loop-AES volume (no header; a format kept for existing volumes)";
    return c;
  }
  const int key_bits = spec.key_bits ? spec.key_bits : 512;
  const std::string bits = std::to_string(key_bits);
  // The options as the target set them: cryptsetup's --perf-* on open (crypttab's options of the
  // same names), the sector size in the LUKS2 header or, for plain mode, on open and in crypttab.
  std::string perf, crypttab;
  for (const auto& option : spec.dm_flags) {
    perf += std::string(" --perf-") + targets::FindDmFlag(option)->table_flag;
    if (option != "high-priority") crypttab += "," + option;  // not a crypttab option (systemd 257)
  }
  const std::string sector = spec.sector_size ? " --sector-size " + std::to_string(spec.sector_size) : "";
  if (spec.dm_format == "luks2") {
    c.protects = "the whole device, with a LUKS2 header (key slots: passphrases can change; the header says it is encrypted)";
    c.dm_crypt_how = "cryptsetup luksFormat --type luks2 --cipher " + cipher + " --key-size " + bits + sector +
                     " /dev/DEVICE\n"
                     "cryptsetup open" + perf + " /dev/DEVICE NAME\n"
                     "/etc/crypttab: NAME UUID=<cryptsetup luksUUID /dev/DEVICE> none luks" + crypttab + "\n";
  } else {
    c.protects = "the whole device, plain mode: no header (nothing on disk says it is encrypted; a wrong key opens "
                 "garbage without an error; no key slots)";
    // As the target opened it: a random key of key-size bytes from a file, the cipher named (not
    // Debian 12's aes-cbc-essiv default).
    const std::string key_bytes = std::to_string(key_bits / 8);
    if (spec.sector_size) crypttab += ",sector-size=" + std::to_string(spec.sector_size);
    c.dm_crypt_how = "cryptsetup open --type plain --cipher " + cipher + " --key-size " + bits + sector + perf +
                     " --key-file KEYFILE --keyfile-size " + key_bytes + " /dev/disk/by-id/DEVICE NAME\n"
                     "/etc/crypttab: NAME /dev/disk/by-id/DEVICE KEYFILE plain,cipher=" + cipher + ",size=" + bits +
                     ",keyfile-size=" + key_bytes + crypttab + "\n";
  }
  return c;
}

std::vector<std::string> DefaultSetups(const std::string& inline_encryption, std::vector<std::string>* left_out) {
  // Each kind at its defaults, then the choices that change what a kind costs: fscrypt's
  // Adiantum, dm-crypt's plain mode (no header; cipher given explicitly, not Debian 12's
  // aes-cbc-essiv default), eCryptfs. Then the options that are the question itself ("do the
  // flags help?", "512 or 4096?", "inlinecrypt?"), each refused in the plan, with the reason,
  // where this kernel or cryptsetup lacks it. Not loop-AES volumes (dm-crypt:loopaes): a format
  // kept for existing volumes, not a choice for a new one, and each set-up adds to the run time.
  std::vector<std::string> out = {"plain", "fscrypt", "fscrypt:adiantum", "fscrypt:inlinecrypt", "dm-crypt",
                                  "dm-crypt:no-read-workqueue:no-write-workqueue", "dm-crypt:sector-size=4096",
                                  "dm-crypt:plain", "ecryptfs"};
  if (inline_encryption != "yes" && inline_encryption != "no") {
    std::erase(out, "fscrypt:inlinecrypt");
    if (left_out)
      left_out->push_back("fscrypt:inlinecrypt: whether this kernel has inline encryption is not known (no "
                          "/boot/config-*); --setups fscrypt:inlinecrypt tries it, and it fails once built if the "
                          "kernel ignores it");
  }
  return out;
}

BudgetFit FitToBudget(const std::vector<BudgetTest>& tests, size_t setups, int instances, double budget_seconds,
                      bool rounds_fixed) {
  BudgetFit fit{instances, {}, {}};
  for (const auto& t : tests) fit.rounds.push_back(t.rounds);
  auto seconds = [&](size_t i) { return fit.rounds[i] * static_cast<double>(setups) * fit.instances * tests[i].seconds_per_trial; };
  auto over = [&](size_t i) { return fit.rounds[i] > 0 && seconds(i) > budget_seconds; };
  auto why = [&](size_t i) {
    return "(" + std::to_string(fit.rounds[i]) + " rounds x " + std::to_string(setups) + " set-ups x " +
           std::to_string(fit.instances) + " instances x " + FormatDuration(tests[i].seconds_per_trial) + " = " +
           FormatDuration(seconds(i)) + ")";
  };
  auto fewer_rounds = [&](int floor) {
    if (rounds_fixed) return;
    for (size_t i = 0; i < tests.size(); ++i) {
      if (!over(i) || fit.rounds[i] <= floor) continue;
      const std::string was = why(i);
      const int fits = static_cast<int>(budget_seconds / (static_cast<double>(setups) * fit.instances * tests[i].seconds_per_trial));
      const int rounds = std::max(floor, fits);
      fit.said.push_back(tests[i].name + ": " + std::to_string(fit.rounds[i]) + " rounds -> " + std::to_string(rounds) + " " + was);
      fit.rounds[i] = rounds;
    }
  };
  fewer_rounds(2);
  // Instances are the run's, not a workload's: as few as the slowest over-budget workload needs.
  int needed = fit.instances;
  for (size_t i = 0; i < tests.size(); ++i)
    if (over(i)) needed = std::min(needed, std::max(2, static_cast<int>(budget_seconds / (fit.rounds[i] * static_cast<double>(setups) *
                                                                                          tests[i].seconds_per_trial))));
  if (needed < fit.instances) {
    std::string names;
    for (size_t i = 0; i < tests.size(); ++i)
      if (over(i)) names += (names.empty() ? "" : ", ") + tests[i].name;
    fit.said.push_back("instances of each set-up: " + std::to_string(fit.instances) + " -> " + std::to_string(needed) + ", for " +
                       names + " (over with " + std::to_string(fit.instances) + ")");
    fit.instances = needed;
  }
  fewer_rounds(1);
  // Last, the slowest workloads go, until what is left fits; the fastest one always stays.
  std::vector<size_t> order;
  for (size_t i = 0; i < tests.size(); ++i) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return tests[a].seconds_per_trial > tests[b].seconds_per_trial; });
  size_t kept = tests.size();
  for (size_t i : order) {
    if (!over(i)) continue;
    if (kept == 1) {
      fit.said.push_back(tests[i].name + ": kept, the only workload left, although over " + why(i));
      break;
    }
    fit.said.push_back(tests[i].name + ": dropped " + why(i));
    fit.rounds[i] = 0;
    --kept;
  }
  return fit;
}

std::string CostPlanText(const CostPlan& plan) {
  std::string out = "This machine:\n";
  for (const auto& line : plan.probe) out += "  " + line + "\n";
  if (!plan.timing_caveat.empty()) out += plan.timing_caveat + "\n";
  std::vector<std::string> direct_workloads;
  for (const auto& w : plan.workloads)
    if (w.direct) direct_workloads.push_back(w.name);
  std::string build, cannot;
  size_t buildable = 0;
  for (const auto& s : plan.setups) {
    if (!s.why_not.empty()) {
      cannot += "  " + s.spec + ": " + s.why_not + "\n";
      continue;
    }
    build += "  " + s.identifier + (buildable == 0 ? "  (the reference)" : "") + "  [" + s.spec + "]\n";
    ++buildable;
    if (direct_workloads.empty() || s.direct_io == DirectIo::kDirect) continue;
    if (s.direct_io == DirectIo::kBuffered)
      build += "    O_DIRECT becomes buffered I/O (fscrypt without inline encryption): " + Join(direct_workloads, ", ") +
               " measured buffered, not ranked with direct I/O\n";
    else
      build += "    O_DIRECT refused (eCryptfs has no direct I/O): " + Join(direct_workloads, ", ") + " will fail on it\n";
  }
  out += "Will build (" + std::to_string(buildable) + "):\n" + (build.empty() ? "  nothing\n" : build);
  if (!cannot.empty()) out += "Cannot build here:\n" + cannot;
  if (!plan.left_out.empty()) {
    out += "Left out of the default set-ups:\n";
    for (const auto& l : plan.left_out) out += "  " + l + "\n";
  }
  if (!plan.options.empty()) {
    out += "Target options this kernel and cryptsetup can apply (each checked in the kernel's report after building):\n";
    for (const auto& u : plan.options) out += "  " + u + "\n";
  }
  out += "Workloads (" + std::to_string(plan.workloads.size()) + "):\n";
  for (const auto& w : plan.workloads) out += "  " + w.line + "\n";
  if (!plan.caches.empty()) out += plan.caches + "\n";
  out += plan.target_size;
  if (!plan.trimmed.empty()) {
    out += "Trimmed to keep each workload within run.time_budget (" + FormatDuration(plan.time_budget_seconds) +
           "; a longer one keeps more):\n";
    for (const auto& line : plan.trimmed) out += "  " + line + "\n";
  }
  if (!plan.instances.empty()) out += plan.instances + "\n";
  out += "Estimated run time: " + plan.estimate + "; extra rounds of each test stop at run.time_budget (" +
         FormatDuration(plan.time_budget_seconds) + ")\n";
  return out;
}

CostTable ComputeCostTable(const results::ResultFile& file, const std::string& reference,
                           const std::vector<CostSetup>& setups, const std::vector<WorkloadLabel>& labels,
                           const results::VerdictSettings& settings) {
  CostTable t;
  t.reference = reference;
  t.same_within_percent = settings.same_within_percent;
  t.confidence = settings.confidence;
  std::vector<std::string> names;
  for (const auto& s : setups) names.push_back(s.identifier);
  auto buffered_in = [&](const std::string& setup, const results::Result& r) {
    if (!IsDirectWorkload(r.arguments)) return false;
    for (const auto& s : setups)
      if (s.identifier == setup) return s.direct_io == DirectIo::kBuffered;
    return false;
  };
  std::map<std::string, std::vector<double>> speeds;  // set-up -> its like-for-like speed against plain, per workload
  std::vector<const results::Result*> measured;
  std::set<std::string> tests_seen;  // identifier and arguments of the results counted in `speeds`
  std::map<std::string, std::string> first_description;  // by identifier and arguments: the first result's
  std::map<std::string, std::set<std::string>> failed;  // by identifier and arguments: set-ups without values
  std::set<std::string> with_value;
  for (const auto& r : file.results) {
    if (r.identifier.empty() || r.display_format != "BAR_GRAPH") continue;
    const std::string test_key = r.identifier + "\n" + r.arguments;
    const bool first_of_test = tests_seen.insert(test_key).second;
    if (first_of_test) first_description[test_key] = r.description;
    // A later lower-is-better result of the test (latency, CPU per GiB) is a cost row, named by
    // what its parser appended to the description ("p50 Latency"), else its unit.
    const bool cost = !first_of_test && r.proportion == "LIB";
    const std::string& base = first_description[test_key];
    const std::string appended = StartsWith(r.description, base + " - ") ? r.description.substr(base.size() + 3) : "";
    const std::string& description = cost && !appended.empty() ? base : r.description;
    std::string workload = r.title + (description.empty() ? "" : " - " + description);
    for (const auto& l : labels)
      if (l.identifier == r.identifier && l.arguments == r.arguments) workload = l.name;
    const std::string label = cost ? workload : workload + (r.scale.empty() ? "" : " (" + r.scale + ")");
    const std::string measure = !cost ? "" : !appended.empty() ? appended : r.scale;
    const auto trials = results::ResultSystemTrials(file, r);
    std::vector<std::string> kinds{reference};
    kinds.insert(kinds.end(), names.begin(), names.end());
    const results::VerdictSettings level = results::LevelOfRun(r, settings);
    bool any = false;
    std::set<std::string> judged;
    for (const auto& kv : results::VerdictsAgainstFirst(results::TrialsOfKinds(trials, kinds), level)) {
      judged.insert(kv.kind);
      // A set-up whose every trial failed (eCryptfs refuses O_DIRECT, a target too small) has no
      // ratio: it is neither cheap nor dear, and never the answer.
      if (kv.verdict.instances == 0) {
        // A cost figure of a set-up that has values in the test's first result is there but 0
        // (CPU time in ticks), not failed.
        if (first_of_test) failed[test_key].insert(kv.kind);
        t.rows.push_back({kv.kind, label,
                          cost && !failed[test_key].count(kv.kind)
                              ? "no ratio: no round with a value above 0 on both sides (CPU time counts in 10 ms ticks)"
                              : "no values: its trials failed (the run above says why)",
                          cost, measure});
        continue;
      }
      with_value.insert(kv.kind);
      any = true;
      if (buffered_in(kv.kind, r)) {
        t.rows.push_back({kv.kind, label, "buffered: not ranked with direct I/O; " + results::VerdictText(kv.verdict, level), cost, measure});
        if (first_of_test) {
          auto it = std::find_if(t.buffered.begin(), t.buffered.end(), [&](const auto& b) { return b.first == kv.kind; });
          if (it == t.buffered.end()) t.buffered.push_back({kv.kind, {workload}});
          else it->second.push_back(workload);
        }
        continue;
      }
      t.rows.push_back({kv.kind, label, results::VerdictText(kv.verdict, level), cost, measure});
      if (first_of_test && kv.verdict.ratio > 0) speeds[kv.kind].push_back(Speed(kv.verdict, r));
    }
    // A set-up whose trials all failed has no entry at all in a cost figure's result (the failed
    // trial wrote none): its row says so, as in the speed table.
    if (cost)
      for (const auto& kind : names)
        if (failed[test_key].count(kind) && !judged.count(kind))
          t.rows.push_back({kind, label, "no values: its trials failed (the run above says why)", cost, measure});
    if (any && first_of_test) measured.push_back(&r);
  }
  t.workloads = measured.size();
  t.measured_setups = with_value.size();
  std::stable_sort(t.rows.begin(), t.rows.end(), [&](const CostRow& a, const CostRow& b) {
    return std::find(names.begin(), names.end(), a.setup) < std::find(names.begin(), names.end(), b.setup);
  });

  // The set-up that costs least: the highest geometric mean speed over the workloads.
  for (const auto& setup : names) {
    auto it = speeds.find(setup);
    if (it == speeds.end() || it->second.size() != measured.size()) continue;
    double log_sum = 0;
    for (double s : it->second) log_sum += std::log(s);
    const double mean = std::exp(log_sum / it->second.size());
    t.means[setup] = mean;
    if (t.best.empty() || mean > t.best_mean) t.best = setup, t.best_mean = mean;
  }
  if (t.best.empty()) return t;
  // Against each other ranked set-up, workload by workload: told apart in its favour, the same, or not decided.
  for (const auto& other : names) {
    if (other == t.best || !t.means.count(other)) continue;
    bool ahead = false, behind = false, all_same = true;
    for (const auto* r : measured) {
      auto v = results::VerdictsAgainstFirst(results::TrialsOfKinds(results::ResultSystemTrials(file, *r), {t.best, other}),
                                             results::LevelOfRun(*r, settings));
      if (v.empty()) continue;
      const results::Verdict& verdict = v.front().verdict;
      if (verdict.kind != results::VerdictKind::kSame) all_same = false;
      if (verdict.kind == results::VerdictKind::kDifferent) (Speed(verdict, *r) > 1 ? behind : ahead) = true;
    }
    if (behind) t.faster_elsewhere.push_back(other);
    else if (all_same) t.same.push_back(other);
    else if (!ahead) t.undecided.push_back(other);
  }
  return t;
}

std::string CostTableText(const CostTable& t) {
  if (t.rows.empty()) return "";
  size_t w_setup = 6, w_workload = 8, w_cost = 8;
  for (const auto& row : t.rows) {
    if (row.cost) w_cost = std::max(w_cost, row.measure.size() + 2);
    else w_setup = std::max(w_setup, row.setup.size() + 2), w_workload = std::max(w_workload, row.workload.size() + 2);
  }
  std::string out = "Encryption cost here against " + t.reference + " (each value over plain's; " +
                    Fixed("%g %%", t.confidence * 100) + Fixed(" interval; same within +-%g %%):\n", t.same_within_percent) +
                    "  " + Pad("set-up", w_setup) + Pad("workload", w_workload) + "verdict: ratio [interval]\n";
  for (const auto& row : t.rows)
    if (!row.cost) out += "  " + Pad(row.setup, w_setup) + Pad(row.workload, w_workload) + row.verdict + "\n";
  // Latency and CPU time per GiB: a block of their own, set-up by set-up, so each line stays
  // short; above 1 costs more than plain. Not ranked: the ranking is by speed.
  std::string costs, shown_setup, shown_workload;
  for (const auto& row : t.rows) {
    if (!row.cost) continue;
    if (row.setup != shown_setup) costs += "  " + row.setup + "\n", shown_setup = row.setup, shown_workload.clear();
    if (row.workload != shown_workload) costs += "    " + row.workload + "\n", shown_workload = row.workload;
    costs += "      " + Pad(row.measure, w_cost) + row.verdict + "\n";
  }
  if (!costs.empty())
    out += "Latency and CPU time per GiB against " + t.reference + " (each over plain's; above 1 costs more):\n" +
           "  (CPU: all CPUs' user, system and softirq time from /proc/stat over each trial's timed phase)\n" + costs;
  std::string not_ranked;
  for (const auto& [setup, workloads] : t.buffered) not_ranked += (not_ranked.empty() ? "" : ", ") + setup + " (" + Join(workloads, ", ") + ")";
  if (t.best.empty())
    return out + "Costs least here: unknown (no set-up has a like-for-like value in every workload" +
           (not_ranked.empty() ? "" : "; buffered, not ranked with direct I/O: " + not_ranked) + ")\n";
  std::string line = "Costs least here: " + t.best + Fixed(" (x%.3f of plain's speed, geometric mean over ", t.best_mean) +
                     std::to_string(t.workloads) + " workload" + (t.workloads == 1 ? "" : "s") + "): ";
  if (t.means.size() == 1 && t.measured_setups == 1)
    line += "the only set-up measured (its cost against plain is its verdicts above)";
  else if (t.means.size() == 1)
    line += "the only set-up ranked";
  else if (t.undecided.empty() && t.faster_elsewhere.empty())
    line += "verdict" + (t.same.empty() ? std::string() : Fixed("; the same within +-%g %% as ", t.same_within_percent) + Join(t.same, ", "));
  else
    line += "unknown" + (t.undecided.empty() ? std::string() : "; not told apart from " + Join(t.undecided, ", ")) +
            (t.faster_elsewhere.empty() ? std::string() : "; slower than " + Join(t.faster_elsewhere, ", ") + " in some workload");
  if (!not_ranked.empty()) line += "; buffered, not ranked with direct I/O: " + not_ranked;
  return out + line + "\n";
}

std::string RecommendationText(const CostTable& t, const std::vector<CostSetup>& setups) {
  if (t.best.empty()) return "";
  auto find = [&](const std::string& id) -> const CostSetup* {
    for (const auto& s : setups)
      if (s.identifier == id) return &s;
    return nullptr;
  };
  auto with_protects = [&](const std::vector<std::string>& ids) {
    std::vector<std::string> out;
    for (const auto& id : ids) {
      const CostSetup* s = find(id);
      out.push_back(id + (s && !s->protects.empty() ? " (protects " + s->protects + ")" : ""));
    }
    return Join(out, "; ");
  };
  const CostSetup* best = find(t.best);
  std::string out = "In words: " + t.best + " costs least here" +
                    (best && !best->protects.empty() ? "; it protects " + best->protects : "") + ".\n";
  // A cheaper set-up that protects less is never left unsaid: the cheapest that protects more
  // (whole device over files over nothing).
  if (best) {
    std::string stronger;
    double stronger_mean = 0;
    for (const auto& [id, mean] : t.means) {
      const CostSetup* s = find(id);
      if (s && s->protection > best->protection && (stronger.empty() || mean > stronger_mean)) stronger = id, stronger_mean = mean;
    }
    if (!stronger.empty())
      out += "  It protects less than " + stronger + ", the cheapest here that protects more" + Fixed(" (x%.3f of plain's speed)", stronger_mean) +
             ": choose by what you must protect.\n";
  }
  if (!t.same.empty())
    out += Fixed("  The same as it within +-%g %% in every workload: ", t.same_within_percent) + with_protects(t.same) + ".\n";
  if (!t.undecided.empty())
    out += "  Not told apart from it: " + Join(t.undecided, ", ") +
           "; more instance pairs (run.max_target_instances) or a longer run.time_budget would decide it.\n";
  if (!t.faster_elsewhere.empty())
    out += "  Faster than it in some workload: " + Join(t.faster_elsewhere, ", ") +
           "; which costs least depends on which of these workloads is most like yours.\n";
  if (!t.buffered.empty()) {
    std::vector<std::string> ids;
    for (const auto& b : t.buffered) ids.push_back(b.first);
    out += "  Unknown against direct I/O: " + Join(ids, ", ") +
           " (its O_DIRECT went through the page cache); a buffered workload such as many-files compares it like for like.\n";
  }
  if (best && !best->dm_crypt_how.empty()) {
    out += "  To make one like it (the cipher and key size the run used; DEVICE, NAME and KEYFILE are yours):\n";
    for (const auto& line : Split(best->dm_crypt_how, '\n'))
      if (!line.empty()) out += "    " + line + "\n";
  }
  return out;
}

std::string CostAnswerText(const results::ResultFile& file, const std::string& reference,
                           const std::vector<CostSetup>& setups, const std::vector<WorkloadLabel>& labels,
                           const results::VerdictSettings& settings) {
  const CostTable table = ComputeCostTable(file, reference, setups, labels, settings);
  std::string text = CostTableText(table);
  if (text.empty()) return "";
  const std::string words = RecommendationText(table, setups);
  return words.empty() ? text : text + "\n" + words;
}

}  // namespace ptsn::reproduce
