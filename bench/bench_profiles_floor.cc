// The floor of bench_profiles' cold pass: libxml2 alone parsing (same safe options as the loader)
// and XSD-validating every test-definition.xml, results-definition.xml and downloads.xml below a
// PTS-layout root against the same schemas, on N threads (0: one per core), each file read with
// one read(). No model is built, nothing is hashed or expanded: whatever pts-native adds on top,
// its cold pass cannot be faster than this.
// usage: bench_profiles_floor ROOT SCHEMA_DIR [THREADS] [--parse-only]
#include <libxml/parser.h>
#include <libxml/xmlschemas.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "runner/profile/profile_files.h"

using namespace ptsn::profile;

namespace {

void Quiet(void*, xmlErrorPtr) {}

double CpuMs() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: bench_profiles_floor ROOT SCHEMA_DIR [THREADS] [--parse-only]\n");
    return 2;
  }
  std::string root = argv[1], schema_dir = argv[2];
  unsigned threads = argc > 3 ? static_cast<unsigned>(std::atoi(argv[3])) : 0;
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  bool validate = !(argc > 4 && std::string(argv[4]) == "--parse-only");
  auto start = std::chrono::steady_clock::now();
  double cpu_start = CpuMs();
  xmlInitParser();
  xmlSetStructuredErrorFunc(nullptr, Quiet);
  const char* kFiles[] = {"test-definition.xml", "results-definition.xml", "downloads.xml"};
  const char* kSchemas[] = {"test-profile.xsd", "results-parser.xsd", "test-profile-downloads.xsd"};
  xmlSchemaPtr schemas[3];
  for (int i = 0; i < 3; ++i) {
    xmlSchemaParserCtxtPtr pctxt = xmlSchemaNewParserCtxt((schema_dir + "/" + kSchemas[i]).c_str());
    schemas[i] = pctxt ? xmlSchemaParse(pctxt) : nullptr;
    xmlSchemaFreeParserCtxt(pctxt);
    if (!schemas[i]) {
      std::fprintf(stderr, "%s/%s: not a usable schema\n", schema_dir.c_str(), kSchemas[i]);
      return 1;
    }
  }
  std::vector<std::pair<std::string, int>> files;  // path, schema
  std::vector<DirEntry> repos, items, entries;
  ListDirectory(root, &repos);
  for (const auto& repo : repos) {
    if (!repo.is_directory) continue;
    ListDirectory(root + "/" + repo.name, &items);
    for (const auto& item : items) {
      std::string dir = root + "/" + repo.name + "/" + item.name;
      if (!item.is_directory || !ListDirectory(dir, &entries)) continue;
      for (const auto& e : entries)
        for (int i = 0; i < 3; ++i)
          if (e.is_regular && e.name == kFiles[i]) files.emplace_back(dir + "/" + e.name, i);
    }
  }
  std::atomic<size_t> next{0};
  std::atomic<int> malformed{0}, invalid{0};
  auto work = [&] {
    xmlSetStructuredErrorFunc(nullptr, Quiet);  // per thread in libxml2 2.9
    std::string content, error;
    for (size_t i; (i = next.fetch_add(1)) < files.size();) {
      if (!ReadWholeFile(files[i].first, &content, &error)) {
        ++malformed;
        continue;
      }
      xmlDocPtr doc = xmlReadMemory(content.data(), static_cast<int>(content.size()), files[i].first.c_str(), nullptr,
                                    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
      if (!doc) {
        ++malformed;
        continue;
      }
      if (validate) {
        xmlSchemaValidCtxtPtr vctxt = xmlSchemaNewValidCtxt(schemas[files[i].second]);
        xmlSchemaSetValidStructuredErrors(vctxt, Quiet, nullptr);
        if (xmlSchemaValidateDoc(vctxt, doc) != 0) ++invalid;
        xmlSchemaFreeValidCtxt(vctxt);
      }
      xmlFreeDoc(doc);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("libxml2 floor (%s, %u threads): %zu files, %d malformed, %d invalid in %.1f ms (cpu %.1f ms)\n",
              validate ? "parse+validate" : "parse only", threads, files.size(), malformed.load(), invalid.load(), ms,
              CpuMs() - cpu_start);
  for (auto* s : schemas) xmlSchemaFree(s);
  return 0;
}
