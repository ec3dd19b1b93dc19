// What the user asks for with --targets: a list of target specifications, parsed into plain
// data before anything is created. Grammar (one spec; specs are separated by ','):
//
//   [NAME=]KIND[:OPTION]...
//   KIND    plain | fscrypt | dm-crypt | ecryptfs
//   OPTION  ext4 | xfs | btrfs | reiserfs | fs=FS      the file system (default ext4; for ecryptfs
//                                                      the one beneath it; reiserfs where the
//                                                      kernel still has it: Linux < 6.13)
//           aes-256-xts | adiantum | mode=MODE         fscrypt's encryption mode (default AES-256-XTS)
//           luks2 | plain | loopaes | format=FORMAT    dm-crypt's format (default LUKS2; loopaes:
//                                                      a loop-AES v3 volume opened by cryptsetup)
//           key-size=BITS                              dm-crypt key size (default 512 for XTS)
//           key-bytes=16 | 24 | 32                     eCryptfs's AES key (default 16: AES-128, as
//                                                      Ubuntu's encrypted home)
//           impl=generic | aesni | DRIVER              the cipher implementation (kernel driver;
//                                                      fscrypt and ecryptfs: generic or aesni)
//           raid=0|1|5|10                              Linux software RAID (md) beneath the
//           members=N  chunk=KiB                       kind, over N loop devices of the target
//                                                      size each (default N: 2, 2, 3, 4; chunk:
//                                                      mdadm's default)
//           sched=SCHEDULER                            the I/O scheduler of the target's loop
//                                                      device: none | mq-deadline | bfq | kyber
//                                                      (default: the kernel's)
//           nfs | nfs=4.2 | 4.1 | 4.0                  the tests run on an NFS client's mount of
//                                                      the target, exported by the kernel's NFS
//                                                      server over loopback (plain and dm-crypt)
//           no-read-workqueue | no-write-workqueue     dm-crypt's performance flags (cryptsetup
//           same-cpu-crypt | submit-from-crypt-cpus    --perf-*; LUKS2 and plain), each checked in
//           high-priority                              the kernel's table after it is built
//           sector-size=512|1024|2048|4096             dm-crypt's encryption sector (default:
//                                                      cryptsetup's choice; LUKS2 and plain)
//           inlinecrypt                                fscrypt: mount with -o inlinecrypt (blk-crypto,
//                                                      hardware or blk-crypto-fallback), checked after
//           cipher=CIPHER                              dm-crypt cipher as cryptsetup takes it
//                                                      (aes-xts-plain64, capi:xts(aes)-plain64);
//                                                      must come last: it may contain ':'
//
// NAME, when given, is the System identifier of the target in the result file (it may not
// contain ':' or ','); otherwise one is made from the spec ("fscrypt AES-256-XTS ext4").
#pragma once

#include <string>
#include <vector>

namespace ptsn::targets {

enum class Kind { kPlain, kFscrypt, kDmCrypt, kEcryptfs };
const char* KindName(Kind kind);  // "plain", "fscrypt", "dm-crypt", "ecryptfs"

struct TargetSpec {
  std::string text;       // as given, for messages
  std::string name;       // NAME= ("" = DefaultIdentifier)
  Kind kind = Kind::kPlain;
  std::string fs = "ext4";
  // fscrypt
  std::string fscrypt_mode = "aes-256-xts";  // or "adiantum"
  // dm-crypt
  std::string dm_format = "luks2";  // or "plain", "loopaes"
  std::string cipher;               // cryptsetup --cipher; "" = aes-xts-plain64 (or from impl)
  int key_bits = 0;                 // 0 = 512 (AES-256-XTS)
  std::vector<std::string> dm_flags;  // performance flags as options name them, in DmFlags() order
  int sector_size = 0;              // 0 = cryptsetup's choice
  // fscrypt: mount with inlinecrypt
  bool inlinecrypt = false;
  // eCryptfs
  int ecryptfs_key_bytes = 16;      // AES-128, as Ubuntu's encrypted home directories
  // "" = whatever the kernel picks (the highest-priority driver); otherwise "generic", "aesni"
  // or (dm-crypt only) a driver name from /proc/crypto. fscrypt and eCryptfs cannot name a
  // driver: "generic" lowers the other AES drivers' priority for the run (PreferGenericAes).
  std::string impl;
  std::string scheduler;  // the loop device's I/O scheduler ("" = the kernel's default)
  // Software RAID beneath the kind: md level ("" = none), members, chunk in KiB (0 = mdadm's)
  std::string raid_level;
  int raid_members = 0;
  int raid_chunk_kib = 0;
  // Seen from an NFS client: the NFS version the client mounts ("" = the target itself)
  std::string nfs_version;

  std::string Identifier() const;  // name, else DefaultIdentifier()
};

// "plain ext4", "fscrypt AES-256-XTS ext4", "dm-crypt LUKS2 AES-256-XTS aes-generic xfs".
std::string DefaultIdentifier(const TargetSpec& spec);

// One spec; throws ptsn::Error "--targets X: why" on anything it does not understand.
TargetSpec ParseTargetSpec(const std::string& text);

// The whole --targets value ("plain,fscrypt,fast=dm-crypt:plain"); throws on an empty list and
// on two targets with the same identifier (they would be one System in the result file).
std::vector<TargetSpec> ParseTargetList(const std::string& list);

// The cryptsetup cipher a dm-crypt spec uses: `cipher` if given, else aes-xts-plain64, or, when
// the implementation was chosen, the kernel-API form naming it: `capi_algorithm` is what
// ResolveImplementation() found ("xts(ecb(aes-generic))", "xts-aes-aesni") and the result is
// "capi:xts(ecb(aes-generic))-plain64".
std::string DmCryptCipher(const TargetSpec& spec, const std::string& capi_algorithm);

}  // namespace ptsn::targets
