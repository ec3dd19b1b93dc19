// The one way a target may be put on a block device: the user names it with --device and
// confirms by typing its path when asked, or, where nothing can be asked (batch mode), names it
// again with --destroy-data-on DEVICE. Anything else is refused before anything is created.
// Also refused: a path that is not a block device, and a device that is in use (mounted, or a
// partition of it mounted, or held by device-mapper/RAID): the kernel's exclusive open says so.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "runner/targets/system.h"

namespace ptsn::targets {

struct DeviceFlags {
  std::optional<std::string> device;           // --device
  std::optional<std::string> destroy_data_on;  // --destroy-data-on
};

// Asks the user to type the device path back; returns what they typed (nullopt = no terminal).
using AskToType = std::function<std::optional<std::string>(const std::string& question)>;

// The device the targets go on ("" = none named: files in the test directory). Throws
// ptsn::Error with one line saying what is missing or wrong; nothing has been touched then.
std::string ConfirmedDevice(TargetSystem& sys, const DeviceFlags& flags, const AskToType& ask);

}  // namespace ptsn::targets
