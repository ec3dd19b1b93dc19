// Verifying downloaded files as PTS does (pts_test_file_download::check_file_hash): SHA-256 when
// the profile gives one (then MD5 is not looked at), else MD5, else "size > 0"; and an exact size
// check when a size is known (PTS treats FileSize as informational; a wrong size is a corrupt file).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ptsn::install {

struct FileCheck {
  std::string sha256;  // lower or upper case hex; "" = none
  std::string md5;
  long long size = 0;  // 0 = unknown
};

struct Digests {
  std::string sha256, md5;  // lower-case hex
  long long size = 0;
};

// Throws ptsn::Error naming the file when it cannot be read.
Digests ComputeDigests(const std::string& path);

// nullopt when the file passes; else what is wrong ("sha256 is ab12..., expected cd34...").
// `skip_hashes` = PTS's NO_FILE_HASH_CHECKS.
std::optional<std::string> CheckFile(const std::string& path, const FileCheck& expected, bool skip_hashes = false);

}  // namespace ptsn::install
