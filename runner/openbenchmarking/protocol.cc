#include "runner/openbenchmarking/protocol.h"

#include <nlohmann/json.hpp>
#include <variant>

namespace ptsn::ob {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

Request Make(const std::string& name, wire::FormFields own, const std::string& client_version = kClientVersion) {
  Request r{name, {{"r", name}, {"client_version", client_version}}};
  for (auto& f : own) r.fields.push_back(std::move(f));
  return r;
}

// {"openbenchmarking": {section: inner}}, keys in the order given.
std::string Wrapped(const std::string& section, ordered_json inner) {
  ordered_json body;
  body["openbenchmarking"][section] = std::move(inner);
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

json Parse(std::string_view text, const std::string& what) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) throw ProtocolError(what + ": the answer is not JSON");
  return j;
}

// The object at /openbenchmarking/<section>, or the server's error as a ProtocolError.
const json& Section(const json& j, const std::string& section, const std::string& what) {
  const json* ob = j.is_object() && j.contains("openbenchmarking") ? &j["openbenchmarking"] : nullptr;
  const json* s = ob && ob->is_object() && ob->contains(section) ? &(*ob)[section] : nullptr;
  if (s && s->is_object() && s->contains("error") && (*s)["error"].is_string() && !(*s)["error"].get<std::string>().empty())
    throw ProtocolError(what + ": " + (*s)["error"].get<std::string>());
  if (!s || !s->is_object()) {
    std::string error = ErrorMessage(j.dump());
    throw ProtocolError(what + ": " + (error.empty() ? "the answer has no openbenchmarking." + section : error));
  }
  return *s;
}

// A string field, a number written as text, or "" (absent or null).
std::string Text(const json& o, const char* key) {
  if (!o.contains(key)) return "";
  const json& v = o[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
  if (v.is_number()) return v.dump();
  return "";
}

std::optional<std::string> NullableText(const json& o, const char* key) {
  if (!o.contains(key) || o[key].is_null()) return std::nullopt;
  return Text(o, key);
}

std::vector<std::string> TextList(const json& o, const char* key) {
  std::vector<std::string> out;
  if (!o.contains(key) || !o[key].is_array()) return out;
  for (const auto& v : o[key])
    if (v.is_string()) out.push_back(v.get<std::string>());
    else if (v.is_number()) out.push_back(v.dump());
  return out;
}

json Nullable(const std::optional<std::string>& s) { return s ? json(*s) : json(nullptr); }

bool IsVersion(std::string_view s) {
  if (s.empty() || s.find('.') == std::string_view::npos) return false;
  for (char c : s)
    if (!(c == '.' || (c >= '0' && c <= '9'))) return false;
  return true;
}

bool SafeComponent(std::string_view s) {
  if (s.empty() || s.size() > 128 || s.front() == '.' || s.find("..") != std::string_view::npos) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
          c == '.' || c == '+'))
      return false;
  return true;
}

}  // namespace

Request RequestGsid(const std::string& client_os) { return Make("request_gsid", {{"client_os", client_os}}, kPtsVersion); }
Request RepoIndex(const std::string& repo) { return Make("repo_index", {{"repo", repo}}); }
Request AcquireTest(const std::string& qualified_identifier) { return Make("acquire_test", {{"i", qualified_identifier}}); }
Request RepoChanges(const std::string& test_profile) { return Make("repo_changes", {{"test_profile", test_profile}}); }
Request PhoromaticServerRelayCheck() { return Make("phoromatic_server_relay_check", {}); }
Request IsOpenBenchmarkingResult(const std::string& id) { return Make("is_openbenchmarking_result", {{"i", id}}); }
Request CloneOpenBenchmarkingResult(const std::string& id) { return Make("clone_openbenchmarking_result", {{"i", id}}); }
Request CloneOpenBenchmarkingSystemLogs(const std::string& id) {
  return Make("clone_openbenchmarking_system_logs", {{"i", id}});
}

namespace {

// The fields of an index entry in OpenBenchmarking's order, each a text, a list of texts or a
// text that may be null: one table serves encoding and decoding.
template <typename T>
struct IndexField {
  const char* key;
  std::variant<std::string T::*, std::vector<std::string> T::*, std::optional<std::string> T::*> member;
};

const std::vector<IndexField<IndexTest>>& TestFields() {
  static const std::vector<IndexField<IndexTest>> fields = {
      {"title", &IndexTest::title},
      {"description", &IndexTest::description},
      {"test_type", &IndexTest::test_type},
      {"software_type", &IndexTest::software_type},
      {"status", &IndexTest::status},
      {"supported_platforms", &IndexTest::supported_platforms},
      {"internal_tags", &IndexTest::internal_tags},
      {"test_extends", &IndexTest::test_extends},
      {"package_hash", &IndexTest::package_hash},
      {"average_run_time", &IndexTest::average_run_time},
      {"average_install_time", &IndexTest::average_install_time},
      {"last_updated", &IndexTest::last_updated},
      {"first_added", &IndexTest::first_added},
      {"popularity", &IndexTest::popularity},
      {"downloads", &IndexTest::downloads},
      {"versions", &IndexTest::versions},
  };
  return fields;
}

const std::vector<IndexField<IndexSuite>>& SuiteFields() {
  static const std::vector<IndexField<IndexSuite>> fields = {
      {"title", &IndexSuite::title},         {"description", &IndexSuite::description},
      {"test_type", &IndexSuite::test_type}, {"status", &IndexSuite::status},
      {"package_hash", &IndexSuite::package_hash}, {"last_updated", &IndexSuite::last_updated},
      {"versions", &IndexSuite::versions},
  };
  return fields;
}

ordered_json ToJson(const std::string& v) { return v; }
ordered_json ToJson(const std::vector<std::string>& v) { return v; }
ordered_json ToJson(const std::optional<std::string>& v) { return Nullable(v); }
void FromJson(const json& o, const char* key, std::string& out) { out = Text(o, key); }
void FromJson(const json& o, const char* key, std::vector<std::string>& out) { out = TextList(o, key); }
void FromJson(const json& o, const char* key, std::optional<std::string>& out) { out = NullableText(o, key); }

template <typename T>
ordered_json EncodeEntries(const std::map<std::string, T>& entries, const std::vector<IndexField<T>>& fields) {
  ordered_json out = ordered_json::object();
  for (const auto& item : entries) {  // (not a structured binding: lambdas of older clangs cannot capture one)
    const T& entry = item.second;
    ordered_json e;
    for (const auto& f : fields) std::visit([&](auto member) { e[f.key] = ToJson(entry.*member); }, f.member);
    out[item.first] = std::move(e);
  }
  return out;
}

template <typename T>
std::map<std::string, T> DecodeEntries(const json& j, const std::vector<IndexField<T>>& fields) {
  std::map<std::string, T> out;
  if (!j.is_object()) return out;
  for (const auto& item : j.items()) {
    const json& e = item.value();
    if (!e.is_object()) continue;
    T entry;
    for (const auto& f : fields) std::visit([&](auto member) { FromJson(e, f.key, entry.*member); }, f.member);
    out.emplace(item.key(), std::move(entry));
  }
  return out;
}

}  // namespace

std::string EncodeRepoIndex(const RepoIndexDoc& index) {
  ordered_json doc;
  doc["main"]["generated"] = index.generated;
  doc["tests"] = EncodeEntries(index.tests, TestFields());
  doc["suites"] = EncodeEntries(index.suites, SuiteFields());
  return doc.dump(-1, ' ', false, json::error_handler_t::replace);
}

RepoIndexDoc DecodeRepoIndex(std::string_view text) {
  json j = Parse(text, "repository index");
  if (!j.is_object() || !j.contains("main") || !j["main"].is_object() || !j["main"].contains("generated") ||
      !j.contains("tests") || !j["tests"].is_object()) {
    std::string error = ErrorMessage(text);
    throw ProtocolError("repository index: " + (error.empty() ? "not an index (no main.generated and tests)" : error));
  }
  RepoIndexDoc out;
  const json& g = j["main"]["generated"];
  if (g.is_number_integer()) out.generated = g.get<std::int64_t>();
  else if (g.is_string()) out.generated = std::strtoll(g.get<std::string>().c_str(), nullptr, 10);
  out.tests = DecodeEntries(j["tests"], TestFields());
  if (j.contains("suites")) out.suites = DecodeEntries(j["suites"], SuiteFields());
  return out;
}

std::string EncodeAcquireTest(const AcquiredTest& test) {
  ordered_json t;
  t["zip"] = wire::Base64Encode(test.zip);
  t["sha1_hash"] = test.sha1.empty() ? wire::Sha1Hex(test.zip) : test.sha1;
  for (auto [key, text] : {std::pair{"changes", &test.changes_json}, std::pair{"generated", &test.generated_json}}) {
    if (text->empty()) continue;
    ordered_json v = ordered_json::parse(*text, nullptr, false);
    if (!v.is_discarded()) t[key] = std::move(v);
  }
  return Wrapped("test", std::move(t));
}

AcquiredTest DecodeAcquireTest(std::string_view text, const std::string& qualified_identifier) {
  const std::string what = "acquire_test " + qualified_identifier;
  json j = Parse(text, what);
  const json& t = Section(j, "test", what);
  if (!t.contains("zip") || !t["zip"].is_string() || !t.contains("sha1_hash") || !t["sha1_hash"].is_string())
    throw ProtocolError(what + ": the answer has no test.zip and test.sha1_hash");
  auto zip = wire::Base64Decode(t["zip"].get<std::string>());
  if (!zip || zip->empty()) throw ProtocolError(what + ": test.zip is not valid base64");
  AcquiredTest out;
  out.sha1 = t["sha1_hash"].get<std::string>();
  const std::string actual = wire::Sha1Hex(*zip);
  if (actual != out.sha1)
    throw ProtocolError(what + ": the zip's sha1 is " + actual + ", the server said " + out.sha1.substr(0, 64) +
                        " (not used)");
  out.zip = std::move(*zip);
  if (t.contains("changes") && !t["changes"].is_null()) out.changes_json = t["changes"].dump();
  if (t.contains("generated") && !t["generated"].is_null()) out.generated_json = t["generated"].dump();
  return out;
}

std::string EncodeClonedResult(const ClonedResult& result) {
  ordered_json r;
  r["composite_xml"] = result.composite_xml;
  r["system_logs_available"] = result.system_logs_sha1 ? ordered_json(*result.system_logs_sha1) : ordered_json(false);
  return Wrapped("result", std::move(r));
}

ClonedResult DecodeClonedResult(std::string_view text, const std::string& id) {
  const std::string what = "clone " + id;
  json j = Parse(text, what);
  const json& r = Section(j, "result", what);
  if (!r.contains("composite_xml") || !r["composite_xml"].is_string())
    throw ProtocolError(what + ": the answer has no result.composite_xml");
  ClonedResult out;
  out.composite_xml = r["composite_xml"].get<std::string>();
  if (r.contains("system_logs_available") && r["system_logs_available"].is_string() &&
      !r["system_logs_available"].get<std::string>().empty())
    out.system_logs_sha1 = r["system_logs_available"].get<std::string>();
  return out;
}

std::string EncodeIsResult(bool valid) { return Wrapped("result", ordered_json{{"valid", valid ? "TRUE" : "FALSE"}}); }

bool DecodeIsResult(std::string_view text) {
  json j = json::parse(text, nullptr, false);
  const json::json_pointer p("/openbenchmarking/result/valid");
  return !j.is_discarded() && j.contains(p) && j.at(p) == "TRUE";
}

std::string EncodeUploadAnswer(const UploadAnswer& answer) {
  return Wrapped("upload", ordered_json{{"id", answer.id}, {"url", answer.url}});
}

UploadAnswer DecodeUploadAnswer(std::string_view text) {
  json j = Parse(text, "upload");
  const json& u = Section(j, "upload", "upload");
  if (!u.contains("id") || !u["id"].is_string()) throw ProtocolError("upload: the answer has no upload.id");
  return {u["id"].get<std::string>(), Text(u, "url")};
}

std::string EncodeEmpty() { return R"({"openbenchmarking":{}})"; }

std::string EncodeError(const std::string& section, const std::string& message) {
  return Wrapped(section, ordered_json{{"error", message}});
}

std::string ErrorMessage(std::string_view text) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return "";
  for (const char* path : {"/openbenchmarking/upload/error", "/openbenchmarking/result/error", "/openbenchmarking/test/error",
                           "/openbenchmarking/error", "/error"}) {
    json::json_pointer p(path);
    if (j.contains(p) && j.at(p).is_string()) return j.at(p).get<std::string>();
  }
  return "";
}

std::optional<QualifiedName> ParseQualifiedName(std::string_view identifier) {
  size_t slash = identifier.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  std::string_view repo = identifier.substr(0, slash), rest = identifier.substr(slash + 1);
  if (!SafeComponent(repo) || !SafeComponent(rest)) return std::nullopt;
  QualifiedName q{std::string(repo), std::string(rest), ""};
  size_t dash = rest.rfind('-');
  if (dash != std::string_view::npos && dash > 0 && IsVersion(rest.substr(dash + 1))) {
    q.name = std::string(rest.substr(0, dash));
    q.version = std::string(rest.substr(dash + 1));
  }
  return q;
}

}  // namespace ptsn::ob
