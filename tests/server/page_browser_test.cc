// The result pages in a real browser: headless Chromium (Debian's `chromium`) loads /result/ID
// and the comparison /result/ID1,ID2 from a running pts-native-server, and the DOM it built must
// hold one SVG chart per result with a bar per system (bar charts) or a line per system (the
// monitor's line charts); with OpenBenchmarking's view options in the URL (issue 49) it must show
// the overview's cells, a normalized value, no noisy result, the highlight, and the page's own
// link to the view must show the same view; the systems table must lead with what differs and
// show a shared component once; with src a box plot must have a dot per trial; with cmw a test's
// option sets must be one chart and one table with a row per set. Screenshots are kept under the build's
// Testing/artifacts/ (wide, and 360 px in dark mode). Loopback only; Chromium runs with every
// background network feature off. Skips when chromium is absent.
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
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
    http_.reset();
    server_.reset();  // stopped before its data goes
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // Chromium with everything that could reach the network or a profile off; returns its exit code.
  int Chromium(const std::string& url, const std::string& mode_flag, const std::string& out_file,
               const std::string& window = "--window-size=1280,2000") {
    std::string cmd = "timeout 40 '" + chromium_ +
                      "' --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
                      " --disable-background-networking --disable-component-update --disable-sync"
                      " --disable-default-apps --disable-extensions " + window +
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

  // The DOM Chromium built for `url`.
  std::string Dom(const std::string& url) {
    std::string dom_file = dir_ + "/dom.html";
    EXPECT_EQ(Chromium(url, "--dump-dom", dom_file), 0) << ReadFile(dir_ + "/chromium.log");
    return ReadFile(dom_file);
  }

  // A token made before the server starts (both open the same SQLite file).
  std::string MakeToken() {
    std::string token;
    std::string cmd = std::string("'") + PTSN_SERVER_BINARY + "' token create browser --data '" + dir_ + "/data'";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return "";
    char line[256] = {0};
    while (fgets(line, sizeof line, p)) token = line;
    pclose(p);
    while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
    return token;
  }

  // A server on this test's data with a token made for it, and a client of it (ASSERT_NO_FATAL_FAILURE).
  void StartServer() {
    token_ = MakeToken();
    ASSERT_FALSE(token_.empty());
    server_ = std::make_unique<ServerProcess>(std::vector<std::string>{"--data", dir_ + "/data"});
    http_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
  }

  // Uploads `xml` under `name` with the token; its ID, or "" (with a test failure) when the server
  // did not take it.
  std::string Upload(const std::string& name, const std::string& xml) {
    auto res = http_->Post("/api/v1/results?name=" + name, {{"Authorization", "Bearer " + token_}}, xml,
                           "application/xml");
    if (!res || res->status != 201) {
      ADD_FAILURE() << "upload of " << name << ": " << (res ? res->body : "no answer");
      return "";
    }
    return res->body.substr(res->body.find("\"id\":\"") + 6, 22);
  }

  // Uploads the seed result NAME (../shared/reference/seed-results/NAME).
  std::string UploadSeed(const std::string& name) {
    const fs::path seed = fs::path(::ptsn::SharedDir()) / "reference" / "seed-results" / name / "composite.xml";
    return Upload(name, ReadFile(seed.string()));
  }

  std::string chromium_, dir_, token_;
  fs::path golden_, artifacts_;
  std::unique_ptr<ServerProcess> server_;
  std::unique_ptr<httplib::Client> http_;
};

// The text of the element that starts at `open` in `dom` up to its closing tag `close`.
std::string Between(const std::string& dom, const std::string& open, const std::string& close) {
  const size_t at = dom.find(open);
  if (at == std::string::npos) return "";
  const size_t end = dom.find(close, at);
  return dom.substr(at, end == std::string::npos ? std::string::npos : end + close.size() - at);
}

// The overview's row whose label holds `label`.
std::string OverviewRow(const std::string& overview, const std::string& label) {
  for (size_t at = 0; (at = overview.find("<tr data-result=", at)) != std::string::npos; ++at) {
    const std::string row = overview.substr(at, overview.find("</tr>", at) - at);
    if (row.find(label) != std::string::npos) return row;
  }
  return "";
}

// The cell of `system` in an overview row.
std::string Cell(const std::string& row, const std::string& system) {
  const size_t at = row.find("<td class=\"num");
  const size_t cell = row.find("data-system=\"" + system + "\"", at == std::string::npos ? 0 : at);
  if (cell == std::string::npos) return "";
  return row.substr(cell, row.find("</td>", cell) - cell);
}

TEST_F(PageBrowserTest, ViewOptionsInTheUrlShowTheirViewAndItsLinkShowsItAgain) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  const std::string id = UploadSeed("1110088-AR-1110066AR56");
  ASSERT_FALSE(id.empty());

  // Normalized against the highlighted "Encrypted LVM (dmcrypt): Stock", noisy results hidden.
  const std::string base = "Encrypted LVM (dmcrypt): Stock";
  const std::string url = server_->url() + "/result/" + id + "?nor&hnr&hgv=Encrypted%20LVM%20(dmcrypt):%20Stock";
  const std::string dom = Dom(url);
  ASSERT_NE(dom.find("</html>"), std::string::npos) << "no page loaded from " << url;
  const std::string overview = Between(dom, "<section id=\"overview\">", "</section>");
  ASSERT_FALSE(overview.empty()) << "no overview on " << url;

  // The highlighted system is the base, first, and marked in its column.
  EXPECT_NE(overview.find("<th data-system=\"" + base + "\" class=\"hl\">" + base + " (base)</th>"), std::string::npos)
      << overview.substr(0, 2000);
  // A cell: FS-Mark on "Encrypted LVM (dmcrypt): AES-NI Intel": its value, PTS's normalized value
  // against the base (61.43 / 51.53), and the change against the base in colour, arrow and words.
  const std::string fs_mark = OverviewRow(overview, "FS-Mark");
  ASSERT_FALSE(fs_mark.empty());
  const std::string cell = Cell(fs_mark, "Encrypted LVM (dmcrypt): AES-NI Intel");
  EXPECT_NE(cell.find("61.43"), std::string::npos) << cell;
  EXPECT_NE(cell.find("rel 1.192"), std::string::npos) << cell;
  EXPECT_NE(cell.find("better"), std::string::npos) << cell;
  EXPECT_NE(cell.find("\u25b2 +19.2 %"), std::string::npos) << cell;
  EXPECT_NE(fs_mark.find("class=\"num better\" data-system=\"Encrypted LVM (dmcrypt): AES-NI Intel\""), std::string::npos);
  EXPECT_NE(Cell(fs_mark, base).find("base"), std::string::npos);
  // One run of each system: the verdict is unknown, said with its ratio.
  EXPECT_NE(cell.find("class=\"verdict\""), std::string::npos) << cell;
  // The geometric mean row says over how many results.
  EXPECT_NE(overview.find("Geometric mean (over all 6 results)"), std::string::npos) << "7 tests, PostMark hidden";

  // PostMark is noisy by PTS's cut: hidden everywhere, with its monitor child. Of the 13 results
  // left, 6 are CPU usage series shown in their test's section: 7 sections.
  EXPECT_EQ(dom.find("PostMark"), std::string::npos);
  EXPECT_EQ(Count(dom, "<section id=\"r"), 7u);
  EXPECT_EQ(Count(dom, "<table class=\"monitor\">"), 6u);
  // Without hnr it is there, flagged with its spread.
  const std::string unfiltered = Dom(server_->url() + "/result/" + id);
  EXPECT_NE(unfiltered.find("PostMark"), std::string::npos);
  EXPECT_NE(unfiltered.find("class=\"noisy\""), std::string::npos);
  EXPECT_EQ(Count(unfiltered, "<section id=\"r"), 8u);

  // The view is written for people (decoded); the link below stays encoded.
  EXPECT_NE(dom.find("View: <code>nor&amp;hnr&amp;hgv[]=" + base + "</code>"), std::string::npos)
      << Between(dom, "<p class=\"meta\" id=\"view\">", "</p>");

  // The page's link to its view reproduces it.
  const std::string link_tag = Between(dom, "<a id=\"view-link\" href=\"", "\">");
  ASSERT_FALSE(link_tag.empty());
  std::string href = link_tag.substr(std::string("<a id=\"view-link\" href=\"").size());
  href.resize(href.size() - 2);
  for (size_t at = 0; (at = href.find("&amp;", at)) != std::string::npos;) href.replace(at, 5, "&");
  EXPECT_EQ(href.rfind("?nor&hnr&hgv", 0), 0u) << href;
  const std::string again = Dom(server_->url() + "/result/" + id + href);
  EXPECT_EQ(Between(again, "<section id=\"overview\">", "</section>"), overview);
  EXPECT_EQ(Count(again, "<section id=\"r"), 7u);

  // Screenshots: wide, and a phone's 360 px in dark mode.
  for (const auto& [name, window] : std::vector<std::pair<std::string, std::string>>{
           {"viewer-options.png", "--window-size=1280,2400"},
           {"viewer-360-dark.png", "--window-size=360,2400 --force-dark-mode --blink-settings=preferredColorScheme=0"}}) {
    fs::path shot = artifacts_ / name;
    fs::remove(shot);
    ASSERT_EQ(Chromium(url, "--screenshot=" + shot.string(), "", window), 0) << ReadFile(dir_ + "/chromium.log");
    EXPECT_TRUE(fs::exists(shot)) << shot;
  }
}

// At a phone's 360 px the verdicts at the end of the page wrap inside the viewport (their <pre>
// kept every line whole and ran off the screen). Chromium's window is not narrower than ~480 px,
// so the page (its style is inline) is put in a 360 px frame (srcdoc: the same origin as the frame's
// page) with a script added that writes the widths into the outer page.
TEST_F(PageBrowserTest, VerdictsWrapAt360Pixels) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  const std::string id = UploadSeed("1110088-AR-1110066AR56");
  ASSERT_FALSE(id.empty());
  auto page = http_->Get("/result/" + id);
  ASSERT_TRUE(page && page->status == 200);
  std::string html = page->body;
  const size_t end = html.rfind("</body>");
  ASSERT_NE(end, std::string::npos);
  ASSERT_NE(html.find("<section id=\"verdicts\">"), std::string::npos) << "no verdicts to measure";
  html.insert(end,
              "<script>const v = document.getElementById('verdicts'), p = parent.document.createElement('p');"
              " p.id = 'measured'; p.textContent = [document.documentElement.clientWidth,"
              " Math.ceil(v.getBoundingClientRect().right), v.querySelector('pre').scrollWidth].join(' ');"
              " parent.document.body.appendChild(p);</script>");
  std::string srcdoc;
  for (char c : html) srcdoc += c == '&' ? "&amp;" : c == '"' ? "&quot;" : std::string(1, c);
  const std::string file = dir_ + "/page.html";
  WriteFileAtomically(file, "<!doctype html><body><iframe style=\"width:360px;height:2000px;border:0\" srcdoc=\"" +
                                srcdoc + "\"></iframe></body>");
  const std::string out = dir_ + "/measured.html";
  ASSERT_EQ(Chromium("file://" + file, "--dump-dom", out), 0)
      << ReadFile(dir_ + "/chromium.log");
  const std::string measured = Between(ReadFile(out), "<p id=\"measured\">", "</p>");
  ASSERT_FALSE(measured.empty()) << "the page was not measured: " << ReadFile(dir_ + "/chromium.log");
  int viewport = 0, right = 0, text = 0;
  ASSERT_EQ(std::sscanf(measured.c_str(), "<p id=\"measured\">%d %d %d", &viewport, &right, &text), 3) << measured;
  EXPECT_TRUE(viewport > 300 && viewport <= 360) << viewport << ": 360 px less a scroll bar";
  EXPECT_LE(right, viewport) << "the verdicts block runs past the screen";
  EXPECT_LE(text, viewport) << "a verdict line runs past the screen";
}

// Pages for people (issue 49) on the 1110088 seed: the systems table leads with what differs (the
// notes' SpeedStep sentence and the test dates) and shows each shared component once, across the
// four columns; with src every trial is a dot on its system's box plot, with the numbers in a table.
TEST_F(PageBrowserTest, SystemsTableLeadsWithDifferencesAndSrcDrawsEveryTrial) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  const std::string id = UploadSeed("1110088-AR-1110066AR56");
  ASSERT_FALSE(id.empty());
  const std::string url = server_->url() + "/result/" + id + "?src";
  const std::string dom = Dom(url);
  ASSERT_NE(dom.find("</html>"), std::string::npos) << "no page loaded from " << url;

  // Chromium's DOM adds <tbody>; the rows are what matters.
  const std::string systems = Between(dom, "<table class=\"systems\">", "</table>");
  ASSERT_FALSE(systems.empty());
  std::vector<std::string> rows;
  for (size_t at = 0; (at = systems.find("<tr", at)) != std::string::npos; at += 3)
    rows.push_back(systems.substr(at, systems.find("</tr>", at) - at));
  ASSERT_GE(rows.size(), 4u);
  // Header, then the rows that differ: the notes' differing part, the test dates.
  EXPECT_NE(rows[1].find("class=\"differs\""), std::string::npos) << rows[1];
  EXPECT_NE(rows[1].find("<th>System Notes</th><td>Intel SpeedStep was enabled.</td>"), std::string::npos) << rows[1];
  EXPECT_NE(rows[2].find("<th>Tested</th>"), std::string::npos) << rows[2];
  // The processor once, one cell across the four columns, after the differences.
  EXPECT_EQ(Count(systems, "Intel Core i5-2520M"), 1u);
  EXPECT_NE(systems.find("<th>Processor</th><td colspan=\"4\">Intel Core i5-2520M @ 2.50GHz (4 Cores)</td>"),
            std::string::npos) << systems;
  EXPECT_NE(systems.find("<td colspan=\"4\">Disk Scheduler: CFQ. Compiz was running on this system.</td>"),
            std::string::npos) << systems;
  // sdt: the full table, the processor in every column.
  const std::string full = Between(Dom(url + "&sdt"), "<table class=\"systems\">", "</table>");
  EXPECT_EQ(Count(full, "Intel Core i5-2520M"), 4u);

  // FS-Mark: 3, 3, 3 and 6 trials, a dot each on its system's box plot, and the table behind it.
  const std::string fs_mark = Between(dom, "FS-Mark 3.3 — Test: 1000 Files", "</section>");
  ASSERT_FALSE(fs_mark.empty());
  const std::string trials = Between(fs_mark, "<div class=\"chart trials\">", "</svg>");
  ASSERT_FALSE(trials.empty()) << "no box plot with src";
  const std::vector<std::pair<std::string, size_t>> expected = {{"Encrypted Home (eCryptfs): Stock", 3},
                                                                 {"Encrypted Home (eCryptfs): AES-NI Intel", 3},
                                                                 {"Encrypted LVM (dmcrypt): Stock", 3},
                                                                 {"Encrypted LVM (dmcrypt): AES-NI Intel", 6}};
  for (const auto& [system, n] : expected) {
    const std::string box = Between(trials, "<g class=\"box\" data-system=\"" + system + "\">", "</g>");
    ASSERT_FALSE(box.empty()) << system;
    EXPECT_EQ(Count(box, "<circle class=\"trial\""), n) << system;
    EXPECT_EQ(Count(box, "<rect"), 1u) << system << ": the quartiles' box";
    EXPECT_EQ(Count(box, "class=\"ci\""), 1u) << system << ": the mean's interval";
  }
  EXPECT_NE(fs_mark.find("<summary>The box plots' numbers</summary>"), std::string::npos);
  EXPECT_NE(fs_mark.find("<td>Encrypted LVM (dmcrypt): AES-NI Intel</td><td class=\"num\">6</td><td class=\"num\">59.62</td>"),
            std::string::npos) << fs_mark;
  // Its CPU usage series in the same section.
  EXPECT_NE(fs_mark.find("<table class=\"monitor\">"), std::string::npos);
  // Without src, no box plots.
  EXPECT_EQ(Dom(server_->url() + "/result/" + id).find("chart trials"), std::string::npos);

  fs::path shot = artifacts_ / "viewer-systems-src.png";
  fs::remove(shot);
  ASSERT_EQ(Chromium(url, "--screenshot=" + shot.string(), "", "--window-size=1280,3000"), 0) << ReadFile(dir_ + "/chromium.log");
  EXPECT_TRUE(fs::exists(shot)) << shot;
}

// Issue 49's figures: wins and losses that count only decided differences beside PTS's swl, the
// geometric mean's interval, PTS's notable results and harmonic mean, and the view as CSV.
TEST_F(PageBrowserTest, WinsLossesTheGeometricMeanIntervalAndTheExportOfAView) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  const std::string id = UploadSeed("ubuntu-1304-disk-encryption");
  ASSERT_FALSE(id.empty());

  const std::string url = server_->url() + "/result/" + id + "?swl&spr&shm";
  const std::string dom = Dom(url);
  const std::string overview = Between(dom, "<section id=\"overview\">", "</section>");
  ASSERT_FALSE(overview.empty()) << "no overview on " << url;
  // One run of each system: no verdict is "different", so nothing is won or lost by ours, while
  // PTS's swl gives No Encryption first place in most results.
  const std::string decided = Between(overview, "<tr class=\"decided\">", "</tr>");
  EXPECT_NE(Cell(decided, "Home Encryption").find("0 won, 0 lost"), std::string::npos) << decided;
  const std::string swl = Between(overview, "<tr class=\"swl\">", "</tr>");
  ASSERT_FALSE(swl.empty());
  EXPECT_NE(swl.find("data-system=\"No Encryption\">11 first"), std::string::npos) << swl;
  // The geometric mean (PTS's 146.690 for Home Encryption): this file keeps no trials, so no
  // interval, and the page says why.
  const std::string geomean = Between(overview, "<tr class=\"geomean\">", "</tr>");
  EXPECT_NE(Cell(geomean, "Home Encryption").find("146.690"), std::string::npos) << geomean;
  EXPECT_NE(geomean.find("no interval: some value has fewer than 2 trials"), std::string::npos) << geomean;
  // spr: PTS's six notable results, PostMark first; shm: PTS's harmonic mean added as a result.
  const std::string notable = Between(overview, "<div id=\"notable\">", "</div>");
  EXPECT_EQ(Count(notable, "<li>"), 6u) << notable;
  EXPECT_NE(notable.find("PostMark"), std::string::npos);
  EXPECT_NE(dom.find("Harmonic Mean Of MB/s Test Results"), std::string::npos);
  // The form offers the new options, and its export link gives the view as CSV.
  EXPECT_NE(dom.find("name=\"shm\" checked"), std::string::npos);
  EXPECT_NE(dom.find("name=\"ftt\""), std::string::npos);
  auto csv = http_->Get("/result/" + id + "?oss=BlogBench&export=csv");
  ASSERT_TRUE(csv);
  EXPECT_EQ(csv->status, 200);
  EXPECT_EQ(csv->get_header_value("Content-Type"), "text/csv; charset=utf-8");
  EXPECT_NE(csv->body.find("BlogBench"), std::string::npos);
  EXPECT_EQ(csv->body.find("PostMark"), std::string::npos) << "the view, not the whole file";
  auto pdf = http_->Get("/result/" + id + "?export=pdf");
  ASSERT_TRUE(pdf);
  EXPECT_EQ(pdf->status, 400);
  EXPECT_NE(pdf->body.find("print it to PDF"), std::string::npos);
  // 1110088 keeps its trials: the geometric mean of "Encrypted Home (eCryptfs): AES-NI Intel"
  // (PTS's 32.354) with its interval, and its ratio to the base with the ratio's interval.
  const std::string id2 = UploadSeed("1110088-AR-1110066AR56");
  ASSERT_FALSE(id2.empty());
  const std::string dom2 = Dom(server_->url() + "/result/" + id2);
  const std::string geomean2 = Between(Between(dom2, "<section id=\"overview\">", "</section>"), "<tr class=\"geomean\">", "</tr>");
  const std::string aes = Cell(geomean2, "Encrypted Home (eCryptfs): AES-NI Intel");
  EXPECT_NE(aes.find("32.354"), std::string::npos) << geomean2;
  EXPECT_NE(aes.find("class=\"gm-ci\""), std::string::npos) << aes;
  EXPECT_NE(aes.find(">[32.172, 32.536]</span>"), std::string::npos) << aes;
  EXPECT_NE(aes.find("class=\"gm-ratio\""), std::string::npos) << aes;
  EXPECT_NE(aes.find("x0.956 [0.946, 0.967] apart by trials"), std::string::npos) << aes;
  fs::path shot = artifacts_ / "viewer-wins-geomean.png";
  fs::remove(shot);
  ASSERT_EQ(Chromium(url, "--screenshot=" + shot.string(), "", "--window-size=1280,2400"), 0);
}

TEST_F(PageBrowserTest, CmwCondensesATestsOptionSetsIntoOneGroupedChartAndTable) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  const std::string id = UploadSeed("ubuntu-1304-disk-encryption");
  ASSERT_FALSE(id.empty());
  // The old OpenBenchmarking name: Dbench's two client counts become one section, one chart with
  // a bar per client count and system, and a table with a row per client count.
  const std::string dom = Dom(server_->url() + "/result/" + id + "?obr_cmw");
  size_t at = dom.find("Dbench 4.0 — Client Count: 1; 6</h2>");
  ASSERT_NE(at, std::string::npos) << "no condensed Dbench section";
  const std::string section = dom.substr(at, dom.find("</section>", at) - at);
  EXPECT_EQ(Count(dom, "Dbench 4.0 — Client Count"), 1u) << "the two Dbench results are one";
  const std::vector<std::string> charts = Charts(section);
  ASSERT_FALSE(charts.empty());
  EXPECT_EQ(Bars(charts[0]), 6u) << charts[0];
  const std::string table = Between(section, "<table class=\"multiway\">", "</table>");
  ASSERT_FALSE(table.empty()) << section;
  EXPECT_NE(table.find("<th>No Encryption</th><th>Home Encryption</th><th>Full-Disk Encryption</th>"), std::string::npos)
      << table;
  EXPECT_NE(table.find("<tr><th>1</th><td class=\"num\">209.51</td><td class=\"num\">91.33</td><td class=\"num\">175.49</td>"),
            std::string::npos) << table;
  EXPECT_NE(table.find("<tr><th>6</th><td class=\"num\">688.60</td><td class=\"num\">268.76</td><td class=\"num\">378.32</td>"),
            std::string::npos) << table;
  // The form shows it on, its link keeps it, and imw on this single-way file says it does nothing.
  EXPECT_NE(dom.find("name=\"cmw\" checked"), std::string::npos);
  EXPECT_NE(Between(dom, "<a id=\"view-link\"", "</a>").find("href=\"?cmw\""), std::string::npos);
  const std::string imw = Dom(server_->url() + "/result/" + id + "?imw");
  EXPECT_NE(imw.find("data-note=\"option\">imw has no effect here"), std::string::npos);
  // The chart draws a cluster of bars per client count (as PTS draws a multi-way result); the
  // overview has a row per client count, its values under their systems.
  EXPECT_EQ(Count(charts[0], "<g class=\"group\">"), 2u) << charts[0];
  const std::string row = Between(dom, "data-group=\"6\">", "</tr>");
  EXPECT_NE(row.find("Dbench 4.0 (6) - Client Count: 1; 6"), std::string::npos) << row;
  EXPECT_NE(row.find("data-system=\"Home Encryption\"><span class=\"v\">268.76</span>"), std::string::npos) << row;
  // cts, PTS's name for it, is the same view; its link says cmw.
  const std::string cts = Dom(server_->url() + "/result/" + id + "?cts");
  EXPECT_NE(cts.find("Dbench 4.0 — Client Count: 1; 6</h2>"), std::string::npos);
  EXPECT_NE(Between(cts, "<a id=\"view-link\"", "</a>").find("href=\"?cmw\""), std::string::npos);
}

TEST_F(PageBrowserTest, ResultAndComparisonPagesRenderEveryChart) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  std::vector<std::string> ids;
  std::vector<results::MergeInput> inputs;
  for (const char* name : {"result-a", "result-b"}) {
    std::string xml = ReadFile((golden_ / name / "composite.xml").string());
    std::string id = Upload(name, xml);
    ASSERT_FALSE(id.empty());
    ids.push_back(id);
    inputs.push_back({id, results::ParseResultFile(xml, name)});
  }
  ASSERT_GE(inputs[0].file.results.size(), 2u) << "the page test wants several results";
  bool monitor = false;
  for (const auto& r : inputs[0].file.results) monitor = monitor || r.display_format == "LINE_GRAPH";
  ASSERT_TRUE(monitor) << "the page test wants a monitor (line graph) result";

  CheckPage(server_->url() + "/result/" + ids[0], inputs[0].file, "result-page.png");
  auto merged = results::MergeResultFiles(inputs).merged;
  CheckPage(server_->url() + "/result/" + ids[0] + "," + ids[1], merged, "comparison-page.png");
}

}  // namespace
}  // namespace ptsn::test
