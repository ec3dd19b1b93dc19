#include "runner/targets/target_spec.h"

#include <gtest/gtest.h>

#include "runner/common/error.h"

namespace ptsn::targets {
namespace {

// The one-line error a spec list is refused with, or "accepted".
std::string Refusal(const std::string& text) {
  try {
    ParseTargetList(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(TargetSpec, KindsWithDefaults) {
  auto list = ParseTargetList("plain,fscrypt,dm-crypt");
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].kind, Kind::kPlain);
  EXPECT_EQ(list[0].Identifier(), "plain ext4");
  EXPECT_EQ(list[1].Identifier(), "fscrypt AES-256-XTS ext4");
  EXPECT_EQ(list[2].Identifier(), "dm-crypt LUKS2 AES-256-XTS ext4");
  EXPECT_EQ(list[2].dm_format, "luks2");
  EXPECT_EQ(DmCryptCipher(list[2], ""), "aes-xts-plain64");
}

TEST(TargetSpec, OptionsAndNames) {
  auto s = ParseTargetSpec("Stock=dm-crypt:plain:xfs:impl=generic");
  EXPECT_EQ(s.name, "Stock");
  EXPECT_EQ(s.Identifier(), "Stock");
  EXPECT_EQ(s.dm_format, "plain");
  EXPECT_EQ(s.fs, "xfs");
  EXPECT_EQ(s.impl, "generic");
  EXPECT_EQ(DefaultIdentifier(s), "dm-crypt plain AES-256-XTS aes-generic xfs");
  EXPECT_EQ(DmCryptCipher(s, "xts(aes-generic)"), "capi:xts(aes-generic)-plain64");

  auto a = ParseTargetSpec("fscrypt:adiantum");
  EXPECT_EQ(a.fscrypt_mode, "adiantum");
  EXPECT_EQ(a.Identifier(), "fscrypt Adiantum ext4");
  EXPECT_EQ(ParseTargetSpec("plain:fs=btrfs").fs, "btrfs");
  EXPECT_EQ(ParseTargetSpec("dm-crypt:key-size=256").Identifier(), "dm-crypt LUKS2 AES-128-XTS ext4");
}

TEST(TargetSpec, IoSchedulerOnAnyKind) {
  auto s = ParseTargetSpec("dm-crypt:plain:sched=mq-deadline");
  EXPECT_EQ(s.scheduler, "mq-deadline");
  EXPECT_EQ(s.Identifier(), "dm-crypt plain AES-256-XTS ext4 mq-deadline");
  EXPECT_EQ(ParseTargetSpec("plain:scheduler=bfq").scheduler, "bfq");
  EXPECT_EQ(ParseTargetSpec("plain").scheduler, "");
  try {
    ParseTargetSpec("plain:sched=cfq");
    FAIL() << "cfq is gone from the kernel";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("I/O scheduler 'cfq' (expected none, mq-deadline, bfq or kyber)"), std::string::npos)
        << e.what();
  }
}

TEST(TargetSpec, LoopAesVolumes) {
  auto s = ParseTargetSpec("dm-crypt:loopaes");
  EXPECT_EQ(s.dm_format, "loopaes");
  EXPECT_EQ(s.Identifier(), "dm-crypt loop-AES AES-256 ext4");
  EXPECT_EQ(ParseTargetSpec("dm-crypt:format=loopaes:key-size=128").Identifier(), "dm-crypt loop-AES AES-128 ext4");
  for (const char* bad : {"dm-crypt:loopaes:key-size=512", "dm-crypt:loopaes:impl=generic",
                          "dm-crypt:loopaes:cipher=aes-cbc-plain"}) {
    try {
      ParseTargetSpec(bad);
      FAIL() << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("loop-AES"), std::string::npos) << e.what();
    }
  }
}

TEST(TargetSpec, RaidLevelsMembersAndChunk) {
  EXPECT_EQ(ParseTargetSpec("plain:raid=1").raid_members, 2);
  EXPECT_EQ(ParseTargetSpec("plain:raid=5").raid_members, 3);
  EXPECT_EQ(ParseTargetSpec("plain:raid=10").Identifier(), "plain RAID10x4 ext4");
  auto s = ParseTargetSpec("fscrypt:raid=0:members=3:chunk=128");
  EXPECT_EQ(s.raid_level, "0");
  EXPECT_EQ(s.raid_members, 3);
  EXPECT_EQ(s.raid_chunk_kib, 128);
  for (const char* bad : {"plain:raid=6", "plain:raid=5:members=2", "plain:members=3", "plain:raid=1:chunk=64"})
    EXPECT_THROW(ParseTargetSpec(bad), Error) << bad;
}

TEST(TargetSpec, NfsIsTheClientsViewOfPlainAndDmCrypt) {
  EXPECT_EQ(ParseTargetSpec("plain:nfs").nfs_version, "4.2");
  EXPECT_EQ(ParseTargetSpec("plain:nfs").Identifier(), "plain ext4 over NFSv4.2");
  EXPECT_EQ(ParseTargetSpec("dm-crypt:raid=10:members=4:nfs=4.1").Identifier(),
            "dm-crypt LUKS2 AES-256-XTS RAID10x4 ext4 over NFSv4.1");
  EXPECT_EQ(ParseTargetSpec("plain:nfs=4").nfs_version, "4.0");
  EXPECT_EQ(ParseTargetSpec("plain").nfs_version, "");
  EXPECT_EQ(Refusal("plain:nfs=3"), "--targets plain:nfs=3: NFS version '3' (expected 4.2, 4.1 or 4.0: NFSv3 would need rpcbind)");
  EXPECT_EQ(Refusal("ecryptfs:nfs"),
            "--targets ecryptfs:nfs: nfs: ecryptfs is not exported here (the kernel's NFS server cannot export eCryptfs); "
            "plain and dm-crypt targets are");
  EXPECT_NE(Refusal("fscrypt:nfs"), "accepted");
}

TEST(TargetSpec, CipherTakesTheRestWithItsColons) {
  auto s = ParseTargetSpec("dm-crypt:xfs:cipher=capi:xts(aes-generic)-plain64");
  EXPECT_EQ(s.cipher, "capi:xts(aes-generic)-plain64");
  EXPECT_EQ(s.fs, "xfs");
  EXPECT_EQ(DmCryptCipher(s, ""), "capi:xts(aes-generic)-plain64");
  EXPECT_EQ(s.Identifier(), "dm-crypt LUKS2 capi:xts(aes-generic)-plain64 512-bit xfs");
}

TEST(TargetSpec, EcryptfsIsAes128OverExt4ByDefault) {
  auto s = ParseTargetSpec("ecryptfs");
  EXPECT_EQ(s.kind, Kind::kEcryptfs);
  EXPECT_EQ(s.ecryptfs_key_bytes, 16);
  EXPECT_EQ(s.Identifier(), "ecryptfs AES-128 ext4");
  auto stock = ParseTargetSpec("ecryptfs:xfs:key-bytes=32:impl=generic");
  EXPECT_EQ(stock.Identifier(), "ecryptfs AES-256 aes-generic xfs");
}

TEST(TargetSpec, RejectsWithOneLineNamingTheSpec) {
  EXPECT_EQ(Refusal("encfs"), "--targets encfs: unknown target kind 'encfs' (expected plain, fscrypt, dm-crypt or ecryptfs)");
  EXPECT_EQ(Refusal("ecryptfs:key-bytes=20"), "--targets ecryptfs:key-bytes=20: key-bytes 20 (expected 16, 24 or 32)");
  EXPECT_EQ(Refusal("fscrypt:impl=xts-aes-aesni"),
            "--targets fscrypt:impl=xts-aes-aesni: fscrypt cannot name a cipher driver (the kernel picks by priority): "
            "impl= takes generic or aesni here");
  EXPECT_EQ(Refusal("fscrypt:adiantum:impl=generic"),
            "--targets fscrypt:adiantum:impl=generic: impl= chooses an AES driver; Adiantum is not AES-XTS");
  EXPECT_EQ(Refusal("plain:zfs"), "--targets plain:zfs: unknown option 'zfs'");
  EXPECT_EQ(Refusal("plain:fs=zfs"), "--targets plain:fs=zfs: file system 'zfs' (expected ext4, xfs, btrfs or reiserfs)");
  EXPECT_EQ(Refusal("plain:impl=generic"), "--targets plain:impl=generic: impl= needs an encrypting target (plain has no cipher)");
  EXPECT_EQ(Refusal("fscrypt:xfs"), "--targets fscrypt:xfs: fscrypt targets are ext4 here (xfs has no fscrypt support we set up)");
  EXPECT_EQ(Refusal("plain:adiantum"), "--targets plain:adiantum: mode adiantum is an fscrypt option");
  EXPECT_EQ(Refusal("dm-crypt:key-size=12"), "--targets dm-crypt:key-size=12: key-size 12 (expected bits: 256, 512...)");
  EXPECT_EQ(Refusal("plain,plain"), "--targets plain,plain: two targets are both 'plain ext4' (give one a name: NAME=plain)");
  EXPECT_EQ(Refusal(" , "), "--targets: empty list (expected e.g. plain,fscrypt)");
  EXPECT_EQ(Refusal("=plain"), "--targets =plain: empty name before '='");
  EXPECT_EQ(Refusal("dm-crypt:impl=generic:cipher=aes-cbc-essiv:sha256"),
            "--targets dm-crypt:impl=generic:cipher=aes-cbc-essiv:sha256: give either cipher= (which may name the "
            "implementation with capi:) or impl=, not both");
  EXPECT_EQ(Refusal("a=plain,a=fscrypt"), "--targets a=plain,a=fscrypt: two targets are both 'a' (give one a name: NAME=a=fscrypt)");
}

}  // namespace
}  // namespace ptsn::targets
