// Output that must appear whole or not at all (an export on standard output: a file that turns
// out malformed half way must print nothing), without holding a large export in memory: text is
// kept in memory up to a limit, beyond it in an unlinked temporary file, and copied out at the end.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ptsn {

class OutputSpool {
 public:
  // `dir`: where the temporary file goes ($TMPDIR, else /tmp, when empty).
  explicit OutputSpool(size_t memory_limit = size_t{1} << 20, std::string dir = "");
  ~OutputSpool();
  OutputSpool(const OutputSpool&) = delete;
  OutputSpool& operator=(const OutputSpool&) = delete;

  // Throws ptsn::Error naming the temporary directory when the text cannot be kept (full disk).
  void Write(std::string_view text);
  void Clear();  // drop everything written so far
  size_t size() const { return size_; }
  bool spilled() const { return fd_ >= 0; }
  // Copies everything to `fd` (standard output). Throws ptsn::Error ("cannot write to
  // `fd_name`: reason") when that fails.
  void CopyTo(int fd, const std::string& fd_name) const;
  // Hands everything written, in order, to `take` in pieces (of up to 256 KiB from the file).
  void ReadBack(const std::function<void(std::string_view)>& take) const;

 private:
  void Spill();
  // The temporary file's text from offset `at` on, in pieces of up to 256 KiB.
  void ReadFileFrom(off_t at, const std::function<void(std::string_view)>& take) const;
  [[noreturn]] void Fail(const std::string& what) const;
  void ReleaseChunks();

  size_t limit_;
  std::string dir_;
  // The text kept in memory, in fixed-size chunks taken from (and given back to) a pool shared by
  // every spool of the process: growing never copies, and an export whose threads spool
  // stretch after stretch reuses the same pages instead of faulting in fresh ones each time.
  std::vector<std::unique_ptr<char[]>> chunks_;
  int fd_ = -1;
  size_t size_ = 0;
};

}  // namespace ptsn
