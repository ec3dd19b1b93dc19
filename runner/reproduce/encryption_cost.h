// `pts-native encryption-cost`, the parts that are plain data and text: the default workloads
// and set-ups, the plan printed before anything is built, and the answer from the saved result
// (each set-up against plain, workload by workload, with the verdict words of
// results-xml/stats/verdict.h, then the set-up that costs least over all workloads). Pure: the command
// (runner/cli/cmd_encryption_cost.cc) probes, builds and runs through batch-run's session.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "results-xml/model/result_file.h"
#include "results-xml/stats/verdict.h"
#include "runner/targets/target_spec.h"

namespace ptsn::reproduce {

// A named workload: a bundled profile with its options chosen as PRESET_OPTIONS choices.
struct Workload {
  std::string name;     // "rand-read-4k-qd1"
  std::string profile;  // "native/disk-rand-read"
  std::string presets;  // "block-size=4k;iodepth=1;..." (option=choice, as PRESET_OPTIONS after "test.")
  std::string what;     // for people: "4 KiB random reads, queue depth 1, O_DIRECT"
};

// Every named workload; the first four are the default set (where rankings flip: 4 KiB random
// I/O at depth 1 and 32, 1 MiB sequential, many files).
const std::vector<Workload>& NamedWorkloads();
std::vector<std::string> DefaultWorkloadNames();
const Workload* FindWorkload(const std::string& name);

// The encryption set-ups the target kinds build, as --targets specs (plain, the reference, first).
// `inline_encryption`: the probe's word on CONFIG_BLK_INLINE_ENCRYPTION ("yes", "no", "unknown").
// Where it is unknown, fscrypt:inlinecrypt is left out (a kernel that ignores it is found only
// once it is built, and a set-up that fails to build stops the run): `left_out` says so.
std::vector<std::string> DefaultSetups(const std::string& inline_encryption, std::vector<std::string>* left_out = nullptr);

// How a set-up serves a workload's O_DIRECT: as asked (plain, dm-crypt: beneath the file
// system; fscrypt with inlinecrypt: blk-crypto), through the page cache (fscrypt without inline
// encryption: ext4 falls back to buffered I/O for encrypted files), or not at all (eCryptfs:
// open gives EINVAL). This is the rule by kind, for the plan; once built, the kernel's own word
// (ConfirmDirectIo) replaces it.
enum class DirectIo { kDirect, kBuffered, kRefused };
DirectIo DirectIoOf(const targets::TargetSpec& spec);

// Whether a test's arguments ask for O_DIRECT (the native disk workloads' --direct).
bool IsDirectWorkload(const std::string& arguments);

// A set-up as the answer knows it: its identifier in the result (the reference's included),
// how it serves O_DIRECT, what it protects, and for dm-crypt the commands that make one like it.
struct CostSetup {
  std::string identifier;
  DirectIo direct_io = DirectIo::kDirect;
  int protection = 0;        // 2 the whole device, 1 files above a file system, 0 nothing or not known
  std::string protects;      // "the whole device, with a LUKS2 header (key slots: ...)"
  std::string dm_crypt_how;  // dm-crypt only: the cryptsetup command and /etc/crypttab line
  bool direct_io_checked = false;  // direct_io is the kernel's word on the built target, not the kind's rule
};
// `identifier`: the set-up's System identifier in the result (TEST_RESULTS_IDENTIFIER may prefix it).
CostSetup DescribeSetup(const targets::TargetSpec& spec, const std::string& identifier);

// The built set-up's "Direct I/O: " note (its System Notes: statx STATX_DIOALIGN on a file where
// its tests ran, runner/targets/encryption_options.h) in place of the kind's rule: "yes" is
// direct, "no" buffered (or refused, where the kind refuses it); not reported keeps the rule.
void ConfirmDirectIo(CostSetup& setup, const std::string& system_notes);
// One line saying, set-up by set-up, where its O_DIRECT verdict came from.
std::string DirectIoSourceText(const std::vector<CostSetup>& setups);

// One set-up of the plan: its spec and why it cannot be built here ("" = it can).
struct PlannedSetup {
  std::string spec;
  std::string identifier;  // its System identifier
  std::string why_not;
  DirectIo direct_io = DirectIo::kDirect;
};

// A workload of the plan as a line for people, and whether it asks for O_DIRECT.
struct PlannedWorkload {
  std::string name;  // "rand-read-4k-qd1"
  std::string line;  // "rand-read-4k-qd1: 4 KiB random reads ..."
  bool direct = false;
};

// Keeping to run.time_budget. The setting bounds what one test may spend on added rounds and
// instance pairs; here each workload's scheduled rounds on every instance of every set-up
// (rounds x set-ups x instances x its time per trial) are kept within it too. Over it, in this
// order, until each fits: that workload's rounds down to 2; the instances of every set-up down to
// 2 (the fewest that give a verdict); its rounds down to 1; last, the workload is dropped
// (slowest first; the fastest one is always kept, and said to be over). `rounds_fixed`
// (FORCE_TIMES_TO_RUN): the rounds are not changed.
struct BudgetTest {
  std::string name;
  double seconds_per_trial = 0;  // 0 = unknown: never trimmed
  int rounds = 0;                // scheduled
};
struct BudgetFit {
  int instances = 0;                // run.target_instances to run with
  std::vector<int> rounds;          // each test's rounds; 0 = dropped
  std::vector<std::string> said;    // what was trimmed and why, one line each
};
BudgetFit FitToBudget(const std::vector<BudgetTest>& tests, size_t setups, int instances, double budget_seconds,
                      bool rounds_fixed);

struct CostPlan {
  std::vector<std::string> probe;      // targets::ProbeLines
  std::string timing_caveat;           // targets::TimingCaveat ("" on hardware)
  std::vector<std::string> options;    // targets::OptionChoices
  std::vector<std::string> left_out;   // default set-ups left out, each with why (DefaultSetups)
  std::vector<PlannedSetup> setups;
  std::vector<PlannedWorkload> workloads;
  std::string target_size;             // reproduce::TargetSizing's text: the workloads that do not fit ("" = all fit)
  std::string estimate;                // "about 12m" (run::DescribeEstimate)
  std::string instances;               // run::InstancesCostText ("" = none)
  double time_budget_seconds = 0;      // run.time_budget
  std::vector<std::string> trimmed;    // BudgetFit::said
  std::string caches;                  // how the buffered workloads are kept from the page cache
};

// The probe, what will be built and what cannot (and why), which set-up serves which direct
// workload buffered or not at all, the workloads, those the targets cannot hold, how long.
std::string CostPlanText(const CostPlan& plan);

// The answer: one row per set-up and workload (verdict text against the reference), then the
// set-up that costs least over all workloads (geometric mean of its speed relative to plain, a
// lower-is-better result inverted) and whether that is a verdict or unknown. `labels`: a name
// for each result, by "identifier arguments" (none = the result's title and description).
// A test gives several results (MiB/s, IOPS, p99 latency): each row names its unit, and the
// geometric mean takes the first result of each test and arguments only (the others measure the
// same trials again).
// Honest I/O: in a workload asking for O_DIRECT, a set-up that served it buffered is marked
// "buffered: not ranked with direct I/O" and has no place in the ranking (it needs a like-for-like
// value in every workload); one that refused it has no values.
struct WorkloadLabel {
  std::string identifier, arguments, name;
};

// `cost`: a latency or CPU-time row (a test's later lower-is-better result: p50 and p99 latency,
// CPU user, system and softirq seconds per GiB), shown in its own block and never ranked.
// `measure`: a cost row's figure ("p50 Latency", "CPU system per GiB"); `workload` then is the
// workload alone.
struct CostRow {
  std::string setup, workload, verdict;
  bool cost = false;
  std::string measure;
};

// The computed table, all the words below are made from.
struct CostTable {
  std::string reference;
  double same_within_percent = 5, confidence = 0.95;
  std::vector<CostRow> rows;
  size_t workloads = 0;           // workloads with a value (each test and arguments once)
  std::string best;               // "" = no set-up has a like-for-like value in every workload
  double best_mean = 0;           // its geometric mean speed against the reference
  size_t measured_setups = 0;     // set-ups with a value in some workload
  std::vector<std::string> same;              // the same as the best within the margin everywhere
  std::vector<std::string> undecided;         // not told apart from the best somewhere
  std::vector<std::string> faster_elsewhere;  // faster than the best in some workload
  std::vector<std::pair<std::string, std::vector<std::string>>> buffered;  // set-up, the direct workloads it served buffered
  std::map<std::string, double> means;        // each ranked set-up's geometric mean speed
};
CostTable ComputeCostTable(const results::ResultFile& file, const std::string& reference,
                           const std::vector<CostSetup>& setups, const std::vector<WorkloadLabel>& labels,
                           const results::VerdictSettings& settings);

// The table, the latency and CPU block (set-up by set-up) and the "Costs least here" line.
std::string CostTableText(const CostTable& table);

// The answer in words: what the best protects (and the cheapest set-up that protects more when
// it protects less), those the same as it, what stayed unknown and what would decide it, and for
// dm-crypt the cryptsetup command and /etc/crypttab line. "" when nothing costs least.
std::string RecommendationText(const CostTable& table, const std::vector<CostSetup>& setups);

// The table, the line and the recommendation.
std::string CostAnswerText(const results::ResultFile& file, const std::string& reference,
                           const std::vector<CostSetup>& setups, const std::vector<WorkloadLabel>& labels,
                           const results::VerdictSettings& settings);

}  // namespace ptsn::reproduce
