#include "runner/run/result_update.h"

#include <filesystem>

#include "results-xml/result_xml.h"
#include "runner/common/atomic_file.h"
#include "runner/common/file_lock.h"

namespace fs = std::filesystem;

namespace ptsn::run {

results::ResultFile UpdateResultFile(const std::string& result_dir,
                                     const std::function<void(results::ResultFile& file, bool existed)>& change) {
  MakeDirectories(result_dir);
  FileLock lock(result_dir + "/.composite.xml.lock");
  std::string path = result_dir + "/composite.xml";
  std::error_code ec;
  bool existed = fs::exists(path, ec);
  results::ResultFile file;
  if (existed) file = results::ReadResultFile(path);
  change(file, existed);
  results::WriteResultFile(path, file);
  return file;
}

}  // namespace ptsn::run
