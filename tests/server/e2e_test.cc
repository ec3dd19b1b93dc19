// pts-native-server and the pts-native client commands as a user runs them.
#include <gtest/gtest.h>
#include <httplib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>

#include <nlohmann/json.hpp>

#include "runner/common/atomic_file.h"
#include "runner/openbenchmarking/wire.h"
#include "runner/common/shared_dir.h"
#include "server/store/result_id.h"
#include "server/testing/sample_result.h"
#include "tests/cli/run_binary.h"
#include "tests/server/server_process.h"

namespace ptsn::test {
namespace {

namespace fs = std::filesystem;

class ServerE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device rd;
    dir_ = (fs::temp_directory_path() / ("ptsn_e2e_" + std::to_string(rd()))).string();
    fs::create_directories(dir_ + "/home/test-results/my-run");
    xml_ = server::testing::SampleCompositeXml("My E2E Run", 5, 2);
    WriteFileAtomically(dir_ + "/home/test-results/my-run/composite.xml", xml_);
    server_ = std::make_unique<ServerProcess>(std::vector<std::string>{"--data", dir_ + "/data"});
    auto [rc, out] = Shell(std::string(PTSN_SERVER_BINARY) + " token create alice --data " + dir_ + "/data");
    ASSERT_EQ(rc, 0) << out;
    token_ = LastLine(out);
  }
  void TearDown() override {
    server_.reset();
    fs::remove_all(dir_);
  }
  CommandResult Cli(const std::string& args, const std::string& env = "") {
    return RunPtsNative(args, "PTS_NATIVE_HOME=" + dir_ + "/home PTS_NATIVE_CONFIG=" + dir_ + "/none.yaml " + env);
  }
  std::string Upload(const std::string& extra = "") {
    auto r = Cli("upload-result my-run --server " + server_->url() + " --token " + token_ + " " + extra);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return LastLine(r.output);
  }

  std::string dir_, xml_, token_;
  std::unique_ptr<ServerProcess> server_;
};

// The server's settings from a config file and the environment (issue 45): `data` from the file,
// `public-fleet` from PTS_NATIVE_SERVER_PUBLIC_FLEET (else /fleet needs a token), and the command
// line's --listen over the file's. A bad value is one line naming where it came from, exit 2.
TEST_F(ServerE2E, SettingsComeFromAConfigFileAndTheEnvironment) {
  const std::string config = dir_ + "/server.yaml";
  WriteFileAtomically(config, "data: " + dir_ + "/from-file\nlisten: 127.0.0.1:1\n");
  setenv("PTS_NATIVE_SERVER_PUBLIC_FLEET", "true", 1);
  std::unique_ptr<ServerProcess> server;
  try {
    server = std::make_unique<ServerProcess>(std::vector<std::string>{"--config", config});
  } catch (...) {
    unsetenv("PTS_NATIVE_SERVER_PUBLIC_FLEET");
    throw;
  }
  unsetenv("PTS_NATIVE_SERVER_PUBLIC_FLEET");
  EXPECT_TRUE(fs::exists(dir_ + "/from-file/results.db"));
  httplib::Client http("127.0.0.1", server->port());
  auto page = http.Get("/fleet");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200) << page->body.substr(0, 300);
  auto [rc, out] = Shell(std::string(PTSN_SERVER_BINARY) + " config --config " + config + " --threads many");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_EQ(out, "pts-native-server: error: --threads: 'many' is not a whole number\n");
}

// The result page shows each system's notes (System/JSON and System/Notes), as PTS's pages do.
TEST_F(ServerE2E, ResultPageShowsSystemNotes) {
  const std::string golden = ::ptsn::SharedDir() + "/reference/pts-output/result-a/composite.xml";
  if (!fs::exists(golden)) GTEST_SKIP() << "shared reference tree absent: " << golden;
  fs::create_directories(dir_ + "/home/test-results/golden-a");
  fs::copy_file(golden, dir_ + "/home/test-results/golden-a/composite.xml");
  auto r = Cli("upload-result golden-a --no-system-logs --server " + server_->url() + " --token " + token_);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  httplib::Client http("127.0.0.1", server_->port());
  auto page = http.Get("/result/" + LastLine(r.output));
  ASSERT_TRUE(page);
  ASSERT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("<h2>System Notes</h2>"), std::string::npos);
  EXPECT_NE(page->body.find("<strong>Kernel Notes:</strong> Transparent Huge Pages: madvise"), std::string::npos);
}

TEST_F(ServerE2E, UploadPrintsTheIdThenCloneAndListFindIt) {
  std::string id = Upload();
  ASSERT_TRUE(server::IsResultIdCompliant(id)) << id;
  httplib::Client http("127.0.0.1", server_->port());
  auto page = http.Get("/result/" + id);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("My E2E Run"), std::string::npos);
  EXPECT_EQ(http.Get("/api/v1/results/" + id + "/composite.xml")->body, xml_);

  auto clone = Cli("clone-result " + id + " --server " + server_->url());
  ASSERT_EQ(clone.exit_code, 0) << clone.output;
  std::string cloned = ReadFile(dir_ + "/home/test-results/" + id + "/composite.xml");
  EXPECT_NE(cloned.find("<ReferenceID>" + id + "</ReferenceID>"), std::string::npos) << cloned;
  EXPECT_NE(cloned.find("<Title>My E2E Run</Title>"), std::string::npos);

  auto list = Cli("list-server-results --server " + server_->url() + " --search e2e");
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_NE(list.output.find(id), std::string::npos) << list.output;
  auto none = Cli("list-server-results --server " + server_->url() + " --search nothing-like-this");
  EXPECT_NE(none.output.find("No results"), std::string::npos);
}

TEST_F(ServerE2E, SystemLogsOfTheSavedResultGoAlongAsPtsSendsThem) {
  fs::create_directories(dir_ + "/home/test-results/my-run/system-logs/System 1");
  WriteFileAtomically(dir_ + "/home/test-results/my-run/system-logs/System 1/lspci", "00:00.0 Host bridge\n");
  std::string id = Upload();
  ASSERT_TRUE(server::IsResultIdCompliant(id)) << id;
  httplib::Client http("127.0.0.1", server_->port());
  auto logs = http.Post("/f/client.php", "r=clone_openbenchmarking_system_logs&i=" + id, "application/x-www-form-urlencoded");
  ASSERT_TRUE(logs);
  ASSERT_EQ(logs->status, 200) << logs->body;
  EXPECT_EQ(logs->body.substr(0, 4), std::string("PK\x03\x04", 4));
  EXPECT_NE(logs->body.find("system-logs/System 1/lspci"), std::string::npos);
  // --no-system-logs leaves them home.
  std::string bare = Upload("--no-system-logs");
  auto none = http.Post("/f/client.php", "r=clone_openbenchmarking_system_logs&i=" + bare, "application/x-www-form-urlencoded");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 404);
}

TEST_F(ServerE2E, UnlistedUploadsAreNotListed) {
  std::string id = Upload("--unlisted");
  auto list = Cli("list-server-results --server " + server_->url());
  EXPECT_EQ(list.output.find(id), std::string::npos) << list.output;
  EXPECT_EQ(Cli("clone-result " + id + " --server " + server_->url()).exit_code, 0);
}

TEST_F(ServerE2E, DryRunPrintsThePayloadAndSendsNothing) {
  auto r = Cli("upload-result my-run --server " + server_->url() + " --dry-run");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("POST " + server_->url() + "/f/client.php"), std::string::npos);
  EXPECT_NE(r.output.find("r=upload_test_result"), std::string::npos);
  EXPECT_NE(r.output.find("composite_xml_hash="), std::string::npos);
  EXPECT_EQ(Cli("list-server-results --server " + server_->url()).output.find("My E2E Run"), std::string::npos);
}

TEST_F(ServerE2E, RefusalsShowStatusAndMessage) {
  auto bad = Cli("upload-result my-run --server " + server_->url() + " --token ptsn_wrong");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.output.find("HTTP 401: unknown or revoked token"), std::string::npos) << bad.output;
  // No token at all: where the client takes one from and how one is made (issue 44).
  auto none = Cli("upload-result my-run --server " + server_->url(), "PTS_NATIVE_TOKEN=");
  EXPECT_EQ(none.exit_code, 1) << none.output;
  EXPECT_NE(none.output.find("HTTP 401: authentication required"), std::string::npos) << none.output;
  EXPECT_NE(none.output.find("pass --token T or set server.token / PTS_NATIVE_TOKEN"), std::string::npos) << none.output;
  EXPECT_NE(none.output.find("pts-native-server token create NAME --data DIR"), std::string::npos) << none.output;
  // The same token from the environment: the upload goes through.
  auto from_env = Cli("upload-result my-run --server " + server_->url(), "PTS_NATIVE_TOKEN=" + token_);
  EXPECT_EQ(from_env.exit_code, 0) << from_env.output;
  auto missing = Cli("clone-result 1110083-AL-NOSUCHID001 --server " + server_->url());
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.output.find("HTTP 404"), std::string::npos) << missing.output;
  auto no_file = Cli("upload-result not-saved --server " + server_->url() + " --token " + token_);
  EXPECT_NE(no_file.output.find("no saved result 'not-saved'"), std::string::npos) << no_file.output;
}

TEST_F(ServerE2E, FailedUploadsWaitInTheQueueUntilRetried) {
  std::string url = server_->url();
  server_->Kill();
  auto failed = Cli("upload-result my-run --server " + url + " --token " + token_);
  EXPECT_EQ(failed.exit_code, 75) << failed.output;
  EXPECT_NE(failed.output.find("queued"), std::string::npos) << failed.output;
  server_ = std::make_unique<ServerProcess>(std::vector<std::string>{"--data", dir_ + "/data"});
  auto retry = Cli("upload-result --retry-pending --server " + server_->url() + " --token " + token_);
  EXPECT_EQ(retry.exit_code, 0) << retry.output;
  EXPECT_NE(retry.output.find("uploaded as"), std::string::npos) << retry.output;
  auto again = Cli("upload-result --retry-pending --server " + server_->url() + " --token " + token_);
  EXPECT_NE(again.output.find("No pending uploads"), std::string::npos) << again.output;
  EXPECT_NE(Cli("list-server-results --server " + server_->url()).output.find("My E2E Run"), std::string::npos);
}

// Issue 48: upload-result checks a file as the server will before it sends or queues it; a file
// the server would refuse is neither sent nor queued, whether or not a server answers.
TEST_F(ServerE2E, WhatTheServerWouldRefuseIsNeitherSentNorQueued) {
  WriteFileAtomically(dir_ + "/x.txt", "hello\n");
  auto text = Cli("upload-result " + dir_ + "/x.txt --server http://127.0.0.1:9 --token " + token_);
  EXPECT_EQ(text.exit_code, 1) << text.output;
  EXPECT_NE(text.output.find(dir_ + "/x.txt is not a result file a server takes: composite.xml: line 1"),
            std::string::npos) << text.output;
  EXPECT_NE(text.output.find("not sent, not queued"), std::string::npos) << text.output;
  // 50 MB: refused by its size before it is read.
  { std::ofstream(dir_ + "/big.xml") << std::string(50u << 20, 'x'); }
  auto big = Cli("upload-result " + dir_ + "/big.xml --server http://127.0.0.1:9 --token " + token_);
  EXPECT_EQ(big.exit_code, 1) << big.output;
  EXPECT_NE(big.output.find(dir_ + "/big.xml is not a result file a server takes: composite.xml: over the limit of 8388608 bytes"),
            std::string::npos) << big.output;
  EXPECT_FALSE(fs::exists(dir_ + "/home/upload-queue")) << "something was queued";
  auto retry = Cli("upload-result --retry-pending --server " + server_->url() + " --token " + token_);
  EXPECT_NE(retry.output.find("No pending uploads"), std::string::npos) << retry.output;
}

// --retry-pending sets aside what the server refuses for what it is (400), saying so, and keeps
// what failed for another reason (401: the token, not the file) pending.
TEST_F(ServerE2E, RetryPendingSetsAsideWhatTheServerRefusesAndKeepsTheRest) {
  auto queue = [&](const std::string& file, const std::string& xml, const std::string& name) {
    wire::Upload up;
    up.xml = xml;
    up.local_file_name = name;
    nlohmann::json j{{"server", server_->url()}, {"form", wire::EncodeForm(wire::EncodeUpload(up))}, {"name", name},
                     {"queued_at", 1}};
    fs::create_directories(dir_ + "/home/upload-queue");
    WriteFileAtomically(dir_ + "/home/upload-queue/" + file, j.dump());
  };
  queue("1-a.json", "hello\n", "not-a-result");  // queued by an older pts-native, which did not check
  queue("2-b.json", xml_, "my-run");
  auto wrong_token = Cli("upload-result --retry-pending --token ptsn_wrong");
  EXPECT_EQ(wrong_token.exit_code, 1) << wrong_token.output;
  EXPECT_NE(wrong_token.output.find("my-run: upload: server answered HTTP 401"), std::string::npos) << wrong_token.output;
  EXPECT_TRUE(fs::exists(dir_ + "/home/upload-queue/1-a.json"));
  EXPECT_TRUE(fs::exists(dir_ + "/home/upload-queue/2-b.json"));

  auto retry = Cli("upload-result --retry-pending --token " + token_);
  EXPECT_EQ(retry.exit_code, 1) << retry.output;
  EXPECT_NE(retry.output.find("not-a-result: upload: server answered HTTP 400"), std::string::npos) << retry.output;
  EXPECT_NE(retry.output.find("refused: set aside in " + dir_ + "/home/upload-queue/refused/1-a.json, not retried"),
            std::string::npos) << retry.output;
  EXPECT_NE(retry.output.find("my-run: uploaded as"), std::string::npos) << retry.output;
  EXPECT_TRUE(fs::exists(dir_ + "/home/upload-queue/refused/1-a.json"));

  auto again = Cli("upload-result --retry-pending --token " + token_);
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("No pending uploads"), std::string::npos) << again.output;
}

}  // namespace
}  // namespace ptsn::test
