// The encryption choices a target spec names beyond its kind and cipher: dm-crypt's performance
// flags and sector size, fscrypt's inlinecrypt. For each: what it needs of the kernel and of
// cryptsetup (so a set-up is refused before anything is built, with the reason), how cryptsetup
// is told, and the check after building against what the kernel reports (the live dm table as
// `cryptsetup status` reads it, the mount's options, statx's direct I/O alignment): an option
// asked for and silently not applied fails the set-up. Pure: text in, text out.
#pragma once

#include <string>
#include <vector>

#include "runner/targets/system.h"
#include "runner/targets/target_spec.h"

namespace ptsn::targets {

// One dm-crypt performance flag.
struct DmFlag {
  const char* option;      // the target option: "no-read-workqueue"
  const char* table_flag;  // the kernel's table and `cryptsetup status`'s "flags:" line: "no_read_workqueue"
  const char* label;       // in the identifier: "no-read-wq"
  int major, minor;        // the first kernel with it
  const char* cryptsetup;  // the first cryptsetup that passes it (--perf-TABLE_FLAG): "2.3.4"
};
const std::vector<DmFlag>& DmFlags();
const DmFlag* FindDmFlag(const std::string& option);

// Why this kernel (its release, "6.1.0-13-amd64") and cryptsetup (`cryptsetup --version`'s first
// line) cannot apply `spec`'s options: "no-read-workqueue: needs Linux 5.9 (this is 5.4)". "" when
// they can, or when a version is unreadable (the check after building still holds).
// `inline_encryption`: the kernel's CONFIG_BLK_INLINE_ENCRYPTION as the probe read it ("yes",
// "no", "unknown").
std::string WhyOptionsUnavailable(const TargetSpec& spec, const std::string& kernel_release,
                                  const std::string& cryptsetup_version, const std::string& inline_encryption);

// cryptsetup open's arguments for `spec`'s flags: {"--perf-no_read_workqueue", ...}. They are
// activation flags only: never stored in a LUKS2 header (no --persistent).
std::vector<std::string> DmFlagArguments(const TargetSpec& spec);

// What `spec` asked for and the kernel's table lacks, from `cryptsetup status NAME`'s output
// ("flags:" and "sector size:" lines): one line naming the option and what the kernel has; ""
// when everything asked for is there.
std::string DmStatusMismatch(const TargetSpec& spec, const std::string& status);

// "yes (statx STATX_DIOALIGN: memory 512, offset 512 bytes)", "no: ...", "not reported (...)".
std::string DirectIoNote(const DirectIoAlignment& dio);

// Where an inlinecrypt target's file contents are encrypted, from the mount's options, the
// file's direct I/O alignment (fscrypt allows O_DIRECT on an encrypted file only when blk-crypto
// encrypts it) and whether the block device has inline encryption hardware
// (/sys/block/DEV/queue/crypto). `error` is set when inlinecrypt was not applied, naming what
// the kernel does instead; `note` says what it does.
struct InlineCryptCheck {
  std::string note, error;
};
InlineCryptCheck CheckInlineCrypt(const std::string& mount_options, const DirectIoAlignment& dio,
                                  bool hardware, const std::string& device);

}  // namespace ptsn::targets
