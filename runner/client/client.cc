#include "runner/client/client.h"

#include <curl/curl.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include <nlohmann/json.hpp>

#include "runner/common/error.h"
#include "runner/common/strings.h"

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

// The message inside an error answer, wherever this server shape puts it.
std::string ErrorOf(const json& j) {
  for (const auto& path : {"/openbenchmarking/upload/error", "/openbenchmarking/result/error", "/openbenchmarking/error", "/error"}) {
    auto p = json::json_pointer(path);
    if (j.contains(p) && j.at(p).is_string()) return j.at(p).get<std::string>();
  }
  return "";
}

[[noreturn]] void Refused(const std::string& what, const HttpResponse& r, const json& j) {
  std::string msg = ErrorOf(j);
  throw ServerRefusal(what + ": server answered HTTP " + std::to_string(r.status) + (msg.empty() ? "" : ": " + msg),
                      r.status);
}

}  // namespace

std::unique_ptr<HttpTransport> CurlTransport(long timeout_seconds) { return std::make_unique<Curl>(timeout_seconds); }

bool IsRetryableStatus(long status) { return status == 429 || status >= 500; }

std::string UploadUrl(const std::string& server_url) { return Base(server_url) + "/f/client.php"; }

UploadOutcome UploadResult(HttpTransport& http, const std::string& server_url, const std::string& token,
                           const std::string& form_body) {
  HttpResponse r = http.Post(UploadUrl(server_url), form_body, token);
  json j = ParseJson(r, "upload");
  std::string error = ErrorOf(j);
  auto id = json::json_pointer("/openbenchmarking/upload/id");
  if (r.status != 200 || !error.empty() || !j.contains(id)) Refused("upload", r, j);
  UploadOutcome out;
  out.id = j.at(id).get<std::string>();
  out.url = j.value(json::json_pointer("/openbenchmarking/upload/url"), std::string());
  return out;
}

std::string CloneResult(HttpTransport& http, const std::string& server_url, const std::string& id) {
  wire::FormFields fields{{"r", "clone_openbenchmarking_result"}, {"client_version", "10860"}, {"i", id}};
  HttpResponse r = http.Post(UploadUrl(server_url), wire::EncodeForm(fields), "");
  json j = ParseJson(r, "clone " + id);
  auto xml = json::json_pointer("/openbenchmarking/result/composite_xml");
  if (r.status != 200 || !j.contains(xml) || !j.at(xml).is_string()) Refused("clone " + id, r, j);
  return j.at(xml).get<std::string>();
}

std::string CloneResult(const std::string& server_url, const std::string& id) {
  auto http = CurlTransport();
  return CloneResult(*http, server_url, id);
}

std::string WithReferenceId(const std::string& xml, const std::string& id) {
  std::unique_ptr<xmlDoc, decltype(&xmlFreeDoc)> doc(
      xmlReadMemory(xml.data(), static_cast<int>(xml.size()), "composite.xml", nullptr, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING),
      xmlFreeDoc);
  if (!doc) throw Error("composite.xml of " + id + ": not well-formed XML");
  xmlNode* root = xmlDocGetRootElement(doc.get());
  xmlNode* generated = nullptr;
  for (xmlNode* n = root ? root->children : nullptr; n; n = n->next)
    if (n->type == XML_ELEMENT_NODE && xmlStrEqual(n->name, BAD_CAST "Generated")) generated = n;
  if (!generated) throw Error("composite.xml of " + id + ": no Generated element");
  xmlNode* ref = nullptr;
  xmlNode* before = nullptr;  // PTS order: ... InternalTags, ReferenceID, PreSetEnvironmentVariables
  for (xmlNode* n = generated->children; n; n = n->next) {
    if (n->type != XML_ELEMENT_NODE) continue;
    if (xmlStrEqual(n->name, BAD_CAST "ReferenceID")) ref = n;
    if (xmlStrEqual(n->name, BAD_CAST "PreSetEnvironmentVariables")) before = n;
  }
  if (ref) {
    xmlNodeSetContent(ref, nullptr);
    xmlNodeAddContent(ref, BAD_CAST id.c_str());
  } else {
    xmlNode* node = xmlNewDocNode(doc.get(), nullptr, BAD_CAST "ReferenceID", nullptr);
    xmlNodeAddContent(node, BAD_CAST id.c_str());
    if (before) {
      xmlAddPrevSibling(before, node);
    } else {
      xmlAddChild(generated, node);
    }
  }
  xmlChar* out = nullptr;
  int size = 0;
  xmlDocDumpFormatMemoryEnc(doc.get(), &out, &size, "UTF-8", 1);
  std::string result(reinterpret_cast<char*>(out), size);
  xmlFree(out);
  return result;
}

std::vector<ListedResult> ListResults(HttpTransport& http, const std::string& server_url, const std::string& text,
                                      const std::string& test, const std::string& system) {
  std::string url = Base(server_url) + "/api/v1/results?q=" + wire::UrlEncode(text) + "&test=" + wire::UrlEncode(test) +
                    "&system=" + wire::UrlEncode(system);
  HttpResponse r = http.Get(url);
  json j = ParseJson(r, "list-results");
  if (r.status != 200 || !j.contains("results")) Refused("list-results", r, j);
  std::vector<ListedResult> out;
  for (const auto& e : j["results"]) {
    out.push_back({e.value("id", ""), e.value("title", ""), e.value("systems", ""), e.value("tests", ""),
                   e.value("url", ""), e.value("uploaded_at", 0LL)});
  }
  return out;
}

}  // namespace ptsn::client
