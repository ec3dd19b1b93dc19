#include "runner/profile/profile_files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "runner/common/atomic_file.h"
#include "runner/profile/test_temp_dir.h"

namespace ptsn::profile {
namespace {

namespace fs = std::filesystem;

using test::TempDir;

TEST(ListDirectory, AllEntriesSortedWithTypesAcrossSeveralReads) {
  TempDir tmp;
  // Enough long names that getdents64 needs several 16 KiB buffers.
  std::vector<std::string> names;
  for (int i = 0; i < 700; ++i) {
    names.push_back(std::string(40, 'f') + std::to_string(1000 + i) + ".sh");
    std::ofstream(tmp.path + "/" + names.back()) << "x";
  }
  fs::create_directory(tmp.path + "/sub");
  fs::create_directory_symlink(tmp.path + "/sub", tmp.path + "/link-to-dir");
  fs::create_symlink(tmp.path + "/" + names[0], tmp.path + "/link-to-file");
  fs::create_symlink(tmp.path + "/nowhere", tmp.path + "/dangling");
  std::vector<DirEntry> entries;
  ASSERT_TRUE(ListDirectory(tmp.path, &entries));
  ASSERT_EQ(entries.size(), 704u);  // no "." or ".."
  EXPECT_TRUE(std::is_sorted(entries.begin(), entries.end(), [](auto& a, auto& b) { return a.name < b.name; }));
  auto find = [&](const std::string& n) {
    return *std::find_if(entries.begin(), entries.end(), [&](const DirEntry& e) { return e.name == n; });
  };
  EXPECT_TRUE(find(names[699]).is_regular);
  EXPECT_TRUE(find("sub").is_directory);
  EXPECT_TRUE(find("link-to-dir").is_directory);  // links are followed
  EXPECT_TRUE(find("link-to-file").is_regular);
  EXPECT_FALSE(find("dangling").is_regular || find("dangling").is_directory);
  for (const auto& e : entries) EXPECT_FALSE(e.stamp.known()) << e.name;  // not asked for
  // Stamps of the wanted regular files (links followed) come with the listing, equal to StampOf().
  auto wanted = [](std::string_view n) { return n == "link-to-file" || n == "dangling" || n == "sub" || n.find("1001") != n.npos; };
  ASSERT_TRUE(ListDirectory(tmp.path, &entries, wanted));
  ASSERT_EQ(entries.size(), 704u);
  for (const auto& e : entries) {
    bool stamped = e.name == "link-to-file" || e.name == names[1];
    EXPECT_EQ(e.stamp.known(), stamped) << e.name;
    if (stamped) {
      EXPECT_TRUE(e.stamp == StampOf(tmp.path + "/" + e.name)) << e.name;
    }
  }
  EXPECT_TRUE(find("link-to-file").is_regular);
  EXPECT_FALSE(ListDirectory(tmp.path + "/missing", &entries));
  EXPECT_TRUE(entries.empty());
  EXPECT_FALSE(ListDirectory(tmp.path + "/" + names[0], &entries));  // a file is no directory
}

TEST(FileSnapshot, HoldsTheWholeFileOrSaysWhyNot) {
  TempDir tmp;
  std::string big;
  for (int i = 0; i < 300000; ++i) big += static_cast<char>('a' + i % 26);
  WriteFileAtomically(tmp.path + "/big", big);
  WriteFileAtomically(tmp.path + "/empty", "");
  FileSnapshot snap;
  std::string error;
  ASSERT_TRUE(snap.Read(tmp.path + "/big", &error)) << error;
  EXPECT_EQ(snap.view(), big);
  // A later rewrite of the file does not change the snapshot (it is a private copy).
  { std::ofstream(tmp.path + "/big", std::ios::binary | std::ios::trunc) << "changed"; }
  EXPECT_EQ(snap.view(), big);
  ASSERT_TRUE(snap.Read(tmp.path + "/empty", &error)) << error;
  EXPECT_EQ(snap.view(), "");
  EXPECT_FALSE(snap.Read(tmp.path + "/missing", &error));
  EXPECT_NE(error.find("No such file"), std::string::npos) << error;
  EXPECT_EQ(snap.view(), "");
  EXPECT_FALSE(snap.Read(tmp.path, &error));  // a directory
}

TEST(ContentHash, EveryByteOfLargeAndSmallInputsCounts) {
  for (size_t size : {0, 1, 7, 8, 31, 63, 64, 65, 100, 1000}) {
    std::string data(size, 'x');
    for (size_t i = 0; i < size; ++i) data[i] = static_cast<char>(i * 7);
    uint64_t h = ContentHash(data);
    EXPECT_EQ(h, ContentHash(data));
    EXPECT_NE(h, ContentHash(data, 1)) << size;
    EXPECT_NE(h, ContentHash(data + '\0')) << size;  // the length counts
    for (size_t i = 0; i < size; ++i) {
      std::string changed = data;
      changed[i] ^= 1;
      EXPECT_NE(h, ContentHash(changed)) << "size " << size << " byte " << i;
    }
  }
  // Swapping two 8-byte words of different lanes changes the hash.
  std::string a(64, 'a'), b = a;
  a.replace(0, 8, "01234567");
  b.replace(8, 8, "01234567");
  EXPECT_NE(ContentHash(a), ContentHash(b));
}

}  // namespace
}  // namespace ptsn::profile
