#include "results-xml/file_bytes.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "runner/common/atomic_file.h"
#include "runner/common/error.h"

namespace ptsn::results {
namespace {

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(FileBytes, MapsAFileAndFailsAsReadFile) {
  const std::string dir = ::testing::TempDir() + "/ptsn_file_bytes";
  MakeDirectories(dir);
  const std::string text(100000, 'x');
  WriteFileAtomically(dir + "/a.xml", text + "end");
  EXPECT_EQ(FileBytes(dir + "/a.xml").view(), text + "end");
  WriteFileAtomically(dir + "/empty.xml", "");
  EXPECT_EQ(FileBytes(dir + "/empty.xml").view(), "");
  // Errors are ReadFile's, word for word.
  for (const std::string& bad : {dir + "/missing.xml", dir}) {
    const std::string ours = ErrorOf([&] { FileBytes b(bad); });
    EXPECT_FALSE(ours.empty()) << bad;
    EXPECT_EQ(ours, ErrorOf([&] { ReadFile(bad); })) << bad;
  }
}

}  // namespace
}  // namespace ptsn::results
