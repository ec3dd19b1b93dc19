// Writing files so that a reader never sees half of one: write a temporary file beside the
// target, fsync it, rename it into place. A failure leaves the previous file untouched.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ptsn {

// A file written in pieces and put in place atomically: the pieces go to a temporary file beside
// `path` (so a large export never needs all of its text in memory), Commit() fsyncs and renames
// it over `path`. Destroyed without Commit() (an error on the way), it removes the temporary
// file and `path` is untouched. Errors throw ptsn::Error naming `path`.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(const std::string& path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  void Write(std::string_view data);
  void Restart();  // drop everything written so far
  void Commit();

 private:
  [[noreturn]] void Fail(const std::string& what);
  std::string path_, temp_;
  int fd_ = -1;
};

// Replaces `path` with `content` atomically. Throws ptsn::Error naming the path on failure
// (read-only directory, full disk, ...); the temporary file is removed in that case.
void WriteFileAtomically(const std::string& path, std::string_view content);

// write() of all of `data` to `fd`, going on after short writes and EINTR; false (errno set) on
// failure.
bool WriteAll(int fd, std::string_view data);

// Reads a whole file. Throws ptsn::Error naming the path when it cannot be read.
std::string ReadFile(const std::string& path);

// A whole file mapped read-only, for a large input read once (an export): the page cache's pages
// instead of a zero-filled copy (a tenth of the page faults; ~8% of the CPU time of a 4 MB CSV
// export). A file that cannot be mapped (empty, not a regular file) is read with ReadFile, whose
// errors it throws. Cutting the file short while it is mapped kills the process (SIGBUS): for
// files replaced by rename, as result files are, not for logs that are appended to.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  std::string_view text() const { return text_; }

 private:
  void* map_ = nullptr;
  std::string copy_;  // when not mapped
  std::string_view text_;
};

// mkdir -p; throws ptsn::Error naming the directory on failure.
void MakeDirectories(const std::string& path);

}  // namespace ptsn
