// Everything sysinfo reads from the machine goes through SystemReader, so the string builders
// are unit-tested on captured fixture trees (testdata/<machine>/proc, sys, etc) instead of the
// machine the tests happen to run on.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ptsn::sysinfo {

struct FileSystemInfo {
  uint64_t total_bytes = 0;
  uint64_t block_size = 0;
};

class SystemReader {
 public:
  virtual ~SystemReader() = default;
  // Absolute paths as on the machine: "/proc/cpuinfo", "/sys/block".
  virtual std::optional<std::string> ReadFile(const std::string& path) const = 0;
  virtual std::vector<std::string> ListDir(const std::string& path) const = 0;  // names, sorted
  virtual bool Exists(const std::string& path) const = 0;
  // stdout of a small probe command (e.g. {"gcc", "-dumpfullversion"}); nullopt if it fails.
  virtual std::optional<std::string> RunCommand(const std::vector<std::string>& argv) const = 0;
  virtual std::optional<FileSystemInfo> StatFileSystem(const std::string& path) const = 0;
  // The process environment, in its order (PTS reads $_SERVER, which keeps it).
  virtual std::vector<std::pair<std::string, std::string>> Environment() const = 0;
};

// Reads below `root`. With root "/" this is the live machine: commands run for real and
// statvfs is used. With any other root (a fixture) commands are answered from
// <root>/.commands/<argv joined by '_'>, file systems from <root>/.statfs ("path total block") and
// the environment from <root>/.environ (NAME=value lines).
// `probe_cache` (live machine only): a directory where probe command outputs are kept, keyed by
// the command line and the program's size and mtime, so `gcc -dumpfullversion` and friends run
// once per compiler install rather than once per benchmark run ("" = no cache).
std::unique_ptr<SystemReader> MakeRootedReader(const std::string& root, const std::string& probe_cache = "");

}  // namespace ptsn::sysinfo
