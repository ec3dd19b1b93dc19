#include "runner/common/file_lock.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "runner/common/atomic_file.h"

namespace fs = std::filesystem;

namespace ptsn {
namespace {

// flock() locks belong to the open file, so two opens in one process exclude each other as two
// processes do.
TEST(FileLockTest, AClaimIsHeldOnceAndItsFileGoesWithIt) {
  fs::path dir = fs::path(::testing::TempDir()) / ("file-lock-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string path = (dir / ".claim.lock").string();
  {
    auto first = FileLock::TryClaim(path);
    ASSERT_TRUE(first);
    first->Note("pid 1: first");
    EXPECT_EQ(ReadFile(path), "pid 1: first");
    EXPECT_FALSE(FileLock::TryClaim(path));
  }
  EXPECT_FALSE(fs::exists(path));  // released: removed
  auto again = FileLock::TryClaim(path);
  EXPECT_TRUE(again);
  {
    FileLock waits((dir / ".plain.lock").string());  // a waiting lock's file stays
  }
  EXPECT_TRUE(fs::exists(dir / ".plain.lock"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ptsn
