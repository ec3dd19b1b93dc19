// encryption-cost: which disk-encryption set-up costs least on this machine, for this work. It
// probes the machine (runner/targets/encryption_probe), says what it will build and how long that
// takes, then runs exactly as `batch-run WORKLOADS --targets plain,SETUPS` does (the run session:
// instance pairs in randomized rounds), and ends with each set-up's cost against plain and the
// one that costs least (runner/reproduce/encryption_cost).
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "results-xml/model/result_xml.h"
#include "runner/cli/command.h"
#include "runner/cli/run_context.h"
#include "runner/cli/target_flags.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/pts_variables.h"
#include "runner/common/settings.h"
#include "runner/common/strings.h"
#include "runner/common/terminal.h"
#include "runner/profile/options.h"
#include "runner/profile/presets.h"
#include "runner/reproduce/encryption_cost.h"
#include "runner/reproduce/target_size.h"
#include "runner/run/estimate.h"
#include "runner/run/observer.h"
#include "runner/run/run_targets.h"
#include "runner/targets/encryption_probe.h"
#include "runner/run/run_setup.h"
#include "runner/targets/target_set.h"
#include "runner/workloads/units.h"

namespace ptsn::cli {
namespace {

// The first line of `cryptsetup --version`; "" when it is not installed.
std::string CryptsetupVersion(targets::TargetSystem& sys) {
  if (!sys.FindProgram("cryptsetup")) return "";
  try {
    return Split(sys.ProgramOutput({"cryptsetup", "--version"}), '\n')[0];
  } catch (const Error& e) {
    return std::string("installed, but --version failed: ") + e.what();
  }
}

// The set-ups asked for (plain first, added when missing), each with why it cannot be built here.
std::vector<reproduce::PlannedSetup> PlanSetups(targets::TargetSystem& sys, const std::vector<std::string>& texts,
                                                std::vector<targets::TargetSpec>& buildable) {
  std::vector<targets::TargetSpec> specs;
  for (const auto& t : texts) specs.push_back(targets::ParseTargetSpec(t));
  if (specs.empty() || specs.front().kind != targets::Kind::kPlain || !specs.front().raid_level.empty() ||
      !specs.front().nfs_version.empty())
    specs.insert(specs.begin(), targets::ParseTargetSpec("plain"));
  std::vector<reproduce::PlannedSetup> out;
  for (const auto& spec : specs) {
    out.push_back({spec.text, spec.Identifier(), targets::WhyUnavailable(sys, spec), reproduce::DirectIoOf(spec)});
    if (out.back().why_not.empty()) buildable.push_back(spec);
  }
  return out;
}

// The workloads as run items: a named one is its profile with the options its presets choose;
// any other name is what batch-run takes (a profile, suite or profile directory) as it is.
std::vector<run::RunItem> WorkloadItems(Context& ctx, const std::vector<std::string>& names,
                                        std::vector<reproduce::PlannedWorkload>& lines,
                                        std::vector<reproduce::WorkloadLabel>& labels) {
  std::vector<run::RunItem> items;
  for (const auto& name : names) {
    const reproduce::Workload* w = reproduce::FindWorkload(name);
    if (!w) {
      for (auto& item : ctx.session->Resolve({name})) items.push_back(std::move(item));
      lines.push_back({name, name + ": as batch-run runs it", false});
      continue;
    }
    run::RunItem item = ctx.session->Resolve({w->profile}).at(0);
    std::string presets;
    for (const auto& choice : Split(w->presets, ';')) presets += w->profile + "." + choice + ";";
    auto picks = profile::PicksFromPresets(item.profile, profile::ParsePresets(presets, "workload " + name, false));
    item.fixed_options = profile::PickedOptions(item.profile.options, picks, profile::OpenOptions::kDefault, item.profile.subtitle);
    bool direct = false;
    for (const auto& o : *item.fixed_options) {
      labels.push_back({item.profile.identifier, o.arguments, name});
      direct = direct || reproduce::IsDirectWorkload(o.arguments);
    }
    lines.push_back({name, name + ": " + w->what + " (" + w->profile + ": " + item.fixed_options->front().description + ")",
                     direct});
    items.push_back(std::move(item));
  }
  return items;
}

// A test's name in the plan: its workload's, else its title and options.
std::string TestName(const run::PlannedTest& t, const std::vector<reproduce::WorkloadLabel>& labels) {
  for (const auto& l : labels)
    if (l.identifier == t.profile.identifier && l.arguments == t.option.arguments) return l.name;
  return t.profile.title + " [" + t.option.description + "]";
}

// The targets' size, as `run <ID>` sizes them (reproduce/target_size.h): --target-size as
// given, else large enough for what each workload writes where the backing folder has room;
// the workloads that do not fit are named with the --target-size that would hold them.
reproduce::TargetSizing SizeForWorkloads(const Args& args, const Settings& s, const std::vector<run::PlannedTest>& tests,
                                         const std::vector<reproduce::WorkloadLabel>& labels, size_t targets) {
  std::optional<uint64_t> given;
  if (auto size = args.Value("--target-size")) given = workloads::ParseSize(*size, "--target-size");
  const uint64_t default_size = TargetFlags{}.size;
  if (args.Value("--device") || args.Value("--destroy-data-on")) return {given.value_or(default_size), {}, 0, ""};
  std::vector<reproduce::TestNeed> needs;
  for (const auto& t : tests) {
    needs.push_back({TestName(t, labels), reproduce::TestSpaceNeed(t.profile.identifier, t.option.arguments,
                                                      t.profile.environment_testing_size)});
  }
  // The backing files go under the test directory (made when the run starts): its nearest folder.
  const std::string test_dir = run::TestDirectory(s);
  std::filesystem::path folder = test_dir;
  std::error_code ec;
  while (!folder.empty() && !std::filesystem::exists(folder, ec) && folder != folder.parent_path())
    folder = folder.parent_path();
  const size_t instances = static_cast<size_t>(run::PlanInstances(s, targets).max);
  return reproduce::SizeTargets(needs, given, FreeBytes(folder.string()), targets * instances, default_size, test_dir);
}

// Keeps each test's scheduled rounds on every instance of every set-up within run.time_budget
// (reproduce::FitToBudget): fewer rounds (the test's TimesToRun), fewer instances
// (run.target_instances for this run), tests dropped. Returns what was trimmed and why.
std::vector<std::string> FitTestsToBudget(std::vector<run::PlannedTest>& tests, const std::vector<reproduce::WorkloadLabel>& labels,
                                          const run::RunConfig& config, size_t setups, double budget_seconds) {
  const run::InstancePlan instances = run::PlanInstances(GlobalSettings(), setups);
  std::vector<reproduce::BudgetTest> budget;
  for (const auto& t : tests) {
    auto e = run::EstimateTest(t, config.install_root, config.overrides, config.settle_seconds);
    budget.push_back({TestName(t, labels), t.profile.test_type == "Disk" ? e.seconds_per_trial : 0, e.trials});
  }
  const reproduce::BudgetFit fit =
      reproduce::FitToBudget(budget, setups, instances.start, budget_seconds, config.overrides.force_times_to_run.has_value());
  if (fit.instances != instances.start)
    MutableGlobalSettings().SetFromCommandLine("run.target_instances", std::to_string(fit.instances));
  std::vector<run::PlannedTest> kept;
  for (size_t i = 0; i < tests.size(); ++i) {
    if (fit.rounds[i] == 0) continue;
    if (fit.rounds[i] != budget[i].rounds) tests[i].profile.times_to_run = fit.rounds[i];
    kept.push_back(std::move(tests[i]));
  }
  tests = std::move(kept);
  return fit.said;
}

// Cold caches for every disk trial (run.drop_caches) when this is root and the setting was left
// at its default; the plan's line says which it is.
std::string ColdCaches() {
  const SettingValue& v = GlobalSettings().GetWithOrigin("run.drop_caches");
  if (v.origin == SettingOrigin::kDefault && geteuid() == 0) MutableGlobalSettings().SetFromCommandLine("run.drop_caches", "true");
  if (GlobalSettings().GetBool("run.drop_caches"))
    return "Caches: dropped before every trial (run.drop_caches: sync; echo 3 > /proc/sys/vm/drop_caches),\n"
           "  so no trial reads what the one before left (a buffered set-up still caches within a trial)";
  return std::string("Caches: not dropped between trials (") + (geteuid() != 0 ? "not root" : "run.drop_caches=false") +
         "): buffered results (many-files,\n  O_DIRECT served buffered) may be partly the page cache's; "
         "the disk workloads still drop their files' pages";
}

// The set-ups as the answer knows them: each set-up the run named (a TEST_RESULTS_IDENTIFIER
// prefixes them) with the spec it was built from, and how its built targets served O_DIRECT as
// the kernel said (their System Notes).
std::vector<reproduce::CostSetup> AnswerSetups(const std::vector<std::string>& kinds,
                                               const std::vector<targets::TargetSpec>& specs,
                                               const std::vector<run::TestPlace>& places) {
  std::vector<reproduce::CostSetup> out;
  for (const auto& kind : kinds) {
    reproduce::CostSetup setup{kind};
    for (const auto& spec : specs)
      if (kind == spec.Identifier() || EndsWith(kind, ": " + spec.Identifier())) setup = reproduce::DescribeSetup(spec, kind);
    for (const auto& place : places)
      if (results::ParseInstanceName(place.system.identifier).kind == kind) {
        reproduce::ConfirmDirectIo(setup, place.system.notes.value_or(""));
        break;
      }
    out.push_back(setup);
  }
  return out;
}

int EncryptionCost(const std::vector<std::string>& argv) {
  ArgSpec spec{{"--workloads", "--setups", "--server"}, {"--dry-run", "--offline", "--yes"}};
  for (const auto& o : kTargetValueOptions) spec.value_options.insert(o);
  Args args = Args::Parse(argv, spec);
  if (args.Has("--targets")) throw Error("--targets: encryption-cost takes --setups (the set-ups compared with plain)");
  if (!args.positional().empty()) throw Error(args.positional()[0] + ": encryption-cost takes no names (--workloads a,b)");
  Context ctx(args);
  const Settings& s = ctx.settings;

  auto sys = targets::MakeRealSystem();
  reproduce::CostPlan plan;
  const auto probe = targets::ProbeEncryption(targets::RootedProbeFiles("/"), CryptsetupVersion(*sys));
  plan.probe = targets::ProbeLines(probe);
  plan.timing_caveat = targets::TimingCaveat(probe);
  plan.options = targets::OptionChoices(probe);
  std::vector<targets::TargetSpec> buildable;
  auto setup_texts = args.Value("--setups") ? Split(*args.Value("--setups"), ',')
                                            : reproduce::DefaultSetups(probe.inline_crypto, &plan.left_out);
  plan.setups = PlanSetups(*sys, setup_texts, buildable);

  std::vector<reproduce::WorkloadLabel> labels;
  auto workload_names = args.Value("--workloads") ? Split(*args.Value("--workloads"), ',') : reproduce::DefaultWorkloadNames();
  auto items = WorkloadItems(ctx, workload_names, plan.workloads, labels);
  auto tests = ctx.session->Plan(items, true);

  // How long: batch-run's estimate of each test on every instance of every target, trimmed to
  // keep each within run.time_budget.
  run::RunConfig config;
  config.install_root = s.Get("install.directory");
  config.overrides = run::ReadRunCountOverrides(ProcessEnvironment());
  config.settle_seconds = s.GetDouble("run.settle_seconds");
  plan.time_budget_seconds = s.GetDouble("run.time_budget");
  plan.trimmed = FitTestsToBudget(tests, labels, config, buildable.size(), plan.time_budget_seconds);
  const run::InstancePlan instances = run::PlanInstances(s, buildable.size());
  std::vector<double> seconds;
  for (const auto& t : tests) {
    auto e = run::EstimateTest(t, config.install_root, config.overrides, config.settle_seconds);
    seconds.push_back(run::OnPlaces(e, buildable.size() * instances.start, t.profile.test_type == "Disk", config.settle_seconds).seconds);
  }
  plan.estimate = run::DescribeEstimate(seconds);
  plan.instances = run::InstancesCostText(tests, config, buildable.size(), instances);
  plan.caches = ColdCaches();
  const reproduce::TargetSizing sizing = SizeForWorkloads(args, s, tests, labels, buildable.size());
  plan.target_size = sizing.text;
  std::cout << reproduce::CostPlanText(plan) << std::flush;

  if (args.Has("--dry-run")) {
    std::cout << "Dry run: nothing is built, run or saved.\n";
    return 0;
  }
  if (!plan.setups.front().why_not.empty())
    throw Error("the reference (" + plan.setups.front().spec + ") cannot be built here: " + plan.setups.front().why_not);
  if (buildable.size() < 2) throw Error("no encryption set-up can be built here (see above): nothing to compare with plain");

  // batch-run --targets, as given: the targets' size and device flags are batch-run's.
  std::vector<std::string> texts;
  for (const auto& b : buildable) texts.push_back(b.text);
  std::vector<std::string> with_targets = argv;
  with_targets.insert(with_targets.end(), {"--targets", Join(texts, ",")});
  if (!args.Value("--target-size") && !args.Value("--device") && !args.Value("--destroy-data-on"))
    with_targets.insert(with_targets.end(), {"--target-size", std::to_string(sizing.size >> 20) + "m"});
  TargetFlags flags = ReadTargetFlags(Args::Parse(with_targets, spec));
  run::SessionRequest request;
  request.batch = true;
  request.yes = args.Has("--yes");
  request.targets.specs = buildable;
  request.targets.instances_cost_told = !plan.instances.empty();
  request.targets.options = [flags](targets::TargetSystem& target_system, const std::string& test_dir) {
    return ConfirmTargetOptions(target_system, flags, test_dir, false);
  };
  auto printer = run::MakePrinter(OnTerminal() ? run::PrinterKind::kTty : run::PrinterKind::kPlain, std::cout);
  run::SessionOutcome outcome = ctx.session->Run(tests, std::move(request), *printer);
  if (std::string text = ctx.session->SavedResultText(outcome, TerminalWidth()); !text.empty()) std::cout << "\n" << text;

  // The set-ups as the run named them (a TEST_RESULTS_IDENTIFIER prefixes them), plain first.
  std::vector<std::string> kinds;
  for (const auto& place : outcome.places) {
    std::string kind = results::ParseInstanceName(place.system.identifier).kind;
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
  }
  std::error_code ec;
  if (kinds.size() >= 2 && outcome.summary.saved && std::filesystem::exists(outcome.summary.composite_path, ec)) {
    auto file = results::ReadResultFile(outcome.summary.composite_path);
    const auto setups = AnswerSetups(std::vector<std::string>(kinds.begin() + 1, kinds.end()), buildable, outcome.places);
    std::cout << "\n"
              << reproduce::CostAnswerText(file, kinds.front(), setups, labels, {s.GetDouble("run.same_within"), 0.95})
              << reproduce::DirectIoSourceText(setups);
    // Said again under the answer: the reader of a saved log may never scroll up to the plan.
    if (!plan.timing_caveat.empty()) std::cout << plan.timing_caveat << "\n";
  }
  return outcome.ExitCode();
}

}  // namespace

std::vector<Command> EncryptionCostCommands() {
  return {
      {"encryption-cost", {}, "Running",
       "[--workloads NAME,...] [--setups SPEC,...] [--dry-run] [--target-size SIZE] [--device DEV] [--yes] [--offline]",
       "which disk-encryption set-up costs least here: probe, build each as a target beside plain, run, rank",
       EncryptionCost,
       "Probes the kernel (version, device-mapper, /proc/crypto drivers, AES instructions, cryptsetup,\n"
       "fscrypt, eCryptfs), lists what it will build and what it cannot (and why) and how long it will\n"
       "take (each workload kept within run.time_budget: fewer rounds, then instances, then workloads,\n"
       "each trim said), then runs as `batch-run WORKLOADS --targets plain,SETUPS` (instance pairs in\n"
       "random rounds; as root, caches dropped before every trial: run.drop_caches) and prints each\n"
       "set-up's ratio to plain per workload with its interval and verdict, then latency (p50, p99) and\n"
       "the machine's CPU user/system/softirq seconds per GiB the same way, and the set-up that costs\n"
       "least (geometric mean of speed over workloads; a set-up serving O_DIRECT buffered is not ranked\n"
       "with direct I/O), then in words: what it protects, the cryptsetup command and /etc/crypttab\n"
       "line for dm-crypt. Targets are sized for the workloads. Workloads: rand-read-4k-qd1,\n"
       "rand-read-4k-qd32, seq-write-1m, many-files (the default), rand-write-4k-qd1, rand-write-4k-qd32,\n"
       "seq-read-1m, or any profile, suite or directory. Set-ups: --targets specs (docs/targets.md);\n"
       "default: every kind at its defaults, fscrypt:adiantum, fscrypt:inlinecrypt (where the kernel's\n"
       "config says whether it has inline encryption), dm-crypt:no-read-workqueue:no-write-workqueue,\n"
       "dm-crypt:sector-size=4096, dm-crypt:plain (dm-crypt:loopaes only when named). An option this\n"
       "kernel or cryptsetup lacks is refused with the reason; one the kernel did not apply once built\n"
       "(cryptsetup status, the mount's options) fails that set-up. How each set-up served O_DIRECT is\n"
       "the kernel's word (statx STATX_DIOALIGN) where it gives one.\n"
       "--dry-run prints the probe and the plan and builds nothing. See docs/encryption-cost.md."},
  };
}

}  // namespace ptsn::cli
