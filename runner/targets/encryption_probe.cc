#include "runner/targets/encryption_probe.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "runner/common/strings.h"
#include "runner/targets/crypto_info.h"
#include "runner/targets/encryption_options.h"

namespace fs = std::filesystem;

namespace ptsn::targets {

namespace {

// The dm target names a modules.dep or modules.builtin line names ("kernel/drivers/md/dm-crypt.ko.xz: ..." -> "crypt").
void AddDmTargets(const std::string& modules, std::vector<std::string>& out) {
  for (const auto& line : Split(modules, '\n')) {
    std::string path = Trim(line.substr(0, line.find(':')));
    std::string base = path.substr(path.rfind('/') + 1);
    if (!StartsWith(base, "dm-")) continue;
    std::string name = base.substr(3, base.find(".ko") - 3);
    if (!name.empty() && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
}

bool HasWord(const std::string& text, const std::string& word) {
  std::istringstream in(text);
  for (std::string token; in >> token;)
    if (token == word) return true;
  return false;
}

// The value of the first line of /proc/cpuinfo whose key is `key` ("" when there is none).
std::string CpuInfoValue(const std::string& cpuinfo, const std::string& key) {
  for (const auto& line : Split(cpuinfo, '\n'))
    if (line.find(':') != std::string::npos && Trim(line.substr(0, line.find(':'))) == key)
      return Trim(line.substr(line.find(':') + 1));
  return "";
}

// The CPU's feature flags: x86's "flags" line, else Arm's "Features" line.
std::string CpuFlags(const std::string& cpuinfo) {
  std::string flags = CpuInfoValue(cpuinfo, "flags");
  return flags.empty() ? CpuInfoValue(cpuinfo, "Features") : flags;
}

}  // namespace

ProbeFiles RootedProbeFiles(const std::string& root) {
  ProbeFiles f;
  f.read = [root](const std::string& path) -> std::optional<std::string> {
    std::ifstream in(root + path);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) return std::nullopt;  // a directory opens but cannot be read
    return text.str();
  };
  f.exists = [root](const std::string& path) {
    std::error_code ec;
    return fs::exists(root + path, ec);
  };
  return f;
}

EncryptionProbe ProbeEncryption(const ProbeFiles& files, const std::string& cryptsetup_version) {
  EncryptionProbe p;
  p.kernel_release = Trim(files.read("/proc/sys/kernel/osrelease").value_or(""));
  std::sscanf(p.kernel_release.c_str(), "%d.%d", &p.kernel_major, &p.kernel_minor);
  const std::string modules_dir = "/lib/modules/" + p.kernel_release;
  const std::string modules = files.read(modules_dir + "/modules.dep").value_or("") + "\n" +
                              files.read(modules_dir + "/modules.builtin").value_or("");

  p.device_mapper = files.read("/proc/misc").value_or("").find("device-mapper") != std::string::npos;
  for (const char* loaded : {"crypt", "integrity", "verity", "raid", "thin_pool", "cache"})
    if (files.exists(std::string("/sys/module/dm_") + loaded)) p.dm_targets.push_back(loaded);
  AddDmTargets(modules, p.dm_targets);
  for (auto& t : p.dm_targets) std::replace(t.begin(), t.end(), '_', '-');
  std::sort(p.dm_targets.begin(), p.dm_targets.end());
  p.dm_targets.erase(std::unique(p.dm_targets.begin(), p.dm_targets.end()), p.dm_targets.end());

  const auto crypto = ParseProcCrypto(files.read("/proc/crypto").value_or(""));
  p.aes_drivers = AesCipherDrivers(crypto);
  if (const CryptoAlgorithm* xts = PreferredDriver(crypto, "xts(aes)")) p.xts_driver = xts->driver;
  for (const auto& a : crypto)
    if (a.name == "aes" && !a.internal && a.driver != "aes-generic" && a.driver != "aes-fixed-time")
      p.aes_driver_accelerated = true;
  const std::string cpuinfo = files.read("/proc/cpuinfo").value_or("");
  const std::string flags = CpuFlags(cpuinfo);
  p.cpu_aes = HasWord(flags, "aes");
  p.cpu_model = CpuInfoValue(cpuinfo, "model name");
  p.cpu_emulated = p.cpu_model.find("QEMU TCG") != std::string::npos;
  p.virtual_machine = HasWord(flags, "hypervisor");
  p.cryptsetup_version = Trim(cryptsetup_version);

  p.fscrypt = files.exists("/sys/fs/ext4/features/encryption");
  if (auto config = files.read("/boot/config-" + p.kernel_release))
    p.inline_crypto = config->find("CONFIG_BLK_INLINE_ENCRYPTION=y") != std::string::npos ? "yes" : "no";
  else
    p.inline_crypto = "unknown";
  p.adiantum = PreferredDriver(crypto, "adiantum(xchacha12,aes)") || PreferredDriver(crypto, "xchacha12") ||
               modules.find("/adiantum.ko") != std::string::npos;
  const std::string filesystems = files.read("/proc/filesystems").value_or("");
  p.ecryptfs = filesystems.find("ecryptfs") != std::string::npos || modules.find("/fs/ecryptfs/") != std::string::npos;
  return p;
}

bool KernelAtLeast(const EncryptionProbe& p, int major, int minor) {
  return p.kernel_major > major || (p.kernel_major == major && p.kernel_minor >= minor);
}

std::vector<std::string> ProbeLines(const EncryptionProbe& p) {
  auto yes = [](bool b) { return std::string(b ? "yes" : "no"); };
  return {
      "kernel: " + (p.kernel_release.empty() ? std::string("unknown (/proc/sys/kernel/osrelease unreadable)") : p.kernel_release),
      "device-mapper: " + yes(p.device_mapper) +
          (p.dm_targets.empty() ? " (no dm target modules found)" : " (targets: " + Join(p.dm_targets, ", ") + ")"),
      "CPU: " + (p.cpu_model.empty() ? std::string("unknown") : p.cpu_model) +
          (p.cpu_emulated ? " (emulated)" : p.virtual_machine ? " (a virtual machine)" : "") +
          "; AES instructions: " + yes(p.cpu_aes),
      "AES drivers (/proc/crypto): " + (p.aes_drivers.empty() ? std::string("none listed") : p.aes_drivers) +
          (p.aes_driver_accelerated ? "" : " (portable C only)") +
          (p.xts_driver.empty() ? "" : "; xts(aes) now: " + p.xts_driver),
      "cryptsetup: " + (p.cryptsetup_version.empty() ? std::string("not installed (Debian package cryptsetup-bin)") : p.cryptsetup_version),
      "fscrypt (ext4 encryption): " + yes(p.fscrypt) + "; inline encryption: " + p.inline_crypto + "; Adiantum: " + yes(p.adiantum),
      "eCryptfs: " + yes(p.ecryptfs),
  };
}

std::string TimingCaveat(const EncryptionProbe& p) {
  if (p.cpu_emulated)
    return "This CPU is emulated (" + p.cpu_model + "): the timings check only that the answer comes from the "
           "measured data; they are not what encryption costs on hardware.";
  if (p.virtual_machine)
    return "This is a virtual machine (the CPU's hypervisor flag): the costs are the guest's, over its "
           "virtual disk; the host's can differ.";
  return "";
}

std::vector<std::string> OptionChoices(const EncryptionProbe& p) {
  std::vector<std::string> out;
  auto add = [&](const std::string& spec, const std::string& option) {
    const std::string why = WhyOptionsUnavailable(ParseTargetSpec(spec), p.kernel_release, p.cryptsetup_version, p.inline_crypto);
    out.push_back(option + ": " + (!why.empty()            ? "no, " + why.substr(why.find(": ") + 2)
                                   : p.kernel_major == 0 ? std::string("not known (the kernel's version is unreadable)")
                                                         : std::string("yes")));
  };
  for (const auto& f : DmFlags()) add(std::string("dm-crypt:") + f.option, std::string("dm-crypt ") + f.option);
  add("dm-crypt:sector-size=4096", "dm-crypt sector-size=4096");
  add("fscrypt:inlinecrypt", "fscrypt inlinecrypt");
  if (p.inline_crypto == "unknown" && EndsWith(out.back(), ": yes"))
    out.back() = "fscrypt inlinecrypt: not known (no /boot/config-" + p.kernel_release +
                 " to say whether the kernel has inline encryption): checked once built";
  return out;
}

}  // namespace ptsn::targets
