// A fresh temporary directory for a test, removed afterwards (test helper).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace ptsn::workloads::testing {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ptsn-workloads-test-XXXXXX").string();
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    path_ = mkdtemp(buf.data()) ? buf.data() : "";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  // Entries left directly inside the directory (the workloads must leave none).
  size_t EntryCount() const {
    size_t n = 0;
    for (auto it = std::filesystem::directory_iterator(path_); it != std::filesystem::directory_iterator(); ++it) ++n;
    return n;
  }

 private:
  std::string path_;
};

}  // namespace ptsn::workloads::testing
