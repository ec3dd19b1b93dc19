#include "server/store/disk_reserve.h"

#include <gtest/gtest.h>
#include <sys/mount.h>

#include <filesystem>
#include <random>

#include "runner/common/atomic_file.h"
#include "tests/support/required.h"

namespace ptsn::server {
namespace {

namespace fs = std::filesystem;

struct SmallDisk : ::testing::Test {
  std::string dir;
  bool mounted = false;
  void SetUp() override {
    dir = (fs::temp_directory_path() / ("ptsn_reserve_" + std::to_string(std::random_device{}()))).string();
    fs::create_directories(dir);
    mounted = ::mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=4m") == 0;
  }
  void TearDown() override {
    if (mounted) ::umount2(dir.c_str(), MNT_DETACH);
    fs::remove_all(dir);
  }
};

TEST_F(SmallDisk, HeldReserveTakesItsRoomAndGivesItBack) {
  if (!mounted) PTSN_SKIP_UNLESS_REQUIRED("root", "cannot mount a tmpfs (needs root)");
  DiskReserve reserve(dir + "/results.db-reserve", 1 << 20);
  const std::uint64_t before = ptsn::FreeBytes(dir);
  ASSERT_TRUE(reserve.Hold());
  EXPECT_TRUE(reserve.held());
  EXPECT_EQ(fs::file_size(reserve.path()), 1u << 20);
  EXPECT_EQ(before - ptsn::FreeBytes(dir), 1u << 20);
  reserve.GiveUp();
  EXPECT_FALSE(reserve.held());
  EXPECT_FALSE(fs::exists(reserve.path()));
  EXPECT_EQ(ptsn::FreeBytes(dir), before);
}

TEST_F(SmallDisk, ReserveThatDoesNotFitLeavesNothingBehind) {
  if (!mounted) PTSN_SKIP_UNLESS_REQUIRED("root", "cannot mount a tmpfs (needs root)");
  DiskReserve reserve(dir + "/results.db-reserve", 8 << 20);  // twice the file system
  EXPECT_FALSE(reserve.Hold());
  EXPECT_FALSE(reserve.held());
  EXPECT_FALSE(fs::exists(reserve.path()));
}

TEST(DiskReserve, NoBytesIsNoReserve) {
  DiskReserve reserve("/nonexistent/dir/reserve", 0);
  EXPECT_TRUE(reserve.Hold());
  reserve.GiveUp();
  EXPECT_FALSE(fs::exists("/nonexistent/dir/reserve"));
}

}  // namespace
}  // namespace ptsn::server
