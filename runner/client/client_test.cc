#include "runner/client/client.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "runner/client/upload_queue.h"

namespace ptsn::client {
namespace {

// Answers every request with a canned response and records what was sent.
struct FakeHttp : HttpTransport {
  HttpResponse answer;
  std::string url, body, token;
  HttpResponse Post(const std::string& u, const std::string& b, const std::string& t) override {
    url = u, body = b, token = t;
    return answer;
  }
  HttpResponse Get(const std::string& u) override {
    url = u;
    return answer;
  }
};

TEST(Client, UploadSendsTheFormAndReadsTheId) {
  FakeHttp http;
  http.answer = {200, R"({"openbenchmarking":{"upload":{"id":"2611301-AL-TITLE000001","url":"http://x/result/2611301-AL-TITLE000001"}}})"};
  auto out = UploadResult(http, "http://127.0.0.1:9/", "tok", "r=upload_test_result");
  EXPECT_EQ(out.id, "2611301-AL-TITLE000001");
  EXPECT_EQ(http.url, "http://127.0.0.1:9/f/client.php");
  EXPECT_EQ(http.token, "tok");
  EXPECT_EQ(http.body, "r=upload_test_result");
}

TEST(Client, RefusalsCarryStatusAndServerMessage) {
  FakeHttp http;
  http.answer = {401, R"({"openbenchmarking":{"upload":{"error":"unknown or revoked token"}}})"};
  try {
    UploadResult(http, "http://h", "bad", "");
    FAIL() << "no throw";
  } catch (const ServerRefusal& e) {
    // The server's words, then what to do (a token was sent: it is not a user's the server knows).
    EXPECT_EQ(std::string(e.what()),
              "upload: server answered HTTP 401: unknown or revoked token (the token sent is not a user's token this "
              "server knows, and an agent's token is never one; the server's operator makes one with: "
              "pts-native-server token create NAME --data DIR)");
    EXPECT_FALSE(e.retryable());
  }
  http.answer = {502, "<html>Bad Gateway</html>"};
  try {
    UploadResult(http, "http://h", "t", "");
    FAIL() << "no throw";
  } catch (const ServerRefusal& e) {
    EXPECT_NE(std::string(e.what()).find("HTTP 502"), std::string::npos);
    EXPECT_TRUE(e.retryable());
  }
}

// Our server answers protocol refusals with 200 as OpenBenchmarking.org does (for PTS), naming
// the status they stand for: a 429 or 503 is still retried, a 401 is not.
TEST(Client, RefusalsAnsweredWith200KeepTheStatusTheyStandFor) {
  FakeHttp http;
  http.answer = {200, R"({"openbenchmarking":{"upload":{"error":"too many anonymous uploads","status":429}}})"};
  try {
    UploadResult(http, "http://h", "", "");
    FAIL() << "no throw";
  } catch (const ServerRefusal& e) {
    EXPECT_EQ(std::string(e.what()), "upload: server answered HTTP 429: too many anonymous uploads");
    EXPECT_TRUE(e.retryable());
  }
  http.answer = {200, R"({"openbenchmarking":{"upload":{"error":"authentication required","status":401}}})"};
  try {
    UploadResult(http, "http://h", "", "");
    FAIL() << "no throw";
  } catch (const ServerRefusal& e) {
    EXPECT_FALSE(e.retryable()) << e.what();
    // No token was sent: where the client takes one from.
    EXPECT_NE(std::string(e.what()).find("authentication required (this needs a user's token: pass --token T or set "
                                         "server.token / PTS_NATIVE_TOKEN;"),
              std::string::npos)
        << e.what();
  }
}

TEST(Client, ListParsesResults) {
  FakeHttp http;
  http.answer = {200, R"({"results":[{"id":"A","title":"T","systems":"S","tests":"pts/x","url":"u","uploaded_at":5}]})"};
  auto rows = ListResults(http, "http://h", "disk io", "", "");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].id, "A");
  EXPECT_NE(http.url.find("q=disk+io"), std::string::npos);
}

TEST(UploadQueue, QueuesOldestFirstAndRemoves) {
  std::random_device rd;
  auto dir = std::filesystem::temp_directory_path() / ("ptsn_queue_" + std::to_string(rd()));
  EXPECT_TRUE(PendingUploads(dir.string()).empty());
  QueueUpload(dir.string(), "http://a", "body1", "first");
  QueueUpload(dir.string(), "http://b", "body2", "second");
  auto pending = PendingUploads(dir.string());
  ASSERT_EQ(pending.size(), 2u);
  EXPECT_EQ(pending[0].name, "first");
  EXPECT_EQ(pending[1].form_body, "body2");
  EXPECT_EQ(pending[1].server_url, "http://b");
  RemovePending(pending[0]);
  EXPECT_EQ(PendingUploads(dir.string()).size(), 1u);
  // One the server refused is set aside below refused/ and is no longer pending.
  const std::string aside = SetAsideRefused(PendingUploads(dir.string())[0]);
  EXPECT_EQ(std::filesystem::path(aside).parent_path(), dir / "refused");
  EXPECT_TRUE(std::filesystem::exists(aside));
  EXPECT_TRUE(PendingUploads(dir.string()).empty());
  std::filesystem::remove_all(dir);
}

TEST(UploadQueue, ADamagedQueueFileIsSetAsideAndTheOthersStillRead) {
  std::random_device rd;
  auto dir = std::filesystem::temp_directory_path() / ("ptsn_queue_" + std::to_string(rd()));
  QueueUpload(dir.string(), "http://a", "body1", "good");
  std::ofstream(dir / "0-damaged.json") << "{not json";
  EXPECT_THROW(PendingUploads(dir.string()), Error);
  std::vector<std::string> set_aside;
  auto pending = PendingUploads(dir.string(), &set_aside);
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].name, "good");
  ASSERT_EQ(set_aside.size(), 1u);
  EXPECT_NE(set_aside[0].find("0-damaged.json: not a pending upload"), std::string::npos) << set_aside[0];
  EXPECT_TRUE(std::filesystem::exists(dir / "refused" / "0-damaged.json"));
  std::filesystem::remove_all(dir);
}

TEST(UploadQueue, OnlyRefusalsOfTheFileItselfSetItAside) {
  for (long status : {400L, 413L, 415L, 422L}) EXPECT_TRUE(RefusesTheUpload(status)) << status;
  for (long status : {200L, 401L, 403L, 404L, 407L, 408L, 429L, 500L, 503L}) EXPECT_FALSE(RefusesTheUpload(status)) << status;
}

}  // namespace
}  // namespace ptsn::client
