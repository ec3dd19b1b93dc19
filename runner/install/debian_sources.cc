#include "runner/install/debian_sources.h"

#include <lzma.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>

#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/strings.h"

namespace fs = std::filesystem;

namespace ptsn::install {
namespace {

constexpr std::string_view kIndexMagic = "ptsn-debian-sources 1 ";

bool IsHex64(std::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

std::string SourcesUrl(const DebianArchive& a, const std::string& suite, const std::string& component) {
  return a.mirror + "/dists/" + suite + "/" + component + "/source/Sources.xz";
}

// FNV-1a: a stable name for the mirror in the cache file's name (std::hash is not stable).
std::string StableHash(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string SafeName(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ? c : '_';
  return out;
}

// The cached index when it belongs to `url`; nullopt when absent or not ours.
std::optional<std::vector<DebianSourceFile>> ReadIndex(const std::string& path, const std::string& url) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::string line;
  if (!std::getline(in, line) || line != std::string(kIndexMagic) + url) return std::nullopt;
  std::vector<DebianSourceFile> files;
  while (std::getline(in, line)) {
    size_t a = line.find(' '), b = a == std::string::npos ? a : line.find(' ', a + 1);
    if (b == std::string::npos) continue;
    files.push_back({line.substr(0, a), std::atoll(line.c_str() + a + 1), line.substr(b + 1)});
  }
  return files;
}

void WriteIndex(const std::string& path, const std::string& url, const std::vector<DebianSourceFile>& files) {
  std::string text = std::string(kIndexMagic) + url + "\n";
  for (const auto& f : files) text += f.sha256 + " " + std::to_string(f.size) + " " + f.path + "\n";
  MakeDirectories(fs::path(path).parent_path().string());
  WriteFileAtomically(path, text);
}

double AgeSeconds(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return -1;
  return std::difftime(std::time(nullptr), st.st_mtime);
}

}  // namespace

std::vector<DebianSourceFile> ParseDebianSources(std::string_view text) {
  std::vector<DebianSourceFile> out;
  std::string directory;
  std::vector<DebianSourceFile> pending;  // this paragraph's files, waiting for its Directory
  bool in_sha256 = false;
  auto end_paragraph = [&] {
    if (!directory.empty())
      for (auto& f : pending) {
        f.path = directory + "/" + f.path;
        out.push_back(std::move(f));
      }
    pending.clear();
    directory.clear();
    in_sha256 = false;
  };
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) {
      end_paragraph();
      continue;
    }
    if (line[0] == ' ' || line[0] == '\t') {  // a continuation line of the field above
      if (!in_sha256) continue;
      std::vector<std::string> parts;
      for (const auto& p : Split(Trim(line), ' '))
        if (!p.empty()) parts.push_back(p);
      if (parts.size() != 3 || !IsHex64(parts[0]) || parts[2].find('/') != std::string::npos || parts[2] == ".." ||
          parts[2] == ".")
        continue;
      pending.push_back({ToLower(parts[0]), std::atoll(parts[1].c_str()), parts[2]});
      continue;
    }
    size_t colon = line.find(':');
    std::string_view field = line.substr(0, colon);
    in_sha256 = colon != std::string_view::npos && field == "Checksums-Sha256";
    if (colon != std::string_view::npos && field == "Directory") {
      std::string dir = Trim(line.substr(colon + 1));
      // A pool path below the mirror: never absolute, never climbing out of it.
      if (!dir.empty() && dir[0] != '/' && dir.find("..") == std::string::npos) directory = dir;
    }
  }
  end_paragraph();
  return out;
}

std::string ReadXzFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError(path, std::string("cannot read: ") + std::strerror(errno));
  lzma_stream strm = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&strm, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) throw FileError(path, "cannot start the xz decoder");
  std::unique_ptr<lzma_stream, void (*)(lzma_stream*)> guard(&strm, lzma_end);
  std::string out;
  std::vector<uint8_t> inbuf(1 << 16), outbuf(1 << 18);
  lzma_action action = LZMA_RUN;
  strm.avail_in = 0;
  for (;;) {
    if (strm.avail_in == 0 && action == LZMA_RUN) {
      in.read(reinterpret_cast<char*>(inbuf.data()), static_cast<std::streamsize>(inbuf.size()));
      strm.next_in = inbuf.data();
      strm.avail_in = static_cast<size_t>(in.gcount());
      if (in.eof()) action = LZMA_FINISH;
    }
    strm.next_out = outbuf.data();
    strm.avail_out = outbuf.size();
    lzma_ret rc = lzma_code(&strm, action);
    out.append(reinterpret_cast<char*>(outbuf.data()), outbuf.size() - strm.avail_out);
    if (rc == LZMA_STREAM_END) return out;
    if (rc != LZMA_OK) throw FileError(path, "not a valid xz file (liblzma error " + std::to_string(rc) + ")");
  }
}

std::string DebianIndexPath(const DebianArchive& archive, const std::string& suite, const std::string& component) {
  return archive.cache_dir + "/" + SafeName(suite) + "-" + SafeName(component) + "-" + StableHash(archive.mirror) + ".idx";
}

DebianSourcesIndex::DebianSourcesIndex(const std::vector<DebianSourceFile>& files) {
  for (const auto& f : files) by_sha256_.emplace(f.sha256, f);
}

std::optional<DebianSourceFile> DebianSourcesIndex::Find(const std::string& sha256) const {
  auto it = by_sha256_.find(ToLower(Trim(sha256)));
  if (it == by_sha256_.end()) return std::nullopt;
  return it->second;
}

DebianSourcesIndex DebianSourcesIndex::Load(const DebianArchive& archive, const std::string& suite,
                                            const std::string& component, Fetcher& fetcher,
                                            std::vector<std::string>& problems) {
  const std::string url = SourcesUrl(archive, suite, component);
  const std::string path = archive.cache_dir.empty() ? "" : DebianIndexPath(archive, suite, component);
  std::optional<std::vector<DebianSourceFile>> cached;
  if (!path.empty()) cached = ReadIndex(path, url);
  const double age = path.empty() ? -1 : AgeSeconds(path);
  if (cached && age >= 0 && age < static_cast<double>(archive.ttl_seconds)) return DebianSourcesIndex(*cached);
  // The index is not signature-checked: it only says where to look. A file found through it is
  // used only when its SHA256 is the one the profile gives.
  if (!fetcher.CanReach(url)) {
    if (cached) return DebianSourcesIndex(*cached);
    problems.push_back(url + ": not fetched (offline)");
    return {};
  }
  std::string tmp_dir = archive.cache_dir.empty() ? fs::temp_directory_path().string() : archive.cache_dir;
  std::error_code ec;
  fs::create_directories(tmp_dir, ec);
  std::string xz = tmp_dir + "/" + SafeName(suite) + "-" + SafeName(component) + ".Sources.xz.part";
  fs::remove(xz, ec);
  auto r = fetcher.Fetch(url, xz);
  try {
    if (!r.ok) throw Error(url + ": " + r.error);
    auto files = ParseDebianSources(ReadXzFile(xz));
    fs::remove(xz, ec);
    if (files.empty()) throw Error(url + ": no Checksums-Sha256 entries");
    if (!path.empty()) WriteIndex(path, url, files);
    return DebianSourcesIndex(files);
  } catch (const Error& e) {
    fs::remove(xz, ec);
    problems.push_back(e.what() + std::string(cached ? " (using the index cached earlier)" : ""));
    return cached ? DebianSourcesIndex(*cached) : DebianSourcesIndex();
  }
}

}  // namespace ptsn::install
