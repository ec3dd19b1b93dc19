#include "runner/openbenchmarking/profile_zip.h"

#include <fcntl.h>
#include <minizip/unzip.h>
#include <minizip/zip.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "runner/common/path_below.h"

namespace ptsn::ob {

namespace {

namespace fs = std::filesystem;

// minizip reads and writes through these callbacks: an archive in a std::string (writing; minizip
// seeks back to fill in sizes and CRCs) or in caller-owned bytes (reading).
struct MemoryFile {
  const char* in = nullptr;  // reading
  size_t size = 0;
  std::string* out = nullptr;  // writing
  size_t pos = 0;
  size_t Size() const { return out ? out->size() : size; }
};

voidpf ZCALLBACK MemOpen(voidpf opaque, const void*, int) { return opaque; }

uLong ZCALLBACK MemRead(voidpf, voidpf stream, void* buf, uLong n) {
  auto* f = static_cast<MemoryFile*>(stream);
  if (f->pos >= f->Size()) return 0;
  size_t take = std::min<size_t>(n, f->Size() - f->pos);
  std::memcpy(buf, (f->out ? f->out->data() : f->in) + f->pos, take);
  f->pos += take;
  return static_cast<uLong>(take);
}

uLong ZCALLBACK MemWrite(voidpf, voidpf stream, const void* buf, uLong n) {
  auto* f = static_cast<MemoryFile*>(stream);
  if (!f->out) return 0;
  if (f->pos + n > f->out->size()) f->out->resize(f->pos + n);
  std::memcpy(f->out->data() + f->pos, buf, n);
  f->pos += n;
  return n;
}

ZPOS64_T ZCALLBACK MemTell(voidpf, voidpf stream) { return static_cast<MemoryFile*>(stream)->pos; }

long ZCALLBACK MemSeek(voidpf, voidpf stream, ZPOS64_T offset, int origin) {
  auto* f = static_cast<MemoryFile*>(stream);
  ZPOS64_T base = origin == ZLIB_FILEFUNC_SEEK_SET ? 0 : origin == ZLIB_FILEFUNC_SEEK_CUR ? f->pos : f->Size();
  if (base + offset > f->Size() && !f->out) return -1;
  f->pos = static_cast<size_t>(base + offset);
  return 0;
}

int ZCALLBACK MemClose(voidpf, voidpf) { return 0; }
int ZCALLBACK MemError(voidpf, voidpf) { return 0; }

zlib_filefunc64_def MemoryFunctions(MemoryFile* file) {
  zlib_filefunc64_def d{};
  d.zopen64_file = MemOpen;
  d.zread_file = MemRead;
  d.zwrite_file = MemWrite;
  d.ztell64_file = MemTell;
  d.zseek64_file = MemSeek;
  d.zclose_file = MemClose;
  d.zerror_file = MemError;
  d.opaque = file;
  return d;
}

// Where entry `name` is written below `temp` (runner/common/path_below.h; ReadZip has refused
// any name this would throw for, so a throw here is a bug, reported as ZipError all the same).
fs::path EntryPath(const fs::path& temp, const std::string& name) {
  try {
    return JoinBelow(temp.string(), name, {"zip entry", "the folder it is extracted to"}, NameDepth::kRelativePath);
  } catch (const Error& e) {
    throw ZipError(e.what());
  }
}

constexpr uLong kMadeByUnix = (3u << 8) | 20;  // host 3 = Unix, so readers see the mode bits

}  // namespace

std::string WriteZip(const std::vector<ZipEntry>& entries) {
  std::string out;
  MemoryFile file;
  file.out = &out;
  zlib_filefunc64_def functions = MemoryFunctions(&file);
  zipFile zf = zipOpen2_64("memory", APPEND_STATUS_CREATE, nullptr, &functions);
  if (!zf) throw ZipError("zip: cannot start an archive");
  for (const auto& e : entries) {
    const bool directory = !e.name.empty() && e.name.back() == '/';
    zip_fileinfo info{};
    info.tmz_date.tm_year = 2000;  // fixed: the same files give the same archive
    info.tmz_date.tm_mday = 1;
    const unsigned mode = directory ? (S_IFDIR | 0755) : (S_IFREG | (e.executable ? 0755 : 0644));
    info.external_fa = (static_cast<uLong>(mode) << 16) | (directory ? 0x10 : 0);
    int rc = zipOpenNewFileInZip4_64(zf, e.name.c_str(), &info, nullptr, 0, nullptr, 0, nullptr, Z_DEFLATED, 9, 0,
                                     -MAX_WBITS, 8, Z_DEFAULT_STRATEGY, nullptr, 0, kMadeByUnix, 0, 0);
    if (rc == ZIP_OK && !e.data.empty())
      rc = zipWriteInFileInZip(zf, e.data.data(), static_cast<unsigned>(e.data.size()));
    if (rc == ZIP_OK) rc = zipCloseFileInZip(zf);
    if (rc != ZIP_OK) {
      zipClose(zf, nullptr);
      throw ZipError("zip: cannot add " + e.name);
    }
  }
  if (zipClose(zf, nullptr) != ZIP_OK) throw ZipError("zip: cannot finish the archive");
  return out;
}

std::vector<ZipEntry> DirectoryEntries(const std::string& dir) {
  std::vector<ZipEntry> out;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
  if (ec) throw ZipError(dir + ": " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) throw ZipError(dir + ": " + ec.message());
    const fs::directory_entry& entry = *it;
    if (entry.is_symlink() || !entry.is_regular_file()) continue;  // links and special files stay out
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream data;
    data << in.rdbuf();
    if (!in) throw ZipError(entry.path().string() + ": cannot be read");
    ZipEntry z;
    z.name = entry.path().lexically_relative(dir).generic_string();
    z.data = std::move(data).str();
    z.executable = (entry.status().permissions() & fs::perms::owner_exec) != fs::perms::none;
    out.push_back(std::move(z));
  }
  std::sort(out.begin(), out.end(), [](const ZipEntry& a, const ZipEntry& b) { return a.name < b.name; });
  return out;
}

std::vector<ZipEntry> ReadZip(std::string_view zip, const ZipLimits& limits) {
  MemoryFile file;
  file.in = zip.data();
  file.size = zip.size();
  zlib_filefunc64_def functions = MemoryFunctions(&file);
  std::unique_ptr<void, int (*)(unzFile)> uf(unzOpen2_64("memory", &functions), unzClose);
  if (!uf) throw ZipError("zip: not a zip archive (or a damaged one)");
  unz_global_info64 global{};
  if (unzGetGlobalInfo64(uf.get(), &global) != UNZ_OK) throw ZipError("zip: unreadable central directory");
  if (global.number_entry > limits.max_entries)
    throw ZipError("zip: " + std::to_string(global.number_entry) + " entries, over the limit of " +
                   std::to_string(limits.max_entries));
  std::vector<ZipEntry> out;
  std::uint64_t total = 0;
  int rc = unzGoToFirstFile(uf.get());
  std::vector<char> buffer(64 << 10);
  while (rc == UNZ_OK) {
    unz_file_info64 info{};
    char name_buf[1100];
    if (unzGetCurrentFileInfo64(uf.get(), &info, name_buf, sizeof name_buf, nullptr, 0, nullptr, 0) != UNZ_OK)
      throw ZipError("zip: unreadable entry header");
    if (info.size_filename >= sizeof name_buf) throw ZipError("zip: an entry name is over 1024 bytes");
    std::string name(name_buf, info.size_filename);
    if (name.find('\0') != std::string::npos) throw ZipError("zip: an entry name holds a NUL byte");
    const bool directory = !name.empty() && name.back() == '/';
    if (std::string why = PathNameProblem(name, NameDepth::kRelativePath); !why.empty())
      throw ZipError("zip entry '" + name.substr(0, 200) + "': " + why + " (refused)");
    if (info.flag & 1) throw ZipError("zip entry '" + name + "': encrypted (refused)");
    const unsigned mode = static_cast<unsigned>(info.external_fa >> 16);
    const bool unix_host = (info.version >> 8) == 3;
    if (unix_host && mode != 0) {
      const unsigned type = mode & S_IFMT;
      if (type == S_IFLNK) throw ZipError("zip entry '" + name + "': a symbolic link (refused)");
      if (type != 0 && type != S_IFREG && type != S_IFDIR) throw ZipError("zip entry '" + name + "': not a regular file (refused)");
    }
    if (info.uncompressed_size > limits.max_file_bytes)
      throw ZipError("zip entry '" + name + "': " + std::to_string(info.uncompressed_size) + " bytes, over the limit of " +
                     std::to_string(limits.max_file_bytes));
    if (out.size() >= limits.max_entries)
      throw ZipError("zip: more than " + std::to_string(limits.max_entries) + " entries");
    ZipEntry e;
    e.name = name;
    e.executable = unix_host && (mode & 0111) != 0;
    if (unzOpenCurrentFile(uf.get()) != UNZ_OK) throw ZipError("zip entry '" + name + "': cannot be opened");
    for (;;) {
      int n = unzReadCurrentFile(uf.get(), buffer.data(), static_cast<unsigned>(buffer.size()));
      if (n < 0) {
        unzCloseCurrentFile(uf.get());
        throw ZipError("zip entry '" + name + "': damaged data");
      }
      if (n == 0) break;
      e.data.append(buffer.data(), static_cast<size_t>(n));
      total += static_cast<size_t>(n);
      if (e.data.size() > limits.max_file_bytes || total > limits.max_total_bytes) {
        unzCloseCurrentFile(uf.get());
        throw ZipError("zip entry '" + name + "': inflates past the limit of " +
                       std::to_string(e.data.size() > limits.max_file_bytes ? limits.max_file_bytes : limits.max_total_bytes) +
                       " bytes (refused)");
      }
    }
    if (unzCloseCurrentFile(uf.get()) != UNZ_OK) throw ZipError("zip entry '" + name + "': CRC mismatch (damaged)");
    if (directory && !e.data.empty()) throw ZipError("zip entry '" + name + "': a directory with data");
    out.push_back(std::move(e));
    rc = unzGoToNextFile(uf.get());
  }
  if (rc != UNZ_END_OF_LIST_OF_FILE) throw ZipError("zip: damaged central directory");
  return out;
}

void ExtractZip(std::string_view zip, const std::string& dest, const ZipLimits& limits) {
  std::vector<ZipEntry> entries = ReadZip(zip, limits);
  fs::path target = fs::path(dest).lexically_normal();
  if (target.filename().empty()) target = target.parent_path();
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (ec) throw ZipError(target.parent_path().string() + ": " + ec.message());
  std::string temp_template = target.string() + ".tmp-XXXXXX";
  if (!mkdtemp(temp_template.data())) throw ZipError(target.parent_path().string() + ": " + std::strerror(errno));
  const fs::path temp = temp_template;
  auto cleanup = [&] { fs::remove_all(temp, ec); };
  try {
    for (const auto& e : entries) {
      const fs::path path = EntryPath(temp, e.name);
      if (e.name.back() == '/') {
        fs::create_directories(path, ec);
        if (ec) throw ZipError(path.string() + ": " + ec.message());
        continue;
      }
      fs::create_directories(path.parent_path(), ec);  // only directories we made: names were checked
      if (ec) throw ZipError(path.parent_path().string() + ": " + ec.message());
      int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, e.executable ? 0755 : 0644);
      if (fd < 0)
        throw ZipError("zip entry '" + e.name + "': " + (errno == EEXIST ? std::string("appears twice") : std::strerror(errno)));
      size_t done = 0;
      while (done < e.data.size()) {
        ssize_t n = ::write(fd, e.data.data() + done, e.data.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
          int err = errno;
          ::close(fd);
          throw ZipError(path.string() + ": " + std::strerror(err));
        }
        done += static_cast<size_t>(n);
      }
      if (::close(fd) != 0) throw ZipError(path.string() + ": " + std::strerror(errno));
    }
    if (::rename(temp.c_str(), target.c_str()) != 0) {
      int err = errno;
      if ((err == EEXIST || err == ENOTEMPTY) && fs::is_directory(target)) {  // another process got there first
        cleanup();
        return;
      }
      throw ZipError(target.string() + ": " + std::strerror(err));
    }
  } catch (...) {
    cleanup();
    throw;
  }
}

}  // namespace ptsn::ob
