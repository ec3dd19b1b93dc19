#include "runner/profile/profile_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

namespace ptsn::profile {

namespace {
FileStamp Stamp(const struct stat& st, bool racy_check);
}  // namespace

bool ListDirectory(const std::string& dir, std::vector<DirEntry>* out, bool (*stamp_wanted)(std::string_view)) {
  out->clear();
  // open + getdents64 directly: opendir() adds an fstat per directory, which showed in profiles
  // of loading the 600-profile corpus (syscalls are a large part of its cost).
  int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  alignas(8) char buffer[16384];
  for (;;) {
    ssize_t n = getdents64(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      close(fd);
      if (n == 0) break;
      out->clear();
      return false;
    }
    for (ssize_t at = 0; at < n;) {
      const auto* e = reinterpret_cast<const dirent64*>(buffer + at);
      at += e->d_reclen;
      const char* name = e->d_name;
      if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) continue;
      unsigned char type = e->d_type;
      bool wanted = stamp_wanted && type != DT_DIR && stamp_wanted(name);
      struct stat st;
      bool stated = false;
      if (type == DT_LNK || type == DT_UNKNOWN || wanted) {
        // Only links, file systems without d_type and the files whose stamp is wanted need a stat.
        stated = fstatat(fd, name, &st, 0) == 0;
        if (stated) type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
      }
      out->push_back({name, type == DT_DIR, type == DT_REG, {}});
      if (wanted && stated && type == DT_REG) out->back().stamp = Stamp(st, false);
    }
  }
  std::sort(out->begin(), out->end(), [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
  return true;
}

namespace {

FileStamp Stamp(const struct stat& st, bool racy_check) {
  FileStamp s;
  s.dev = st.st_dev;
  s.ino = st.st_ino;
  s.size = static_cast<uint64_t>(st.st_size);
  s.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  s.ctime_ns = static_cast<int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  if (racy_check) {
    timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int64_t recent = (static_cast<int64_t>(now.tv_sec) - 2) * 1000000000 + now.tv_nsec;
    if (s.mtime_ns >= recent || s.ctime_ns >= recent) return FileStamp{};
  }
  return s;
}

}  // namespace

FileStamp StampOf(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return FileStamp{};
  return Stamp(st, false);
}

bool ReadWholeFile(const std::string& path, std::string* out, std::string* error, FileStamp* stamp) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = std::strerror(errno);
    return false;
  }
  struct stat st;
  bool known = fstat(fd, &st) == 0;
  if (known && S_ISDIR(st.st_mode)) {
    close(fd);
    *error = std::strerror(EISDIR);
    return false;
  }
  size_t size = known && S_ISREG(st.st_mode) ? static_cast<size_t>(st.st_size) : 0;
  if (stamp) *stamp = known && S_ISREG(st.st_mode) ? Stamp(st, true) : FileStamp{};
  out->clear();
  // One read for a regular file of known size; the loop covers files that grow or lie about it.
  out->resize(size + 1);
  size_t used = 0;
  for (;;) {
    if (used == out->size()) out->resize(out->size() * 2 + 4096);
    ssize_t n = read(fd, out->data() + used, out->size() - used);
    if (n < 0) {
      if (errno == EINTR) continue;
      *error = std::strerror(errno);
      close(fd);
      return false;
    }
    if (n == 0) break;
    size_t asked = out->size() - used;
    used += static_cast<size_t>(n);
    // A regular file read short of what was asked is at its end: saves the read() that returns 0.
    if (size > 0 && static_cast<size_t>(n) < asked) break;
  }
  close(fd);
  out->resize(used);
  return true;
}

bool FileSnapshot::Read(const std::string& path, std::string* error) {
  Clear();
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = std::strerror(errno);
    return false;
  }
  struct stat st;
  int failure = fstat(fd, &st) != 0 ? errno : S_ISREG(st.st_mode) ? 0 : EINVAL;
  // One byte more than the size, so a file that grew while being read is noticed.
  size_t want = failure ? 0 : static_cast<size_t>(st.st_size) + 1;
  void* p = failure ? MAP_FAILED : mmap(nullptr, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (!failure && p == MAP_FAILED) failure = errno;
  if (!failure) {
    data_ = static_cast<char*>(p);
    mapped_ = want;
  }
  while (!failure && size_ < want) {
    ssize_t n = read(fd, data_ + size_, want - size_);
    if (n < 0 && errno != EINTR) failure = errno;
    if (n == 0) break;
    if (n > 0) size_ += static_cast<size_t>(n);
  }
  close(fd);
  if (failure || size_ == want) {
    *error = failure ? std::strerror(failure) : "changed while being read";
    Clear();
    return false;
  }
  return true;
}

void FileSnapshot::Clear() {
  if (data_) munmap(data_, mapped_);
  data_ = nullptr;
  size_ = mapped_ = 0;
}

uint64_t ContentHash(std::string_view data, uint64_t seed) {
  // 8 bytes per step, multiply-xorshift mixing (in the spirit of wyhash/murmur finalisers). Four
  // independent lanes over 32-byte blocks, so the multiplies of a MB-sized input (the profile
  // cache, checked at every start) overlap instead of forming one long dependency chain.
  constexpr uint64_t k = 0x9E3779B97F4A7C15ull;
  uint64_t h = seed ^ (data.size() * k);
  size_t i = 0;
  auto step = [](uint64_t lane, uint64_t w) {
    lane = (lane ^ (w * k)) * 0xBF58476D1CE4E5B9ull;
    return lane ^ (lane >> 31);
  };
  if (data.size() >= 64) {
    uint64_t lanes[4] = {h, h + k, h ^ 0x94D049BB133111EBull, h - k};
    for (; i + 32 <= data.size(); i += 32) {
      uint64_t w[4];
      std::memcpy(w, data.data() + i, 32);
      for (int l = 0; l < 4; ++l) lanes[l] = step(lanes[l], w[l]);
    }
    for (uint64_t lane : lanes) h = step(h, lane);
  }
  for (; i + 8 <= data.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, data.data() + i, 8);
    h = step(h, w);
  }
  uint64_t tail = 0;
  std::memcpy(&tail, data.data() + i, data.size() - i);
  h = (h ^ (tail * k)) * 0x94D049BB133111EBull;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 32);
}

}  // namespace ptsn::profile
