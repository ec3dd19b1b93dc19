#include "runner/targets/target_set.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "runner/common/error.h"
#include "runner/targets/crypto_info.h"
#include "runner/targets/fake_system.h"
#include "runner/workloads/test_dir.h"

namespace fs = std::filesystem;

namespace ptsn::targets {
namespace {

using testing::FakeSystem;

class TargetSetTest : public ::testing::Test {
 protected:
  TargetOptions Options() {
    TargetOptions o;
    o.test_dir = "/t";
    o.size = 512ull << 20;
    return o;
  }
  std::string Base() { return "/t/.ptsn-targets-" + std::to_string(getpid()); }
  std::string Pid() { return std::to_string(getpid()); }
  workloads::testing::TempDir tmp_;
  FakeSystem sys_;
  Ledger ledger_{tmp_.path(), getpid(), "1"};
};

TEST_F(TargetSetTest, PlainIsAFileALoopDeviceAFileSystemAndAMount) {
  {
    TargetSet set(sys_, ledger_, Options());
    Target& t = set.Create(ParseTargetSpec("plain"));
    EXPECT_EQ(t.identifier, "plain ext4");
    EXPECT_EQ(t.work_dir, Base() + "/t1-plain");
    EXPECT_EQ(t.device, "/dev/loop0");
    std::vector<std::string> expected = {
        "mkdir /t", "mkdir " + Base(), "allocate " + Base() + "/t1-plain.img 536870912",
        "attach " + Base() + "/t1-plain.img offset 0 size 536870912",
        "mkfs.ext4 -F -q -b 4096 -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 /dev/loop0", "mkdir " + Base() + "/t1-plain",
        "mount /dev/loop0 " + Base() + "/t1-plain ext4",
        // whether its files take O_DIRECT, as the kernel says of one
        "allocate " + Base() + "/t1-plain/.ptsn-direct-io 4096", "statx " + Base() + "/t1-plain/.ptsn-direct-io",
        "rm " + Base() + "/t1-plain/.ptsn-direct-io"};
    EXPECT_EQ(sys_.log, expected);
    EXPECT_EQ(ledger_.resources().size(), 5u);  // mount namespace, run directory, file, loop, mount
    EXPECT_EQ(t.NotesText(),
              "pts-native target plain ext4 (plain). Encryption: none. File System: ext4 (mkfs.ext4 -F -q -b 4096 -E "
              "nodiscard,lazy_itable_init=0,lazy_journal_init=0). Mount Options: rw,relatime. Device: /dev/loop0 (loop "
              "device over a 512 MiB file in /t, direct I/O on). Direct I/O: yes (statx STATX_DIOALIGN: memory 512, "
              "offset 512 bytes).");
    sys_.log.clear();
    EXPECT_TRUE(set.RemoveAll().empty());
    expected = {"umount " + Base() + "/t1-plain", "detach /dev/loop0", "rm " + Base() + "/t1-plain.img",
                "rm -r " + Base()};
    EXPECT_EQ(sys_.log, expected);
  }
  EXPECT_TRUE(sys_.Clean());
  EXPECT_TRUE(ledger_.resources().empty());
  EXPECT_FALSE(fs::exists(ledger_.path()));
}

// The sector sizes the kernel gives the loop device are in the notes (they decide dm-crypt's
// sector size and what O_DIRECT must align to).
TEST_F(TargetSetTest, TheLoopDevicesSectorSizesAreNoted) {
  sys_.texts["/sys/block/loop0/queue/logical_block_size"] = "512\n";
  sys_.texts["/sys/block/loop0/queue/physical_block_size"] = "4096\n";
  TargetSet set(sys_, ledger_, Options());
  Target& t = set.Create(ParseTargetSpec("plain"));
  EXPECT_NE(t.NotesText().find(". Sector Size: logical 512, physical 4096 (/dev/loop0). "), std::string::npos) << t.NotesText();
  set.RemoveAll();
  EXPECT_TRUE(sys_.Clean());
}

TEST_F(TargetSetTest, ReiserFsIsMadeWithoutQuestionsWhereTheKernelHasIt) {
  sys_.texts["/proc/filesystems"] += "\treiserfs\n";
  TargetSet set(sys_, ledger_, Options());
  Target& t = set.Create(ParseTargetSpec("plain:reiserfs"));
  EXPECT_EQ(t.identifier, "plain reiserfs");
  auto has = [&](const std::string& line) { return std::find(sys_.log.begin(), sys_.log.end(), line) != sys_.log.end(); };
  EXPECT_TRUE(has("mkfs.reiserfs -f -f -q /dev/loop0"));
  EXPECT_TRUE(has("mount /dev/loop0 " + Base() + "/t1-plain reiserfs"));
  EXPECT_NE(t.NotesText().find("File System: reiserfs (mkfs.reiserfs -f -f -q)"), std::string::npos) << t.NotesText();
  set.RemoveAll();
  EXPECT_TRUE(sys_.Clean());
}

TEST_F(TargetSetTest, FscryptAddsARandomKeyByIoctlAndEncryptsTheWorkDirectory) {
  TargetSet set(sys_, ledger_, Options());
  Target& t = set.Create(ParseTargetSpec("fscrypt"));
  EXPECT_EQ(t.work_dir, Base() + "/t1-fscrypt/encrypted");
  auto has = [&](const std::string& line) { return std::find(sys_.log.begin(), sys_.log.end(), line) != sys_.log.end(); };
  EXPECT_TRUE(has("mkfs.ext4 -F -q -b 4096 -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 -O encrypt /dev/loop0"));
  EXPECT_TRUE(has("add-key " + Base() + "/t1-fscrypt"));
  EXPECT_TRUE(has("policy " + Base() + "/t1-fscrypt/encrypted 1/4 flags 3 key 00000000000000000000000000000000"));
  ASSERT_EQ(sys_.keys.size(), 1u);
  EXPECT_EQ(sys_.inputs.back(), std::string(64, 'k'));  // 512-bit key, handed over in memory only
  EXPECT_NE(t.NotesText().find("Encryption: fscrypt v2 policy, contents AES-256-XTS, file names AES-256-CTS, 512-bit"),
            std::string::npos)
      << t.NotesText();
  EXPECT_NE(t.NotesText().find("Cipher Driver: xts(aes): xts-aes-aesni (module aesni_intel, priority 401)"),
            std::string::npos)
      << t.NotesText();
  sys_.log.clear();
  set.RemoveAll();
  EXPECT_EQ(sys_.log.front(), "remove-key " + Base() + "/t1-fscrypt 00000000000000000000000000000000");
  EXPECT_TRUE(sys_.Clean());
}

TEST_F(TargetSetTest, AdiantumUsesItsModeForContentsAndNames) {
  sys_.texts["/proc/crypto"] += "name : xchacha12\ndriver : xchacha12-generic\npriority : 100\ntype : skcipher\n\n";
  TargetSet set(sys_, ledger_, Options());
  set.Create(ParseTargetSpec("fscrypt:adiantum"));
  EXPECT_NE(std::find(sys_.log.begin(), sys_.log.end(),
                      "policy " + Base() + "/t1-fscrypt/encrypted 9/9 flags 3 key 00000000000000000000000000000000"),
            sys_.log.end());
}

TEST_F(TargetSetTest, DmCryptLuks2FormatsOpensAndClosesWithTheKeyOnStdin) {
  TargetSet set(sys_, ledger_, Options());
  Target& t = set.Create(ParseTargetSpec("dm-crypt:impl=generic"));
  std::string name = "ptsn-" + Pid() + "-1";
  EXPECT_EQ(t.device, "/dev/mapper/" + name);
  auto has = [&](const std::string& line) { return std::find(sys_.log.begin(), sys_.log.end(), line) != sys_.log.end(); };
  EXPECT_TRUE(has("cryptsetup luksFormat --type luks2 --batch-mode --cipher capi:xts(ecb(aes-generic))-plain64 --key-size 512 "
                  "--pbkdf pbkdf2 --pbkdf-force-iterations 1000 --hash sha256 --key-file - /dev/loop0"));
  EXPECT_TRUE(has("cryptsetup open --type luks2 --key-file - /dev/loop0 " + name));
  EXPECT_TRUE(has("mount /dev/mapper/" + name + " " + Base() + "/t1-dm-crypt ext4"));
  EXPECT_EQ(sys_.inputs[0], std::string(64, 'k'));
  EXPECT_EQ(sys_.inputs[1], std::string(64, 'k'));
  EXPECT_NE(t.NotesText().find("Encryption: dm-crypt LUKS2, cipher capi:xts(ecb(aes-generic))-plain64, 512-bit key (random "
                               "per run), sector size 512"),
            std::string::npos)
      << t.NotesText();
  sys_.log.clear();
  set.RemoveAll();
  std::vector<std::string> expected = {"umount " + Base() + "/t1-dm-crypt", "cryptsetup close " + name,
                                       "detach /dev/loop0", "rm " + Base() + "/t1-dm-crypt.img", "rm -r " + Base()};
  EXPECT_EQ(sys_.log, expected);
  EXPECT_TRUE(sys_.Clean());
}

TEST_F(TargetSetTest, DmCryptFlagsAndSectorSizeGoToCryptsetupAndAreCheckedInTheKernelsTable) {
  TargetSet set(sys_, ledger_, Options());
  Target& t = set.Create(ParseTargetSpec("dm-crypt:no-write-workqueue:no-read-workqueue:sector-size=4096"));
  const std::string name = "ptsn-" + Pid() + "-1";
  auto has = [&](const std::string& line) { return std::find(sys_.log.begin(), sys_.log.end(), line) != sys_.log.end(); };
  EXPECT_TRUE(has("cryptsetup --version"));  // the refusal before building asks cryptsetup its version
  EXPECT_TRUE(has("cryptsetup luksFormat --type luks2 --sector-size 4096 --batch-mode --cipher aes-xts-plain64 --key-size 512 "
                  "--pbkdf pbkdf2 --pbkdf-force-iterations 1000 --hash sha256 --key-file - /dev/loop0"));
  EXPECT_TRUE(has("cryptsetup open --type luks2 --perf-no_read_workqueue --perf-no_write_workqueue --key-file - /dev/loop0 " + name));
  EXPECT_NE(t.NotesText().find("sector size 4096, flags no_read_workqueue no_write_workqueue (the kernel's table)"),
            std::string::npos)
      << t.NotesText();
  // Plain mode: the sector size and flags both on open.
  Target& p = set.Create(ParseTargetSpec("dm-crypt:plain:same-cpu-crypt:sector-size=4096"));
  EXPECT_TRUE(has("cryptsetup open --type plain --perf-same_cpu_crypt --sector-size 4096 --cipher aes-xts-plain64 --key-size 512 "
                  "--keyfile-size 64 --key-file - /dev/loop1 ptsn-" + Pid() + "-2"));
  EXPECT_EQ(p.identifier, "dm-crypt plain AES-256-XTS same-cpu-crypt sector 4096 ext4");
  set.RemoveAll();
  EXPECT_TRUE(sys_.Clean());
}

// A kernel that opened the mapping without a flag asked for: the set-up fails with the reason and
// nothing of it is left.
TEST_F(TargetSetTest, AFlagTheKernelDidNotApplyFailsTheSetUp) {
  sys_.kernel_ignores_flags = true;
  TargetSet set(sys_, ledger_, Options());
  try {
    set.Create(ParseTargetSpec("dm-crypt:no-read-workqueue"));
    FAIL() << "created";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "dm-crypt LUKS2 AES-256-XTS no-read-wq ext4: no-read-workqueue was asked for, but the kernel's "
                           "dm-crypt table has no no_read_workqueue (cryptsetup status flags: none)");
  }
  EXPECT_TRUE(sys_.Clean());
  EXPECT_TRUE(sys_.mappings.empty());
}

TEST_F(TargetSetTest, OptionsThisKernelLacksAreRefusedBeforeBuilding) {
  sys_.texts["/proc/sys/kernel/osrelease"] = "5.4.0-150-generic\n";
  EXPECT_EQ(WhyUnavailable(sys_, ParseTargetSpec("dm-crypt:no-read-workqueue")),
            "no-read-workqueue: needs Linux 5.9 (this is 5.4)");
  sys_.texts["/proc/sys/kernel/osrelease"] = "6.1.0-13-amd64\n";
  sys_.texts["/boot/config-6.1.0-13-amd64"] = "# CONFIG_BLK_INLINE_ENCRYPTION is not set\n";
  EXPECT_NE(WhyUnavailable(sys_, ParseTargetSpec("fscrypt:inlinecrypt")).find("no inline encryption"), std::string::npos);
  EXPECT_EQ(WhyUnavailable(sys_, ParseTargetSpec("dm-crypt:high-priority")), "high-priority: needs Linux 6.10 (this is 6.1)");
  EXPECT_EQ(WhyUnavailable(sys_, ParseTargetSpec("dm-crypt:no-read-workqueue")), "");
}

// Every target says whether its files take O_DIRECT, as statx tells of a file where the tests run.
TEST_F(TargetSetTest, DirectIoIsWhatTheKernelSaysOfAFileWhereTheTestsRun) {
  TargetSet set(sys_, ledger_, Options());
  sys_.dio = {true, 0, 0};
  Target& t = set.Create(ParseTargetSpec("fscrypt"));
  auto has = [&](const std::string& line) { return std::find(sys_.log.begin(), sys_.log.end(), line) != sys_.log.end(); };
  EXPECT_TRUE(has("statx " + t.work_dir + "/.ptsn-direct-io"));
  EXPECT_TRUE(has("rm " + t.work_dir + "/.ptsn-direct-io"));
  EXPECT_NE(t.NotesText().find("Direct I/O: no: O_DIRECT is not supported on its files (statx STATX_DIOALIGN: 0)."),
            std::string::npos)
      << t.NotesText();
  set.RemoveAll();
  EXPECT_TRUE(sys_.Clean());
}

TEST_F(TargetSetTest, InlinecryptIsMountedAndMustBeWhatEncryptsTheFiles) {
  sys_.dio = {true, 4096, 4096};
  sys_.missing_paths = {"/sys/block/loop0/queue/crypto"};
  TargetSet set(sys_, ledger_, Options());
  Target& t = set.Create(ParseTargetSpec("fscrypt:inlinecrypt"));
  EXPECT_NE(std::find(sys_.log.begin(), sys_.log.end(), "mount /dev/loop0 " + Base() + "/t1-fscrypt ext4 -o inlinecrypt"),
            sys_.log.end());
  EXPECT_NE(t.NotesText().find("Inline Encryption: blk-crypto: blk-crypto-fallback"), std::string::npos) << t.NotesText();
  set.RemoveAll();
  // Silently mounted without it: the set-up fails, naming what the kernel does instead.
  sys_.kernel_ignores_inlinecrypt = true;
  sys_.dio = {true, 0, 0};
  try {
    set.Create(ParseTargetSpec("fscrypt:inlinecrypt"));
    FAIL() << "created";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("inlinecrypt was asked for, but the mount's options lack it (rw,relatime)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(sys_.Clean());
}

TEST_F(TargetSetTest, EcryptfsMountsOverADirectoryOfItsFileSystemWithTheKeyFromThePassphrase) {
  TargetSet set(sys_, ledger_, Options());
  Target& t = set.Create(ParseTargetSpec("ecryptfs:key-bytes=32"));
  auto has = [&](const std::string& line) { return std::find(sys_.log.begin(), sys_.log.end(), line) != sys_.log.end(); };
  EXPECT_TRUE(has("mount /dev/loop0 " + Base() + "/t1-ecryptfs ext4"));
  EXPECT_TRUE(has("mount " + Base() + "/t1-ecryptfs/.ecryptfs-lower " + Base() + "/t1-ecryptfs-ecryptfs ecryptfs"));
  EXPECT_EQ(t.work_dir, Base() + "/t1-ecryptfs-ecryptfs");
  // The passphrase: 32 random bytes as hex, on the tool's stdin only.
  std::string hex;
  for (int i = 0; i < 32; ++i) hex += "6b";  // 'k', the fake's random byte
  EXPECT_NE(std::find(sys_.inputs.begin(), sys_.inputs.end(), hex), sys_.inputs.end());
  EXPECT_NE(t.NotesText().find("Encryption: eCryptfs over ext4, cipher AES-256 (ecryptfs_key_bytes=32"), std::string::npos)
      << t.NotesText();
  EXPECT_NE(t.NotesText().find("Implementation: the kernel's choice"), std::string::npos) << t.NotesText();
  sys_.log.clear();
  set.RemoveAll();
  ASSERT_GE(sys_.log.size(), 2u);
  EXPECT_EQ(sys_.log[0], "umount " + Base() + "/t1-ecryptfs-ecryptfs");  // the upper one first
  EXPECT_EQ(sys_.log[1], "umount " + Base() + "/t1-ecryptfs");
  EXPECT_TRUE(sys_.Clean());
}

TEST_F(TargetSetTest, GenericAesForPriorityKindsLowersTheOthersOnlyWhileItsTrialsRun) {
  TargetSet set(sys_, ledger_, Options());
  Target& stock = set.Create(ParseTargetSpec("Stock=ecryptfs:impl=generic"));
  auto crypto = [&] { return ParseProcCrypto(sys_.texts["/proc/crypto"]); };
  // The generic instances were made, and the AES-NI drivers lowered below them (and recorded).
  EXPECT_EQ(PreferredDriver(crypto(), "xts(aes)")->driver, "xts(ecb(aes-generic))");
  EXPECT_EQ(PreferredDriver(crypto(), "aes")->driver, "aes-generic");
  EXPECT_NE(std::find(sys_.log.begin(), sys_.log.end(), "crypto-priority xts-aes-aesni 10"), sys_.log.end());
  bool recorded = false;
  for (const auto& r : ledger_.resources())
    recorded |= r.type == ResourceType::kCryptoPriority && r.path == "xts-aes-aesni" && r.detail == "401";
  EXPECT_TRUE(recorded);
  EXPECT_NE(stock.NotesText().find("xts-aes-aesni 401 -> 10"), std::string::npos) << stock.NotesText();
  // An AES-NI target gives them back before its own trials; the stock one lowers them again.
  set.Create(ParseTargetSpec("AES-NI=ecryptfs:impl=aesni"));
  EXPECT_EQ(PreferredDriver(crypto(), "xts(aes)")->driver, "xts-aes-aesni");
  set.Enter(set.targets()[0]);  // (Create's reference is gone with the vector's growth)
  EXPECT_EQ(PreferredDriver(crypto(), "xts(aes)")->driver, "xts(ecb(aes-generic))");
  set.Enter(set.targets()[1]);
  EXPECT_EQ(PreferredDriver(crypto(), "aes")->driver, "aes-aesni");
  set.Enter(set.targets()[0]);
  set.RemoveAll();  // given back at the end too
  EXPECT_EQ(PreferredDriver(crypto(), "xts(aes)")->driver, "xts-aes-aesni");
  EXPECT_TRUE(ledger_.resources().empty());
}

TEST_F(TargetSetTest, AKernelThatHandsOutAnotherDriverStopsTheTarget) {
  // No AES-NI cts driver: an AES-NI fscrypt target cannot be had.
  std::string& crypto = sys_.texts["/proc/crypto"];
  size_t cts = crypto.find("name         : cts(cbc(aes))");
  ASSERT_NE(cts, std::string::npos);
  crypto.erase(cts, crypto.find("\n\n", cts) + 2 - cts);
  TargetSet set(sys_, ledger_, Options());
  try {
    set.Create(ParseTargetSpec("fscrypt:impl=aesni"));
    FAIL() << "created";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the kernel hands out cts(cbc(aes)): no driver instead of aesni"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(sys_.Clean());
}

TEST_F(TargetSetTest, PlainDmCryptTakesTheRawKeyOfTheKeySize) {
  TargetSet set(sys_, ledger_, Options());
  set.Create(ParseTargetSpec("dm-crypt:plain:key-size=256"));
  std::string name = "ptsn-" + Pid() + "-1";
  EXPECT_NE(std::find(sys_.log.begin(), sys_.log.end(),
                      "cryptsetup open --type plain --cipher aes-xts-plain64 --key-size 256 --keyfile-size 32 --key-file - "
                      "/dev/loop0 " + name),
            sys_.log.end());
  EXPECT_EQ(sys_.inputs[0], std::string(32, 'k'));
}

TEST_F(TargetSetTest, RaidBeneathDmCryptIsOneArrayOverItsMembersAndGoesWithThem) {
  TargetSet set(sys_, ledger_, Options());
  Target& t = set.Create(ParseTargetSpec("dm-crypt:raid=5:chunk=64"));
  EXPECT_EQ(t.identifier, "dm-crypt LUKS2 AES-256-XTS RAID5x3 ext4");
  EXPECT_EQ(sys_.loops.size(), 3u);
  auto has = [&](const std::string& prefix) {
    return std::any_of(sys_.log.begin(), sys_.log.end(), [&](const std::string& l) { return l.rfind(prefix, 0) == 0; });
  };
  EXPECT_TRUE(has("mdadm --create /dev/md120 --run --force --metadata=1.2 --level=5 --raid-devices=3 --assume-clean "
                  "--chunk=64 /dev/loop0 /dev/loop1 /dev/loop2"));
  EXPECT_TRUE(has("cryptsetup luksFormat")) << "dm-crypt goes on the array";
  EXPECT_TRUE(has("cryptsetup luksFormat --type luks2 --batch-mode --cipher aes-xts-plain64 --key-size 512 --pbkdf "
                  "pbkdf2 --pbkdf-force-iterations 1000 --hash sha256 --key-file - /dev/md120"));
  bool noted = false;
  for (const auto& [k, v] : t.notes) noted |= k == "RAID" && v.find("md raid5 /dev/md120, 3 members") == 0;
  EXPECT_TRUE(noted);
  set.RemoveAll();
  EXPECT_TRUE(has("mdadm --zero-superblock /dev/loop0"));
  EXPECT_TRUE(sys_.Clean());
  EXPECT_TRUE(sys_.loops.empty());
}

// The NFS client's view: the target's file system exported by a server of the run's own (started
// once for all nfs targets, on loopback only) and mounted over NFSv4, the tests on the client
// side; all of it goes again, the server after its last export.
TEST_F(TargetSetTest, NfsExportsTheTargetOverLoopbackAndTheTestsRunOnTheClientMount) {
  sys_.texts["/proc/filesystems"] += "nodev\tnfsd\nnodev\tnfs4\n";
  TargetSet set(sys_, ledger_, Options());
  set.Create(ParseTargetSpec("Raw=plain:raid=10:chunk=16:nfs"));
  set.Create(ParseTargetSpec("dm-crypt:nfs=4.1"));
  const Target &raw = set.targets()[0], &luks = set.targets()[1];
  EXPECT_EQ(luks.identifier, "dm-crypt LUKS2 AES-256-XTS ext4 over NFSv4.1");
  EXPECT_EQ(raw.work_dir, Base() + "/t1-plain-nfs");
  EXPECT_EQ(sys_.mounts[raw.work_dir], "127.0.0.1:" + Base() + "/t1-plain");
  auto count = [&](const std::string& prefix) {
    return std::count_if(sys_.log.begin(), sys_.log.end(), [&](const std::string& l) { return l.rfind(prefix, 0) == 0; });
  };
  EXPECT_EQ(count("mount nfsd /proc/fs/nfsd nfsd"), 1);
  EXPECT_EQ(count("daemon rpc.mountd -F -N 2 -N 3 --no-udp"), 1) << "one server for both targets";
  EXPECT_EQ(count("rpc.nfsd -N 3 --no-udp -H 127.0.0.1 8"), 1);
  EXPECT_EQ(count("write /proc/fs/nfsd/v4_end_grace Y"), 1);
  EXPECT_EQ(count("exportfs -o rw,sync,no_subtree_check,no_root_squash,insecure 127.0.0.1:" + Base() + "/t1-plain"), 1);
  EXPECT_EQ(count("mount 127.0.0.1:" + Base() + "/t2-dm-crypt " + Base() + "/t2-dm-crypt-nfs nfs4"), 1);
  std::string nfs_note;
  for (const auto& [k, v] : luks.notes)
    if (k == "NFS") nfs_note = v;
  EXPECT_EQ(nfs_note.find("the tests run on an NFSv4.1 client mount over loopback"), 0u) << nfs_note;
  EXPECT_NE(nfs_note.find("exportfs -o rw,sync,no_subtree_check,no_root_squash,insecure"), std::string::npos);

  sys_.log.clear();
  EXPECT_TRUE(set.RemoveAll().empty());
  EXPECT_TRUE(sys_.Clean());
  // Each client goes before its export, the exports before the server, the server before mountd,
  // and all of them before any target's file system (the server holds what it exported).
  auto at = [&](const std::string& line) { return std::find(sys_.log.begin(), sys_.log.end(), line) - sys_.log.begin(); };
  const long end = static_cast<long>(sys_.log.size());
  EXPECT_LT(at("umount " + Base() + "/t1-plain-nfs"), at("exportfs -u 127.0.0.1:" + Base() + "/t1-plain"));
  EXPECT_LT(at("exportfs -u 127.0.0.1:" + Base() + "/t1-plain"), at("umount " + Base() + "/t1-plain"));
  EXPECT_LT(at("rpc.nfsd 0"), at("umount " + Base() + "/t2-dm-crypt"));
  EXPECT_LT(at("umount /proc/fs/nfsd"), at("umount " + Base() + "/t2-dm-crypt"));
  EXPECT_LT(at("exportfs -u 127.0.0.1:" + Base() + "/t1-plain"), at("rpc.nfsd 0"));
  EXPECT_LT(at("rpc.nfsd 0"), at("stop rpc.mountd -F -N 2 -N 3 --no-udp"));
  EXPECT_LT(at("stop rpc.mountd -F -N 2 -N 3 --no-udp"), at("umount /proc/fs/nfsd"));
  EXPECT_LT(at("umount /proc/fs/nfsd"), end);
}

// A server the machine runs already is not ours to share or stop: refused, nothing left behind.
TEST_F(TargetSetTest, NfsRefusesWhereAnNfsServerAlreadyRuns) {
  sys_.texts["/proc/filesystems"] += "nodev\tnfsd\nnodev\tnfs4\n";
  sys_.mounts["/proc/fs/nfsd"] = "nfsd";  // the machine's own, as systemd mounts it
  sys_.texts["/proc/fs/nfsd/threads"] = "8\n";
  TargetSet set(sys_, ledger_, Options());
  try {
    set.Create(ParseTargetSpec("plain:nfs"));
    FAIL() << "created";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("an NFS server already runs on this machine (8 nfsd threads)"),
              std::string::npos) << e.what();
  }
  EXPECT_TRUE(sys_.daemons.empty());
  EXPECT_EQ(sys_.texts["/proc/fs/nfsd/threads"], "8\n") << "left running";
  EXPECT_EQ(sys_.mounts.size(), 1u) << "only the machine's nfsd mount is left";
}

// The first target failing must not take the directory every target's files go in with it
// (`targets --check A,B` with A failing then failed B with "cannot create" in the VM).
TEST_F(TargetSetTest, AFirstTargetFailingLeavesTheNextItsDirectory) {
  TargetSet set(sys_, ledger_, Options());
  sys_.fail_on = "mkfs.xfs";
  EXPECT_THROW(set.Create(ParseTargetSpec("plain:xfs")), Error);
  sys_.fail_on = "";
  Target& t = set.Create(ParseTargetSpec("plain"));
  EXPECT_EQ(t.identifier, "plain ext4");
  EXPECT_EQ(sys_.files.size(), 1u);
  set.RemoveAll();
  EXPECT_TRUE(sys_.Clean());
}

TEST_F(TargetSetTest, AFailedStepUndoesWhatThatTargetMadeAndKeepsTheOthers) {
  TargetSet set(sys_, ledger_, Options());
  set.Create(ParseTargetSpec("plain"));
  sys_.fail_on = "mkfs.xfs";
  try {
    set.Create(ParseTargetSpec("plain:xfs"));
    FAIL() << "created";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "plain xfs: mkfs.xfs -f -q -K /dev/loop1: failed (fake)");
  }
  EXPECT_EQ(sys_.loops.size(), 1u) << "the second target's loop device is gone, the first's stays";
  EXPECT_EQ(sys_.files.size(), 1u);
  EXPECT_EQ(set.targets().size(), 1u);
  sys_.fail_on = "";
  set.RemoveAll();
  EXPECT_TRUE(sys_.Clean());
}

TEST_F(TargetSetTest, FailureAfterTheMountUnmountsIt) {
  TargetSet set(sys_, ledger_, Options());
  sys_.fail_on = "policy";
  EXPECT_THROW(set.Create(ParseTargetSpec("fscrypt")), Error);
  EXPECT_TRUE(sys_.Clean());
  EXPECT_TRUE(sys_.keys.empty());
}

TEST_F(TargetSetTest, TargetsOnANamedDeviceTakeConsecutiveRegions) {
  TargetOptions o = Options();
  o.device = "/dev/sdz";
  TargetSet set(sys_, ledger_, o);
  set.Create(ParseTargetSpec("plain"));
  set.Create(ParseTargetSpec("fscrypt"));
  auto has = [&](const std::string& line) { return std::find(sys_.log.begin(), sys_.log.end(), line) != sys_.log.end(); };
  EXPECT_TRUE(has("attach /dev/sdz offset 0 size 536870912"));
  EXPECT_TRUE(has("attach /dev/sdz offset 536870912 size 536870912"));
  EXPECT_TRUE(sys_.files.empty()) << "no backing files on a device";
  EXPECT_NE(set.targets()[1].NotesText().find("bytes 512 MiB to 1 GiB of /dev/sdz"), std::string::npos);
  sys_.device_bytes = 1ull << 30;
  try {
    set.Create(ParseTargetSpec("dm-crypt"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "dm-crypt LUKS2 AES-256-XTS ext4: /dev/sdz holds 1 GiB; target 3 needs 1536 MiB (--target-size each)");
  }
  set.RemoveAll();
  EXPECT_TRUE(sys_.Clean());
}

TEST_F(TargetSetTest, NotEnoughRoomInTheTestDirectory) {
  sys_.free_bytes = 100ull << 20;
  TargetSet set(sys_, ledger_, Options());
  try {
    set.Create(ParseTargetSpec("plain"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "plain ext4: the test directory /t has 100 MiB free; a target needs 512 MiB (--target-size)");
  }
}

TEST_F(TargetSetTest, DestructorReleasesEverything) {
  {
    TargetSet set(sys_, ledger_, Options());
    set.Create(ParseTargetSpec("plain"));
    set.Create(ParseTargetSpec("fscrypt"));
  }
  EXPECT_TRUE(sys_.Clean());
  EXPECT_TRUE(ledger_.resources().empty());
}

TEST(WhyUnavailable, SaysWhatIsMissing) {
  FakeSystem sys;
  EXPECT_EQ(WhyUnavailable(sys, ParseTargetSpec("dm-crypt")), "");
  sys.root = false;
  EXPECT_EQ(WhyUnavailable(sys, ParseTargetSpec("plain")), "needs root (loop devices and mounts need CAP_SYS_ADMIN)");
  sys.root = true;
  sys.missing_programs = {"mkfs.btrfs", "cryptsetup"};
  EXPECT_EQ(WhyUnavailable(sys, ParseTargetSpec("plain:btrfs")), "mkfs.btrfs not found (Debian package btrfs-progs)");
  EXPECT_EQ(WhyUnavailable(sys, ParseTargetSpec("dm-crypt")), "cryptsetup not found (Debian package cryptsetup-bin)");
  sys.missing_programs.clear();
  sys.missing_paths = {"/dev/mapper/control"};
  sys.texts["/proc/misc"] = "237 loop-control\n";
  EXPECT_EQ(WhyUnavailable(sys, ParseTargetSpec("dm-crypt")),
            "the kernel has no device-mapper (no /dev/mapper/control, no device-mapper in /proc/misc)");
  sys.missing_paths = {"/sys/fs/ext4/features/encryption"};
  EXPECT_EQ(WhyUnavailable(sys, ParseTargetSpec("fscrypt")),
            "the kernel's ext4 has no encryption (no /sys/fs/ext4/features/encryption; CONFIG_FS_ENCRYPTION)");
  sys.missing_paths.clear();
  EXPECT_EQ(WhyUnavailable(sys, ParseTargetSpec("fscrypt:adiantum")),
            "Adiantum: the kernel has no xchacha12/adiantum (CONFIG_CRYPTO_ADIANTUM)");
  sys.crypto_config_problem = "the kernel has no crypto configuration netlink (NETLINK_CRYPTO: Protocol not supported; "
                              "module crypto_user, CONFIG_CRYPTO_USER)";
  EXPECT_EQ(WhyUnavailable(sys, ParseTargetSpec("fscrypt:impl=generic")),
            "impl=generic: " + sys.crypto_config_problem +
                "; fscrypt and eCryptfs cannot name a driver, so the others must be lowered");
  sys.crypto_config_problem.clear();
  EXPECT_EQ(WhyUnavailable(sys, ParseTargetSpec("ecryptfs:impl=generic")), "");
  sys.missing_programs = {"ecryptfs-add-passphrase"};
  EXPECT_EQ(WhyUnavailable(sys, ParseTargetSpec("ecryptfs")),
            "ecryptfs-add-passphrase not found (Debian package ecryptfs-utils)");
  sys.missing_programs.clear();
  EXPECT_EQ(WhyUnavailable(sys, ParseTargetSpec("dm-crypt:impl=aes-ce")),
            "no AES driver aes-ce in /proc/crypto (aes cipher drivers here: aes-generic, aes-aesni)");
  sys.texts["/proc/filesystems"] = "\text4\n";
  EXPECT_EQ(WhyUnavailable(sys, ParseTargetSpec("plain:xfs")),
            "the kernel has no xfs file system (not in /proc/filesystems, no module)");
  EXPECT_EQ(WhyUnavailable(sys, ParseTargetSpec("plain:reiserfs")),  // Linux 6.13 removed it
            "the kernel has no reiserfs file system (not in /proc/filesystems, no module)");
  sys.missing_programs = {"mkfs.reiserfs"};
  EXPECT_EQ(WhyUnavailable(sys, ParseTargetSpec("plain:reiserfs")), "mkfs.reiserfs not found (Debian package reiserfsprogs)");
  sys.missing_programs = {"rpc.mountd"};
  EXPECT_EQ(WhyUnavailable(sys, ParseTargetSpec("plain:nfs")), "nfs: rpc.mountd not found (Debian package nfs-kernel-server)");
  sys.missing_programs.clear();
  EXPECT_EQ(WhyUnavailable(sys, ParseTargetSpec("plain:nfs")),
            "nfs: the kernel has no NFS server (nfsd not in /proc/filesystems, no nfsd module)");
  sys.texts["/proc/filesystems"] += "nodev\tnfsd\n";
  EXPECT_EQ(WhyUnavailable(sys, ParseTargetSpec("plain:nfs")),
            "nfs: the kernel has no NFSv4 client (nfs4 not in /proc/filesystems, no nfsv4 module)");
  sys.texts["/proc/filesystems"] += "nodev\tnfs4\n";
  EXPECT_EQ(WhyUnavailable(sys, ParseTargetSpec("plain:nfs")), "");
}

TEST(ProbeKinds, OneLinePerKind) {
  FakeSystem sys;
  sys.missing_programs = {"mkfs.btrfs"};
  sys.missing_paths = {"/dev/mapper/control"};
  sys.texts["/proc/misc"] = "";
  sys.crypto_config_problem = "no crypto_user";
  auto kinds = ProbeKinds(sys);
  ASSERT_EQ(kinds.size(), 4u);
  EXPECT_TRUE(kinds[0].available);
  EXPECT_EQ(kinds[0].detail, "file systems ext4, xfs (btrfs: mkfs.btrfs not found (Debian package btrfs-progs); "
                             "reiserfs: the kernel has no reiserfs file system (not in /proc/filesystems, no module)); "
                             "nfs: the kernel has no NFS server (nfsd not in /proc/filesystems, no nfsd module)");
  EXPECT_TRUE(kinds[1].available);
  EXPECT_EQ(kinds[1].detail,
            "ext4, AES-256-XTS (Adiantum: the kernel has no xchacha12/adiantum (CONFIG_CRYPTO_ADIANTUM)); "
            "impl=: the kernel's choice only (impl=generic: no crypto_user; fscrypt and eCryptfs cannot name a driver, "
            "so the others must be lowered)");
  EXPECT_FALSE(kinds[2].available);
  EXPECT_EQ(kinds[2].detail, "the kernel has no device-mapper (no /dev/mapper/control, no device-mapper in /proc/misc)");
  EXPECT_TRUE(kinds[3].available);
  EXPECT_EQ(kinds[3].detail, "AES-128/192/256 over ext4, xfs or btrfs; impl=: the kernel's choice only (impl=generic: "
                             "no crypto_user; fscrypt and eCryptfs cannot name a driver, so the others must be lowered)");
}

}  // namespace
}  // namespace ptsn::targets
