#include "runner/common/output_spool.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "runner/common/atomic_file.h"
#include "runner/common/error.h"

namespace fs = std::filesystem;

namespace {

class OutputSpoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ptsn-spool-" + std::to_string(getpid()));
    fs::create_directories(dir_ / "tmp");
  }
  void TearDown() override { fs::remove_all(dir_); }
  // What CopyTo writes into a fresh file opened with `flags`.
  std::string CopiedOut(const ptsn::OutputSpool& spool, int flags = 0) {
    std::string path = (dir_ / "out").string();
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | flags, 0600);
    EXPECT_GE(fd, 0);
    spool.CopyTo(fd, "standard output");
    ::close(fd);
    return ptsn::ReadFile(path);
  }
  size_t FilesInTmp() { return std::distance(fs::directory_iterator(dir_ / "tmp"), fs::directory_iterator()); }
  std::string Tmp() { return (dir_ / "tmp").string(); }
  fs::path dir_;
};

std::string Pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + (i * 7 + i / 13) % 26);
  return s;
}

TEST_F(OutputSpoolTest, SmallOutputStaysInMemory) {
  ptsn::OutputSpool spool(100, Tmp());
  spool.Write("hello ");
  spool.Write("world\n");
  EXPECT_FALSE(spool.spilled());
  EXPECT_EQ(spool.size(), 12u);
  EXPECT_EQ(CopiedOut(spool), "hello world\n");
}

TEST_F(OutputSpoolTest, LargeOutputGoesToAnUnlinkedFileAndComesBackWhole) {
  const std::string text = Pattern(300000);
  ptsn::OutputSpool spool(1000, Tmp());
  for (size_t at = 0; at < text.size(); at += 777) spool.Write(std::string_view(text).substr(at, 777));
  EXPECT_TRUE(spool.spilled());
  EXPECT_EQ(FilesInTmp(), 0u) << "the temporary file has no name";
  EXPECT_EQ(spool.size(), text.size());
  EXPECT_EQ(CopiedOut(spool), text);
  // sendfile() refuses an O_APPEND destination: the copy falls back to read/write.
  EXPECT_EQ(CopiedOut(spool, O_APPEND), text);
}

TEST_F(OutputSpoolTest, ReadBackHandsOverEverythingInOrderFromMemoryOrFile) {
  for (size_t limit : {size_t{1} << 20, size_t{1000}}) {
    ptsn::OutputSpool spool(limit, Tmp());
    const std::string text = Pattern(700 * 1024 + 3);
    for (size_t at = 0; at < text.size(); at += 100 * 1024) spool.Write(std::string_view(text).substr(at, 100 * 1024));
    EXPECT_EQ(spool.spilled(), limit < text.size()) << limit;
    std::string back;
    size_t pieces = 0;
    spool.ReadBack([&](std::string_view piece) {
      back += piece;
      ++pieces;
    });
    EXPECT_EQ(back, text) << limit;
    EXPECT_EQ(pieces, 3u) << "256 KiB pieces, from the file or from memory";
  }
  ptsn::OutputSpool empty(1 << 20, Tmp());
  empty.ReadBack([](std::string_view) { ADD_FAILURE() << "nothing was written"; });
}

// An export on several threads spools stretch after stretch: the memory one spool gave up (at its
// end, Clear or a spill) is what the next one writes into, rather than pages faulted in afresh.
TEST_F(OutputSpoolTest, MemoryGivenUpIsReusedByTheNextSpool) {
  auto first_piece = [](const ptsn::OutputSpool& spool) {
    const char* at = nullptr;
    spool.ReadBack([&](std::string_view piece) {
      if (!at) at = piece.data();
    });
    return at;
  };
  const std::string text = Pattern(1000);
  const char* used;
  {
    ptsn::OutputSpool spool(1 << 20, Tmp());
    spool.Write(text);
    used = first_piece(spool);
  }
  ptsn::OutputSpool next(1 << 20, Tmp());
  next.Write(text);
  EXPECT_EQ(first_piece(next), used) << "after the first spool's end";
  next.Clear();
  ptsn::OutputSpool after_clear(1 << 20, Tmp());
  after_clear.Write(text);
  EXPECT_EQ(first_piece(after_clear), used) << "after Clear";
  std::string back;
  after_clear.ReadBack([&](std::string_view piece) { back += piece; });
  EXPECT_EQ(back, text);
}

TEST_F(OutputSpoolTest, ClearDropsWhatWasWrittenInMemoryAndInTheFile) {
  ptsn::OutputSpool spool(10, Tmp());
  spool.Write("short");
  spool.Clear();
  spool.Write("kept");
  EXPECT_EQ(CopiedOut(spool), "kept");
  spool.Write(Pattern(5000));
  ASSERT_TRUE(spool.spilled());
  spool.Clear();
  spool.Write("after");
  EXPECT_EQ(spool.size(), 5u);
  EXPECT_EQ(CopiedOut(spool), "after");
}

TEST_F(OutputSpoolTest, UnusableTemporaryDirectoryIsNamed) {
  const std::string missing = (dir_ / "no-such-dir").string();
  ptsn::OutputSpool spool(10, missing);
  spool.Write("fits");
  try {
    spool.Write(Pattern(100));
    FAIL() << "expected an error";
  } catch (const ptsn::Error& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No such file"), std::string::npos) << e.what();
  }
}

TEST_F(OutputSpoolTest, FailedCopyNamesTheDestination) {
  ptsn::OutputSpool spool(10, Tmp());
  spool.Write(Pattern(100));
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  ::close(pipe_fds[1]);
  try {
    spool.CopyTo(pipe_fds[0], "standard output");  // the read end: not writable
    FAIL() << "expected an error";
  } catch (const ptsn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write to standard output"), std::string::npos) << e.what();
  }
  ::close(pipe_fds[0]);
}

}  // namespace
