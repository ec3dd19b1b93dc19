// libFuzzer target: a result page's view as a stranger's link asks for it. The input is a URL
// query (OpenBenchmarking's view options, results-xml/views/viewer_options.h), then, after the
// first newline, a result file; when that part is not a file the reader accepts, a built-in file
// of three systems (one value failed, one missing, a monitor child) is viewed instead.
// The options are applied and the page rendered as the server renders it (with its form).
// Oracles:
//  * the link to a view is a fixed point: the options read back from ToQuery() give the same
//    ToQuery() (a shared link reproduces its view);
//  * nothing a link or a file says reaches the page as markup: every '<' opens a tag (text is
//    escaped), no tag is script, img, iframe, object or embed, and no attribute is an on...=
//    handler (the renderer writes none of them; any would be injected).
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "results-xml/model/result_xml.h"
#include "results-xml/views/export_html.h"
#include "results-xml/views/viewer_options.h"
#include "runner/common/error.h"

namespace {

using namespace ptsn::results;

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "oracle failed: %s\n", what.c_str());
  std::abort();
}

ResultFile BuiltInFile() {
  ResultFile f;
  f.generated.title = "fuzz";
  for (const char* id : {"A", "B & \"C\"", "C <b>"}) {
    System s;
    s.identifier = id;
    f.systems.push_back(s);
  }
  auto result = [](const char* title, const char* proportion, std::vector<Entry> entries) {
    Result r;
    r.identifier = "pts/fs-mark-1.0.3";
    r.title = title;
    r.scale = "MB/s";
    r.proportion = proportion;
    r.description = title;
    r.entries = std::move(entries);
    return r;
  };
  f.results.push_back(result("FS-Mark", "HIB", {{"A", "10.5", "10:11", {}}, {"B & \"C\"", "12", "12:12", {}},
                                                {"C <b>", "", {}, {}}}));
  f.results.push_back(result("Dbench", "LIB", {{"A", "3", "2:4", {}}, {"C <b>", "3.01", "3:3.02", {}}}));
  Result monitor = result("CPU Usage Monitor", "", {{"A", "50", "40:60", {}}, {"B & \"C\"", "70", {}, {}}});
  monitor.identifier = "";
  monitor.parent = "abc";
  f.results.push_back(monitor);
  return f;
}

bool NameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == ':' || c == '_'; }

// Walks the page's tags (lower-cased) and fails on what only an injection would put there.
void CheckMarkup(const std::string& page) {
  size_t i = 0;
  while ((i = page.find('<', i)) != std::string::npos) {
    if (page.compare(i, 4, "<!--") == 0 || page.compare(i, 2, "<!") == 0) {
      i = page.find('>', i);
      if (i == std::string::npos) Fail("an unterminated comment or declaration");
      continue;
    }
    size_t j = i + 1;
    if (j < page.size() && page[j] == '/') ++j;
    const size_t name_start = j;
    while (j < page.size() && NameChar(page[j])) ++j;
    const std::string tag = page.substr(name_start, j - name_start);
    if (tag.empty()) Fail("a '<' that opens no tag (unescaped text) at " + page.substr(i, 40));
    for (const char* bad : {"script", "img", "iframe", "object", "embed"})
      if (tag == bad) Fail("an injected <" + tag + "> tag");
    // Attributes up to the tag's end, quoted values skipped whole.
    while (j < page.size() && page[j] != '>') {
      if (std::isspace(static_cast<unsigned char>(page[j])) || page[j] == '/') {
        ++j;
        continue;
      }
      const size_t attr_start = j;
      while (j < page.size() && !std::isspace(static_cast<unsigned char>(page[j])) && page[j] != '=' && page[j] != '>')
        ++j;
      const std::string attr = page.substr(attr_start, j - attr_start);
      if (attr.compare(0, 2, "on") == 0) Fail("an injected " + attr + " attribute in <" + tag + ">");
      if (j < page.size() && page[j] == '=') {
        ++j;
        if (j < page.size() && (page[j] == '"' || page[j] == '\'')) {
          const size_t end = page.find(page[j], j + 1);
          if (end == std::string::npos) Fail("an unterminated attribute value in <" + tag + ">");
          j = end + 1;
        } else {
          while (j < page.size() && !std::isspace(static_cast<unsigned char>(page[j])) && page[j] != '>') ++j;
        }
      }
    }
    i = j;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  const std::string_view query = input.substr(0, newline);
  ResultFile file;
  bool parsed = false;
  if (newline != std::string_view::npos) {
    try {
      ReadLimits limits;
      limits.max_depth = 16;
      limits.max_nodes = 4000;
      limits.max_value_bytes = 4096;
      file = ParseResultFile(input.substr(newline + 1), "fuzzed file", limits);
      parsed = true;
    } catch (const ptsn::Error&) {
    }
  }
  if (!parsed) file = BuiltInFile();

  const ViewerOptions options = ParseViewerQuery(query);
  const std::string link = options.ToQuery();
  if (ParseViewerQuery(link).ToQuery() != link) Fail("the link to a view does not read back as that view: " + link);

  HtmlView view;
  view.options = options;
  view.results_before_options = file.results.size();
  for (const auto& s : file.systems) view.all_systems.push_back(s.identifier);
  view.form = true;
  view.notes = ApplyViewerOptions(file, options);
  std::string page = ResultFileToHtml(file, view);
  std::transform(page.begin(), page.end(), page.begin(), [](unsigned char c) { return std::tolower(c); });
  CheckMarkup(page);
  return 0;
}
