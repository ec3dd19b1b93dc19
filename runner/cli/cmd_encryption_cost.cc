// encryption-cost: which disk-encryption set-up costs least on this machine, for this work. It
// probes the machine (runner/targets/encryption_probe), says what it will build and how long that
// takes, then runs exactly as `batch-run WORKLOADS --targets plain,SETUPS` does (the run session:
// instance pairs in randomized rounds), and ends with each set-up's cost against plain and the
// one that costs least (runner/reproduce/encryption_cost).
#include <filesystem>
#include <iostream>

#include "results-xml/model/result_xml.h"
#include "runner/cli/command.h"
#include "runner/cli/run_context.h"
#include "runner/cli/target_flags.h"
#include "runner/common/error.h"
#include "runner/common/pts_variables.h"
#include "runner/common/strings.h"
#include "runner/common/terminal.h"
#include "runner/profile/options.h"
#include "runner/profile/presets.h"
#include "runner/reproduce/encryption_cost.h"
#include "runner/run/estimate.h"
#include "runner/run/observer.h"
#include "runner/run/run_targets.h"
#include "runner/targets/encryption_probe.h"
#include "runner/targets/target_set.h"

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
    out.push_back({spec.text, spec.Identifier(), targets::WhyUnavailable(sys, spec)});
    if (out.back().why_not.empty()) buildable.push_back(spec);
  }
  return out;
}

// The workloads as run items: a named one is its profile with the options its presets choose;
// any other name is what batch-run takes (a profile, suite or profile directory) as it is.
std::vector<run::RunItem> WorkloadItems(Context& ctx, const std::vector<std::string>& names,
                                        std::vector<std::string>& lines, std::vector<reproduce::WorkloadLabel>& labels) {
  std::vector<run::RunItem> items;
  for (const auto& name : names) {
    const reproduce::Workload* w = reproduce::FindWorkload(name);
    if (!w) {
      for (auto& item : ctx.session->Resolve({name})) items.push_back(std::move(item));
      lines.push_back(name + ": as batch-run runs it");
      continue;
    }
    run::RunItem item = ctx.session->Resolve({w->profile}).at(0);
    std::string presets;
    for (const auto& choice : Split(w->presets, ';')) presets += w->profile + "." + choice + ";";
    auto picks = profile::PicksFromPresets(item.profile, profile::ParsePresets(presets, "workload " + name, false));
    item.fixed_options = profile::PickedOptions(item.profile.options, picks, profile::OpenOptions::kDefault, item.profile.subtitle);
    for (const auto& o : *item.fixed_options) labels.push_back({item.profile.identifier, o.arguments, name});
    lines.push_back(name + ": " + w->what + " (" + w->profile + ": " + item.fixed_options->front().description + ")");
    items.push_back(std::move(item));
  }
  return items;
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
  plan.unoffered = targets::UnofferedChoices(probe);
  std::vector<targets::TargetSpec> buildable;
  auto setup_texts = args.Value("--setups") ? Split(*args.Value("--setups"), ',') : reproduce::DefaultSetups();
  plan.setups = PlanSetups(*sys, setup_texts, buildable);

  std::vector<reproduce::WorkloadLabel> labels;
  auto workload_names = args.Value("--workloads") ? Split(*args.Value("--workloads"), ',') : reproduce::DefaultWorkloadNames();
  auto items = WorkloadItems(ctx, workload_names, plan.workloads, labels);
  auto tests = ctx.session->Plan(items, true);

  // How long: batch-run's estimate of each test on every instance of every target.
  run::RunConfig config;
  config.install_root = s.Get("install.directory");
  config.overrides = run::ReadRunCountOverrides(ProcessEnvironment());
  config.settle_seconds = s.GetDouble("run.settle_seconds");
  const run::InstancePlan instances = run::PlanInstances(s, buildable.size());
  std::vector<double> seconds;
  for (const auto& t : tests) {
    auto e = run::EstimateTest(t, config.install_root, config.overrides, config.settle_seconds);
    seconds.push_back(run::OnPlaces(e, buildable.size() * instances.start, t.profile.test_type == "Disk", config.settle_seconds).seconds);
  }
  plan.estimate = run::DescribeEstimate(seconds);
  plan.instances = run::InstancesCostText(tests, config, buildable.size(), instances);
  plan.time_budget_seconds = s.GetDouble("run.time_budget");
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
  TargetFlags flags = ReadTargetFlags(Args::Parse(with_targets, spec));
  run::SessionRequest request;
  request.batch = true;
  request.yes = args.Has("--yes");
  request.targets.specs = buildable;
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
    std::cout << "\n"
              << reproduce::CostAnswerText(file, kinds.front(), std::vector<std::string>(kinds.begin() + 1, kinds.end()),
                                           labels, {s.GetDouble("run.same_within"), 0.95});
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
       "take, then runs as `batch-run WORKLOADS --targets plain,SETUPS` (instance pairs in random rounds)\n"
       "and prints each set-up's ratio to plain per workload with its interval and verdict, and the\n"
       "set-up that costs least (geometric mean over workloads). Workloads: rand-read-4k-qd1,\n"
       "rand-read-4k-qd32, seq-write-1m, many-files (the default), rand-write-4k-qd1, rand-write-4k-qd32,\n"
       "seq-read-1m, or any profile, suite or directory. Set-ups: --targets specs (docs/targets.md);\n"
       "default: every kind at its defaults, fscrypt:adiantum, dm-crypt:plain, dm-crypt:loopaes.\n"
       "--dry-run prints the probe and the plan and builds nothing. See docs/encryption-cost.md."},
  };
}

}  // namespace ptsn::cli
