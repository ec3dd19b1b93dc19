#include "runner/sysinfo/system_reader.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "runner/common/strings.h"

namespace fs = std::filesystem;

namespace ptsn::sysinfo {
namespace {

class RootedReader : public SystemReader {
 public:
  explicit RootedReader(std::string root) : root_(std::move(root)), live_(root_ == "/" || root_.empty()) {
    while (!root_.empty() && root_.back() == '/') root_.pop_back();
  }

  std::optional<std::string> ReadFile(const std::string& path) const override {
    std::ifstream in(root_ + path, std::ios::binary);
    if (!in) return std::nullopt;
    std::stringstream s;
    s << in.rdbuf();
    if (in.bad()) return std::nullopt;
    return s.str();
  }

  std::vector<std::string> ListDir(const std::string& path) const override {
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(root_ + path, ec), end; !ec && it != end; it.increment(ec))
      names.push_back(it->path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  bool Exists(const std::string& path) const override {
    std::error_code ec;
    return fs::exists(root_ + path, ec);
  }

  std::optional<std::string> RunCommand(const std::vector<std::string>& argv) const override {
    if (!live_) return ReadFile("/.commands/" + Join(argv, "_"));
    std::string cmd;
    for (const auto& a : argv) cmd += "'" + a + "' ";
    cmd += "2>/dev/null";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return std::nullopt;
    std::string out;
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
    int status = pclose(p);
    if (status != 0) return std::nullopt;
    return out;
  }

  std::optional<FileSystemInfo> StatFileSystem(const std::string& path) const override {
    if (!live_) {
      auto table = ReadFile("/.statfs");
      if (!table) return std::nullopt;
      for (const auto& line : Split(*table, '\n')) {
        std::istringstream s(line);
        std::string p;
        FileSystemInfo info;
        if (s >> p >> info.total_bytes >> info.block_size && p == path) return info;
      }
      return std::nullopt;
    }
    struct statvfs st{};
    if (statvfs(path.c_str(), &st) != 0) return std::nullopt;
    return FileSystemInfo{static_cast<uint64_t>(st.f_blocks) * st.f_frsize, st.f_bsize};
  }

 private:
  std::string root_;
  bool live_;
};

}  // namespace

std::unique_ptr<SystemReader> MakeRootedReader(const std::string& root) {
  return std::make_unique<RootedReader>(root);
}

}  // namespace ptsn::sysinfo
