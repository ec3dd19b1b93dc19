#include "runner/client/system_logs.h"

#include <filesystem>
#include <map>
#include <vector>

#include "runner/common/atomic_file.h"
#include "runner/openbenchmarking/profile_zip.h"

namespace ptsn::client {

namespace fs = std::filesystem;

bool LooksLikeText(const std::string& bytes) {
  size_t i = 0;
  const size_t n = bytes.size();
  while (i < n) {
    auto c = static_cast<unsigned char>(bytes[i]);
    if (c == 0) return false;
    if (c < 0x80) {
      ++i;
      continue;
    }
    int more = c >= 0xF0 && c <= 0xF4 ? 3 : c >= 0xE0 ? 2 : c >= 0xC2 && c <= 0xDF ? 1 : -1;
    if (more < 0 || i + static_cast<size_t>(more) >= n) return false;
    for (int k = 1; k <= more; ++k)
      if ((static_cast<unsigned char>(bytes[i + k]) & 0xC0) != 0x80) return false;
    i += more + 1;
  }
  return true;
}

SystemLogs CollectSystemLogs(const std::string& result_dir) {
  SystemLogs out;
  const fs::path root = fs::path(result_dir) / "system-logs";
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return out;
  std::map<std::string, std::string> files{{"system-logs/", ""}};  // name order, as PTS adds them
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const fs::path& p = it->path();
    if (p.filename().string().front() == '.') {  // PHP's glob('*') skips dot files
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    std::string name = "system-logs/" + fs::relative(p, root).generic_string();
    if (it->is_directory()) {
      files[name + "/"] = "";
    } else if (it->is_regular_file()) {
      std::string content = ReadFile(p.string());
      if (!LooksLikeText(content)) {
        out.skipped_because = p.string() + " is not a text file (PTS sends only text logs)";
        return out;
      }
      files[name] = std::move(content);
    }
  }
  if (ec) {
    out.skipped_because = root.string() + ": " + ec.message();
    return out;
  }
  std::vector<ob::ZipEntry> entries;
  for (auto& [name, content] : files) entries.push_back({name, std::move(content), false});
  std::string zip = ob::WriteZip(entries);
  if (zip.size() >= kMaxSystemLogsZipBytes) {
    out.skipped_because = "the system logs archive is " + std::to_string(zip.size()) + " bytes, over PTS's limit of " +
                          std::to_string(kMaxSystemLogsZipBytes);
    return out;
  }
  out.zip = std::move(zip);
  return out;
}

bool SaveSystemLogs(const std::string& zip, const std::string& result_dir) {
  // Extracted whole into a fresh directory first (checked, nothing written when refused), then
  // each top-level entry moved in unless the result already has one of that name.
  const fs::path staging = fs::path(result_dir) / ".clone-system-logs";
  std::error_code ec;
  fs::remove_all(staging, ec);
  try {
    ob::ExtractZip(zip, staging.string());
  } catch (const ob::ZipError&) {
    return false;
  }
  for (const auto& entry : fs::directory_iterator(staging, ec)) {
    const fs::path to = fs::path(result_dir) / entry.path().filename();
    if (!fs::exists(to, ec)) fs::rename(entry.path(), to, ec);
  }
  fs::remove_all(staging, ec);
  return true;
}

}  // namespace ptsn::client
