#include "runner/common/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "runner/common/error.h"

namespace ptsn {

namespace {
std::string ErrnoText(int err) { return std::strerror(err); }

std::string DirectoryOf(const std::filesystem::path& target) {
  return target.has_parent_path() ? target.parent_path().string() : ".";
}

// The name of a temporary file beside `target` before mkstemp's six characters.
std::string TemporaryPrefix(const std::filesystem::path& target) { return "." + target.filename().string() + ".tmp-"; }
}  // namespace

AtomicFileWriter::AtomicFileWriter(const std::string& path) : path_(path) {
  std::string dir = DirectoryOf(path);
  temp_ = dir + "/" + TemporaryPrefix(path) + "XXXXXX";
  fd_ = mkstemp(temp_.data());
  if (fd_ < 0) throw FileError(path, "cannot create a temporary file in " + dir + ": " + ErrnoText(errno));
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) {
    close(fd_);
    unlink(temp_.c_str());
  }
}

void AtomicFileWriter::Fail(const std::string& what) {
  int err = errno;
  close(fd_);
  fd_ = -1;
  unlink(temp_.c_str());
  throw FileError(path_, what + ": " + ErrnoText(err));
}

bool WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

void AtomicFileWriter::Write(std::string_view data) {
  if (!WriteAll(fd_, data)) Fail("cannot write");
}

void AtomicFileWriter::Restart() {
  if (ftruncate(fd_, 0) != 0 || lseek(fd_, 0, SEEK_SET) != 0) Fail("cannot write");
}

void AtomicFileWriter::Commit() {
  // Keep the permissions a plain open() would have given (mkstemp makes 0600).
  mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd_, 0666 & ~mask) != 0) Fail("cannot set permissions");
  if (fsync(fd_) != 0) Fail("cannot flush to disk");
  int fd = fd_;
  fd_ = -1;
  if (close(fd) != 0) {
    int err = errno;
    unlink(temp_.c_str());
    throw FileError(path_, "cannot close: " + ErrnoText(err));
  }
  if (rename(temp_.c_str(), path_.c_str()) != 0) {
    int err = errno;
    unlink(temp_.c_str());
    throw FileError(path_, "cannot rename into place: " + ErrnoText(err));
  }
}

size_t RemoveLeftoverTemporaries(const std::string& path) {
  const std::string prefix = TemporaryPrefix(path);
  size_t removed = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(DirectoryOf(path), ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() != prefix.size() + 6 || name.compare(0, prefix.size(), prefix) != 0) continue;
    std::error_code gone;
    if (e.is_regular_file(gone) && std::filesystem::remove(e.path(), gone)) ++removed;
  }
  return removed;
}

void WriteFileAtomically(const std::string& path, std::string_view content) {
  AtomicFileWriter out(path);
  out.Write(content);
  out.Commit();
}

std::string ReadFile(const std::string& path) {
  // One read() into a buffer sized by fstat (an ostringstream copy costs 3x on large result files).
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw FileError(path, std::string("cannot open: ") + ErrnoText(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    int err = errno;
    close(fd);
    if (S_ISDIR(st.st_mode)) throw FileError(path, "is a directory, not a file");
    throw FileError(path, "cannot stat: " + ErrnoText(err));
  }
  std::string out;
  // One byte more than the size, so the read that meets end-of-file needs no second, copying grow.
  out.resize(st.st_size > 0 ? static_cast<size_t>(st.st_size) + 1 : 0);
  size_t have = 0;
  while (true) {
    if (have == out.size()) out.resize(out.size() + 65536);  // files that grow or report size 0 (/proc)
    ssize_t n = read(fd, out.data() + have, out.size() - have);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      close(fd);
      throw FileError(path, "cannot read: " + ErrnoText(err));
    }
    if (n == 0) break;
    have += static_cast<size_t>(n);
  }
  close(fd);
  out.resize(have);
  return out;
}

void MakeDirectories(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) throw FileError(path, "cannot create directory: " + ec.message());
}

uint64_t FreeBytes(const std::string& path) {
  struct statvfs s {};
  if (statvfs(path.c_str(), &s) != 0) throw FileError(path, std::string("cannot tell its free space: ") + std::strerror(errno));
  return static_cast<uint64_t>(s.f_bavail) * s.f_frsize;
}

}  // namespace ptsn
