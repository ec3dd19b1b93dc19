#include "runner/sysinfo/sysinfo.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

namespace ptsn::sysinfo {
namespace {

std::unique_ptr<SystemReader> Fixture(const std::string& name) {
  return MakeRootedReader(std::string(PTSN_SOURCE_DIR) + "/runner/sysinfo/testdata/" + name);
}

// Captured from the Debian 12 KVM guest + docker container that produced the golden PTS files.
TEST(SysinfoDebianVm, HardwareMatchesWhatPtsWrote) {
  auto r = Fixture("debian12-kvm-docker");
  EXPECT_EQ(JoinComponents(HardwareComponents(*r)), "Processor: AMD EPYC (2 Cores), Memory: 24GB, Disk: 252GB");
}

std::string GoldenText(const std::string& rel) {
  std::ifstream in(std::string(PTSN_SHARED_DIR) + "/reference/pts-output/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(SysinfoDebianVm, SoftwareMatchesWhatPtsWrote) {
  auto r = Fixture("debian12-kvm-docker");
  // The compilers as phodevi words them: gcc, clang --version, llvm-link -version, and nvcc from
  // /usr/local/cuda/bin (not in PATH there), in PTS's order.
  const std::string ours = JoinComponents(SoftwareComponents(*r, "/work/x"));
  EXPECT_EQ(ours,
            "OS: Debian 12, Kernel: 6.18.44-fc-v782 (x86_64), Compiler: GCC 12.2.0 + Clang 14.0.6 + LLVM 14.0.6 + "
            "CUDA 13.0, File-System: ext4, System Layer: docker");
  std::string golden = GoldenText("result-a/composite.xml");
  if (golden.empty()) GTEST_SKIP() << "shared reference tree absent";
  EXPECT_NE(golden.find("<Software>" + ours + "</Software>"), std::string::npos) << ours;
}

TEST(SysinfoCompiler, ClangSuffixesCcFirstAndNothingInstalled) {
  auto root = std::filesystem::temp_directory_path() / ("ptsn-compilers-" + std::to_string(getpid()));
  std::filesystem::create_directories(root / ".commands");
  auto put = [&](const std::string& name, const std::string& text) { std::ofstream(root / ".commands" / name) << text; };
  EXPECT_EQ(CompilerString(*MakeRootedReader(root.string())), "");
  put("gcc_-dumpfullversion", "13.2.0\n");
  put("clang_--version", "Ubuntu clang version 18.1.3 (1ubuntu1)\nTarget: x86_64-pc-linux-gnu\n");
  put("llvm-config_--version", "18.1.3\n");
  put("nvcc_--version", "Cuda compilation tools, release 12.4, V12.4.131\n");
  EXPECT_EQ(CompilerString(*MakeRootedReader(root.string())), "GCC 13.2.0 + Clang 18.1.3 + LLVM 18.1.3 + CUDA 12.4");
  std::ofstream(root / ".environ") << "CC=/usr/bin/clang -fuse-ld=lld\n";
  EXPECT_EQ(CompilerString(*MakeRootedReader(root.string())), "Clang 18.1.3 + GCC 13.2.0 + LLVM 18.1.3 + CUDA 12.4");
  put("clang_--version", "clang version 19.0.0-++20240101+git\n");  // the word after "version", suffix kept
  EXPECT_EQ(CompilerString(*MakeRootedReader(root.string())).substr(0, 29), "Clang 19.0.0-++20240101+git +");
  std::filesystem::remove_all(root);
}

TEST(SysinfoSecurity, ShortenedAsPtsShortensIt) {
  auto root = std::filesystem::temp_directory_path() / ("ptsn-security-" + std::to_string(getpid()));
  auto vulns = root / "sys/devices/system/cpu/vulnerabilities";
  std::filesystem::create_directories(vulns);
  std::filesystem::create_directories(root / ".commands");
  std::ofstream(vulns / "meltdown") << "Mitigation: PTI\n";
  std::ofstream(vulns / "spec_store_bypass") << "Mitigation: Speculative Store Bypass disabled via prctl\n";
  std::ofstream(vulns / "spectre_v2") << "Mitigation: Enhanced IBRS + IBPB\n";
  std::ofstream(vulns / "srbds") << "\n";
  EXPECT_EQ(SecurityFeatures(*MakeRootedReader(root.string())),
            "meltdown: Mitigation of PTI + spec_store_bypass: Mitigation of SSB disabled via prctl + "
            "spectre_v2: Mitigation of Enhanced IBRS plus IBPB");
  std::ofstream(root / ".commands/getenforce") << "Enforcing\n";
  EXPECT_EQ(SecurityFeatures(*MakeRootedReader(root.string())).substr(0, 19), "SELinux + meltdown:");
  std::filesystem::remove_all(root);
}

TEST(SysinfoDebianVm, NotesAgreeWithTheGoldenFileKeyByKey) {
  std::string golden_path = std::string(PTSN_SHARED_DIR) + "/reference/pts-output/auto-naming/composite.xml";
  std::ifstream in(golden_path);
  if (!in) GTEST_SKIP() << "shared reference tree absent: " << golden_path;
  std::stringstream ss;
  ss << in.rdbuf();
  std::smatch m;
  std::string xml = ss.str();
  ASSERT_TRUE(std::regex_search(xml, m, std::regex("<JSON>(\\{\"disk-scheduler[^<]*)</JSON>")));
  auto golden = nlohmann::json::parse(m[1].str());
  auto r = Fixture("debian12-kvm-docker");
  std::string ours_text = SystemNotesJson(*r, "/work/x", true);
  auto ours = nlohmann::json::parse(ours_text);
  for (const char* key : {"disk-scheduler", "disk-mount-options", "disk-details", "kernel-extra-details",
                          "environment-variables"})
    EXPECT_EQ(ours[key], golden[key]) << key;
  // The security text differs host to host; the format (name: state joined by " + ") must not,
  // nor the shortening: a state both hosts share reads the same, and "Mitigation: " never stays.
  EXPECT_EQ(ours["security"].get<std::string>().substr(0, 65), golden["security"].get<std::string>().substr(0, 65));
  const std::string spectre_v1 = "spectre_v1: Mitigation of usercopy/swapgs barriers and __user pointer sanitization + ";
  EXPECT_NE(golden["security"].get<std::string>().find(spectre_v1), std::string::npos);
  EXPECT_NE(ours["security"].get<std::string>().find(spectre_v1), std::string::npos) << ours["security"];
  EXPECT_EQ(ours["security"].get<std::string>().find("Mitigation: "), std::string::npos) << ours["security"];
  EXPECT_NE(ours["security"].get<std::string>().find("spec_store_bypass: Mitigation of SSB disabled via prctl"),
            std::string::npos);
  // PHP escapes '/' in JSON strings; so must we, byte for byte.
  EXPECT_NE(ours_text.find("usercopy\\/swapgs"), std::string::npos);
  // Key order as PTS: disk keys first.
  EXPECT_EQ(ours_text.rfind("{\"disk-scheduler\":\"MQ-DEADLINE\",\"disk-mount-options\":", 0), 0u);
}

TEST(SysinfoDebianVm, NoDiskNotesWithoutADiskTest) {
  auto r = Fixture("debian12-kvm-docker");
  auto notes = nlohmann::json::parse(SystemNotesJson(*r, "/work/x", false));
  EXPECT_FALSE(notes.contains("disk-scheduler"));
  EXPECT_TRUE(notes.contains("kernel-extra-details"));
}

TEST(SysinfoDesktop, HardwareWithThreadsFrequencyBoardDisksGraphicsNetwork) {
  auto r = Fixture("intel-desktop");
  EXPECT_EQ(JoinComponents(HardwareComponents(*r)),
            "Processor: Intel Core i5-7500 @ 3.80GHz (2 Cores / 4 Threads), "
            "Motherboard: ASUSTeK COMPUTER INC. PRIME B250M-A (1205 BIOS), "
            "Chipset: Intel Xeon E3-1200 v6/7th + B250, Memory: 16GB, "
            "Disk: 512GB Samsung SSD 970 EVO Plus 500GB + 2000GB WDC WD20EZRZ-00Z, "
            "Graphics: Intel HD Graphics 630, Audio: Realtek ALC887-VD, Monitor: 2 x DELL U2415, "
            "Network: Realtek RTL8111/8168/8411 PCI Express Gigabit Ethernet Controller");
}

TEST(SysinfoDesktop, SoftwareUsesTheFileSystemOfTheTestDirectory) {
  auto r = Fixture("intel-desktop");
  EXPECT_EQ(JoinComponents(SoftwareComponents(*r, "/mnt/data/bench")),
            "OS: Ubuntu 24.04, Kernel: 6.8.0-45-generic (x86_64), Compiler: GCC 13.2.0 + Clang 18.1.3, File-System: xfs");
  EXPECT_EQ(JoinComponents(SoftwareComponents(*r, "/home/me")).find("File-System: ext4") != std::string::npos, true);
}

TEST(SysinfoDesktop, NotesForAPartitionOnASecondDisk) {
  auto r = Fixture("intel-desktop");
  auto notes = nlohmann::json::parse(SystemNotesJson(*r, "/mnt/data/bench", true));
  EXPECT_EQ(notes["disk-scheduler"], "BFQ");
  EXPECT_EQ(notes["disk-mount-options"], "attr2,inode64,noquota,relatime,rw");
  EXPECT_EQ(notes["cpu-scaling-governor"], "intel_pstate powersave");
  EXPECT_EQ(notes["cpu-microcode"], "0xf4");
  EXPECT_EQ(notes["security"], "l1tf: Mitigation of PTE Inversion; VMX: conditional cache flushes, SMT vulnerable + "
                               "meltdown: Mitigation of PTI");
  auto root = nlohmann::json::parse(SystemNotesJson(*r, "/", true));
  EXPECT_EQ(root["disk-scheduler"], "NONE");  // nvme0n1p2 -> nvme0n1
}

TEST(SysinfoDesktop, EnvironmentVariablesNoteAsPts) {
  auto r = Fixture("intel-desktop");
  // PATH/HOME are not tuning knobs; __GL_SYNC_TO_VBLANK and GJS_* are excluded by name.
  EXPECT_EQ(EnvironmentVariablesNote(r->Environment()), "CFLAGS=\"-O3 -march=native\" MESA_DEBUG=1 PERF_BUILDID_DIR=/tmp");
  std::string json = SystemNotesJson(*r, "/home/me", false);
  EXPECT_NE(json.find("\"environment-variables\":\"CFLAGS=\\\"-O3 -march=native\\\" MESA_DEBUG=1 "
                      "PERF_BUILDID_DIR=\\/tmp\",\"security\""),
            std::string::npos)
      << json;
  EXPECT_EQ(EnvironmentVariablesNote({{"LIBGL_ALWAYS_SOFTWARE", " 1 "}, {"OTHER", "x"}, {"cxxflags", "-O2"}}),
            "LIBGL_ALWAYS_SOFTWARE=1 cxxflags=-O2");
  EXPECT_EQ(EnvironmentVariablesNote({{"DEBUGINFOD_URLS", "x"}, {"PATH", "/bin"}}), "");
}

TEST(SysinfoDesktop, EnvironmentVariablesSystemLogAsPts) {
  auto r = Fixture("intel-desktop");
  EXPECT_EQ(EnvironmentVariablesLog(r->Environment()), "PATH=/usr/bin:/bin\nCFLAGS=-O3 -march=native\n");
  EXPECT_EQ(EnvironmentVariablesLog({{"CXX", "g++"}, {"CC", ""}, {"LD_LIBRARY_PATH", "/opt/lib"}}),
            "LD_LIBRARY_PATH=/opt/lib\nCXX=g++\n");
  EXPECT_EQ(EnvironmentVariablesLog({{"HOME", "/root"}}), "");
}

TEST(SysinfoDesktop, CpuCounts) {
  auto r = Fixture("intel-desktop");
  CpuInfo cpu = ReadCpu(*r);
  EXPECT_EQ(cpu.logical, 4);
  EXPECT_EQ(cpu.physical, 2);
  EXPECT_EQ(MemoryMegabytes(*r), 15931);
  EXPECT_EQ(Architecture(*r), "x86_64");
  EXPECT_EQ(ReadOsRelease(*r).id, "ubuntu");
}

TEST(SysinfoEmpty, MissingFilesGiveEmptyStringsNotErrors) {
  auto r = MakeRootedReader("/nonexistent-ptsn-root");
  EXPECT_EQ(JoinComponents(HardwareComponents(*r)), "");
  EXPECT_EQ(SystemNotesJson(*r, "/", true), "");
}

TEST(SysinfoLive, TheRealMachineHasAProcessorAndAKernel) {
  auto r = MakeRootedReader("/");
  std::string hw = JoinComponents(HardwareComponents(*r));
  EXPECT_EQ(hw.rfind("Processor: ", 0), 0u) << hw;
  EXPECT_NE(JoinComponents(SoftwareComponents(*r, "/tmp")).find("Kernel: "), std::string::npos);
}

TEST(SysinfoLive, ProbeOutputsAreCachedPerProgramVersion) {
  std::string cache = std::filesystem::temp_directory_path() / ("ptsn-probe-" + std::to_string(getpid()));
  auto r = MakeRootedReader("/", cache);
  // $$ differs on every real run; a cached answer repeats the first one.
  auto first = r->RunCommand({"sh", "-c", "echo $$"});
  auto second = r->RunCommand({"sh", "-c", "echo $$"});
  ASSERT_TRUE(first);
  EXPECT_EQ(first, second);
  auto uncached = MakeRootedReader("/");
  EXPECT_NE(uncached->RunCommand({"sh", "-c", "echo $$"}), uncached->RunCommand({"sh", "-c", "echo $$"}));
  std::filesystem::remove_all(cache);
}

}  // namespace
}  // namespace ptsn::sysinfo
