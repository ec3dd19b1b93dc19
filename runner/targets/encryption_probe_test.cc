#include "runner/targets/encryption_probe.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "runner/common/strings.h"

namespace fs = std::filesystem;

namespace ptsn::targets {
namespace {

// A fake root with /proc, /sys, /lib/modules and /boot files, read through RootedProbeFiles.
class EncryptionProbeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("ptsn-probe-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void Write(const std::string& path, const std::string& text) {
    fs::create_directories((root_ / path.substr(1)).parent_path());
    std::ofstream(root_ / path.substr(1)) << text;
  }
  // A Debian 12 machine with AES-NI, dm-crypt as a module, fscrypt and eCryptfs.
  void Debian12() {
    Write("/proc/sys/kernel/osrelease", "6.1.0-13-amd64\n");
    Write("/proc/misc", "236 device-mapper\n237 loop-control\n");
    Write("/lib/modules/6.1.0-13-amd64/modules.dep",
          "kernel/drivers/md/dm-crypt.ko.xz: kernel/drivers/md/dm-mod.ko.xz\n"
          "kernel/drivers/md/dm-integrity.ko.xz: kernel/drivers/md/dm-bufio.ko.xz\n"
          "kernel/fs/ecryptfs/ecryptfs.ko.xz:\nkernel/crypto/adiantum.ko.xz:\n");
    Write("/lib/modules/6.1.0-13-amd64/modules.builtin", "kernel/drivers/md/dm-mod.ko\n");
    Write("/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu vme sse2 aes avx\n");
    Write("/proc/crypto",
          "name         : aes\ndriver       : aes-aesni\nmodule       : aesni_intel\npriority     : 300\n"
          "selftest     : passed\ntype         : cipher\n\n"
          "name         : aes\ndriver       : aes-generic\nmodule       : kernel\npriority     : 100\n"
          "selftest     : passed\ntype         : cipher\n\n"
          "name         : xts(aes)\ndriver       : xts-aes-aesni\nmodule       : aesni_intel\npriority     : 401\n"
          "selftest     : passed\ntype         : skcipher\n");
    Write("/proc/filesystems", "nodev\tsysfs\n\text4\n");
    Write("/sys/fs/ext4/features/encryption", "supported\n");
    Write("/boot/config-6.1.0-13-amd64", "CONFIG_FS_ENCRYPTION=y\nCONFIG_BLK_INLINE_ENCRYPTION=y\n");
    fs::create_directories(root_ / "sys/module/dm_crypt");
  }
  EncryptionProbe Probe(const std::string& cryptsetup = "cryptsetup 2.6.1 flags: UDEV BLKID") {
    return ProbeEncryption(RootedProbeFiles(root_.string()), cryptsetup);
  }
  fs::path root_;
};

TEST_F(EncryptionProbeTest, ReadsEveryFactOfAFullMachine) {
  Debian12();
  auto p = Probe();
  EXPECT_EQ(p.kernel_release, "6.1.0-13-amd64");
  EXPECT_EQ(p.kernel_major, 6);
  EXPECT_EQ(p.kernel_minor, 1);
  EXPECT_TRUE(p.device_mapper);
  EXPECT_EQ(p.dm_targets, (std::vector<std::string>{"crypt", "integrity", "mod"}));
  EXPECT_TRUE(p.cpu_aes);
  EXPECT_TRUE(p.aes_driver_accelerated);
  EXPECT_EQ(p.xts_driver, "xts-aes-aesni");
  EXPECT_NE(p.aes_drivers.find("aes-aesni"), std::string::npos);
  EXPECT_EQ(p.cryptsetup_version, "cryptsetup 2.6.1 flags: UDEV BLKID");
  EXPECT_TRUE(p.fscrypt);
  EXPECT_EQ(p.inline_crypto, "yes");
  EXPECT_TRUE(p.adiantum);
  EXPECT_TRUE(p.ecryptfs);
}

TEST_F(EncryptionProbeTest, NoAesFlagAndOnlyTheGenericDriver) {
  Debian12();
  Write("/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu vme sse2 avx\n");
  Write("/proc/crypto",
        "name         : aes\ndriver       : aes-generic\nmodule       : kernel\npriority     : 100\n"
        "selftest     : passed\ntype         : cipher\n");
  auto p = Probe();
  EXPECT_FALSE(p.cpu_aes);
  EXPECT_FALSE(p.aes_driver_accelerated);
  EXPECT_EQ(p.xts_driver, "");
  auto lines = ProbeLines(p);
  EXPECT_NE(std::find(lines.begin(), lines.end(), "CPU: unknown; AES instructions: no"), lines.end());
  EXPECT_EQ(TimingCaveat(p), "") << "no model name, no hypervisor flag: nothing to say";
  EXPECT_NE(Join(lines, "\n").find("aes-generic (portable C only)"), std::string::npos);
}

// QEMU's emulator names its CPU: every timing of a run there is the emulator's, and the plan and
// the answer say so; a guest under KVM is only a virtual machine.
TEST_F(EncryptionProbeTest, AnEmulatedCpuAndAVirtualMachineAreSaid) {
  Write("/proc/cpuinfo", "processor\t: 0\nmodel name\t: QEMU TCG version 2.5+\nflags\t\t: fpu aes hypervisor\n"
                         "processor\t: 1\nmodel name\t: QEMU TCG version 2.5+\n");
  auto p = Probe();
  EXPECT_TRUE(p.cpu_emulated);
  EXPECT_TRUE(p.virtual_machine);
  EXPECT_NE(Join(ProbeLines(p), "\n").find("CPU: QEMU TCG version 2.5+ (emulated); AES instructions: yes"), std::string::npos);
  EXPECT_NE(TimingCaveat(p).find("This CPU is emulated (QEMU TCG version 2.5+): the timings check only"), std::string::npos);

  Write("/proc/cpuinfo", "processor\t: 0\nmodel name\t: AMD EPYC 7B13\nflags\t\t: fpu aes hypervisor\n");
  p = Probe();
  EXPECT_FALSE(p.cpu_emulated);
  EXPECT_NE(Join(ProbeLines(p), "\n").find("CPU: AMD EPYC 7B13 (a virtual machine); AES instructions: yes"), std::string::npos);
  EXPECT_NE(TimingCaveat(p).find("This is a virtual machine"), std::string::npos);

  Write("/proc/cpuinfo", "processor\t: 0\nmodel name\t: Intel(R) Core(TM) i5-2520M\nflags\t\t: fpu aes\n");
  EXPECT_EQ(TimingCaveat(Probe()), "");
}

TEST_F(EncryptionProbeTest, ArmFeaturesLineCountsToo) {
  Write("/proc/cpuinfo", "processor\t: 0\nFeatures\t: fp asimd aes pmull sha1\n");
  EXPECT_TRUE(Probe().cpu_aes);
}

TEST_F(EncryptionProbeTest, NoDeviceMapperNoCryptsetupNoFscrypt) {
  Write("/proc/sys/kernel/osrelease", "6.1.0\n");
  Write("/proc/misc", "237 loop-control\n");
  auto p = Probe("");
  EXPECT_FALSE(p.device_mapper);
  EXPECT_TRUE(p.dm_targets.empty());
  EXPECT_FALSE(p.fscrypt);
  EXPECT_FALSE(p.ecryptfs);
  EXPECT_EQ(p.inline_crypto, "unknown");
  std::string text = Join(ProbeLines(p), "\n");
  EXPECT_NE(text.find("device-mapper: no (no dm target modules found)"), std::string::npos) << text;
  EXPECT_NE(text.find("cryptsetup: not installed (Debian package cryptsetup-bin)"), std::string::npos) << text;
}

TEST_F(EncryptionProbeTest, AnOldKernelLacksTheWorkqueueFlags) {
  Write("/proc/sys/kernel/osrelease", "5.4.0-42-generic\n");
  auto p = Probe();
  EXPECT_TRUE(KernelAtLeast(p, 5, 4));
  EXPECT_FALSE(KernelAtLeast(p, 5, 9));
  auto choices = OptionChoices(p);
  ASSERT_EQ(choices.size(), 7u);
  EXPECT_EQ(choices[0], "dm-crypt no-read-workqueue: no, needs Linux 5.9 (this is 5.4)");
  EXPECT_EQ(choices[2], "dm-crypt same-cpu-crypt: yes");
  EXPECT_EQ(choices[6], "fscrypt inlinecrypt: no, ext4's needs Linux 5.9 (this is 5.4)");
}

TEST_F(EncryptionProbeTest, ANewKernelHasThemAndAnUnreadableOneIsNotRefused) {
  Write("/proc/sys/kernel/osrelease", "6.10.2\n");
  auto choices = OptionChoices(Probe("cryptsetup 2.7.0"));
  EXPECT_EQ(choices[0], "dm-crypt no-read-workqueue: yes");
  EXPECT_EQ(choices[4], "dm-crypt high-priority: no, needs cryptsetup 2.8.0 (this is 2.7.0)");
  // No /boot/config here: whether inlinecrypt applies is known only once it is built.
  EXPECT_EQ(choices[6], "fscrypt inlinecrypt: not known (no /boot/config-6.10.2 to say whether the kernel has inline "
                        "encryption): checked once built");
  fs::remove_all(root_);
  // Unknown versions refuse nothing: the check after building decides.
  EXPECT_EQ(OptionChoices(Probe(""))[4], "dm-crypt high-priority: not known (the kernel's version is unreadable)");
}

}  // namespace
}  // namespace ptsn::targets
