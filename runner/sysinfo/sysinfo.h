// The system description PTS stores with every result: the Hardware and Software strings
// ("Processor: AMD EPYC (2 Cores), Memory: 24GB, ...") and the System/JSON notes
// (disk-scheduler, disk-mount-options, security, ...), plus the numbers the run environment
// needs (NUM_CPU_CORES, SYS_MEMORY, OS_ARCH...). Everything is read through a SystemReader.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "runner/sysinfo/system_reader.h"

namespace ptsn::sysinfo {

struct CpuInfo {
  std::string model;   // cleaned: "Intel Core i7-8700K", "AMD EPYC"
  int logical = 0;     // processor entries
  int physical = 0;    // distinct (physical id, core id) pairs
  int sockets = 1;
  double max_ghz = 0;  // cpufreq cpuinfo_max_freq, else the "@ x.xxGHz" of the model name
  std::string microcode;
};
CpuInfo ReadCpu(const SystemReader& r);

struct OsRelease {
  std::string id;          // "debian"
  std::string name;        // "Debian 12"
  std::string version_id;  // "12"
};
OsRelease ReadOsRelease(const SystemReader& r);

long MemoryMegabytes(const SystemReader& r);  // MemTotal in MB, 0 if unknown
std::string Architecture(const SystemReader& r);  // "x86_64"

struct MountInfo {
  std::string device, mount_point, type, options;
};
// The mount holding `path` (longest mount point prefix); empty fields when unknown.
MountInfo MountFor(const SystemReader& r, const std::string& path);

// "Key: value" pairs in PTS's order; keys with no value are left out, as PTS does.
using Components = std::vector<std::pair<std::string, std::string>>;
Components HardwareComponents(const SystemReader& r);
Components SoftwareComponents(const SystemReader& r, const std::string& test_dir);
std::string JoinComponents(const Components& c);  // "Processor: X, Memory: Y"

// The Software string's "Compiler": GCC, Clang, LLVM and CUDA as PTS's phodevi finds and words
// them ("GCC 12.2.0 + Clang 14.0.6 + LLVM 14.0.6 + CUDA 13.0"), the one $CC names first; "" when
// none is installed. (PTS also probes PGI, PCC, Intel, Sun and Xcode compilers; see
// docs/pts-differences.md.)
std::string CompilerString(const SystemReader& r);
// The System/JSON "security" note: "SELinux" when enforcing, then "<vulnerability>: <state>" for
// each /sys/devices/system/cpu/vulnerabilities file, shortened as PTS does ("Mitigation: " ->
// "Mitigation of ", "Speculative Store Bypass" -> "SSB", " + " inside a state -> " plus "),
// joined by " + ".
std::string SecurityFeatures(const SystemReader& r);

// json_encode()d notes as PTS writes them in System/JSON ('/' escaped as "\/"). Disk keys only
// when a disk test is part of the run, as in PTS. "" when there is nothing to say.
std::string SystemNotesJson(const SystemReader& r, const std::string& test_dir, bool include_disk_notes);

// The System/JSON "environment-variables" note: NAME=value (quoted when it has a space) of every
// variable whose name holds LIBGL, __GL, DRI_, DEBUG, FLAGS, PERF_ or PERFTEST, in environment
// order, joined by spaces ("CFLAGS=\"-O3 -march=native\" NVPL_BLAS_DEBUG_CPU_TYPE=1").
std::string EnvironmentVariablesNote(const std::vector<std::pair<std::string, std::string>>& env);

// system-logs/<identifier>/environment-variables as pts_client::save_test_result() writes it:
// "NAME=value" lines of PATH, CFLAGS, CXXFLAGS, LD_LIBRARY_PATH, CC, CXX, LIBGL_DRIVERS_PATH (in
// that order, unset or empty ones left out); "" when none is set (PTS writes no file then).
std::string EnvironmentVariablesLog(const std::vector<std::pair<std::string, std::string>>& env);

// PHP's json_encode() escapes '/' as "\/"; applied to JSON text so stored bytes match PTS.
std::string PhpEscapeSlashes(const std::string& json);

}  // namespace ptsn::sysinfo
