// The protocol's shapes pinned three ways: against the requests the real PTS 10.8.6 client was
// recorded sending (../shared/reference/pts-output/ob-client-requests/), against PTS's source
// (the request names, fields and answer keys pts_openbenchmarking.php uses), and against the
// repository index PTS ships (ob-cache/openbenchmarking.org/pts.index).
#include "runner/openbenchmarking/protocol.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ptsn::ob {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string RecordedDir() { return std::string(PTSN_SHARED_DIR) + "/reference/pts-output/ob-client-requests"; }

// A PTS 10.8.6 checkout: $PTS_SRC, else ../pts-src beside the checkout, else /work/pts-src.
std::string PtsSource() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("PTS_SRC"); env && *env) candidates.push_back(env);
  candidates.push_back(std::string(PTSN_SOURCE_DIR) + "/../pts-src");
  candidates.push_back("/work/pts-src");
  for (const auto& c : candidates)
    if (fs::exists(c + "/pts-core/objects/pts_openbenchmarking.php")) return c;
  return "";
}

// The request our builder makes for a recorded one, from its form's own values.
std::optional<Request> Rebuild(const nlohmann::ordered_json& form) {
  const std::string r = form.value("r", "");
  auto field = [&](const char* k) { return form.value(k, ""); };
  if (r == "request_gsid") return RequestGsid(field("client_os"));
  if (r == "repo_index") return RepoIndex(field("repo"));
  if (r == "acquire_test") return AcquireTest(field("i"));
  if (r == "repo_changes") return RepoChanges(field("test_profile"));
  if (r == "phoromatic_server_relay_check") return PhoromaticServerRelayCheck();
  if (r == "is_openbenchmarking_result") return IsOpenBenchmarkingResult(field("i"));
  if (r == "clone_openbenchmarking_result") return CloneOpenBenchmarkingResult(field("i"));
  return std::nullopt;
}

TEST(ObProtocol, RequestsAreWhatTheRealClientSends) {
  if (!fs::is_directory(RecordedDir())) GTEST_SKIP() << "no recorded requests at " << RecordedDir();
  int compared = 0;
  for (const auto& entry : fs::directory_iterator(RecordedDir())) {
    if (entry.path().extension() != ".json") continue;
    nlohmann::ordered_json rec = nlohmann::ordered_json::parse(Slurp(entry.path()));  // the form's order
    if (rec["method"] != "POST") {
      EXPECT_EQ(rec["path"], kProbePath);
      EXPECT_EQ(rec["answer"], kProbeBody);
      continue;
    }
    EXPECT_EQ(rec["path"], kClientPath) << entry.path();
    EXPECT_EQ(rec["headers"]["User-Agent"], kUserAgent);
    auto built = Rebuild(rec["form"]);
    if (!built) continue;  // upload_test_result: wire_test.cc and the end-to-end tests
    // Same fields, same order, same values, and the same bytes on the wire (Content-Length).
    std::vector<std::pair<std::string, std::string>> recorded;
    for (const auto& [k, v] : rec["form"].items()) recorded.emplace_back(k, v.get<std::string>());
    EXPECT_EQ(built->fields, recorded) << entry.path();
    EXPECT_EQ(std::to_string(built->Body().size()), rec["headers"]["Content-Length"].get<std::string>()) << entry.path();
    ++compared;
  }
  EXPECT_GE(compared, 7);
}

TEST(ObProtocol, RecordedAnswersDecode) {
  if (!fs::is_directory(RecordedDir())) GTEST_SKIP() << "no recorded requests at " << RecordedDir();
  auto answer = [](const char* file) {
    return json::parse(Slurp(fs::path(RecordedDir()) / file))["answer"].get<std::string>();
  };
  EXPECT_TRUE(DecodeIsResult(answer("09-is_openbenchmarking_result.json")));
  UploadAnswer up = DecodeUploadAnswer(answer("17-upload_test_result.json"));
  EXPECT_EQ(up.id, "2612016-FAKE-OBTEST0001");
  EXPECT_EQ(up.url, "http://openbenchmarking.org/result/2612016-FAKE-OBTEST0001");
  // The system repository's index (recorded whole) has the shape of ours.
  RepoIndexDoc system = DecodeRepoIndex(answer("07-repo_index.json"));
  EXPECT_EQ(system.generated, 1796135763);
  ASSERT_EQ(system.tests.count("dbench"), 1u);
  EXPECT_EQ(system.tests["dbench"].versions, std::vector<std::string>{"1.0.0"});
  // What we answer to the requests PTS needs nothing from is what let it proceed.
  EXPECT_EQ(json::parse(EncodeEmpty()), json::parse(answer("05-request_gsid.json")));
  EXPECT_EQ(json::parse(EncodeEmpty()), json::parse(answer("08-phoromatic_server_relay_check.json")));
  EXPECT_EQ(json::parse(EncodeEmpty()), json::parse(answer("repo_changes.json")));
  EXPECT_EQ(json::parse(EncodeIsResult(true)), json::parse(answer("09-is_openbenchmarking_result.json")));
}

// Every request name, field and answer key we use, as PTS's own code spells it.
TEST(ObProtocol, ShapesMatchPtsSource) {
  std::string src = PtsSource();
  if (src.empty()) GTEST_SKIP() << "no PTS 10.8.6 source (set PTS_SRC)";
  std::string ob = Slurp(src + "/pts-core/objects/pts_openbenchmarking.php");
  std::string upload = Slurp(src + "/pts-core/objects/pts_openbenchmarking_upload.php");
  std::string client = Slurp(src + "/pts-core/objects/client/pts_openbenchmarking_client.php");
  std::string core = Slurp(src + "/pts-core/pts-core.php");
  for (const char* needle : {
           "make_openbenchmarking_request('clone_openbenchmarking_result', array('i' => $id))",
           "make_openbenchmarking_request('clone_openbenchmarking_system_logs', array('i' => $id))",
           "make_openbenchmarking_request('is_openbenchmarking_result', array('i' => $id))",
           "make_openbenchmarking_request('repo_index', array('repo' => $repo_name))",
           "make_openbenchmarking_request('acquire_test', array('i' => $qualified_identifier))",
           "make_openbenchmarking_request('phoromatic_server_relay_check')",
           "['openbenchmarking']['result']['composite_xml']",
           "['openbenchmarking']['result']['system_logs_available']",
           "['openbenchmarking']['result']['valid'] == 'TRUE'",
           "['openbenchmarking']['test']['sha1_hash']",
           "['openbenchmarking']['test']['zip']",
           "$hash_check == sha1($test_profile)",
           "sha1_file($zip_temp) == $sha1_compare",
           "'client_version' => PTS_CORE_VERSION",
           "'f/client.php'",
           "'https://' : 'http://') . 'openbenchmarking.org/'",
       })
    EXPECT_NE(ob.find(needle), std::string::npos) << "pts_openbenchmarking.php lacks: " << needle;
  EXPECT_NE(ob.find("['main']['generated']"), std::string::npos);
  for (const char* needle : {"make_openbenchmarking_request('upload_test_result', $to_post", "'composite_xml_hash' => $composite_xml_hash",
                             "'local_file_name' => $local_file_name", "['openbenchmarking']['upload']['url']"})
    EXPECT_NE(upload.find(needle), std::string::npos) << "pts_openbenchmarking_upload.php lacks: " << needle;
  for (const char* needle : {"'client_version' => PTS_VERSION", "'client_os' =>", "make_openbenchmarking_request('request_gsid', $payload)"})
    EXPECT_NE(client.find(needle), std::string::npos) << "pts_openbenchmarking_client.php lacks: " << needle;
  EXPECT_NE(core.find("pts_define('PTS_CORE_VERSION', " + std::string(kClientVersion) + ")"), std::string::npos);
  EXPECT_NE(core.find("pts_define('PTS_VERSION', '" + std::string(kPtsVersion) + "')"), std::string::npos);
  EXPECT_NE(core.find("pts_define('PTS_CODENAME', 'Nesseby')"), std::string::npos);
}

// The index PTS ships, decoded and encoded again, is the same document: every key, in order,
// with OpenBenchmarking's types (numbers as text, null package hashes).
TEST(ObProtocol, RepoIndexRoundTripsPtsShippedIndex) {
  std::string src = PtsSource();
  if (src.empty()) GTEST_SKIP() << "no PTS 10.8.6 source (set PTS_SRC)";
  std::string text = Slurp(src + "/ob-cache/openbenchmarking.org/pts.index");
  RepoIndexDoc index = DecodeRepoIndex(text);
  EXPECT_GT(index.tests.size(), 500u);
  EXPECT_GT(index.suites.size(), 10u);
  ASSERT_EQ(index.tests.count("fs-mark"), 1u);
  EXPECT_EQ(index.tests["fs-mark"].versions.front(), "1.0.3");
  EXPECT_EQ(index.tests["fs-mark"].test_type, "Disk");
  // OpenBenchmarking writes its figures mostly as text ("256") but some as numbers (71664); PHP
  // reads either alike, and we write text throughout. Everything else is compared as it is.
  std::function<void(nlohmann::ordered_json&)> numbers_as_text = [&](nlohmann::ordered_json& j) {
    if (j.is_number_integer()) j = std::to_string(j.get<std::int64_t>());
    else if (j.is_structured()) for (auto& v : j) numbers_as_text(v);
  };
  nlohmann::ordered_json original = nlohmann::ordered_json::parse(text);
  nlohmann::ordered_json ours = nlohmann::ordered_json::parse(EncodeRepoIndex(index));
  nlohmann::ordered_json generated = original["main"];
  numbers_as_text(original["tests"]);
  numbers_as_text(original["suites"]);
  EXPECT_EQ(ours["main"], generated);
  for (const auto& [name, entry] : original["tests"].items()) ASSERT_EQ(ours["tests"][name], entry) << name;
  for (const auto& [name, entry] : original["suites"].items()) ASSERT_EQ(ours["suites"][name], entry) << name;
}

TEST(ObProtocol, AcquireTestChecksTheSha1) {
  AcquiredTest t;
  t.zip = std::string("PK\x03\x04 pretend zip", 18);
  std::string answer = EncodeAcquireTest(t);
  AcquiredTest back = DecodeAcquireTest(answer, "pts/x-1.0.0");
  EXPECT_EQ(back.zip, t.zip);
  EXPECT_EQ(back.sha1, wire::Sha1Hex(t.zip));
  json j = json::parse(answer);
  EXPECT_TRUE(j["openbenchmarking"]["test"]["zip"].is_string());
  j["openbenchmarking"]["test"]["sha1_hash"] = wire::Sha1Hex("something else");
  try {
    DecodeAcquireTest(j.dump(), "pts/x-1.0.0");
    FAIL() << "a zip whose sha1 differs was accepted";
  } catch (const ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("sha1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("pts/x-1.0.0"), std::string::npos) << e.what();
  }
  EXPECT_THROW(DecodeAcquireTest(EncodeError("test", "no such test"), "pts/y-1.0.0"), ProtocolError);
  EXPECT_THROW(DecodeAcquireTest("<html>", "pts/y-1.0.0"), ProtocolError);
  j["openbenchmarking"]["test"]["zip"] = "!!!";
  EXPECT_THROW(DecodeAcquireTest(j.dump(), "pts/x-1.0.0"), ProtocolError);
}

TEST(ObProtocol, CloneAnswerRoundTrips) {
  ClonedResult r{"<?xml version=\"1.0\"?>\n<PhoronixTestSuite/>\n", std::nullopt};
  ClonedResult back = DecodeClonedResult(EncodeClonedResult(r), "X");
  EXPECT_EQ(back.composite_xml, r.composite_xml);
  EXPECT_FALSE(back.system_logs_sha1);
  EXPECT_EQ(json::parse(EncodeClonedResult(r))["openbenchmarking"]["result"]["system_logs_available"], false);
  r.system_logs_sha1 = "abc";
  EXPECT_EQ(DecodeClonedResult(EncodeClonedResult(r), "X").system_logs_sha1, "abc");
  try {
    DecodeClonedResult(EncodeError("result", "no result with ID 'X'"), "X");
    FAIL();
  } catch (const ProtocolError& e) {
    EXPECT_EQ(std::string(e.what()), "clone X: no result with ID 'X'");
  }
}

TEST(ObProtocol, QualifiedNames) {
  auto q = ParseQualifiedName("pts/fs-mark-1.0.3");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->repo, "pts");
  EXPECT_EQ(q->name, "fs-mark");
  EXPECT_EQ(q->version, "1.0.3");
  EXPECT_EQ(q->Identifier(), "pts/fs-mark-1.0.3");
  q = ParseQualifiedName("pts/fs-mark");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->name, "fs-mark");
  EXPECT_EQ(q->version, "");
  q = ParseQualifiedName("system/x264-opencl-1.2");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->name, "x264-opencl");
  EXPECT_EQ(q->version, "1.2");
  for (const char* bad : {"fs-mark", "pts/../etc", "../pts/x", "pts/a/b", "/pts/x", "pts/.hidden", "pts/x y", "", "pts/"})
    EXPECT_FALSE(ParseQualifiedName(bad)) << bad;
}

}  // namespace
}  // namespace ptsn::ob
