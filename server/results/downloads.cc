#include "server/results/downloads.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <memory>

#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/install/checksum.h"

namespace fs = std::filesystem;

namespace ptsn::server {

ImportedDownloads ImportDownloads(const std::string& source, const std::string& store_dir) {
  std::error_code ec;
  if (!fs::is_directory(source, ec)) throw FileError(source, "not a directory");
  MakeDirectories(store_dir);
  ImportedDownloads out;
  const auto opts = fs::directory_options::follow_directory_symlink | fs::directory_options::skip_permission_denied;
  for (auto it = fs::recursive_directory_iterator(source, opts, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_directory() && it->path().filename() == "by-sha256") {
      it.disable_recursion_pending();  // our download cache's index: the same files again
      continue;
    }
    if (!it->is_regular_file()) continue;
    const std::string path = it->path().string();
    const std::string sha256 = install::ComputeDigests(path).sha256;
    const std::string target = store_dir + "/" + sha256;
    if (fs::exists(target)) {
      ++out.present;
      continue;
    }
    const std::string part = target + ".part";
    fs::copy_file(path, part, fs::copy_options::overwrite_existing, ec);
    if (!ec) fs::rename(part, target, ec);
    if (ec) {
      fs::remove(part, ec);
      throw FileError(target, "cannot store " + path + ": " + ec.message());
    }
    ++out.added;
    out.bytes += static_cast<size_t>(fs::file_size(target));
  }
  if (ec) throw FileError(source, "cannot list: " + ec.message());
  return out;
}

void InstallDownloadRoutes(http::Router& router, const std::string& store_dir) {
  router.Get(R"(/downloads/([0-9a-f]{64}))", [store_dir](const http::Request& req, http::Response& res) {
    const std::string path = store_dir + "/" + req.matches[1];
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      if (fd >= 0) close(fd);
      res.status = 404;
      res.SetContent(R"({"error":"no download with that SHA256 here"})", "application/json");
      return;
    }
    res.SetFileContent(fd, static_cast<size_t>(st.st_size), "application/octet-stream");  // sent with sendfile
  });
}

}  // namespace ptsn::server
