#include "runner/monitor/sys_root.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ptsn::monitor {

SysRoot::SysRoot(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  if (root_ == "/") root_.clear();  // Path() then returns absolute paths unchanged
}

std::string SysRoot::Path(std::string_view absolute) const { return root_ + std::string(absolute); }

std::optional<std::string> SysRoot::ReadFile(std::string_view absolute) const {
  std::ifstream in(Path(absolute), std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return out.str();
}

std::optional<std::string> SysRoot::ReadTrimmed(std::string_view absolute) const {
  auto text = ReadFile(absolute);
  if (!text) return std::nullopt;
  size_t begin = text->find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return std::string();
  size_t end = text->find_last_not_of(" \t\r\n");
  return text->substr(begin, end - begin + 1);
}

std::vector<std::string> SysRoot::List(std::string_view absolute_dir) const {
  std::vector<std::string> names;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(Path(absolute_dir), ec), end; !ec && it != end; it.increment(ec))
    names.push_back(it->path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

bool SysRoot::Exists(std::string_view absolute) const {
  std::error_code ec;
  return std::filesystem::exists(Path(absolute), ec);
}

PolledFile::PolledFile(const SysRoot& root, std::string_view absolute) : path_(root.Path(absolute)) {
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  buffer_.resize(4096);
}

PolledFile::PolledFile(PolledFile&& other) noexcept
    : fd_(other.fd_), path_(std::move(other.path_)), buffer_(std::move(other.buffer_)) {
  other.fd_ = -1;
}

PolledFile& PolledFile::operator=(PolledFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    path_ = std::move(other.path_);
    buffer_ = std::move(other.buffer_);
    other.fd_ = -1;
  }
  return *this;
}

PolledFile::~PolledFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::optional<std::string_view> PolledFile::Read() {
  if (fd_ < 0) return std::nullopt;
  size_t used = 0;
  for (;;) {
    if (used == buffer_.size()) buffer_.resize(buffer_.size() * 2);  // only until it fits
    ssize_t n = ::pread(fd_, buffer_.data() + used, buffer_.size() - used, static_cast<off_t>(used));
    if (n < 0) {
      if (errno == EINTR) continue;
      return std::nullopt;
    }
    if (n == 0) break;
    // seq_file-backed procfs files (/proc/diskstats) may return short reads before the end,
    // so only an empty read means end of file.
    used += static_cast<size_t>(n);
  }
  return std::string_view(buffer_.data(), used);
}

}  // namespace ptsn::monitor
