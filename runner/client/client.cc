#include "runner/client/client.h"

#include <curl/curl.h>

#include <nlohmann/json.hpp>

#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/openbenchmarking/protocol.h"

namespace ptsn::client {

using nlohmann::json;

namespace {

size_t Collect(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

class Curl : public HttpTransport {
 public:
  explicit Curl(long timeout) : timeout_(timeout) { curl_global_init(CURL_GLOBAL_DEFAULT); }

  HttpResponse Post(const std::string& url, const std::string& body, const std::string& token) override {
    return Perform(url, &body, token);
  }
  HttpResponse Get(const std::string& url) override { return Perform(url, nullptr, ""); }
  HttpResponse GetAuthorized(const std::string& url, const std::string& bearer_token) override {
    return Perform(url, nullptr, bearer_token);
  }

 private:
  HttpResponse Perform(const std::string& url, const std::string* body, const std::string& token) {
    std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
    if (!curl) throw Error("libcurl: cannot initialise");
    HttpResponse r;
    curl_slist* headers = nullptr;
    if (!token.empty()) headers = curl_slist_append(headers, ("Authorization: Bearer " + token).c_str());
    headers = curl_slist_append(headers, "Expect:");
    curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl.get(), CURLOPT_USERAGENT, "pts-native (PhoronixTestSuite/Nesseby compatible)");
    curl_easy_setopt(curl.get(), CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT, timeout_);
    curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, Collect);
    curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &r.body);
    if (body) {
      curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDS, body->data());
      curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body->size()));
    }
    CURLcode rc = curl_easy_perform(curl.get());
    curl_slist_free_all(headers);
    if (rc != CURLE_OK) throw Error(url + ": " + curl_easy_strerror(rc));
    curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &r.status);
    return r;
  }
  long timeout_;
};

std::string Base(const std::string& server_url) {
  std::string s = server_url;
  while (!s.empty() && s.back() == '/') s.pop_back();
  if (s.empty()) throw Error("no results server URL (set server.url or pass --server)");
  return s;
}

json ParseJson(const HttpResponse& r, const std::string& what) {
  try {
    return json::parse(r.body);
  } catch (const json::exception&) {
    throw ServerRefusal(what + ": server answered HTTP " + std::to_string(r.status) + " with a body that is not JSON: " +
                            Trim(r.body.substr(0, 120)), r.status);
  }
}

[[noreturn]] void Refused(const std::string& what, const HttpResponse& r, bool token_sent) {
  std::string msg = ob::ErrorMessage(r.body);
  std::string advice = TokenAdvice(r.status, token_sent);
  throw ServerRefusal(what + ": server answered HTTP " + std::to_string(r.status) + (msg.empty() ? "" : ": " + msg) +
                          (advice.empty() ? "" : " (" + advice + ")"),
                      r.status);
}

}  // namespace

std::unique_ptr<HttpTransport> CurlTransport(long timeout_seconds) { return std::make_unique<Curl>(timeout_seconds); }

bool IsRetryableStatus(long status) { return status == 429 || status >= 500; }

bool RefusesTheUpload(long status) {
  if (status < 400 || status >= 500) return false;
  for (long about_the_sender_or_time : {401, 403, 404, 407, 408, 429})
    if (status == about_the_sender_or_time) return false;
  return true;
}

std::string TokenAdvice(long status, bool token_sent) {
  if (status != 401) return "";
  const std::string make = "the server's operator makes one with: pts-native-server token create NAME --data DIR";
  if (!token_sent) return "this needs a user's token: pass --token T or set server.token / PTS_NATIVE_TOKEN; " + make;
  return "the token sent is not a user's token this server knows, and an agent's token is never one; " + make;
}

std::string UploadUrl(const std::string& server_url) { return Base(server_url) + "/f/client.php"; }

UploadOutcome UploadResult(HttpTransport& http, const std::string& server_url, const std::string& token,
                           const std::string& form_body) {
  HttpResponse r = http.Post(UploadUrl(server_url), form_body, token);
  json j = ParseJson(r, "upload");  // a body that is not JSON is reported as such
  // A refusal answered with 200, as OpenBenchmarking.org answers them (PTS reads no other
  // status): our server names the status it stands for, so that 429 and 503 are retried.
  if (r.status == 200) {
    const json::json_pointer stands_for("/openbenchmarking/upload/status");
    if (j.contains(stands_for) && j[stands_for].is_number_integer()) r.status = j[stands_for].get<long>();
  }
  if (r.status != 200 || !ob::ErrorMessage(r.body).empty()) Refused("upload", r, !token.empty());
  try {
    ob::UploadAnswer a = ob::DecodeUploadAnswer(r.body);
    return {a.id, a.url};
  } catch (const ob::ProtocolError&) {
    Refused("upload", r, !token.empty());
  }
}

std::vector<ListedResult> ListResults(HttpTransport& http, const std::string& server_url, const std::string& text,
                                      const std::string& test, const std::string& system) {
  std::string url = Base(server_url) + "/api/v1/results?q=" + wire::UrlEncode(text) + "&test=" + wire::UrlEncode(test) +
                    "&system=" + wire::UrlEncode(system);
  HttpResponse r = http.Get(url);
  json j = ParseJson(r, "list-results");
  if (r.status != 200 || !j.contains("results")) Refused("list-results", r, false);
  std::vector<ListedResult> out;
  for (const auto& e : j["results"]) {
    out.push_back({e.value("id", ""), e.value("title", ""), e.value("systems", ""), e.value("tests", ""),
                   e.value("url", ""), e.value("uploaded_at", 0LL)});
  }
  return out;
}

}  // namespace ptsn::client
