#include "runner/targets/encryption_options.h"

#include <gtest/gtest.h>

#include "runner/common/error.h"

namespace ptsn::targets {
namespace {

// `cryptsetup status` as Debian 12's cryptsetup 2.6.1 prints it for a LUKS2 mapping opened with
// --perf-no_read_workqueue --perf-no_write_workqueue on Linux 6.1.
const char* kStatusWithFlags =
    "/dev/mapper/ptsn-1 is active.\n"
    "  type:    LUKS2\n"
    "  cipher:  aes-xts-plain64\n"
    "  keysize: 512 bits\n"
    "  key location: keyring\n"
    "  device:  /dev/loop0\n"
    "  loop:    /tmp/t1-dm-crypt.img\n"
    "  sector size:  4096\n"
    "  offset:  32768 sectors\n"
    "  size:    491520 sectors\n"
    "  mode:    read/write\n"
    "  flags:   no_read_workqueue no_write_workqueue\n";

// The same mapping where the kernel's table kept no flags: no "flags:" line at all.
const char* kStatusWithoutFlags =
    "/dev/mapper/ptsn-1 is active.\n"
    "  type:    PLAIN\n"
    "  cipher:  aes-xts-plain64\n"
    "  keysize: 512 bits\n"
    "  device:  /dev/loop0\n"
    "  sector size:  512\n"
    "  offset:  0 sectors\n"
    "  size:    524288 sectors\n"
    "  mode:    read/write\n";

TEST(EncryptionOptions, SpecsNameTheFlagsInOneOrderAndRefuseThemOnOtherKinds) {
  TargetSpec s = ParseTargetSpec("dm-crypt:no-write-workqueue:sector-size=4096:no-read-workqueue");
  EXPECT_EQ(s.dm_flags, (std::vector<std::string>{"no-read-workqueue", "no-write-workqueue"}));
  EXPECT_EQ(s.sector_size, 4096);
  EXPECT_EQ(s.Identifier(), "dm-crypt LUKS2 AES-256-XTS no-read-wq no-write-wq sector 4096 ext4");
  EXPECT_EQ(ParseTargetSpec("dm-crypt:plain:same-cpu-crypt:submit-from-crypt-cpus").Identifier(),
            "dm-crypt plain AES-256-XTS same-cpu-crypt submit-from-crypt-cpus ext4");
  EXPECT_TRUE(ParseTargetSpec("fscrypt:inlinecrypt").inlinecrypt);
  EXPECT_EQ(ParseTargetSpec("fscrypt:adiantum:inlinecrypt").Identifier(), "fscrypt Adiantum inlinecrypt ext4");
  EXPECT_THROW(ParseTargetSpec("fscrypt:no-read-workqueue"), Error);
  EXPECT_THROW(ParseTargetSpec("dm-crypt:inlinecrypt"), Error);
  EXPECT_THROW(ParseTargetSpec("dm-crypt:sector-size=3000"), Error);
  EXPECT_THROW(ParseTargetSpec("dm-crypt:no-read-workqueue=1"), Error);
  EXPECT_THROW(ParseTargetSpec("dm-crypt:loopaes:no-read-workqueue"), Error);
  try {
    ParseTargetSpec("plain:sector-size=4096");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "--targets plain:sector-size=4096: sector-size is a dm-crypt option");
  }
}

TEST(EncryptionOptions, RefusedWhereTheKernelOrCryptsetupLacksThem) {
  TargetSpec wq = ParseTargetSpec("dm-crypt:no-read-workqueue:no-write-workqueue");
  EXPECT_EQ(WhyOptionsUnavailable(wq, "5.4.0-150-generic", "cryptsetup 2.2.2", "yes"),
            "no-read-workqueue: needs Linux 5.9 (this is 5.4)");
  EXPECT_EQ(WhyOptionsUnavailable(wq, "5.10.0-28-amd64", "cryptsetup 2.3.3", "yes"),
            "no-read-workqueue: needs cryptsetup 2.3.4 (this is 2.3.3)");
  EXPECT_EQ(WhyOptionsUnavailable(wq, "6.1.0-13-amd64", "cryptsetup 2.6.1 flags: UDEV BLKID", "yes"), "");
  // An unreadable version refuses nothing: the check after building still holds.
  EXPECT_EQ(WhyOptionsUnavailable(wq, "", "", "unknown"), "");
  TargetSpec high = ParseTargetSpec("dm-crypt:high-priority");
  EXPECT_EQ(WhyOptionsUnavailable(high, "6.1.0-13-amd64", "cryptsetup 2.6.1", "yes"),
            "high-priority: needs Linux 6.10 (this is 6.1)");
  EXPECT_EQ(WhyOptionsUnavailable(high, "6.12.9-amd64", "cryptsetup 2.7.5", "yes"),
            "high-priority: needs cryptsetup 2.8.0 (this is 2.7.5)");
  EXPECT_EQ(WhyOptionsUnavailable(ParseTargetSpec("dm-crypt:sector-size=4096"), "4.9.0", "cryptsetup 2.6.1", "yes"),
            "sector-size=4096: needs Linux 4.12 (this is 4.9)");
  TargetSpec inl = ParseTargetSpec("fscrypt:inlinecrypt");
  EXPECT_EQ(WhyOptionsUnavailable(inl, "6.1.0-13-amd64", "", "yes"), "");
  EXPECT_EQ(WhyOptionsUnavailable(inl, "6.1.0-13-amd64", "", "unknown"), "");
  EXPECT_EQ(WhyOptionsUnavailable(inl, "5.4.0", "", "yes"), "inlinecrypt: ext4's needs Linux 5.9 (this is 5.4)");
  EXPECT_NE(WhyOptionsUnavailable(inl, "6.1.0", "", "no").find("no inline encryption"), std::string::npos);
}

TEST(EncryptionOptions, CryptsetupIsToldTheFlagsAsPerfOptions) {
  EXPECT_EQ(DmFlagArguments(ParseTargetSpec("dm-crypt:submit-from-crypt-cpus:no-read-workqueue")),
            (std::vector<std::string>{"--perf-no_read_workqueue", "--perf-submit_from_crypt_cpus"}));
  EXPECT_TRUE(DmFlagArguments(ParseTargetSpec("dm-crypt")).empty());
}

TEST(EncryptionOptions, TheKernelsTableMustHoldWhatWasAskedFor) {
  TargetSpec asked = ParseTargetSpec("dm-crypt:no-read-workqueue:no-write-workqueue:sector-size=4096");
  EXPECT_EQ(DmStatusMismatch(asked, kStatusWithFlags), "");
  EXPECT_EQ(DmStatusMismatch(asked, kStatusWithoutFlags),
            "no-read-workqueue was asked for, but the kernel's dm-crypt table has no no_read_workqueue "
            "(cryptsetup status flags: none)");
  EXPECT_EQ(DmStatusMismatch(ParseTargetSpec("dm-crypt:same-cpu-crypt"), kStatusWithFlags),
            "same-cpu-crypt was asked for, but the kernel's dm-crypt table has no same_cpu_crypt "
            "(cryptsetup status flags: no_read_workqueue no_write_workqueue)");
  EXPECT_EQ(DmStatusMismatch(ParseTargetSpec("dm-crypt:sector-size=4096"), kStatusWithoutFlags),
            "sector-size=4096 was asked for, but the kernel's dm-crypt table has sector size 512");
  EXPECT_EQ(DmStatusMismatch(ParseTargetSpec("dm-crypt"), kStatusWithoutFlags), "");
  // cryptsetup 2.8 runs the last two flags together.
  EXPECT_EQ(DmStatusMismatch(ParseTargetSpec("dm-crypt:no-write-workqueue:high-priority"),
                             "  sector size:  512\n  flags:   no_write_workqueuehigh_priority\n"),
            "");
}

TEST(EncryptionOptions, DirectIoIsWhatStatxSays) {
  EXPECT_EQ(DirectIoNote({true, 512, 512}), "yes (statx STATX_DIOALIGN: memory 512, offset 512 bytes)");
  EXPECT_EQ(DirectIoNote({true, 0, 0}), "no: O_DIRECT is not supported on its files (statx STATX_DIOALIGN: 0)");
  EXPECT_EQ(DirectIoNote({}).rfind("not reported", 0), 0u);
}

TEST(EncryptionOptions, InlinecryptNotAppliedFailsNamingWhatTheKernelDoesInstead) {
  // Mounted with inlinecrypt, a file that takes O_DIRECT: blk-crypto, here its fallback.
  auto ok = CheckInlineCrypt("rw,relatime,inlinecrypt", {true, 4096, 4096}, false, "/dev/loop3");
  EXPECT_EQ(ok.error, "");
  EXPECT_EQ(ok.note, "blk-crypto: blk-crypto-fallback (the kernel's crypto API in the block layer: /dev/loop3 has no "
                     "inline encryption hardware)");
  EXPECT_EQ(CheckInlineCrypt("rw,inlinecrypt", {true, 4096, 4096}, true, "/dev/nvme0n1").note,
            "blk-crypto: inline encryption hardware of /dev/nvme0n1");
  // The option silently dropped by a kernel without CONFIG_FS_ENCRYPTION_INLINE_CRYPT (this host's 6.18).
  auto dropped = CheckInlineCrypt("rw,relatime", {true, 0, 0}, false, "/dev/loop3");
  EXPECT_EQ(dropped.error, "inlinecrypt was asked for, but the mount's options lack it (rw,relatime): the kernel "
                           "ignored it (no CONFIG_FS_ENCRYPTION_INLINE_CRYPT) and fscrypt uses the crypto API");
  // Mounted with it, but blk-crypto would not take the file: fscrypt's own crypto API path.
  auto fallback = CheckInlineCrypt("rw,inlinecrypt", {true, 0, 0}, false, "/dev/loop3");
  EXPECT_NE(fallback.error.find("fscrypt encrypts with the crypto API"), std::string::npos);
  // Before Linux 6.1 the file cannot tell: not failed, not confirmed either.
  auto unknown = CheckInlineCrypt("rw,inlinecrypt", {}, false, "/dev/loop3");
  EXPECT_EQ(unknown.error, "");
  EXPECT_NE(unknown.note.find("not confirmed"), std::string::npos);
}

}  // namespace
}  // namespace ptsn::targets
