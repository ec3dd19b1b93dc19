// The two /proc files the targets logic reads to know what exists: /proc/self/mountinfo (what is
// mounted where, from which device, with which options) and /proc/PID/stat (whether the process
// that recorded a ledger is still the same process). Pure parsing, tested on captured text.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ptsn::targets {

struct MountEntry {
  std::string mount_point;  // unescaped ("\040" -> ' ')
  std::string fstype, source;
  std::string options;      // per-mount options, then the super block's not among them ("rw,relatime,errors=remount-ro")
};

std::vector<MountEntry> ParseMountInfo(std::string_view text);

// Mount points equal to `dir` or below it, deepest first (the order to unmount them in).
std::vector<std::string> MountPointsUnder(const std::vector<MountEntry>& mounts, const std::string& dir);

// Field 22 (starttime, clock ticks since boot) of a /proc/PID/stat line; "" when malformed. The
// command name (field 2) may hold spaces and ')', so fields are counted after its last ')'.
std::string StartTimeFromStat(std::string_view stat);

}  // namespace ptsn::targets
