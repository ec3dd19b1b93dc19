#include "runner/targets/device_safety.h"

#include "runner/common/error.h"
#include "runner/common/strings.h"

namespace ptsn::targets {

std::string ConfirmedDevice(TargetSystem& sys, const DeviceFlags& flags, const AskToType& ask) {
  if (!flags.device && !flags.destroy_data_on) return "";
  if (flags.device && flags.destroy_data_on && *flags.device != *flags.destroy_data_on)
    throw Error("--device " + *flags.device + " and --destroy-data-on " + *flags.destroy_data_on +
                " name different devices: refusing to touch either");
  std::string device = flags.device ? *flags.device : *flags.destroy_data_on;
  uint64_t bytes = sys.BlockDeviceBytes(device);  // throws "not a block device"
  if (std::string busy = sys.DeviceBusy(device); !busy.empty())
    throw Error("--device " + device + ": in use (" + busy + "); refusing to destroy its data");
  if (flags.destroy_data_on) return device;
  std::string question = "All data on " + device + " (" + std::to_string(bytes >> 20) +
                         " MiB) will be destroyed by the targets. Type " + device + " to go on: ";
  std::optional<std::string> typed = ask ? ask(question) : std::nullopt;
  if (!typed)
    throw Error("--device " + device + ": refusing to write to a device without a typed confirmation; this run cannot "
                "ask, so confirm with --destroy-data-on " + device);
  if (Trim(*typed) != device) throw Error("--device " + device + ": not confirmed (typed '" + Trim(*typed) + "'); nothing was touched");
  return device;
}

}  // namespace ptsn::targets
