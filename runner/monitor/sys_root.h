// A root-relative view of /proc and /sys. On a real system the root is "/"; unit tests point it
// at a captured fixture tree (runner/monitor/testdata/...), so every sensor is exercised on
// known file contents without touching the machine it runs on.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptsn::monitor {

class SysRoot {
 public:
  explicit SysRoot(std::string root = "/");

  const std::string& root() const { return root_; }
  // The real path of an absolute path inside the root ("/proc/stat" -> "<root>/proc/stat").
  std::string Path(std::string_view absolute) const;
  // Whole file; nullopt when it is absent or unreadable.
  std::optional<std::string> ReadFile(std::string_view absolute) const;
  // Whole file with surrounding white space removed (sysfs attributes end in '\n').
  std::optional<std::string> ReadTrimmed(std::string_view absolute) const;
  // Entry names of a directory, sorted; empty when it is absent.
  std::vector<std::string> List(std::string_view absolute_dir) const;
  bool Exists(std::string_view absolute) const;

 private:
  std::string root_;
};

// A file kept open for the whole monitoring session and re-read from offset 0 with pread on
// every sample: no open/close and no allocation per sample once the buffer has grown to the
// file's size (procfs and sysfs regenerate the contents on each read at offset 0).
class PolledFile {
 public:
  PolledFile() = default;
  PolledFile(const SysRoot& root, std::string_view absolute);
  PolledFile(PolledFile&& other) noexcept;
  PolledFile& operator=(PolledFile&& other) noexcept;
  PolledFile(const PolledFile&) = delete;
  PolledFile& operator=(const PolledFile&) = delete;
  ~PolledFile();

  bool is_open() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }
  // The current contents; nullopt when the read fails (e.g. the CPU of a cpufreq file went
  // offline). The view stays valid until the next Read().
  std::optional<std::string_view> Read();

 private:
  int fd_ = -1;
  std::string path_;
  std::vector<char> buffer_;
};

}  // namespace ptsn::monitor
