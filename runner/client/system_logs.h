// The system logs PTS attaches to a result upload (pts_openbenchmarking_upload.php): the saved
// result's `system-logs/` directory (lspci, dmesg, ... per system, written at run time), as a
// ZIP whose entries are named "system-logs/...", sent only when every file in it is text and
// the archive is under PTS's limit of 3,097,152 bytes. Dot files are left out (PHP's glob).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>

namespace ptsn::client {

inline constexpr size_t kMaxSystemLogsZipBytes = 3097152;

struct SystemLogs {
  std::optional<std::string> zip;  // the archive, when it is to be sent
  std::string skipped_because;     // why not, when the directory exists but is not sent
};

// Reads `<result_dir>/system-logs/`; no directory → neither zip nor reason.
SystemLogs CollectSystemLogs(const std::string& result_dir);

// A cloned result's system-log zip (clone_openbenchmarking_system_logs), extracted into the
// saved result's directory as PTS does (its entries are "system-logs/..."); what is already there
// is kept. The zip is checked as any zip from a server (openbenchmarking/profile_zip.h). Returns
// false, and leaves the directory as it was, when the zip is refused.
bool SaveSystemLogs(const std::string& zip, const std::string& result_dir);

// PTS accepts a log only when its MIME type is text/plain; here: no NUL byte and valid UTF-8.
bool LooksLikeText(const std::string& bytes);

}  // namespace ptsn::client
