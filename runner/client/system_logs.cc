#include "runner/client/system_logs.h"

#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <vector>

#include "runner/client/wire.h"
#include "runner/common/atomic_file.h"

namespace ptsn::client {

namespace fs = std::filesystem;

namespace {

void Put16(std::string& out, uint32_t v) {
  out += static_cast<char>(v & 0xff);
  out += static_cast<char>((v >> 8) & 0xff);
}
void Put32(std::string& out, uint32_t v) {
  Put16(out, v & 0xffff);
  Put16(out, v >> 16);
}

}  // namespace

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

std::string ZipArchive(const std::map<std::string, std::string>& files) {
  std::string out, central;
  uint16_t count = 0;
  // 1980-01-01 00:00: a fixed time keeps the archive (and its hash) reproducible.
  const uint16_t dos_time = 0, dos_date = (0 << 9) | (1 << 5) | 1;
  for (const auto& [name, content] : files) {
    const bool dir = !name.empty() && name.back() == '/';
    std::string data = dir ? "" : wire::RawDeflate(content, 6);
    const uint16_t method = dir ? 0 : 8;
    const uint32_t crc = static_cast<uint32_t>(
        crc32(0, reinterpret_cast<const Bytef*>(content.data()), static_cast<uInt>(content.size())));
    const uint32_t offset = static_cast<uint32_t>(out.size());
    auto header = [&](std::string& h, bool is_central) {
      if (is_central) Put16(h, 20);  // version made by
      Put16(h, 20);                   // version needed
      Put16(h, 0x0800);               // flags: names are UTF-8
      Put16(h, method);
      Put16(h, dos_time);
      Put16(h, dos_date);
      Put32(h, crc);
      Put32(h, static_cast<uint32_t>(data.size()));
      Put32(h, static_cast<uint32_t>(content.size()));
      Put16(h, static_cast<uint16_t>(name.size()));
      Put16(h, 0);  // extra
      if (is_central) {
        Put16(h, 0);                   // comment
        Put16(h, 0);                   // disk
        Put16(h, 0);                   // internal attributes
        Put32(h, dir ? 0x10 : 0);      // external attributes (MS-DOS directory bit)
        Put32(h, offset);
      }
      h += name;
    };
    Put32(out, 0x04034b50);
    header(out, false);
    out += data;
    Put32(central, 0x02014b50);
    header(central, true);
    ++count;
  }
  const uint32_t central_offset = static_cast<uint32_t>(out.size());
  out += central;
  Put32(out, 0x06054b50);
  Put16(out, 0);
  Put16(out, 0);
  Put16(out, count);
  Put16(out, count);
  Put32(out, static_cast<uint32_t>(central.size()));
  Put32(out, central_offset);
  Put16(out, 0);
  return out;
}

SystemLogs CollectSystemLogs(const std::string& result_dir) {
  SystemLogs out;
  const fs::path root = fs::path(result_dir) / "system-logs";
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return out;
  std::map<std::string, std::string> files{{"system-logs/", ""}};
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
  std::string zip = ZipArchive(files);
  if (zip.size() >= kMaxSystemLogsZipBytes) {
    out.skipped_because = "the system logs archive is " + std::to_string(zip.size()) + " bytes, over PTS's limit of " +
                          std::to_string(kMaxSystemLogsZipBytes);
    return out;
  }
  out.zip = std::move(zip);
  return out;
}

}  // namespace ptsn::client
