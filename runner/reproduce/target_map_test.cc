#include "runner/reproduce/target_map.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "results-xml/model/result_xml.h"
#include "runner/common/shared_dir.h"

namespace ptsn::reproduce {
namespace {

std::string Seed(const std::string& name) {
  return ::ptsn::SharedDir() + "/reference/seed-results/" + name + "/composite.xml";
}

// This machine: no device-mapper, no eCryptfs, no crypto_user.
std::string NoDeviceMapper(const targets::TargetSpec& s) {
  if (s.kind == targets::Kind::kDmCrypt) return "the kernel has no device-mapper";
  if (s.kind == targets::Kind::kEcryptfs) return "the kernel has no eCryptfs";
  if (s.impl == "generic") return "no crypto_user";
  return "";
}

TEST(TargetMap, AesNiPerformanceEcryptfsVersusDmcrypt) {
  if (!std::filesystem::exists(Seed("1110088-AR-1110066AR56"))) GTEST_SKIP() << "../shared not present";
  auto file = results::ReadResultFile(Seed("1110088-AR-1110066AR56"));
  auto m = ProposeTargets(file, NoDeviceMapper);
  ASSERT_EQ(m.proposals.size(), 5u);
  EXPECT_EQ(m.proposals[0].published, "");
  EXPECT_EQ(m.proposals[0].spec.Identifier(), "plain ext4");
  EXPECT_EQ(m.proposals[1].published, "Encrypted Home (eCryptfs): Stock");
  EXPECT_EQ(m.proposals[1].spec.Identifier(), "fscrypt AES-256-XTS ext4");
  EXPECT_EQ(m.proposals[1].reason, "eCryptfs -> fscrypt (the kernel's file-system encryption that succeeded it; no "
                                   "eCryptfs here: the kernel has no eCryptfs)");
  EXPECT_EQ(m.proposals[1].caveat, "stock cannot be chosen here (no crypto_user): runs with the kernel's choice");
  EXPECT_EQ(m.proposals[2].spec.Identifier(), "fscrypt AES-256-XTS aesni ext4");
  EXPECT_EQ(m.proposals[3].spec.Identifier(), "dm-crypt LUKS2 AES-256-XTS aes-generic ext4");
  EXPECT_EQ(m.proposals[3].spec.impl, "generic");
  EXPECT_EQ(m.proposals[4].spec.Identifier(), "dm-crypt LUKS2 AES-256-XTS aesni ext4");
  ASSERT_EQ(m.targets.size(), 3u);
  EXPECT_EQ(m.targets[0].Identifier(), "plain ext4");
  EXPECT_EQ(m.targets[1].Identifier(), "fscrypt AES-256-XTS ext4");
  EXPECT_EQ(m.targets[2].Identifier(), "fscrypt AES-256-XTS aesni ext4");
  EXPECT_EQ(m.unavailable, (std::vector<std::string>{
                               "dm-crypt LUKS2 AES-256-XTS aes-generic ext4: the kernel has no device-mapper",
                               "dm-crypt LUKS2 AES-256-XTS aesni ext4: the kernel has no device-mapper"}));
  std::string text = FormatTargetMapping(m);
  EXPECT_NE(text.find("  Encrypted LVM (dmcrypt): Stock           ->  dm-crypt LUKS2 AES-256-XTS aes-generic ext4  "
                      "(dm-crypt, stock -> the generic AES (capi:xts(ecb(aes-generic)))); NOT AVAILABLE HERE: the kernel "
                      "has no device-mapper\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Will create 3 targets: plain ext4, fscrypt AES-256-XTS ext4, fscrypt AES-256-XTS aesni ext4\n"),
            std::string::npos)
      << text;
}

TEST(TargetMap, AesNiPerformanceOnAKernelWithEcryptfs) {
  if (!std::filesystem::exists(Seed("1110088-AR-1110066AR56"))) GTEST_SKIP() << "../shared not present";
  auto m = ProposeTargets(results::ReadResultFile(Seed("1110088-AR-1110066AR56")), nullptr);
  std::vector<std::string> ids;
  for (const auto& t : m.targets) ids.push_back(t.Identifier());
  EXPECT_EQ(ids, (std::vector<std::string>{"plain ext4", "ecryptfs AES-128 aes-generic ext4", "ecryptfs AES-128 aesni ext4",
                                           "dm-crypt LUKS2 AES-256-XTS aes-generic ext4",
                                           "dm-crypt LUKS2 AES-256-XTS aesni ext4"}));
  EXPECT_EQ(m.proposals[1].reason, "eCryptfs, stock -> the generic AES (the AES-NI drivers lowered while its trials run)");
}

TEST(TargetMap, Ubuntu1304NoHomeAndFullDiskEncryption) {
  if (!std::filesystem::exists(Seed("ubuntu-1304-disk-encryption"))) GTEST_SKIP() << "../shared not present";
  auto file = results::ReadResultFile(Seed("ubuntu-1304-disk-encryption"));
  auto m = ProposeTargets(file, nullptr);
  ASSERT_EQ(m.proposals.size(), 3u) << "a published unencrypted system is the reference; none added";
  EXPECT_EQ(m.proposals[0].spec.Identifier(), "plain ext4");
  EXPECT_EQ(m.proposals[0].reason, "no encryption -> plain");
  EXPECT_EQ(m.proposals[1].spec.Identifier(), "ecryptfs AES-128 ext4");  // "File-System: ext4 (ecryptfs)"
  EXPECT_EQ(m.proposals[2].spec.Identifier(), "dm-crypt LUKS2 AES-256-XTS ext4");
  EXPECT_EQ(m.targets.size(), 3u);
}

TEST(TargetMap, FileSystemFromTheSoftwareString) {
  results::ResultFile f;
  f.systems.resize(2);
  f.systems[0].identifier = "XFS plain";
  f.systems[0].software = "OS: Debian, File-System: xfs";
  f.systems[1].identifier = "LUKS";
  f.systems[1].software = "OS: Debian, File-System: zfs";
  auto m = ProposeTargets(f, nullptr);
  EXPECT_EQ(m.proposals[0].spec.Identifier(), "plain xfs");
  EXPECT_EQ(m.proposals[1].spec.Identifier(), "dm-crypt LUKS2 AES-256-XTS ext4");
  EXPECT_EQ(m.proposals[1].caveat, "file system zfs -> ext4");
}

}  // namespace
}  // namespace ptsn::reproduce
