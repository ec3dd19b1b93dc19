// The agent against a scripted server and a fake executor (no sockets, no processes), and the
// checks an agent makes before it runs anything.
#include "runner/fleet/agent.h"

#include <gtest/gtest.h>

#include <deque>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "runner/client/upload_queue.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/fleet/agent_run.h"

namespace ptsn::fleet {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Answers by path; records every request.
class ScriptedServer : public client::HttpTransport {
 public:
  using Answer = std::function<client::HttpResponse(const std::string& body)>;
  client::HttpResponse Post(const std::string& url, const std::string& body, const std::string& token) override {
    const std::string path = url.substr(url.find('/', 8));
    requests.push_back({path, body});
    EXPECT_EQ(token, "T");
    if (away) throw Error(url + ": Connection refused");
    auto it = answers.find(path);
    if (it == answers.end()) return {200, "{}"};
    return it->second(body);
  }
  client::HttpResponse Get(const std::string&) override { return {404, ""}; }
  size_t Count(const std::string& path) const {
    size_t n = 0;
    for (const auto& r : requests) n += r.first == path;
    return n;
  }
  std::map<std::string, Answer> answers;
  std::vector<std::pair<std::string, std::string>> requests;
  bool away = false;
};

class FakeExecutor : public TaskExecutor {
 public:
  std::string Check(const JobSpec&) override { return refuse; }
  Outcome Execute(const Task& task, const std::function<void(const std::string&)>& progress,
                  const std::atomic<bool>& cancel) override {
    ++runs;
    last = task;
    progress("test 1/1: trial 1/2 done");
    if (during) during();
    if (wait_for_cancel)
      while (!cancel) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    Outcome o;
    o.interrupted = cancel;
    if (!cancel) o.result_xml = xml;
    o.failure = failure;
    return o;
  }
  std::string refuse, xml = "<PhoronixTestSuite/>", failure;
  bool wait_for_cancel = false;
  std::function<void()> during;
  int runs = 0;
  Task last;
};

const char* kTask = R"({"task":{"id":7,"job":3,"attempt":1,"machine":"m1","title":"t","lease_seconds":3,
                        "spec":{"tests":["native/cipher"],"presets":"","times":2}}})";

class AgentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device rd;
    dir_ = (fs::temp_directory_path() / ("ptsn_agent_" + std::to_string(rd()))).string();
    options_.server_url = "http://127.0.0.1:1";
    options_.token = "T";
    options_.name = "m1";
    options_.state_dir = dir_;
    server_.answers["/api/v1/fleet/agent/hello"] = [](const std::string&) {
      return client::HttpResponse{200, R"({"machine":"m1"})"};
    };
    server_.answers["/api/v1/fleet/agent/poll"] = [this](const std::string&) {
      if (tasks_ == 0) return client::HttpResponse{204, ""};
      --tasks_;
      return client::HttpResponse{200, kTask};
    };
  }
  void TearDown() override { fs::remove_all(dir_); }
  Agent MakeAgent() { return Agent(options_, server_, executor_, [this] { return stop_; }, log_); }

  std::string dir_;
  AgentOptions options_;
  ScriptedServer server_;
  FakeExecutor executor_;
  std::ostringstream log_;
  bool stop_ = false;
  int tasks_ = 1;
};

TEST_F(AgentTest, AResultWaitsOnDiskUntilTheServerTakesIt) {
  Agent agent = MakeAgent();
  int uploads = 0;
  server_.answers["/api/v1/fleet/agent/tasks/7/result"] = [&](const std::string& body) {
    ++uploads;
    EXPECT_NE(body.find("composite_xml"), std::string::npos);
    if (uploads == 1) return client::HttpResponse{503, R"({"error":"storage unavailable"})"};
    return client::HttpResponse{200, R"({"state":"done"})"};
  };
  EXPECT_TRUE(agent.RunOnce(0));
  EXPECT_EQ(executor_.runs, 1);
  EXPECT_EQ(executor_.last.machine, "m1");
  EXPECT_EQ(uploads, 1);
  EXPECT_EQ(client::PendingUploads(dir_ + "/upload-queue").size(), 1u) << "kept after the 503";
  server_.away = true;
  EXPECT_THROW(agent.FlushUploads(), Error);
  EXPECT_EQ(client::PendingUploads(dir_ + "/upload-queue").size(), 1u) << "kept while the server is away";
  server_.away = false;
  EXPECT_FALSE(agent.RunOnce(0)) << "no new task, but the pending result went out first";
  EXPECT_EQ(uploads, 2);
  EXPECT_TRUE(client::PendingUploads(dir_ + "/upload-queue").empty());
}

TEST_F(AgentTest, AResultTheServerRefusesIsKeptAside) {
  Agent agent = MakeAgent();
  server_.answers["/api/v1/fleet/agent/tasks/7/result"] = [](const std::string&) {
    return client::HttpResponse{409, R"({"error":"task 7 failed earlier"})"};
  };
  agent.RunOnce(0);
  EXPECT_TRUE(client::PendingUploads(dir_ + "/upload-queue").empty());
  EXPECT_EQ(client::PendingUploads(dir_ + "/upload-queue/refused").size(), 1u) << "never deleted";
  EXPECT_NE(log_.str().find("task 7 failed earlier"), std::string::npos) << log_.str();
}

TEST_F(AgentTest, ALostLeaseStopsTheRun) {
  Agent agent = MakeAgent();
  executor_.wait_for_cancel = true;
  server_.answers["/api/v1/fleet/agent/tasks/7/renew"] = [](const std::string&) {
    return client::HttpResponse{409, R"({"error":"lease lost"})"};
  };
  agent.RunOnce(0);
  EXPECT_EQ(executor_.runs, 1);
  EXPECT_GE(server_.Count("/api/v1/fleet/agent/tasks/7/renew"), 1u);
  EXPECT_EQ(server_.Count("/api/v1/fleet/agent/tasks/7/result"), 0u) << "an interrupted run uploads nothing";
  EXPECT_EQ(server_.Count("/api/v1/fleet/agent/tasks/7/fail"), 0u) << "the task is not ours to fail any more";
}

TEST_F(AgentTest, ProgressRenewsTheLeaseWithTheStatusLine) {
  Agent agent = MakeAgent();
  std::string seen;
  server_.answers["/api/v1/fleet/agent/tasks/7/renew"] = [&](const std::string& body) {
    seen = json::parse(body).value("progress", "");
    EXPECT_EQ(json::parse(body).value("session", ""), agent.session());
    return client::HttpResponse{200, R"({"held":true})"};
  };
  executor_.during = [] { std::this_thread::sleep_for(std::chrono::milliseconds(1300)); };  // > 1 s: one renewal
  agent.RunOnce(0);
  EXPECT_EQ(seen, "test 1/1: trial 1/2 done");
}

TEST_F(AgentTest, ARefusedTaskIsReportedAndNeverRun) {
  Agent agent = MakeAgent();
  executor_.refuse = "'native/cipher' is not a test profile or suite this machine knows";
  std::string reason;
  server_.answers["/api/v1/fleet/agent/tasks/7/fail"] = [&](const std::string& body) {
    reason = json::parse(body).value("reason", "");
    return client::HttpResponse{200, "{}"};
  };
  agent.RunOnce(0);
  EXPECT_EQ(executor_.runs, 0);
  EXPECT_NE(reason.find("refused by the agent"), std::string::npos) << reason;
}

TEST_F(AgentTest, AFailedRunIsReportedWithItsReason) {
  Agent agent = MakeAgent();
  executor_.xml.clear();
  executor_.failure = "pts-native batch-run exited with status 1: install failed";
  std::string reason;
  server_.answers["/api/v1/fleet/agent/tasks/7/fail"] = [&](const std::string& body) {
    reason = json::parse(body).value("reason", "");
    return client::HttpResponse{200, "{}"};
  };
  agent.RunOnce(0);
  EXPECT_EQ(reason, executor_.failure);
}

TEST_F(AgentTest, ATokenOfAnotherMachineIsRefused) {
  options_.name = "m2";
  Agent agent = MakeAgent();
  EXPECT_THROW(agent.SayHello(), client::ServerRefusal);
  EXPECT_EQ(agent.Run(), 1) << "Run gives up on a token that is not this machine's";
}

TEST_F(AgentTest, RunStopsWhenAsked) {
  tasks_ = 0;
  Agent agent = MakeAgent();
  server_.answers["/api/v1/fleet/agent/poll"] = [this](const std::string&) {
    stop_ = true;
    return client::HttpResponse{204, ""};
  };
  EXPECT_EQ(agent.Run(), 0);
  EXPECT_EQ(server_.Count("/api/v1/fleet/agent/hello"), 1u);
}

TEST(AgentTask, PollAnswersAreCheckedLikeAnyJob) {
  EXPECT_EQ(ParseTask(kTask).spec.tests, std::vector<std::string>{"native/cipher"});
  std::string evil = kTask;
  evil.replace(evil.find("native/cipher"), 13, "../../bin/sh");
  EXPECT_THROW(ParseTask(evil), Error);
  EXPECT_THROW(ParseTask(R"({"task":{"id":1}})"), Error);
}

// The checks an agent makes against its own profiles before running anything.
TEST(AgentChecks, OnlyKnownProfilesWithOptionsTheyHave) {
  profile::ProfileRepository repo({std::string(PTSN_SOURCE_DIR) + "/profiles", std::string(PTSN_SOURCE_DIR) + "/tests/run/profiles"});
  auto check = [&](std::vector<std::string> tests, std::string presets) {
    return CheckAgainstProfiles(repo, {std::move(tests), std::move(presets), 0});
  };
  EXPECT_EQ(check({"native/cipher"}, "cipher.cipher=AES-256-XTS;cipher.threads=1"), "");
  EXPECT_EQ(check({"native/cipher"}, "cipher.cipher=aes-256-xts,ChaCha20-Poly1305"), "") << "names, values, lists";
  EXPECT_EQ(check({"local/options"}, "options.size=1MB;options.mode=Read"), "");
  // The run's preset rules: an index only where no entry's Name or Value is a number (mode's values are 1, 2).
  EXPECT_NE(check({"local/options"}, "options.mode=0").find("no entry '0'"), std::string::npos);
  EXPECT_EQ(check({"cipher"}, "cipher.threads=2"), "") << "a suite: its profiles' options count";
  EXPECT_NE(check({"native/nothing"}, "").find("not a test profile or suite this machine knows"), std::string::npos);
  EXPECT_NE(check({"native/cipher"}, "cipher.speed=9").find("has no option 'speed'"), std::string::npos);
  EXPECT_NE(check({"native/cipher"}, "cipher.threads=3").find("no entry '3'"), std::string::npos);
  EXPECT_NE(check({"native/cipher"}, "fio.type=1").find("no such test in this job"), std::string::npos);
  EXPECT_NE(check({"/bin/sh"}, ""), "");
}

TEST(AgentChecks, FreeTextValuesCannotReachAShell) {
  std::random_device rd;
  fs::path root = fs::temp_directory_path() / ("ptsn_agent_profiles_" + std::to_string(rd()));
  fs::create_directories(root / "local" / "free-1.0.0");
  WriteFileAtomically((root / "local" / "free-1.0.0" / "test-definition.xml").string(),
                      "<?xml version=\"1.0\"?><PhoronixTestSuite><TestInformation><Title>Free</Title>"
                      "<ResultScale>x</ResultScale><Proportion>HIB</Proportion></TestInformation><TestProfile>"
                      "<Version>1.0.0</Version></TestProfile><TestSettings><Option><DisplayName>Path</DisplayName>"
                      "<Identifier>path</Identifier><ArgumentPrefix>--path </ArgumentPrefix></Option></TestSettings>"
                      "</PhoronixTestSuite>");
  WriteFileAtomically((root / "local" / "free-1.0.0" / "results-definition.xml").string(),
                      "<?xml version=\"1.0\"?><PhoronixTestSuite><ResultsParser><OutputTemplate>R: #_RESULT_#"
                      "</OutputTemplate></ResultsParser></PhoronixTestSuite>");
  profile::ProfileRepository repo({root.string()});
  EXPECT_EQ(CheckAgainstProfiles(repo, {{"local/free"}, "free.path=/mnt/test-1", 0}), "");
  for (const char* bad : {"$(id)", "`id`", "a b", "a|b", "a>b", "a&b"})
    EXPECT_NE(CheckAgainstProfiles(repo, {{"local/free"}, std::string("free.path=") + bad, 0}).find("may only hold"),
              std::string::npos)
        << bad;
  // ';' ends a preset: what follows is not test.option=choice.
  EXPECT_NE(CheckAgainstProfiles(repo, {{"local/free"}, "free.path=x; rm -rf /", 0}).find("not test.option=choice"),
            std::string::npos);
  fs::remove_all(root);
}

TEST(AgentProgress, JsonEventsBecomeAStatusLine) {
  std::string last;
  EXPECT_EQ(ProgressOf(R"({"event":"test-started","test":1,"of":2,"identifier":"native/cipher-1.0.0","description":"Cipher: AES"})", last),
            "test 1/2 native/cipher-1.0.0 (Cipher: AES): starting");
  EXPECT_EQ(ProgressOf(R"({"event":"trial-finished","test":1,"trial":2,"of":3,"warmup":false,"ok":true})", last),
            "test 1/2 native/cipher-1.0.0 (Cipher: AES): trial 2/3 done");
  EXPECT_EQ(ProgressOf("not json", last), "");
  EXPECT_EQ(ProgressOf(R"({"event":"saved"})", last), "");
}

}  // namespace
}  // namespace ptsn::fleet
