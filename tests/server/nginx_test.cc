// The reverse-proxy deployment of contrib/nginx/: nginx with TLS (a self-signed certificate made
// by the script) in front of pts-native-server. Health, an upload (its URL names the public
// https address), a page, and an oversized chunked body refused by nginx. Skips when nginx,
// openssl or curl is not installed (contrib/setup.sh installs them).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "runner/openbenchmarking/wire.h"
#include "server/testing/sample_result.h"
#include "tests/server/server_process.h"

namespace ptsn::test {
namespace {

namespace fs = std::filesystem;

bool Installed(const std::string& tool) { return Shell("command -v " + tool + " >/dev/null").first == 0; }

int FreePort() {
  auto [rc, out] = Shell("python3 -c 'import socket; s=socket.socket(); s.bind((\"127.0.0.1\",0)); print(s.getsockname()[1])'");
  return rc == 0 ? std::atoi(out.c_str()) : 0;
}

class NginxProxyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* tool : {"nginx", "openssl", "curl", "python3"})
      if (!Installed(tool) && !fs::exists(std::string("/usr/sbin/") + tool)) GTEST_SKIP() << tool << " is not installed";
    std::random_device rd;
    dir_ = (fs::temp_directory_path() / ("ptsn_nginx_" + std::to_string(rd()))).string();
    fs::create_directories(dir_);
    port_ = FreePort();
    int out[2];
    ASSERT_EQ(pipe(out), 0);
    pid_ = fork();
    if (pid_ == 0) {
      setsid();
      dup2(out[1], 1);
      close(out[0]);
      close(out[1]);
      std::string script = std::string(PTSN_SOURCE_DIR) + "/contrib/nginx/run-behind-nginx.sh";
      std::string port = std::to_string(port_);
      execl("/bin/bash", "bash", script.c_str(), dir_.c_str(), port.c_str(), PTSN_SERVER_BINARY, nullptr);
      _exit(127);
    }
    close(out[1]);
    FILE* f = fdopen(out[0], "r");
    char line[512] = {0};
    bool started = fgets(line, sizeof line, f) != nullptr;
    fclose(f);
    ASSERT_TRUE(started && std::string(line).find("behind nginx: https://") != std::string::npos)
        << "run-behind-nginx.sh did not start: " << line << Shell("cat " + dir_ + "/nginx.log " + dir_ + "/server.log").second;
    base_ = "https://127.0.0.1:" + std::to_string(port_);
    curl_ = "curl -s --cacert " + dir_ + "/tls/cert.pem ";
  }
  void TearDown() override {
    if (pid_ > 0) {
      ::kill(-pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::string dir_, base_, curl_;
  int port_ = 0;
  pid_t pid_ = -1;
};

TEST_F(NginxProxyTest, ServesOverTlsAndRefusesWhatTheServerWould) {
  auto health = Shell(curl_ + base_ + "/healthz");
  ASSERT_EQ(health.first, 0) << health.second;
  EXPECT_NE(health.second.find("\"status\":\"ok\""), std::string::npos) << health.second;

  auto [rc, token_out] = Shell(std::string(PTSN_SERVER_BINARY) + " token create proxied --data " + dir_ + "/results");
  ASSERT_EQ(rc, 0) << token_out;
  const std::string token = LastLine(token_out);
  const std::string form = dir_ + "/upload.form";
  {
    std::ofstream(form) << wire::EncodeForm(wire::EncodeUpload({.xml = server::testing::SampleCompositeXml("Via Nginx", 5)}));
  }
  auto upload = Shell(curl_ + "-H 'Authorization: Bearer " + token + "' --data-binary @" + form + " " + base_ + "/f/client.php");
  ASSERT_EQ(upload.first, 0) << upload.second;
  EXPECT_NE(upload.second.find("\"url\":\"" + base_ + "/result/"), std::string::npos) << upload.second;
  const auto at = upload.second.find("\"id\":\"");
  ASSERT_NE(at, std::string::npos) << upload.second;
  const std::string id = upload.second.substr(at + 6, 22);
  auto page = Shell(curl_ + "-o /dev/null -w '%{http_code}' " + base_ + "/result/" + id);
  EXPECT_EQ(page.second, "200");

  // 20 MB chunked: over nginx's client_max_body_size (the server's --max-body), refused there.
  const std::string big = dir_ + "/big";
  ASSERT_EQ(Shell("head -c 20000000 /dev/zero > " + big).first, 0);
  auto refused = Shell(curl_ + "-o /dev/null -w '%{http_code}' -H 'Transfer-Encoding: chunked' -H 'Authorization: Bearer " +
                       token + "' --data-binary @" + big + " " + base_ + "/api/v1/results");
  EXPECT_EQ(refused.second, "413");
  // Plain HTTP on the TLS port is refused by nginx.
  auto plain = Shell("curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:" + std::to_string(port_) + "/healthz");
  EXPECT_EQ(plain.second, "400");
}

// Sends `request` raw over TLS; "STATUS ANSWERS [server-refused-framing]": the first answer's
// status, how many answers came, and whether one was the server's own framing refusal.
std::string SendRaw(int port, const std::string& dir, const std::string& request) {
  const std::string client = dir + "/raw_tls.py";
  if (!fs::exists(client)) std::ofstream(client) << R"PY(
import socket, ssl, sys
ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", int(sys.argv[1]))))
s.settimeout(3)
s.sendall(bytes.fromhex(sys.argv[2]))
out = b""
try:
    while True:
        d = s.recv(65536)
        if not d: break
        out += d
except (socket.timeout, ssl.SSLError, OSError):
    pass
status = out.split(b" ")[1].decode() if out.startswith(b"HTTP/") else "none"
print(status, out.count(b"HTTP/1.1 "), "server-refused-framing" if b"malformed request framing" in out else "")
)PY";
  std::string hex;
  for (unsigned char ch : request) {
    static constexpr char kHex[] = "0123456789abcdef";
    hex += kHex[ch >> 4];
    hex += kHex[ch & 15];
  }
  auto [rc, out] = Shell("python3 " + client + " " + std::to_string(port) + " " + hex);
  EXPECT_EQ(rc, 0) << out;
  return out;
}

const std::string kSmuggled = "GET /healthz?smuggled=1 HTTP/1.1\r\nHost: t\r\n\r\n";
const std::string kPost = "POST /f/client.php HTTP/1.1\r\nHost: t\r\nContent-Type: application/x-www-form-urlencoded\r\n";

// The framing AbuseTest.AmbiguousFramingIsRefusedAndTheConnectionClosed sends straight to the
// server, through nginx: each is refused (by nginx or by us), with one answer, and what follows
// it is never run as a request of its own.
TEST_F(NginxProxyTest, AmbiguousFramingIsRefusedThroughTheProxy) {
  const std::string length = std::to_string(kSmuggled.size());
  for (const std::string& request : {
           kPost + "Content-Length: 0\r\nContent-Length: " + length + "\r\n\r\n" + kSmuggled,
           kPost + "Content-Length: " + length + "\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + kSmuggled,
           kPost + "Content-Length: " + length + "\r\nTransfer-Encoding: identity\r\n\r\n" + kSmuggled,
           kPost + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n" + kSmuggled,
           kPost + "Transfer-Encoding: identity\r\n\r\n" + kSmuggled}) {
    const std::string out = SendRaw(port_, dir_, request);
    const std::string headers = request.substr(0, request.find("\r\n\r\n"));
    const int status = std::atoi(out.c_str());
    EXPECT_GE(status, 400) << headers << "\n" << out;
    EXPECT_LT(status, 600) << headers << "\n" << out;
    EXPECT_NE(out.find(" 1 "), std::string::npos) << headers << ": more than one answer: " << out;
  }
}

// What AbuseTest.LineEndingsOtherThanCrlfAreRefusedAndTheConnectionClosed sends straight to the
// server, through nginx. nginx refuses a bare CR, a folded line and a space before a colon; it
// reads a bare LF as a line's end (RFC 9112 2.2 allows it), so there the client's two requests
// are two requests, answered once each. Either way only nginx reads the client's framing: the
// server gets nginx's own and never refuses it.
TEST_F(NginxProxyTest, LineEndingsAreReadByTheProxyAlone) {
  const std::string chunked = kPost + "Transfer-Encoding: chunked\r\n\r\n";
  const std::vector<std::pair<std::string, const char*>> cases = {
      {"GET /healthz HTTP/1.1\nHost: t\n\n" + kSmuggled, "200 2 "},
      {"GET /healthz HTTP/1.1\r\nHost: t\rX: y\r\n\r\n" + kSmuggled, "400 1 "},
      {"GET /healthz HTTP/1.1\r\nHost: t\r\nX: a\r\n b\r\n\r\n" + kSmuggled, "400 1 "},
      {"GET /healthz HTTP/1.1\r\nHost: t\r\nContent-Length : 5\r\n\r\n" + kSmuggled, "400 1 "},
      {chunked + "3\nx=1\r\n0\r\n\r\n" + kSmuggled, " 2 "},    // the form "x=1" (not an upload), then the GET
      {chunked + "3\r\nx=1\n0\r\n\r\n" + kSmuggled, " 2 "},
  };
  for (const auto& [request, expected] : cases) {
    const std::string out = SendRaw(port_, dir_, request);
    EXPECT_NE(out.find(expected), std::string::npos) << request.substr(0, 60) << "\n" << out;
    EXPECT_EQ(out.find("server-refused-framing"), std::string::npos) << request.substr(0, 60) << "\n" << out;
  }
}

}  // namespace
}  // namespace ptsn::test
