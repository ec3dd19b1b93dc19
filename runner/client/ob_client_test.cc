#include "runner/client/ob_client.h"

#include <gtest/gtest.h>

#include <map>

namespace ptsn::client {
namespace {

// Answers by server: an exception (unreachable), or a status and body. Records every request.
struct ScriptedHttp : HttpTransport {
  std::map<std::string, HttpResponse> answers;  // server URL -> answer; absent = unreachable
  std::vector<std::string> asked;
  HttpResponse Post(const std::string& url, const std::string& body, const std::string&) override {
    asked.push_back(url + " " + body);
    std::string server = url.substr(0, url.size() - std::string(ob::kClientPath).size());
    auto it = answers.find(server);
    if (it == answers.end()) throw Error(url + ": Couldn't connect to server");
    return it->second;
  }
  HttpResponse Get(const std::string& url) override { throw Error(url + ": not expected"); }
};

TEST(ObClient, ServerListsSplitOnCommasAndBlanks) {
  EXPECT_EQ(ParseServerList("https://openbenchmarking.org http://openbenchmarking.org/"),
            (std::vector<std::string>{"https://openbenchmarking.org", "http://openbenchmarking.org"}));
  EXPECT_EQ(ParseServerList(" http://a:8080/, http://b,,http://a:8080"), (std::vector<std::string>{"http://a:8080", "http://b"}));
  EXPECT_TRUE(ParseServerList("  ").empty());
}

TEST(ObClient, AsksEachServerInOrderUntilOneAnswers) {
  auto http = std::make_unique<ScriptedHttp>();
  ScriptedHttp* h = http.get();
  h->answers["http://b"] = {404, ob::EncodeError("result", "no result with ID 'X'")};
  h->answers["http://c"] = {200, ob::EncodeClonedResult({"<PhoronixTestSuite/>", std::nullopt})};
  ObClient client({"http://a", "http://b", "http://c"}, false, [&] { return std::move(http); });
  auto got = client.CloneResult("1110088-AR-1110066AR56");
  EXPECT_EQ(got.server, "http://c");
  EXPECT_EQ(got.value.composite_xml, "<PhoronixTestSuite/>");
  ASSERT_EQ(h->asked.size(), 3u);
  EXPECT_EQ(h->asked[0], "http://a/f/client.php r=clone_openbenchmarking_result&client_version=10860&i=1110088-AR-1110066AR56");
}

TEST(ObClient, SaysWhatEachServerSaidWhenNoneAnswers) {
  auto http = std::make_unique<ScriptedHttp>();
  http->answers["http://b"] = {200, "<html>not json</html>"};
  ObClient client({"http://a", "http://b"}, false, [&] { return std::move(http); });
  try {
    client.CloneResult("X");
    FAIL();
  } catch (const NoServerAnswered& e) {
    EXPECT_EQ(std::string(e.what()),
              "result X: http://a/f/client.php: Couldn't connect to server; http://b: clone X: the answer is not JSON");
    EXPECT_TRUE(e.any_reached());
    EXPECT_FALSE(e.offline());
  }
}

TEST(ObClient, AServerThatCannotBeReachedIsAskedOnlyOnce) {
  auto http = std::make_unique<ScriptedHttp>();
  ScriptedHttp* h = http.get();
  h->answers["http://b"] = {404, ob::EncodeError("result", "no result with ID 'X'")};
  ObClient client({"http://a", "http://b"}, false, [&] { return std::move(http); });
  for (int i = 0; i < 3; ++i) {
    try {
      client.CloneResult("X");
      FAIL();
    } catch (const NoServerAnswered& e) {
      EXPECT_EQ(std::string(e.failures()),
                "http://a/f/client.php: Couldn't connect to server; http://b: HTTP 404 (no result with ID 'X')");
    }
  }
  // http://a once (unreachable stays unreachable for this client), http://b every time (it answered).
  ASSERT_EQ(h->asked.size(), 4u);
  EXPECT_EQ(h->asked[0].rfind("http://a/", 0), 0u);
  for (size_t i = 1; i < 4; ++i) EXPECT_EQ(h->asked[i].rfind("http://b/", 0), 0u) << h->asked[i];
}

TEST(ObClient, OfflineMakesNoTransport) {
  bool made = false;
  ObClient client({"https://openbenchmarking.org"}, true, [&] {
    made = true;
    return std::make_unique<ScriptedHttp>();
  });
  try {
    client.RepoIndex("pts");
    FAIL();
  } catch (const NoServerAnswered& e) {
    EXPECT_TRUE(e.offline());
    EXPECT_NE(std::string(e.what()).find("offline"), std::string::npos);
  }
  EXPECT_FALSE(made);
}

TEST(ObClient, SystemLogsMustMatchTheirSha1) {
  auto http = std::make_unique<ScriptedHttp>();
  http->answers["http://a"] = {200, "PK zip bytes"};
  ObClient client({"http://a"}, false, [&] { return std::move(http); });
  EXPECT_EQ(client.SystemLogs("http://a", "X", wire::Sha1Hex("PK zip bytes")), "PK zip bytes");
  EXPECT_THROW(client.SystemLogs("http://a", "X", wire::Sha1Hex("other")), NoServerAnswered);
}

}  // namespace
}  // namespace ptsn::client
