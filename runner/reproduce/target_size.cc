#include "runner/reproduce/target_size.h"

#include <algorithm>
#include <sstream>

#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/workloads/units.h"

namespace ptsn::reproduce {

namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kMargin = 64 * kMiB;  // what every workload's scratch check adds (workloads/scratch.h)

// The value after `option` in `arguments` ("--size 8192m" or "--size=8192m").
std::optional<std::string> OptionValue(const std::string& arguments, const std::string& option) {
  std::istringstream in(arguments);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i] == option && i + 1 < words.size()) return words[i + 1];
    if (StartsWith(words[i], option + "=")) return words[i].substr(option.size() + 1);
  }
  return std::nullopt;
}

// A size or count option; `fallback` when absent or unreadable.
uint64_t SizeOption(const std::string& arguments, const std::string& option, uint64_t fallback) {
  auto v = OptionValue(arguments, option);
  if (!v) return fallback;
  try {
    return workloads::ParseSize(*v, option);
  } catch (const Error&) {
    return fallback;
  }
}

// "pts/fs-mark-1.0.3" -> "pts/fs-mark".
std::string Base(const std::string& profile) {
  size_t dash = profile.rfind('-');
  return dash == std::string::npos ? profile : profile.substr(0, dash);
}

std::string Files(uint64_t files, uint64_t file_size, uint64_t threads) {
  return std::to_string(files * threads) + " files of " + workloads::FormatSize(file_size);
}

}  // namespace

SpaceNeed TestSpaceNeed(const std::string& profile, const std::string& arguments, double environment_testing_mb) {
  const std::string base = Base(profile);
  const std::string name = base.substr(base.find('/') + 1);
  if (StartsWith(base, "native/disk-") || base == "native/file-server") {
    uint64_t size = SizeOption(arguments, "--size", 256 * kMiB);
    uint64_t threads = std::max<uint64_t>(1, SizeOption(arguments, "--threads", 1));
    return {size * threads, threads > 1 ? std::to_string(threads) + " files of " + workloads::FormatSize(size)
                                        : "a file of " + workloads::FormatSize(size)};
  }
  if (base == "native/fs-files") {
    uint64_t files = SizeOption(arguments, "--files", 1000), size = SizeOption(arguments, "--file-size", kMiB);
    uint64_t threads = std::max<uint64_t>(1, SizeOption(arguments, "--threads", 1));
    return {files * threads * (size + 4096), Files(files, size, threads)};
  }
  if (name == "fs-mark") {  // fs_mark -n files of -s bytes in each of -t threads
    auto files = OptionValue(arguments, "-n"), size = OptionValue(arguments, "-s");
    if (files && size) {
      uint64_t n = SizeOption(arguments, "-n", 0), s = SizeOption(arguments, "-s", 0);
      uint64_t threads = std::max<uint64_t>(1, SizeOption(arguments, "-t", 1));
      if (n > 0 && s > 0) return {n * threads * (s + 4096), Files(n, s, threads)};
    }
  }
  if (environment_testing_mb > 0)
    return {static_cast<uint64_t>(environment_testing_mb) * kMiB, "its profile's EnvironmentTestingSize"};
  return {};
}

uint64_t TargetSizeFor(uint64_t need) {
  // ext4 on a loop target keeps ~7.9 % (8,960 MiB -> 8,256 MiB free): 8 % and 64 MiB more.
  uint64_t size = (need + kMargin) * 100 / 92 + kMargin;
  constexpr uint64_t kStep = 256 * kMiB;
  return (size + kStep - 1) / kStep * kStep;
}

TargetSizing SizeTargets(const std::vector<TestNeed>& needs, std::optional<uint64_t> given, uint64_t free_bytes,
                         size_t targets, uint64_t default_size, const std::string& backing_folder) {
  TargetSizing s;
  const TestNeed* largest = nullptr;
  for (const auto& t : needs)
    if (t.need.bytes > 0 && (!largest || t.need.bytes > largest->need.bytes)) largest = &t;
  s.fits_all = largest ? TargetSizeFor(largest->need.bytes) : default_size;
  const uint64_t wanted = std::max(default_size, s.fits_all);
  targets = std::max<size_t>(1, targets);
  const std::string count = std::to_string(targets) + " target" + (targets == 1 ? "" : "s");
  std::string why;
  if (given) {
    s.size = *given;
  } else if (wanted <= free_bytes / targets) {
    s.size = wanted;
    if (wanted > default_size)
      s.text = "Targets sized " + workloads::FormatSize(wanted) + " each, for " + largest->label + " (writes " +
               largest->need.from + "): sparse files in " + backing_folder + ", " + count + " up to " +
               workloads::FormatSize(wanted * targets) + " of the " + workloads::FormatSize(free_bytes) + " free\n";
  } else {
    // As large as the backing folder has room for, in 256 MiB steps, never below the default.
    s.size = std::max(default_size, free_bytes / targets / (256 * kMiB) * (256 * kMiB));
    why = " (" + backing_folder + " has " + workloads::FormatSize(free_bytes) + " free: not enough for " + count +
          " of " + workloads::FormatSize(wanted) + ")";
  }
  for (const auto& t : needs)
    if (t.need.bytes > 0 && TargetSizeFor(t.need.bytes) > s.size)
      s.do_not_fit.push_back(t.label + " needs " + workloads::FormatSize(t.need.bytes + kMargin) + " (" + t.need.from +
                             ")");
  if (!s.do_not_fit.empty()) {
    s.text = "Targets of " + workloads::FormatSize(s.size) + why + " cannot hold every test; these will fail:\n";
    for (const auto& line : s.do_not_fit) s.text += "  " + line + "\n";
    s.text += "--target-size " + std::to_string(s.fits_all / kMiB) + "m fits every test (" + count + " up to " +
              workloads::FormatSize(s.fits_all * targets) + " on disk)\n";
  }
  return s;
}

}  // namespace ptsn::reproduce
