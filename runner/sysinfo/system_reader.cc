#include "runner/sysinfo/system_reader.h"

#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "runner/common/find_program.h"
#include "runner/common/strings.h"

namespace fs = std::filesystem;

namespace ptsn::sysinfo {
namespace {

class RootedReader : public SystemReader {
 public:
  RootedReader(std::string root, std::string cache)
      : root_(std::move(root)), cache_(std::move(cache)), live_(root_ == "/" || root_.empty()) {
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
    std::string key = CacheKey(argv);
    std::string cache_file = key.empty() ? "" : cache_ + "/probe-" + std::to_string(std::hash<std::string>{}(key));
    if (!cache_file.empty()) {
      std::ifstream in(cache_file, std::ios::binary);
      std::string first;
      if (in && std::getline(in, first) && first == key) {
        std::stringstream rest;
        rest << in.rdbuf();
        return rest.str();
      }
    }
    auto out = RunForReal(argv);
    if (out && !cache_file.empty()) {
      std::error_code ec;
      fs::create_directories(cache_, ec);
      std::ofstream(cache_file, std::ios::binary | std::ios::trunc) << key << "\n" << *out;
    }
    return out;
  }

  // "argv|program path|size|mtime" of the program argv[0] resolves to; "" = do not cache.
  std::string CacheKey(const std::vector<std::string>& argv) const {
    if (cache_.empty() || argv.empty()) return "";
    auto program = FindProgram(argv[0]);
    if (!program) return "";
    std::error_code ec;
    fs::path real = fs::canonical(*program, ec);
    if (ec) return "";
    auto size = fs::file_size(real, ec);
    auto mtime = fs::last_write_time(real, ec).time_since_epoch().count();
    return Join(argv, " ") + "|" + real.string() + "|" + std::to_string(size) + "|" + std::to_string(mtime);
  }

  std::optional<std::string> RunForReal(const std::vector<std::string>& argv) const {
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

  std::vector<std::pair<std::string, std::string>> Environment() const override {
    std::vector<std::pair<std::string, std::string>> vars;
    auto add = [&](const std::string& entry) {
      auto eq = entry.find('=');
      if (eq != std::string::npos && eq > 0) vars.emplace_back(entry.substr(0, eq), entry.substr(eq + 1));
    };
    if (live_) {
      for (char** e = environ; e && *e; ++e) add(*e);
    } else if (auto text = ReadFile("/.environ")) {
      for (const auto& line : Split(*text, '\n')) add(line);
    }
    return vars;
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
  std::string cache_;
  bool live_;
};

}  // namespace

std::unique_ptr<SystemReader> MakeRootedReader(const std::string& root, const std::string& probe_cache) {
  return std::make_unique<RootedReader>(root, probe_cache);
}

}  // namespace ptsn::sysinfo
