#include "runner/targets/encryption_options.h"

#include <cstdio>
#include <tuple>

#include "runner/common/strings.h"

namespace ptsn::targets {

namespace {

struct Version {
  int major = 0, minor = 0, patch = 0;
  bool known() const { return major > 0; }
  bool AtLeast(int ma, int mi, int pa = 0) const { return std::tie(major, minor, patch) >= std::tie(ma, mi, pa); }
  std::string Text() const {
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  }
};

// "6.1.0-13-amd64" -> 6.1.0; "cryptsetup 2.6.1 flags: ..." -> 2.6.1 (the first digits).
Version ParseVersion(const std::string& text) {
  Version v;
  const size_t at = text.find_first_of("0123456789");
  if (at != std::string::npos) std::sscanf(text.c_str() + at, "%d.%d.%d", &v.major, &v.minor, &v.patch);
  return v;
}

// "needs Linux 5.9 (this is 5.4)", "" when the kernel has it or its version is unknown.
std::string NeedsKernel(const Version& kernel, int major, int minor) {
  if (!kernel.known() || kernel.AtLeast(major, minor)) return "";
  return "needs Linux " + std::to_string(major) + "." + std::to_string(minor) + " (this is " +
         std::to_string(kernel.major) + "." + std::to_string(kernel.minor) + ")";
}

std::string NeedsCryptsetup(const Version& cryptsetup, const std::string& first) {
  const Version need = ParseVersion(first);
  if (!cryptsetup.known() || cryptsetup.AtLeast(need.major, need.minor, need.patch)) return "";
  return "needs cryptsetup " + first + " (this is " + cryptsetup.Text() + ")";
}

// The value after "key:" in `cryptsetup status` output ("  sector size:  512" -> "512").
std::string StatusValue(const std::string& status, const std::string& key) {
  for (const auto& line : Split(status, '\n')) {
    const std::string t = Trim(line);
    if (StartsWith(t, key + ":")) return Trim(t.substr(key.size() + 1));
  }
  return "";
}

bool HasOption(const std::string& options, const std::string& option) {
  for (const auto& o : Split(options, ','))
    if (Trim(o) == option) return true;
  return false;
}

}  // namespace

const std::vector<DmFlag>& DmFlags() {
  // Versions from the kernel's and cryptsetup's history (../shared/reference/encryption-cost-facts.md).
  static const std::vector<DmFlag> kFlags = {
      {"no-read-workqueue", "no_read_workqueue", "no-read-wq", 5, 9, "2.3.4"},
      {"no-write-workqueue", "no_write_workqueue", "no-write-wq", 5, 9, "2.3.4"},
      {"same-cpu-crypt", "same_cpu_crypt", "same-cpu-crypt", 4, 0, "1.7.0"},
      {"submit-from-crypt-cpus", "submit_from_crypt_cpus", "submit-from-crypt-cpus", 4, 0, "1.7.0"},
      {"high-priority", "high_priority", "high-priority", 6, 10, "2.8.0"},
  };
  return kFlags;
}

const DmFlag* FindDmFlag(const std::string& option) {
  for (const auto& f : DmFlags())
    if (option == f.option) return &f;
  return nullptr;
}

std::string WhyOptionsUnavailable(const TargetSpec& spec, const std::string& kernel_release,
                                  const std::string& cryptsetup_version, const std::string& inline_encryption) {
  const Version kernel = ParseVersion(kernel_release), cryptsetup = ParseVersion(cryptsetup_version);
  for (const auto& option : spec.dm_flags) {
    const DmFlag* f = FindDmFlag(option);
    if (!f) continue;
    std::string why = NeedsKernel(kernel, f->major, f->minor);
    if (why.empty()) why = NeedsCryptsetup(cryptsetup, f->cryptsetup);
    if (!why.empty()) return option + ": " + why;
  }
  if (spec.sector_size) {
    std::string why = NeedsKernel(kernel, 4, 12);
    if (why.empty()) why = NeedsCryptsetup(cryptsetup, "2.0.0");
    if (!why.empty()) return "sector-size=" + std::to_string(spec.sector_size) + ": " + why;
  }
  if (spec.inlinecrypt) {
    if (std::string why = NeedsKernel(kernel, 5, 9); !why.empty()) return "inlinecrypt: ext4's " + why;
    if (inline_encryption == "no")
      return "inlinecrypt: the kernel has no inline encryption (CONFIG_BLK_INLINE_ENCRYPTION is not set); fscrypt "
             "would use the crypto API";
  }
  return "";
}

std::vector<std::string> DmFlagArguments(const TargetSpec& spec) {
  std::vector<std::string> out;
  for (const auto& option : spec.dm_flags)
    if (const DmFlag* f = FindDmFlag(option)) out.push_back(std::string("--perf-") + f->table_flag);
  return out;
}

std::string DmStatusMismatch(const TargetSpec& spec, const std::string& status) {
  // cryptsetup 2.8 prints "no_write_workqueuehigh_priority" (no space between the last two): a
  // flag is looked for as text, and no flag's name is part of another's.
  const std::string flags = StatusValue(status, "flags");
  for (const auto& option : spec.dm_flags) {
    const DmFlag* f = FindDmFlag(option);
    if (f && flags.find(f->table_flag) == std::string::npos)
      return option + " was asked for, but the kernel's dm-crypt table has no " + f->table_flag +
             " (cryptsetup status flags: " + (flags.empty() ? "none" : flags) + ")";
  }
  const std::string sector = StatusValue(status, "sector size");
  if (spec.sector_size && sector != std::to_string(spec.sector_size))
    return "sector-size=" + std::to_string(spec.sector_size) + " was asked for, but the kernel's dm-crypt table has " +
           (sector.empty() ? "no sector size (cryptsetup status has no \"sector size:\" line)" : "sector size " + sector);
  return "";
}

std::string DirectIoNote(const DirectIoAlignment& dio) {
  if (!dio.reported) return "not reported (statx STATX_DIOALIGN needs Linux 6.1 and a file system that reports it)";
  if (dio.memory == 0) return "no: O_DIRECT is not supported on its files (statx STATX_DIOALIGN: 0)";
  return "yes (statx STATX_DIOALIGN: memory " + std::to_string(dio.memory) + ", offset " + std::to_string(dio.offset) +
         " bytes)";
}

InlineCryptCheck CheckInlineCrypt(const std::string& mount_options, const DirectIoAlignment& dio, bool hardware,
                                  const std::string& device) {
  if (!HasOption(mount_options, "inlinecrypt"))
    return {"", "inlinecrypt was asked for, but the mount's options lack it (" + mount_options +
                    "): the kernel ignored it (no CONFIG_FS_ENCRYPTION_INLINE_CRYPT) and fscrypt uses the crypto API"};
  const std::string where = hardware ? "inline encryption hardware of " + device
                                     : "blk-crypto-fallback (the kernel's crypto API in the block layer: " + device +
                                           " has no inline encryption hardware)";
  // Only blk-crypto, native or its fallback, lets fscrypt serve O_DIRECT: a file that does not
  // support it is encrypted by fscrypt itself with the crypto API.
  if (!dio.reported) return {"blk-crypto asked for (inlinecrypt); not confirmed: statx has no STATX_DIOALIGN before Linux 6.1", ""};
  if (dio.memory == 0)
    return {"", "inlinecrypt was asked for and mounted, but a file in it does not use blk-crypto (statx: no direct "
                "I/O): fscrypt encrypts with the crypto API (no inline encryption hardware on " + device +
                    " and no CONFIG_BLK_INLINE_ENCRYPTION_FALLBACK)"};
  return {"blk-crypto: " + where, ""};
}

}  // namespace ptsn::targets
