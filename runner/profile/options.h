// Test options -> (arguments, description) pairs exactly as PTS 10.8.6 builds them
// (pts_test_option, pts_test_run_options): the value of an entry is prefix + Value + postfix, its
// description "DisplayName: Name" (Name cut before a "(...)" part); combinations are the
// cartesian product in option order (first option slowest), arguments joined by ' ' and
// descriptions by ' - ' with PTS's delimiter/trim quirks.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "runner/profile/test_profile.h"

namespace ptsn::profile {

struct RunOption {
  std::string arguments;    // the result's stored arguments (no Default/Arguments)
  std::string description;  // e.g. "Test: 1000 Files, 1MB Size"
  bool operator==(const RunOption&) const = default;
};

std::string OptionEntryValue(const TestOption& o, int index);        // prefix . Value . postfix
std::string OptionEntryDescription(const TestOption& o, int index);  // "" when PTS gives null
// pts_test_run_options::compute_all_combinations.
std::vector<std::string> ComputeAllCombinations(const std::vector<std::vector<std::string>>& parts,
                                                const std::string& delimiter);

// batch-run / suite Mode BATCH: every entry of every option; with `option_select`
// ("option=Name,option=Name2", a suite's OptionSelect) only the named entries of the listed options.
std::vector<RunOption> BatchOptions(const std::vector<TestOption>& options, const std::string& option_select = "");
// default-run: the default entry of each option, both entries of a two-entry option.
std::vector<RunOption> DefaultOptions(const std::vector<TestOption>& options);

// What a run uses of each option: entries of its menu, or values given verbatim (a free-text
// option's answer, PRESET_OPTIONS_VALUES). An option without a pick is open.
struct OptionPick {
  std::vector<int> entries;         // 0-based, ascending
  std::vector<std::string> values;  // verbatim; used when not empty
};
using OptionPicks = std::map<std::string, OptionPick>;  // option Identifier -> pick

// What an open option becomes: its default entry (run/benchmark), or every entry (batch mode,
// PTS's RunAllTestCombinations). A free-text option left open gets an empty value either way.
enum class OpenOptions { kDefault, kEvery };

// The combinations `picks` select, in PTS's order and with its descriptions. `subtitle` fills the
// description of a single empty combination, as PTS does.
std::vector<RunOption> PickedOptions(const std::vector<TestOption>& options, const OptionPicks& picks,
                                     OpenOptions open, const std::string& subtitle = "");

// The argument string given to the program and matched by MatchToTestArguments (§3.4):
// trim(Default/Arguments . ' ' . extra-without-Default/Arguments . ' ' . Default/PostArguments).
std::string PtsTestArguments(const std::string& default_arguments, const std::string& extra_arguments,
                             const std::string& default_post_arguments);
std::string PtsTestArguments(const TestProfile& profile, const std::string& extra_arguments);

// Facts of the machine used by options whose menus PTS builds at run time
// (pts_test_run_options::auto_process_test_option).
struct MachineFacts {
  int logical_cores = 1;
  int physical_cores = 1;
  long long memory_mb = 1024;
  std::vector<std::pair<int, int>> screen_modes;  // empty: PTS's fixed list is used
  std::pair<int, int> screen_resolution{-1, -1};
  std::vector<std::string> disk_mount_points;  // writable mount points of block devices (not /boot)
  std::vector<std::string> disks;              // /dev/sda, /dev/nvme0n1 ...
  std::vector<std::string> disk_partitions;    // /dev/sda1 ...
  std::vector<std::string> removable_media;    // writable /media/*/
  std::string os = "Linux";                    // Linux, BSD, MacOSX, Windows, Solaris
  std::string arch = "x86_64";
  std::string gpu_model;
  bool opencl = true;  // PTS assumes both work unless clinfo/vulkaninfo report none
  bool vulkan = true;
  std::function<bool(const std::string&)> is_file;            // auto-file-select
  std::function<bool(const std::string&)> is_executable;      // auto-executable
  std::function<bool(const std::string&)> is_writable_dir;    // auto-directory-select
};
// Reads /proc/cpuinfo, /proc/meminfo, /proc/mounts, /dev.
MachineFacts DetectMachineFacts();
// Rewrites dynamic menus and drops entries this machine cannot run (Direct3D, CUDA, OpenCL...),
// as PTS does before any selection. Returns "No supported options found for <id>" style errors.
std::vector<std::string> AutoProcessOptions(std::vector<TestOption>* options, const MachineFacts& facts,
                                            const std::vector<std::string>& external_dependencies);

}  // namespace ptsn::profile
