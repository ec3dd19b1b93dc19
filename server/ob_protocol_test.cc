// The profile side of the protocol the server answers, and the mirror behind it.
#include "server/results/ob_protocol.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "runner/common/atomic_file.h"
#include "runner/openbenchmarking/profile_zip.h"
#include "server/testing/sample_result.h"
#include "server/testing/test_server.h"

namespace ptsn::server {
namespace {

namespace fs = std::filesystem;

struct Tree {
  fs::path root = fs::path(::testing::TempDir()) / ("ptsn-mirror-" + std::to_string(getpid()) + "-" +
                                                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
  Tree() { fs::remove_all(root); }
  ~Tree() { fs::remove_all(root); }
  void Profile(const std::string& id, const std::string& title, const std::string& extends = "") {
    fs::path dir = root / "tree" / id;
    fs::create_directories(dir);
    WriteFileAtomically((dir / "test-definition.xml").string(),
                        "<?xml version=\"1.0\"?>\n<PhoronixTestSuite><TestInformation><Title>" + title +
                            "</Title><Description>D</Description><TimesToRun>3</TimesToRun><EstimatedTimePerRun>20</EstimatedTimePerRun>"
                            "</TestInformation><TestProfile><TestType>Disk</TestType><Status>Verified</Status>"
                            "<SupportedPlatforms>Linux, BSD</SupportedPlatforms>" +
                            (extends.empty() ? "" : "<Extends>" + extends + "</Extends>") +
                            "</TestProfile></PhoronixTestSuite>\n");
  }
  std::string Mirror() const { return (root / "mirror").string(); }
};

std::string Field(const std::map<std::string, std::string>& m, const std::string& k) {
  auto it = m.find(k);
  return it == m.end() ? "" : it->second;
}

TEST(ProfileMirror, ImportBuildsTheIndexAndTheZipsTheProtocolServes) {
  Tree t;
  t.Profile("pts/disk-thing-1.0.0", "Old Title");
  t.Profile("pts/disk-thing-1.10.0", "Disk Thing");
  t.Profile("pts/disk-thing-1.9.2", "Middle");
  t.Profile("pts/child-1.0.0", "Child", "pts/disk-thing");
  fs::create_directories(t.root / "tree/pts/not-a-profile");
  auto report = ImportProfiles((t.root / "tree").string(), t.Mirror(), 1700000000);
  EXPECT_EQ(report.added, 4u);
  ASSERT_EQ(report.skipped.size(), 1u);
  EXPECT_NE(report.skipped[0].first.find("not-a-profile"), std::string::npos);

  ProfileMirror mirror(t.Mirror());
  std::map<std::string, std::string> form{{"repo", "pts"}};
  auto index = AnswerProfileRequest("repo_index", [&](const std::string& k) { return Field(form, k); }, &mirror);
  ASSERT_TRUE(index);
  EXPECT_EQ(index->status, 200);
  ob::RepoIndexDoc doc = ob::DecodeRepoIndex(index->body);
  EXPECT_EQ(doc.generated, 1700000000);
  const ob::IndexTest& thing = doc.tests["disk-thing"];
  EXPECT_EQ(thing.versions, (std::vector<std::string>{"1.10.0", "1.9.2", "1.0.0"}));  // newest first, numerically
  EXPECT_EQ(thing.title, "Disk Thing");  // from the newest version
  EXPECT_EQ(thing.supported_platforms, (std::vector<std::string>{"Linux", "BSD"}));
  EXPECT_EQ(thing.average_run_time, "60");
  EXPECT_EQ(doc.tests["child"].test_extends, "pts/disk-thing");

  form = {{"i", "pts/disk-thing-1.9.2"}};
  auto test = AnswerProfileRequest("acquire_test", [&](const std::string& k) { return Field(form, k); }, &mirror);
  ASSERT_TRUE(test);
  EXPECT_EQ(test->status, 200);
  ob::AcquiredTest acquired = ob::DecodeAcquireTest(test->body, "pts/disk-thing-1.9.2");  // sha1 checked
  auto entries = ob::ReadZip(acquired.zip);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_NE(entries[0].data.find("<Title>Middle</Title>"), std::string::npos);

  for (const char* bad : {"pts/nothing-1.0.0", "pts/../../etc/passwd", "pts/disk-thing"}) {
    form = {{"i", bad}};
    auto missing = AnswerProfileRequest("acquire_test", [&](const std::string& k) { return Field(form, k); }, &mirror);
    ASSERT_TRUE(missing);
    EXPECT_EQ(missing->status, 404) << bad;
  }
  form = {{"repo", "git"}};
  EXPECT_EQ(AnswerProfileRequest("repo_index", [&](const std::string& k) { return Field(form, k); }, &mirror)->status, 404);
  EXPECT_EQ(AnswerProfileRequest("repo_index", [&](const std::string& k) { return Field(form, k); }, nullptr)->status, 404);
}

TEST(ProfileMirror, ReimportingChangesNothingAndAnImportedFileIsServedWithoutARestart) {
  Tree t;
  t.Profile("pts/a-1.0.0", "A");
  ImportProfiles((t.root / "tree").string(), t.Mirror(), 1);
  ProfileMirror mirror(t.Mirror());
  auto first = mirror.Test("pts/a-1.0.0");
  ASSERT_TRUE(first);
  auto again = ImportProfiles((t.root / "tree").string(), t.Mirror(), 2);
  EXPECT_EQ(again.added, 0u);
  EXPECT_EQ(again.unchanged, 1u);
  EXPECT_EQ(mirror.Test("pts/a-1.0.0")->sha1, first->sha1);
  t.Profile("pts/a-1.1.0", "A newer");
  ImportProfiles((t.root / "tree").string(), t.Mirror(), 3);
  EXPECT_TRUE(mirror.Test("pts/a-1.1.0"));
  EXPECT_EQ(ob::DecodeRepoIndex(*mirror.Index("pts")).tests["a"].versions, (std::vector<std::string>{"1.1.0", "1.0.0"}));
}

TEST(ObProtocolAnswers, WhatPtsNeedsNothingFromIsAnsweredEmpty) {
  auto none = [](const std::string&) { return std::string(); };
  for (const char* r : {"request_gsid", "phoromatic_server_relay_check", "repo_changes"}) {
    auto a = AnswerProfileRequest(r, none, nullptr);
    ASSERT_TRUE(a) << r;
    EXPECT_EQ(a->status, 200);
    EXPECT_EQ(a->body, R"({"openbenchmarking":{}})");
  }
  EXPECT_FALSE(AnswerProfileRequest("upload_test_result", none, nullptr));
  EXPECT_FALSE(AnswerProfileRequest("something_else", none, nullptr));
}

// Over HTTP, what the real client needs before anything else: GET /PTS, and (with
// --anonymous-uploads) an upload without a token, as it sends them.
TEST(ObProtocolHttp, ConnectivityProbeAndAnonymousUploads) {
  wire::Upload up;
  up.xml = testing::SampleCompositeXml("Anonymous", 2);
  const std::string body = wire::EncodeForm(wire::EncodeUpload(up));
  {
    testing::TestServer server;  // by default a token is required
    httplib::Client http("127.0.0.1", server.port());
    auto probe = http.Get("/PTS");
    ASSERT_TRUE(probe);
    EXPECT_EQ(probe->status, 200);
    EXPECT_EQ(probe->body, "PTS");
    auto refused = http.Post("/f/client.php", body, "application/x-www-form-urlencoded");
    ASSERT_TRUE(refused);
    // As OpenBenchmarking.org refuses: 200 and the reason, which is what PTS prints.
    EXPECT_EQ(refused->status, 200);
    EXPECT_NE(refused->body.find("\"error\":\"authentication required"), std::string::npos) << refused->body;
    EXPECT_NE(refused->body.find("\"status\":401"), std::string::npos) << refused->body;
  }
  ServerOptions o;
  o.anonymous_uploads = true;
  testing::TestServer server(o);
  httplib::Client http("127.0.0.1", server.port());
  auto res = http.Post("/f/client.php", body, "application/x-www-form-urlencoded");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  ob::UploadAnswer answer = ob::DecodeUploadAnswer(res->body);
  auto stored = server.storage().Get(answer.id);
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->owner, "anonymous");
  EXPECT_EQ(stored->xml, up.xml);
}

}  // namespace
}  // namespace ptsn::server
