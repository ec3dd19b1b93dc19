// End-to-end: the `pts-native workload` interfaces that outside checks and the bundled profiles
// rely on.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "runner/workloads/test_dir.h"
#include "tests/cli/run_binary.h"

namespace {

using ptsn::test::RunPtsNative;
using ptsn::workloads::testing::TempDir;

nlohmann::json ParseJson(const std::string& out) {
  try {
    return nlohmann::json::parse(out);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not one JSON object: " << out;
    return {};
  }
}

TEST(WorkloadCli, CipherJsonInterface) {
  auto r = RunPtsNative("workload cipher --cipher aes-256-xts --block-size 4096 --seconds 0.2 --json", "", false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto j = ParseJson(r.output);
  EXPECT_EQ(j["cipher"], "aes-256-xts");
  EXPECT_EQ(j["block_size"], 4096);
  EXPECT_EQ(j["threads"], 1);
  EXPECT_GT(j["encrypt_mib_per_s"].get<double>(), 1.0);
  EXPECT_GT(j["decrypt_mib_per_s"].get<double>(), 1.0);
  EXPECT_TRUE(j["backend"] == "openssl" || j["backend"] == "gcrypt");
  EXPECT_EQ(j["backend_auto"], true);
}

TEST(WorkloadCli, CipherTextIsWhatProfilesParse) {
  auto r = RunPtsNative("workload cipher --cipher twofish-xts --seconds 0.1 --direction encrypt --threads 2", "", false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Backend: gcrypt\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Threads: 2\n"), std::string::npos);
  EXPECT_NE(r.output.find("Encrypt: "), std::string::npos);
  EXPECT_NE(r.output.find(" MiB/s\n"), std::string::npos);
  EXPECT_EQ(r.output.find("Decrypt: "), std::string::npos);
}

TEST(WorkloadCli, NoAesniReexecutesWithOpensslMask) {
  auto r = RunPtsNative("workload cipher --cipher aes-128-cbc --backend openssl --seconds 0.1 --no-aesni --json", "", false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto j = ParseJson(r.output);
  EXPECT_EQ(j["aesni_disabled"], true);
  EXPECT_EQ(j["aesni"], "disabled");
  EXPECT_EQ(j["backend"], "openssl");
}

// Whether this kernel offers AF_ALG's skcipher interface, asked here without pts-native's code, so
// that the test below checks the right answer on either kind of machine instead of skipping.
bool KernelCryptoApiOpens() {
  int fd = socket(38 /* AF_ALG */, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  close(fd);
  return true;
}

TEST(WorkloadCli, KernelBackendRunsOrSaysWhyNot) {
  auto r = RunPtsNative("workload cipher --backend kernel --seconds 0.1");
  if (KernelCryptoApiOpens()) {
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("Encrypt: "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(" MiB/s\n"), std::string::npos) << r.output;
  } else {
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("pts-native: error: the kernel crypto API (AF_ALG) is not available"), std::string::npos)
        << r.output;
  }
}

TEST(WorkloadCli, BadInputIsOneClearLine) {
  auto r = RunPtsNative("workload cipher --cipher rot13");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("unknown cipher 'rot13'"), std::string::npos) << r.output;
  r = RunPtsNative("workload disk --pattern seq-write --size lots --dir /tmp");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("--size: 'lots' is not a size"), std::string::npos) << r.output;
  r = RunPtsNative("workload frobnicate");
  EXPECT_NE(r.exit_code, 0);
}

TEST(WorkloadCli, DiskJsonInterface) {
  TempDir tmp;
  for (const char* pattern : {"seq-write", "seq-read", "rand-read", "rand-write"}) {
    auto r = RunPtsNative(std::string("workload disk --pattern ") + pattern + " --block-size 4k --size 1m --dir " + tmp.path() + " --json", "", false);
    ASSERT_EQ(r.exit_code, 0) << pattern << ": " << r.output;
    auto j = ParseJson(r.output);
    EXPECT_GT(j["mib_per_s"].get<double>(), 0) << pattern;
    EXPECT_GT(j["iops"].get<double>(), 0) << pattern;
    EXPECT_EQ(j["bytes"], 1 << 20) << pattern;
    EXPECT_EQ(j["ops"], 256) << pattern;
  }
  EXPECT_EQ(tmp.EntryCount(), 0u);
}

TEST(WorkloadCli, DefaultDirectoryComesFromSettings) {
  TempDir tmp;
  auto r = RunPtsNative("workload sqlite --rows 10 --synchronous off --json", "PTS_NATIVE_TEST_DIR=" + tmp.path(), false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(ParseJson(r.output)["rows_in_table"], 10);
  EXPECT_TRUE(std::filesystem::exists(tmp.path()));
  EXPECT_EQ(tmp.EntryCount(), 0u);
}

TEST(WorkloadCli, OtherWorkloadsRun) {
  TempDir tmp;
  auto r = RunPtsNative("workload fs-files --files 20 --file-size 4k --dirs 2 --dir " + tmp.path());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Files created: 20\n"), std::string::npos) << r.output;
  r = RunPtsNative("workload mail-server --files 20 --transactions 100 --max-size 16k --dir " + tmp.path());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Transactions: 100\n"), std::string::npos) << r.output;
  r = RunPtsNative("workload file-server --size 1m --dir " + tmp.path() + " --json", "", false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GE(ParseJson(r.output)["bytes"].get<int>(), 1 << 20);
  r = RunPtsNative("workload pbkdf2 --hash sha512 --seconds 0.1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("PBKDF2-sha512 "), std::string::npos);
  EXPECT_NE(r.output.find(" iterations per second for 256-bit key"), std::string::npos);
  EXPECT_EQ(tmp.EntryCount(), 0u);
}

// SIGINT in the middle of a long run: the scratch directory is gone and the exit code says why.
TEST(WorkloadCli, InterruptCleansUp) {
  TempDir tmp;
  std::string cmd = std::string("( ") + PTSN_BINARY + " workload disk --pattern seq-write --block-size 4k --fsync every --size 1g --dir " +
                    tmp.path() + " & pid=$!; sleep 0.7; kill -INT $pid; wait $pid; echo rc=$? ) 2>&1";
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  char buf[512];
  while (fgets(buf, sizeof buf, p)) out += buf;
  pclose(p);
  EXPECT_NE(out.find("interrupted"), std::string::npos) << out;
  EXPECT_NE(out.find("rc=130"), std::string::npos) << out;
  EXPECT_EQ(tmp.EntryCount(), 0u) << out;
}

}  // namespace
