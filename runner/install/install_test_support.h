// A loopback HTTP server for download tests (no network: binds 127.0.0.1 on a free port).
#pragma once

#include <httplib.h>
#include <lzma.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ptsn::install::test {

// `text` as an .xz file's bytes (what Debian serves as Sources.xz).
inline std::string XzCompress(const std::string& text) {
  std::string out(lzma_stream_buffer_bound(text.size()), '\0');
  size_t used = 0;
  if (lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, nullptr, reinterpret_cast<const uint8_t*>(text.data()), text.size(),
                              reinterpret_cast<uint8_t*>(out.data()), &used, out.size()) != LZMA_OK)
    return "";
  out.resize(used);
  return out;
}

// A Sources paragraph listing `files` ({name, sha256, size}) in `directory`.
struct PoolFile {
  std::string name, sha256;
  size_t size = 0;
};
inline std::string SourcesParagraph(const std::string& package, const std::string& directory,
                                    const std::vector<PoolFile>& files) {
  std::string p = "Package: " + package + "\nBinary: " + package + "\nVersion: 1.0-1\nFiles:\n";
  for (const auto& f : files) p += " d41d8cd98f00b204e9800998ecf8427e " + std::to_string(f.size) + " " + f.name + "\n";
  p += "Checksums-Sha256:\n";
  for (const auto& f : files) p += " " + f.sha256 + " " + std::to_string(f.size) + " " + f.name + "\n";
  return p + "Directory: " + directory + "\nPriority: optional\nSection: misc\n\n";
}

class LoopbackServer {
 public:
  LoopbackServer() {
    server_.Get(R"(/(.*))", [this](const httplib::Request& req, httplib::Response& res) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        requests_.push_back(req.path + (req.has_header("Range") ? " " + req.get_header_value("Range") : ""));
      }
      auto it = files_.find(req.path);
      if (it == files_.end()) {
        res.status = 404;
        res.set_content("not found", "text/plain");
        return;
      }
      res.set_content(it->second, "application/octet-stream");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~LoopbackServer() {
    server_.stop();
    thread_.join();
  }
  void Serve(const std::string& path, const std::string& body) { files_[path] = body; }
  std::string Url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }
  std::vector<std::string> Requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::map<std::string, std::string> files_;
  std::mutex mu_;
  std::vector<std::string> requests_;
};

}  // namespace ptsn::install::test
