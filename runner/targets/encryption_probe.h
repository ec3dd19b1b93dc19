// What this machine offers for disk encryption, read before `encryption-cost` lists what it will
// build: the kernel's version, device-mapper and its targets, the cipher drivers /proc/crypto
// lists, the CPU's AES instructions, cryptsetup, fscrypt and eCryptfs support. Facts only, from
// files under a root (so tests give it a fake /proc and /sys); whether a set-up can be built is
// still WhyUnavailable()'s to say (target_set.h). Knows nothing about results.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ptsn::targets {

// A root-relative view of /proc, /sys, /lib/modules and /boot.
struct ProbeFiles {
  std::function<std::optional<std::string>(const std::string& path)> read;  // nullopt: no such file
  std::function<bool(const std::string& path)> exists;                      // files and directories
};
// The files below `root` ("/" for this machine).
ProbeFiles RootedProbeFiles(const std::string& root);

struct EncryptionProbe {
  std::string kernel_release;  // "6.1.0-13-amd64"; "" when unreadable
  int kernel_major = 0, kernel_minor = 0;
  bool device_mapper = false;           // /proc/misc lists device-mapper
  std::vector<std::string> dm_targets;  // dm target modules loaded, built in or installed: "crypt", "integrity"
  std::string aes_drivers;              // the single-block AES drivers: "aes-generic, aes-aesni"
  std::string xts_driver;               // the driver the kernel hands out for xts(aes) now ("" = none yet)
  bool aes_driver_accelerated = false;  // an AES driver other than the portable C ones
  bool cpu_aes = false;                 // the CPU advertises AES instructions (x86 "aes", Arm "aes")
  std::string cpu_model;                // /proc/cpuinfo's first "model name" ("" when it has none)
  // QEMU's emulator (TCG) names its CPU "QEMU TCG ...": every instruction is translated, so the
  // timings say whether the answer comes from the data, not what encryption costs on hardware.
  bool cpu_emulated = false;
  bool virtual_machine = false;         // the CPU flags include "hypervisor" (KVM, Xen, Hyper-V, TCG)
  std::string cryptsetup_version;       // "cryptsetup 2.6.1"; "" = not installed
  bool fscrypt = false;                 // ext4 offers encryption (/sys/fs/ext4/features/encryption)
  std::string inline_crypto;            // "yes", "no" or "unknown" (kernel config CONFIG_BLK_INLINE_ENCRYPTION)
  bool adiantum = false;                // xchacha12/adiantum in /proc/crypto or as a module
  bool ecryptfs = false;                // in /proc/filesystems or as a module
};

// `cryptsetup_version`: the first line of `cryptsetup --version` ("" when it is not installed).
EncryptionProbe ProbeEncryption(const ProbeFiles& files, const std::string& cryptsetup_version);

// Whether the kernel is at least `major`.`minor`.
bool KernelAtLeast(const EncryptionProbe& p, int major, int minor);

// The probe as lines for people: "kernel: 6.1.0-13-amd64", "device-mapper: yes (targets: crypt)".
std::vector<std::string> ProbeLines(const EncryptionProbe& p);

// What the figures of a run on this CPU can say, when less than the machine's cost: an emulated
// CPU ("the timings check only ..."), a virtual machine; "" on hardware.
std::string TimingCaveat(const EncryptionProbe& p);

// The target options gated by the kernel or cryptsetup (encryption_options.h), each with whether
// this machine can apply it: "dm-crypt no-read-workqueue: yes", "dm-crypt high-priority: no,
// needs Linux 6.10 (this is 6.1)". Each is checked again against the kernel after building.
std::vector<std::string> OptionChoices(const EncryptionProbe& p);

}  // namespace ptsn::targets
