#include "runner/common/lazy_curl.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace ptsn {
namespace {

bool CurlIsLoaded() {
  void* h = dlopen("libcurl.so.4", RTLD_LAZY | RTLD_NOLOAD);
  if (h) dlclose(h);
  return h != nullptr;
}

size_t Collect(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

// One test, in order: the library must not be mapped before the first curl call (that is the
// point of the module), and must then forward every argument type correctly.
TEST(LazyCurl, LoadsOnFirstUseAndForwardsEveryArgumentType) {
  ASSERT_FALSE(CurlIsLoaded()) << "libcurl was loaded at start-up: something links CURL::libcurl directly";
  ASSERT_EQ(curl_global_init(CURL_GLOBAL_DEFAULT), CURLE_OK);
  ASSERT_TRUE(CurlIsLoaded());
  EXPECT_TRUE(LazyCurlAvailable());
  EXPECT_EQ(LazyCurlError(), "");

  auto dir = std::filesystem::temp_directory_path() / ("ptsn-lazy-curl-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string payload = "0123456789abcdefghij";
  std::ofstream(dir / "in.txt") << payload;

  CURL* c = curl_easy_init();
  ASSERT_NE(c, nullptr);
  std::string body;
  const std::string url = "file://" + (dir / "in.txt").string();
  EXPECT_EQ(curl_easy_setopt(c, CURLOPT_URL, url.c_str()), CURLE_OK);                        // object pointer
  EXPECT_EQ(curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, Collect), CURLE_OK);                   // function pointer
  EXPECT_EQ(curl_easy_setopt(c, CURLOPT_WRITEDATA, &body), CURLE_OK);
  EXPECT_EQ(curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L), CURLE_OK);                          // long
  EXPECT_EQ(curl_easy_setopt(c, CURLOPT_RESUME_FROM_LARGE, static_cast<curl_off_t>(10)), CURLE_OK);  // curl_off_t
  curl_slist* headers = curl_slist_append(nullptr, "X-Test: 1");
  ASSERT_NE(headers, nullptr);
  EXPECT_EQ(curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers), CURLE_OK);
  EXPECT_EQ(curl_easy_perform(c), CURLE_OK);
  EXPECT_EQ(body, payload.substr(10)) << "the curl_off_t resume offset was not passed through";
  curl_off_t size = 0;
  EXPECT_EQ(curl_easy_getinfo(c, CURLINFO_SIZE_DOWNLOAD_T, &size), CURLE_OK);
  EXPECT_EQ(size, 10);
  curl_slist_free_all(headers);
  curl_easy_cleanup(c);

  EXPECT_STREQ(curl_easy_strerror(CURLE_OK), "No error");
  EXPECT_EQ(curl_easy_setopt(nullptr, CURLOPT_URL, "x"), CURLE_FAILED_INIT);
  EXPECT_EQ(curl_easy_perform(nullptr), CURLE_FAILED_INIT);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ptsn
