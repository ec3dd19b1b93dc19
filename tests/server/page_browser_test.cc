// The result pages in a real browser: headless Chromium (Debian's `chromium`) loads /result/ID
// and the comparison /result/ID1,ID2 from a running pts-native-server, and the DOM it built must
// hold one SVG chart per result with a bar per system (bar charts) or a line per system (the
// monitor's line charts). Screenshots are kept under the build's Testing/artifacts/. Loopback
// only; Chromium runs with every background network feature off. Skips when chromium is absent.
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "results-xml/model/result_xml.h"
#include "results-xml/store/merge.h"
#include "runner/common/atomic_file.h"
#include "runner/common/shared_dir.h"
#include "tests/server/server_process.h"

namespace ptsn::test {
namespace {

namespace fs = std::filesystem;

std::string FindChromium() {
  if (const char* env = std::getenv("PTSN_CHROMIUM"); env && *env) return env;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (const char* name : {"chromium", "chromium-browser"}) {
    size_t start = 0;
    while (start <= dirs.size()) {
      size_t end = dirs.find(':', start);
      std::string dir = dirs.substr(start, end == std::string::npos ? std::string::npos : end - start);
      fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
      if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  return "";
}

// The charts of a page: the text of each <svg>...</svg>, in order.
std::vector<std::string> Charts(const std::string& dom) {
  std::vector<std::string> out;
  for (size_t at = 0; (at = dom.find("<svg", at)) != std::string::npos;) {
    size_t end = dom.find("</svg>", at);
    if (end == std::string::npos) break;
    out.push_back(dom.substr(at, end + 6 - at));
    at = end + 6;
  }
  return out;
}

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = 0; (at = s.find(what, at)) != std::string::npos; at += what.size()) ++n;
  return n;
}

// Bars: the <rect>s of a chart other than its frame (the first) and the 10x10 legend swatches.
size_t Bars(const std::string& svg) {
  size_t n = 0;
  bool first = true;
  for (size_t at = 0; (at = svg.find("<rect", at)) != std::string::npos; at += 5) {
    std::string tag = svg.substr(at, svg.find('>', at) - at);
    if (first) {
      first = false;
      continue;
    }
    if (tag.find("width=\"10\"") != std::string::npos && tag.find("height=\"10\"") != std::string::npos) continue;
    ++n;
  }
  return n;
}

class PageBrowserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = FindChromium();
    if (chromium_.empty()) GTEST_SKIP() << "chromium is not installed (contrib/setup.sh installs it)";
    golden_ = fs::path(::ptsn::SharedDir()) / "reference" / "pts-output";
    if (!fs::exists(golden_ / "result-a" / "composite.xml"))
      GTEST_SKIP() << "no golden PTS results at " << golden_ << " (../shared is absent)";
    std::random_device rd;
    dir_ = (fs::temp_directory_path() / ("ptsn_browser_" + std::to_string(rd()))).string();
    fs::create_directories(dir_);
    artifacts_ = fs::path(PTSN_BINARY).parent_path() / "Testing" / "artifacts";
    fs::create_directories(artifacts_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // Chromium with everything that could reach the network or a profile off; returns its exit code.
  int Chromium(const std::string& url, const std::string& mode_flag, const std::string& out_file) {
    std::string cmd = "timeout 40 '" + chromium_ +
                      "' --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
                      " --disable-background-networking --disable-component-update --disable-sync"
                      " --disable-default-apps --disable-extensions --window-size=1280,2000"
                      " --user-data-dir='" + dir_ + "/profile' " + mode_flag + " '" + url + "'";
    if (mode_flag == "--dump-dom") cmd += " > '" + out_file + "'";
    cmd += " 2> '" + dir_ + "/chromium.log'";
    return std::system(cmd.c_str());
  }

  // Loads `path`, checks its charts against `expected` (the file the page shows) and keeps a screenshot.
  void CheckPage(const std::string& url, const results::ResultFile& expected, const std::string& shot_name) {
    std::string dom_file = dir_ + "/dom.html";
    ASSERT_EQ(Chromium(url, "--dump-dom", dom_file), 0) << ReadFile(dir_ + "/chromium.log");
    std::string dom = ReadFile(dom_file);
    ASSERT_NE(dom.find("</html>"), std::string::npos) << "no page loaded from " << url;
    auto charts = Charts(dom);
    ASSERT_EQ(charts.size(), expected.results.size()) << "one chart per result on " << url;
    for (size_t i = 0; i < charts.size(); ++i) {
      const auto& r = expected.results[i];
      SCOPED_TRACE(url + " chart " + std::to_string(i + 1) + ": " + r.title + " " + r.description);
      if (r.display_format == "LINE_GRAPH") {
        EXPECT_EQ(Count(charts[i], "<polyline"), r.entries.size()) << "one line per system";
      } else {
        EXPECT_EQ(Bars(charts[i]), r.entries.size()) << "one bar per system";
      }
    }
    fs::path shot = artifacts_ / shot_name;
    fs::remove(shot);
    ASSERT_EQ(Chromium(url, "--screenshot=" + shot.string(), ""), 0) << ReadFile(dir_ + "/chromium.log");
    ASSERT_TRUE(fs::exists(shot)) << shot;
    std::string png = ReadFile(shot.string());
    EXPECT_EQ(png.substr(1, 3), "PNG");
    EXPECT_GT(png.size(), 10000u) << "a blank page?";
  }

  std::string chromium_, dir_;
  fs::path golden_, artifacts_;
};

TEST_F(PageBrowserTest, ResultAndComparisonPagesRenderEveryChart) {
  std::string token;
  {
    // The token is made before the server starts; both open the same SQLite file.
    std::string cmd = std::string("'") + PTSN_SERVER_BINARY + "' token create browser --data '" + dir_ + "/data'";
    FILE* p = popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    char line[256] = {0};
    while (fgets(line, sizeof line, p)) token = line;
    pclose(p);
    while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
    ASSERT_FALSE(token.empty());
  }
  ServerProcess server({"--data", dir_ + "/data"});
  httplib::Client http("127.0.0.1", server.port());
  std::vector<std::string> ids;
  std::vector<results::MergeInput> inputs;
  for (const char* name : {"result-a", "result-b"}) {
    std::string xml = ReadFile((golden_ / name / "composite.xml").string());
    auto res = http.Post(std::string("/api/v1/results?name=") + name, {{"Authorization", "Bearer " + token}}, xml,
                         "application/xml");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 201) << res->body;
    std::string id = res->body.substr(res->body.find("\"id\":\"") + 6, 22);
    ids.push_back(id);
    inputs.push_back({id, results::ParseResultFile(xml, name)});
  }
  ASSERT_GE(inputs[0].file.results.size(), 2u) << "the page test wants several results";
  bool monitor = false;
  for (const auto& r : inputs[0].file.results) monitor = monitor || r.display_format == "LINE_GRAPH";
  ASSERT_TRUE(monitor) << "the page test wants a monitor (line graph) result";

  CheckPage(server.url() + "/result/" + ids[0], inputs[0].file, "result-page.png");
  auto merged = results::MergeResultFiles(inputs).merged;
  CheckPage(server.url() + "/result/" + ids[0] + "," + ids[1], merged, "comparison-page.png");
}

}  // namespace
}  // namespace ptsn::test
