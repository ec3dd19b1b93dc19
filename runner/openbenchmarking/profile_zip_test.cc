#include "runner/openbenchmarking/profile_zip.h"

#include <gtest/gtest.h>
#include <minizip/zip.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "runner/common/atomic_file.h"

namespace ptsn::ob {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  TempDir() {
    std::string t = (fs::path(::testing::TempDir()) / "ptsn-zip-XXXXXX").string();
    path = mkdtemp(t.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  fs::path path;
};

// An archive with whatever names and Unix modes a hostile server might send, written with minizip
// directly (WriteZip only makes well-formed ones).
struct RawEntry {
  std::string name, data;
  unsigned mode = S_IFREG | 0644;
};
std::string HostileZip(const std::vector<RawEntry>& entries) {
  TempDir dir;
  std::string path = (dir.path / "x.zip").string();
  zipFile zf = zipOpen64(path.c_str(), APPEND_STATUS_CREATE);
  for (const auto& e : entries) {
    zip_fileinfo info{};
    info.tmz_date.tm_year = 2000;
    info.tmz_date.tm_mday = 1;
    info.external_fa = static_cast<uLong>(e.mode) << 16;
    zipOpenNewFileInZip4_64(zf, e.name.c_str(), &info, nullptr, 0, nullptr, 0, nullptr, Z_DEFLATED, 9, 0, -MAX_WBITS, 8,
                            Z_DEFAULT_STRATEGY, nullptr, 0, (3u << 8) | 20, 0, 0);
    zipWriteInFileInZip(zf, e.data.data(), static_cast<unsigned>(e.data.size()));
    zipCloseFileInZip(zf);
  }
  zipClose(zf, nullptr);
  return ReadFile(path);
}

std::string Refusal(const std::string& zip, const ZipLimits& limits = {}) {
  try {
    ReadZip(zip, limits);
  } catch (const ZipError& e) {
    return e.what();
  }
  return "";
}

TEST(ProfileZip, DirectoryRoundTripsAndIsDeterministic) {
  TempDir src, out;
  MakeDirectories((src.path / "patches").string());
  WriteFileAtomically((src.path / "test-definition.xml").string(), "<PhoronixTestSuite/>\n");
  WriteFileAtomically((src.path / "install.sh").string(), "#!/bin/sh\necho hi\n");
  fs::permissions(src.path / "install.sh", fs::perms::owner_exec, fs::perm_options::add);
  WriteFileAtomically((src.path / "patches/a.diff").string(), std::string(100000, 'x'));
  fs::create_symlink("/etc/passwd", src.path / "link");  // left out
  auto entries = DirectoryEntries(src.path.string());
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].name, "install.sh");
  EXPECT_TRUE(entries[0].executable);
  EXPECT_EQ(entries[1].name, "patches/a.diff");
  EXPECT_EQ(entries[2].name, "test-definition.xml");
  std::string zip = WriteZip(entries);
  EXPECT_EQ(zip, WriteZip(DirectoryEntries(src.path.string()))) << "the same files must give the same bytes";
  EXPECT_LT(zip.size(), 2000u);
  fs::path dest = out.path / "pts" / "x-1.0.0";
  ExtractZip(zip, dest.string());
  EXPECT_EQ(ReadFile((dest / "install.sh").string()), "#!/bin/sh\necho hi\n");
  EXPECT_EQ(ReadFile((dest / "patches/a.diff").string()), std::string(100000, 'x'));
  EXPECT_EQ(ReadFile((dest / "test-definition.xml").string()), "<PhoronixTestSuite/>\n");
  EXPECT_FALSE(fs::exists(dest / "link"));
  EXPECT_NE(fs::status(dest / "install.sh").permissions() & fs::perms::owner_exec, fs::perms::none);
  EXPECT_EQ(std::distance(fs::directory_iterator(out.path / "pts"), fs::directory_iterator()), 1) << "no temporary left";
}

TEST(ProfileZip, PathsThatLeaveTheDirectoryAreRefused) {
  for (const char* name : {"../evil", "/etc/cron.d/x", "a/../../b", "a\\..\\b", "./x/../../y", "a//b"}) {
    std::string why = Refusal(HostileZip({{"ok.xml", "x"}, {name, "pwned"}}));
    EXPECT_NE(why, "") << name << " was accepted";
    EXPECT_NE(why.find("refused"), std::string::npos) << why;
  }
}

TEST(ProfileZip, LinksAndSpecialFilesAreRefused) {
  EXPECT_NE(Refusal(HostileZip({{"install.sh", "/etc/passwd", S_IFLNK | 0777}})).find("symbolic link"), std::string::npos);
  EXPECT_NE(Refusal(HostileZip({{"fifo", "", S_IFIFO | 0644}})).find("not a regular file"), std::string::npos);
  // Extracting refuses before anything is written.
  TempDir out;
  fs::path dest = out.path / "p";
  EXPECT_THROW(ExtractZip(HostileZip({{"a", "1"}, {"b", "/etc", S_IFLNK | 0777}}), dest.string()), ZipError);
  EXPECT_FALSE(fs::exists(dest));
  EXPECT_TRUE(fs::is_empty(out.path)) << "a refused zip leaves nothing behind";
}

TEST(ProfileZip, SizeBombsAreRefusedAsTheyInflate) {
  // 20 MiB of zeros deflate to ~20 KB; the limit is checked on the inflated bytes.
  std::string bomb = HostileZip({{"big", std::string(20u << 20, '\0')}});
  EXPECT_LT(bomb.size(), 100000u);
  EXPECT_NE(Refusal(bomb).find("over the limit"), std::string::npos) << Refusal(bomb);
  ZipLimits small;
  small.max_total_bytes = 3u << 20;
  std::vector<RawEntry> many;
  for (int i = 0; i < 4; ++i) many.push_back({"f" + std::to_string(i), std::string(1u << 20, 'a')});
  EXPECT_NE(Refusal(HostileZip(many), small).find("limit of 3145728"), std::string::npos) << Refusal(HostileZip(many), small);
  small = {};
  small.max_entries = 3;
  EXPECT_NE(Refusal(HostileZip(many), small).find("entries"), std::string::npos);
}

TEST(ProfileZip, DamagedOrForeignBytesAreRefused) {
  EXPECT_NE(Refusal("not a zip at all").find("not a zip"), std::string::npos);
  EXPECT_NE(Refusal("").find("not a zip"), std::string::npos);
  std::string zip = HostileZip({{"a.txt", std::string(5000, 'q') + "tail"}});
  // Flip a byte inside the compressed data (after the 30-byte local header and the name).
  zip[30 + 5 + 3] ^= 0x55;
  EXPECT_NE(Refusal(zip), "");
  TempDir out;
  std::string dup = HostileZip({{"a", "1"}, {"a", "2"}});
  EXPECT_THROW(ExtractZip(dup, (out.path / "d").string()), ZipError);
  EXPECT_FALSE(fs::exists(out.path / "d"));
}

}  // namespace
}  // namespace ptsn::ob
