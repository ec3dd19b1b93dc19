#include "results-xml/file_bytes.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner/common/atomic_file.h"

namespace ptsn::results {

FileBytes::FileBytes(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    // MAP_POPULATE: the pages are mapped in this one call instead of one fault per 4 KB.
    void* map = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (map != MAP_FAILED) {
      map_ = map;
      size_ = static_cast<size_t>(st.st_size);
    }
  }
  if (fd >= 0) close(fd);
  if (!map_) copy_ = ReadFile(path);  // and its errors: cannot open, a directory, cannot read
}

FileBytes::~FileBytes() {
  if (map_) munmap(map_, size_);
}

}  // namespace ptsn::results
