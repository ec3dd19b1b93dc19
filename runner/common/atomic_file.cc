#include "runner/common/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
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
}  // namespace

void WriteFileAtomically(const std::string& path, std::string_view content) {
  std::filesystem::path target(path);
  std::string dir = target.has_parent_path() ? target.parent_path().string() : ".";
  std::string tmpl = dir + "/." + target.filename().string() + ".tmp-XXXXXX";
  int fd = mkstemp(tmpl.data());
  if (fd < 0) throw FileError(path, "cannot create a temporary file in " + dir + ": " + ErrnoText(errno));
  auto fail = [&](const std::string& what) {
    int err = errno;
    close(fd);
    unlink(tmpl.c_str());
    return FileError(path, what + ": " + ErrnoText(err));
  };
  const char* p = content.data();
  size_t left = content.size();
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw fail("cannot write");
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  // Keep the permissions a plain open() would have given (mkstemp makes 0600).
  mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask) != 0) throw fail("cannot set permissions");
  if (fsync(fd) != 0) throw fail("cannot flush to disk");
  if (close(fd) != 0) {
    int err = errno;
    unlink(tmpl.c_str());
    throw FileError(path, "cannot close: " + ErrnoText(err));
  }
  if (rename(tmpl.c_str(), path.c_str()) != 0) {
    int err = errno;
    unlink(tmpl.c_str());
    throw FileError(path, "cannot rename into place: " + ErrnoText(err));
  }
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
  out.resize(st.st_size > 0 ? static_cast<size_t>(st.st_size) : 0);
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

}  // namespace ptsn
