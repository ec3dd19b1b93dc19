// Writing files so that a reader never sees half of one: write a temporary file beside the
// target, fsync it, rename it into place. A failure leaves the previous file untouched.
#pragma once

#include <cstddef>
#include <cstdint>
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

// Removes the temporary files AtomicFileWriter left beside `path` (a writer killed before its
// rename: kill -9, a power cut). Call it only where no writer of `path` can be at work (under the
// lock every writer of `path` takes). Returns how many were removed; a file that cannot be
// removed is left.
size_t RemoveLeftoverTemporaries(const std::string& path);

// Replaces `path` with `content` atomically. Throws ptsn::Error naming the path on failure
// (read-only directory, full disk, ...); the temporary file is removed in that case.
void WriteFileAtomically(const std::string& path, std::string_view content);

// write() of all of `data` to `fd`, going on after short writes and EINTR; false (errno set) on
// failure.
bool WriteAll(int fd, std::string_view data);

// Reads a whole file. Throws ptsn::Error naming the path when it cannot be read.
std::string ReadFile(const std::string& path);

// mkdir -p; throws ptsn::Error naming the directory on failure.
void MakeDirectories(const std::string& path);

// Bytes an unprivileged writer may still use on the file system holding `path` (statvfs
// f_bavail); throws ptsn::Error naming the path when it cannot be told.
uint64_t FreeBytes(const std::string& path);

}  // namespace ptsn
