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
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw FileError(path, "is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError(path, std::string("cannot open: ") + ErrnoText(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw FileError(path, "cannot read");
  return ss.str();
}

void MakeDirectories(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) throw FileError(path, "cannot create directory: " + ec.message());
}

}  // namespace ptsn
