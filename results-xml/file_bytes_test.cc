#include "results-xml/file_bytes.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

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

// Small files share the thread's kept buffer: each view must still be its own file's bytes, in any
// order of sizes and with several files open at once; files above kReadAtMost are mapped.
TEST(FileBytes, SmallFilesOneAfterAnotherAndSeveralAtOnce) {
  const std::string dir = ::testing::TempDir() + "/ptsn_file_bytes_small";
  MakeDirectories(dir);
  std::vector<std::string> texts;
  for (size_t size : {size_t{5000}, size_t{80000}, size_t{100}, size_t{80000}, size_t{200000}, size_t{1},
                      FileBytes::kReadAtMost, FileBytes::kReadAtMost + 1, size_t{3000}}) {
    std::string text(size, 'a');
    for (size_t i = 0; i < size; i += 7) text[i] = static_cast<char>('a' + texts.size());
    texts.push_back(text);
    WriteFileAtomically(dir + "/" + std::to_string(texts.size()) + ".xml", text);
  }
  auto path = [&](size_t i) { return dir + "/" + std::to_string(i + 1) + ".xml"; };
  for (size_t i = 0; i < texts.size(); ++i) EXPECT_EQ(FileBytes(path(i)).view(), texts[i]) << i;
  for (size_t i = 0; i + 2 < texts.size(); ++i) {
    FileBytes a(path(i)), b(path(i + 1));
    {
      FileBytes c(path(i + 2));
      EXPECT_EQ(c.view(), texts[i + 2]) << i;
    }
    FileBytes d(path(i));
    EXPECT_EQ(a.view(), texts[i]) << i;
    EXPECT_EQ(b.view(), texts[i + 1]) << i;
    EXPECT_EQ(d.view(), texts[i]) << i;
  }
}

}  // namespace
}  // namespace ptsn::results
