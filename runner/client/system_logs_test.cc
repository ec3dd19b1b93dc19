#include "runner/client/system_logs.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "runner/openbenchmarking/profile_zip.h"

namespace ptsn::client {
namespace {

namespace fs = std::filesystem;

// Reads the archive back with the reader clients use for servers' zips: entry name → content.
std::map<std::string, std::string> Unzip(const std::string& zip) {
  std::map<std::string, std::string> out;
  for (auto& e : ob::ReadZip(zip)) out[e.name] = std::move(e.data);
  return out;
}

class SystemLogsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device rd;
    dir_ = fs::temp_directory_path() / ("ptsn_logs_" + std::to_string(rd()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Write(const std::string& rel, const std::string& content) {
    fs::create_directories((dir_ / rel).parent_path());
    std::ofstream(dir_ / rel, std::ios::binary) << content;
  }
  fs::path dir_;
};

TEST_F(SystemLogsTest, NoDirectoryMeansNothingToSend) {
  auto logs = CollectSystemLogs(dir_.string());
  EXPECT_FALSE(logs.zip);
  EXPECT_EQ(logs.skipped_because, "");
}

TEST_F(SystemLogsTest, ZipsTheTextLogsUnderSystemLogsAndLeavesDotFilesOut) {
  Write("system-logs/Baseline/lspci", "00:00.0 Host bridge: Intel\n");
  Write("system-logs/Baseline/dmesg", std::string(5000, 'x') + "\nünïcode\n");
  Write("system-logs/.hidden", "secret");
  Write("composite.xml", "<x/>");
  auto logs = CollectSystemLogs(dir_.string());
  ASSERT_TRUE(logs.zip) << logs.skipped_because;
  auto entries = Unzip(*logs.zip);
  EXPECT_EQ(entries.size(), 4u);
  EXPECT_TRUE(entries.count("system-logs/"));
  EXPECT_TRUE(entries.count("system-logs/Baseline/"));
  EXPECT_EQ(entries["system-logs/Baseline/lspci"], "00:00.0 Host bridge: Intel\n");
  EXPECT_EQ(entries["system-logs/Baseline/dmesg"], std::string(5000, 'x') + "\nünïcode\n");
}

TEST_F(SystemLogsTest, ABinaryFileMeansNoLogsAndSaysWhich) {
  Write("system-logs/Baseline/lspci", "text\n");
  Write("system-logs/Baseline/core", std::string("ELF\0\1\2", 6));
  auto logs = CollectSystemLogs(dir_.string());
  EXPECT_FALSE(logs.zip);
  EXPECT_NE(logs.skipped_because.find("core is not a text file"), std::string::npos) << logs.skipped_because;
}

TEST_F(SystemLogsTest, OverPtsSizeLimitIsNotSent) {
  std::mt19937 rng(1);
  std::string noise;
  for (int i = 0; i < 4'000'000; ++i) noise += static_cast<char>('!' + rng() % 90);  // hardly compressible text
  Write("system-logs/S/big", noise);
  auto logs = CollectSystemLogs(dir_.string());
  EXPECT_FALSE(logs.zip);
  EXPECT_NE(logs.skipped_because.find("over PTS's limit"), std::string::npos) << logs.skipped_because;
}

TEST(LooksLikeText, NulOrBrokenUtf8IsNotText) {
  EXPECT_TRUE(LooksLikeText("plain\n\tascii"));
  EXPECT_TRUE(LooksLikeText("caf\xc3\xa9"));
  EXPECT_FALSE(LooksLikeText(std::string("a\0b", 3)));
  EXPECT_FALSE(LooksLikeText("caf\xc3"));
  EXPECT_FALSE(LooksLikeText("\xff\xfe"));
}

}  // namespace
}  // namespace ptsn::client
