#include "runner/install/fetcher.h"

#include <curl/curl.h>

#include <cstdio>
#include <filesystem>
#include <mutex>

#include "runner/common/strings.h"

namespace fs = std::filesystem;

namespace ptsn::install {
namespace {

size_t WriteToFile(char* data, size_t size, size_t n, void* file) {
  return std::fwrite(data, size, n, static_cast<FILE*>(file)) * size;
}

std::string FilePathOf(const std::string& url) { return url.substr(7); }  // "file://"

FetchResult CopyLocal(const std::string& url, const std::string& dest) {
  std::error_code ec;
  fs::copy_file(FilePathOf(url), dest, fs::copy_options::overwrite_existing, ec);
  if (ec) return {false, FilePathOf(url) + ": " + ec.message()};
  return {true, ""};
}

class CurlFetcher : public Fetcher {
 public:
  explicit CurlFetcher(long connect_timeout) : connect_timeout_(connect_timeout) {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  }

  bool CanReach(const std::string&) const override { return true; }

  FetchResult Fetch(const std::string& url, const std::string& dest) override {
    if (StartsWith(url, "file://")) return CopyLocal(url, dest);
    std::error_code ec;
    long long have = fs::exists(dest, ec) ? static_cast<long long>(fs::file_size(dest, ec)) : 0;
    FILE* f = std::fopen(dest.c_str(), have > 0 ? "ab" : "wb");
    if (!f) return {false, dest + ": cannot write"};
    CURL* c = curl_easy_init();
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, WriteToFile);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, f);
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(c, CURLOPT_MAXREDIRS, 10L);
    curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, connect_timeout_);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "pts-native");
    // Abort a stalled transfer (< 1 byte/s for 60 s) instead of hanging an install forever.
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 60L);
    bool https = StartsWith(ToLower(url), "https://");
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, https ? "https" : "http,https,ftp");
    curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, https ? "https" : "http,https,ftp");
    if (have > 0) curl_easy_setopt(c, CURLOPT_RESUME_FROM_LARGE, static_cast<curl_off_t>(have));
    char err[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, err);
    CURLcode rc = curl_easy_perform(c);
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(c);
    std::fclose(f);
    if (rc == CURLE_RANGE_ERROR || (have > 0 && rc == CURLE_HTTP_RETURNED_ERROR && status == 416)) {
      // The server cannot resume: start over once.
      fs::remove(dest, ec);
      return Fetch(url, dest);
    }
    if (rc != CURLE_OK) {
      std::string why = err[0] ? err : curl_easy_strerror(rc);
      if (rc == CURLE_HTTP_RETURNED_ERROR) why = "HTTP " + std::to_string(status);
      if (rc == CURLE_UNSUPPORTED_PROTOCOL && https) why += " (refusing to leave https)";
      return {false, why};
    }
    return {true, ""};
  }

 private:
  long connect_timeout_;
};

class OfflineFetcher : public Fetcher {
 public:
  bool CanReach(const std::string& url) const override { return StartsWith(url, "file://"); }
  FetchResult Fetch(const std::string& url, const std::string& dest) override {
    if (StartsWith(url, "file://")) return CopyLocal(url, dest);
    return {false, "offline: not fetching " + url};
  }
};

}  // namespace

std::unique_ptr<Fetcher> MakeCurlFetcher(long connect_timeout_seconds) {
  return std::make_unique<CurlFetcher>(connect_timeout_seconds);
}
std::unique_ptr<Fetcher> MakeOfflineFetcher() { return std::make_unique<OfflineFetcher>(); }

}  // namespace ptsn::install
