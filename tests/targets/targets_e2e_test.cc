// End-to-end: `pts-native targets` on this machine, with real loop devices, file systems and
// fscrypt (dm-crypt where the kernel has device-mapper; skipped with the reason otherwise).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "tests/cli/run_binary.h"
#include "tests/targets/target_env.h"

namespace fs = std::filesystem;
using ptsn::test::RunPtsNative;

namespace {

class TargetsE2E : public ptsn::test::TargetsHomeTest {
 protected:
  std::string Env() { return HomeEnv(); }
};

TEST_F(TargetsE2E, ListsEveryKindOnOneLine) {
  auto r = RunPtsNative("targets", Env());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::regex line("^(plain|fscrypt|dm-crypt|ecryptfs): (available( \\(.+\\))?|unavailable: .+)$");
  std::vector<std::string> kinds;
  std::istringstream in(r.output);
  for (std::string l; std::getline(in, l);) {
    EXPECT_TRUE(std::regex_match(l, line)) << l;
    kinds.push_back(l.substr(0, l.find(':')));
  }
  EXPECT_EQ(kinds, (std::vector<std::string>{"plain", "fscrypt", "dm-crypt", "ecryptfs"}));
  EXPECT_NE(r.output.find("plain: available"), std::string::npos);
  if (!ptsn::test::DeviceMapperHere()) {
    EXPECT_NE(r.output.find("dm-crypt: unavailable: the kernel has no device-mapper"), std::string::npos) << r.output;
  }
}

TEST_F(TargetsE2E, CheckCreatesDescribesAndRemovesPlainAndFscrypt) {
  auto r = RunPtsNative("targets --check plain,fscrypt --target-size 256m --json", Env(), false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["identifier"], "plain ext4");
  EXPECT_EQ(j[1]["identifier"], "fscrypt AES-256-XTS ext4");
  for (const auto& t : j) {
    EXPECT_GT(t["setup_seconds"].get<double>(), 0);
    EXPECT_GT(t["teardown_seconds"].get<double>(), 0);
    EXPECT_EQ(t["work_dir"].get<std::string>().rfind(home_ + "/scratch/.ptsn-targets-", 0), 0u) << t["work_dir"];
  }
  std::string encryption = j[1]["notes"]["Encryption"];
  EXPECT_EQ(encryption.rfind("fscrypt v2 policy, contents AES-256-XTS", 0), 0u) << encryption;
  std::string driver = j[1]["notes"]["Cipher Driver"];
  EXPECT_EQ(driver.rfind("xts(aes): ", 0), 0u) << driver;  // as /proc/crypto names it after use
  EXPECT_NE(std::string(j[0]["notes"]["Device"]).find("/dev/loop"), std::string::npos);
}

TEST_F(TargetsE2E, XfsAndBtrfsWhereTheirToolsAreInstalled) {
  for (const char* fs : {"xfs", "btrfs"}) {
    auto r = RunPtsNative(std::string("targets --check plain:") + fs + " --target-size 512m", Env());
    if (r.output.find("not found (Debian package") != std::string::npos) {
      std::cout << "skipped " << fs << ": " << r.output;
      continue;
    }
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(std::string("File System: ") + fs), std::string::npos) << r.output;
  }
}

TEST_F(TargetsE2E, DmCryptWhereTheKernelHasDeviceMapper) {
  if (!ptsn::test::DeviceMapperHere()) {
    auto r = RunPtsNative("targets --check dm-crypt --target-size 256m", Env());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("dm-crypt LUKS2 AES-256-XTS ext4: the kernel has no device-mapper"), std::string::npos)
        << r.output;
    GTEST_SKIP() << "this kernel has no device-mapper: dm-crypt targets cannot be made here (refusal checked)";
  }
  auto r = RunPtsNative("targets --check dm-crypt,stock=dm-crypt:plain:impl=generic --target-size 256m", Env());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("cipher capi:xts(ecb(aes-generic))-plain64"), std::string::npos) << r.output;
}

TEST_F(TargetsE2E, UnavailableWishesSayWhy) {
  auto r = RunPtsNative("targets --check fscrypt:impl=xts-aes-aesni --target-size 128m", Env());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("fscrypt cannot name a cipher driver (the kernel picks by priority)"), std::string::npos)
      << r.output;
  r = RunPtsNative("targets --check plain --target-size 1k", Env());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.output, "pts-native: error: --target-size 1k: at least 64m (a file system needs room)\n");
}

// The user's "device" here is a loop device over a file with a marker in it: refused without the
// flag (the marker survives), accepted with --destroy-data-on.
TEST_F(TargetsE2E, RefusesADeviceWithoutTheExplicitFlag) {
  std::string image = home_ + "/disk.img";
  std::string marker = "precious data that must survive";
  {
    std::ofstream out(image, std::ios::binary);
    out << marker;
    out.seekp((600 << 20) - 1);
    out.put('\0');
  }
  auto losetup = RunPtsNative("", "losetup --find --show '" + image + "' #");
  std::string device = losetup.output.substr(0, losetup.output.find('\n'));
  ASSERT_EQ(device.rfind("/dev/loop", 0), 0u) << losetup.output;
  auto r = RunPtsNative("targets --check plain --target-size 256m --device " + device + " < /dev/null", Env());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("--device " + device + ": refusing to write to a device without a typed confirmation"),
            std::string::npos)
      << r.output;
  std::string head(marker.size(), '\0');
  std::ifstream(image, std::ios::binary).read(head.data(), static_cast<std::streamsize>(head.size()));
  EXPECT_EQ(head, marker);

  r = RunPtsNative("targets --check plain,fscrypt --target-size 256m --destroy-data-on " + device, Env());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("bytes 256 MiB to 512 MiB of " + device), std::string::npos) << r.output;
  RunPtsNative("", "losetup -d " + device + " #");
}

}  // namespace
