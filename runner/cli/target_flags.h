// The target options shared by `targets --check`, `run`/`batch-run` and `run <ID>`:
// --targets LIST, --target-size SIZE, --device DEV, --destroy-data-on DEV.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runner/common/args.h"
#include "runner/targets/device_safety.h"
#include "runner/targets/target_set.h"

namespace ptsn::cli {

inline const std::vector<std::string> kTargetValueOptions = {"--targets", "--target-size", "--device",
                                                             "--destroy-data-on"};

struct TargetFlags {
  std::optional<std::string> list;  // --targets as given
  uint64_t size = 1ull << 30;       // --target-size (default 1 GiB)
  targets::DeviceFlags device;
};

// Whether `command` (its canonical name) with `args` mounts storage targets: `benchmark` and
// `batch-benchmark` with --targets, `targets --check`. main() gives such a command a private
// mount namespace before it starts (targets/mount_namespace.h).
bool MountsTargets(const std::string& command, const std::vector<std::string>& args);

// Reads the flags; throws ptsn::Error naming the option on a bad size, or on --target-size,
// --device or --destroy-data-on given without --targets.
TargetFlags ReadTargetFlags(const Args& args);

// The TargetOptions of this run: test directory, size, and the device once confirmed (asking on
// a terminal when `can_ask`, else requiring --destroy-data-on).
targets::TargetOptions ConfirmTargetOptions(targets::TargetSystem& sys, const TargetFlags& flags,
                                            const std::string& test_dir, bool can_ask);

}  // namespace ptsn::cli
