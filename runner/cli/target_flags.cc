#include "runner/cli/target_flags.h"

#include <algorithm>
#include <iostream>

#include "results-xml/store/result_store.h"
#include "runner/common/error.h"
#include "runner/common/settings.h"
#include "runner/common/strings.h"
#include "runner/reproduce/result_id.h"
#include "runner/workloads/units.h"

namespace ptsn::cli {

bool MountsTargets(const std::string& command, const std::vector<std::string>& args) {
  // encryption-cost builds its set-ups as targets (unless it only prints its plan).
  if (command == "encryption-cost") return std::find(args.begin(), args.end(), "--dry-run") == args.end();
  if (command != "targets" && command != "benchmark" && command != "batch-benchmark" && command != "reproduce")
    return false;
  // `run <ID>` offers to build the published set-ups as targets (reproduce/session_steps.h).
  if ((command == "benchmark" || command == "reproduce") && !args.empty() && !StartsWith(args[0], "-") &&
      std::find(args.begin(), args.end(), "--no-targets") == args.end() &&
      (reproduce::IsOpenBenchmarkingId(args[0]) ||
       results::FindSavedResultDir(args[0], results::ResultDirectories(GlobalSettings()))))
    return true;
  // targets --cleanup may mount too: the nfsd file system, to stop an NFS server a dead run started.
  for (const auto& a : args)
    if (command == "targets" ? a == "--check" || StartsWith(a, "--check=") || a == "--cleanup"
                             : a == "--targets" || StartsWith(a, "--targets="))
      return true;
  return false;
}

TargetFlags ReadTargetFlags(const Args& args) {
  TargetFlags f;
  f.list = args.Value("--targets");
  if (auto size = args.Value("--target-size")) {
    f.size = workloads::ParseSize(*size, "--target-size");
    if (f.size < (64ull << 20)) throw Error("--target-size " + *size + ": at least 64m (a file system needs room)");
  }
  f.device.device = args.Value("--device");
  f.device.destroy_data_on = args.Value("--destroy-data-on");
  if (!f.list)
    for (const auto& option : {"--target-size", "--device", "--destroy-data-on"})
      if (args.Has(option)) throw Error(std::string(option) + " needs --targets (e.g. --targets plain,fscrypt)");
  return f;
}

targets::TargetOptions ConfirmTargetOptions(targets::TargetSystem& sys, const TargetFlags& flags,
                                            const std::string& test_dir, bool can_ask) {
  targets::TargetOptions o;
  o.test_dir = test_dir;
  o.size = flags.size;
  targets::AskToType ask;
  if (can_ask)
    ask = [](const std::string& question) -> std::optional<std::string> {
      std::cout << question << std::flush;
      std::string line;
      if (!std::getline(std::cin, line)) return std::nullopt;
      return line;
    };
  o.device = targets::ConfirmedDevice(sys, flags.device, ask);
  return o;
}

}  // namespace ptsn::cli
