#include "runner/client/upload_queue.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "runner/openbenchmarking/wire.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"

namespace ptsn::client {

namespace fs = std::filesystem;

std::string QueueUpload(const std::string& queue_dir, const std::string& server_url, const std::string& form_body,
                        const std::string& name, const std::string& endpoint) {
  MakeDirectories(queue_dir);
  auto now = std::chrono::system_clock::now().time_since_epoch();
  long long micros = std::chrono::duration_cast<std::chrono::microseconds>(now).count();
  // Time first so a plain sort is oldest-first; the hash keeps two queued at once apart.
  std::string path = queue_dir + "/" + std::to_string(micros) + "-" + wire::Sha1Hex(form_body).substr(0, 12) + ".json";
  nlohmann::json j{{"server", server_url}, {"form", form_body}, {"name", name}, {"queued_at", micros / 1000000}};
  if (!endpoint.empty()) j["endpoint"] = endpoint;
  WriteFileAtomically(path, j.dump());
  return path;
}

std::vector<PendingUpload> PendingUploads(const std::string& queue_dir, std::vector<std::string>* set_aside) {
  std::vector<PendingUpload> out;
  std::error_code ec;
  if (!fs::is_directory(queue_dir, ec)) return out;
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(queue_dir))
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    try {
      auto j = nlohmann::json::parse(ReadFile(f));
      out.push_back({f, j.at("server").get<std::string>(), j.at("form").get<std::string>(), j.value("name", ""),
                     j.value("endpoint", "")});
    } catch (const nlohmann::json::exception& e) {
      const std::string why = std::string("not a pending upload: ") + e.what();
      if (!set_aside) throw FileError(f, why);
      set_aside->push_back(f + ": " + why + "; set aside in " + SetAsideRefused({f, "", "", "", ""}));
    }
  }
  return out;
}

void RemovePending(const PendingUpload& upload) {
  std::error_code ec;
  fs::remove(upload.path, ec);
  if (ec) throw FileError(upload.path, "cannot remove: " + ec.message());
}

std::string SetAsideRefused(const PendingUpload& upload) {
  const fs::path from(upload.path);
  const fs::path dir = from.parent_path() / "refused";
  MakeDirectories(dir.string());
  const fs::path to = dir / from.filename();
  std::error_code ec;
  fs::rename(from, to, ec);
  if (ec) throw FileError(upload.path, "cannot move to " + to.string() + ": " + ec.message());
  return to.string();
}

}  // namespace ptsn::client
