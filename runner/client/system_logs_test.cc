#include "runner/client/system_logs.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>

#include "runner/client/wire.h"

namespace ptsn::client {
namespace {

namespace fs = std::filesystem;

uint32_t Get32(const std::string& s, size_t at) {
  return static_cast<unsigned char>(s[at]) | static_cast<unsigned char>(s[at + 1]) << 8 |
         static_cast<unsigned char>(s[at + 2]) << 16 | static_cast<uint32_t>(static_cast<unsigned char>(s[at + 3])) << 24;
}
uint16_t Get16(const std::string& s, size_t at) {
  return static_cast<uint16_t>(static_cast<unsigned char>(s[at]) | static_cast<unsigned char>(s[at + 1]) << 8);
}

// Reads the archive back through its central directory: entry name → content.
std::map<std::string, std::string> Unzip(const std::string& zip) {
  std::map<std::string, std::string> out;
  size_t end = zip.size() - 22;
  EXPECT_EQ(Get32(zip, end), 0x06054b50u);
  size_t at = Get32(zip, end + 16);
  for (int i = 0; i < Get16(zip, end + 10); ++i) {
    EXPECT_EQ(Get32(zip, at), 0x02014b50u);
    uint16_t method = Get16(zip, at + 10);
    uint32_t csize = Get32(zip, at + 20), usize = Get32(zip, at + 24);
    uint16_t name_len = Get16(zip, at + 28);
    uint32_t local = Get32(zip, at + 42);
    std::string name = zip.substr(at + 46, name_len);
    EXPECT_EQ(Get32(zip, local), 0x04034b50u);
    size_t data = local + 30 + Get16(zip, local + 26) + Get16(zip, local + 28);
    std::string raw = zip.substr(data, csize);
    out[name] = method == 8 ? wire::RawInflate(raw, usize + 1).value_or("<bad>") : raw;
    at += 46 + name_len;
  }
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
