// Targets sized for the tests that run on them. What a test writes in its test directory comes
// from its arguments where the program is known (pts-native's disk and file workloads: --size
// per thread x --threads, --files x --file-size x --threads; fs_mark's -n files of -s bytes x -t
// threads), else from its profile's EnvironmentTestingSize. A target holds a test when the file
// system made on it leaves that much free plus the workloads' 64 MiB margin (ext4 keeps about 8 %
// of a loop target for itself: 8,960 MiB gave 8,256 MiB free here). The targets' backing files
// are sparse, so a size costs only what the tests write; the targets are sized to fit every test
// when the backing folder has room for all of them at that size, else as large as it has room
// for, and the plan names the tests that will not fit and the --target-size that would.
// Pure: no file system access.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ptsn::reproduce {

struct SpaceNeed {
  uint64_t bytes = 0;  // 0: not known
  std::string from;    // "--size 8192m", "1000 files of 1 MiB", "its profile's EnvironmentTestingSize"
};

// What `profile` ("native/disk-seq-write-1.0.0", "pts/fs-mark-1.0.3") run with `arguments`
// writes; `environment_testing_mb` is its profile's EnvironmentTestingSize (MB, 0 when none).
SpaceNeed TestSpaceNeed(const std::string& profile, const std::string& arguments, double environment_testing_mb);

// The smallest target (a multiple of 256 MiB) whose file system leaves `need` bytes free
// with the workloads' margin.
uint64_t TargetSizeFor(uint64_t need);

struct TestNeed {
  std::string label;  // "IOzone 3.347 [Record Size: 64Kb - File Size: 8GB - Disk Test: Write Performance]"
  SpaceNeed need;
};

struct TargetSizing {
  uint64_t size = 0;                    // bytes per target
  std::vector<std::string> do_not_fit;  // "IOzone ... needs 8.1 GiB (--size 8192m)"
  uint64_t fits_all = 0;                // the --target-size that fits every test
  std::string text;                     // the plan's lines about it
};

// `given`: --target-size when given (kept as given); else sized as above, never below
// `default_size`. `free_bytes`: free in the folder the backing files go to; `targets`: how many
// target files the run may make (targets x instances).
TargetSizing SizeTargets(const std::vector<TestNeed>& needs, std::optional<uint64_t> given, uint64_t free_bytes,
                         size_t targets, uint64_t default_size, const std::string& backing_folder);

}  // namespace ptsn::reproduce
