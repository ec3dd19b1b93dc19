// CPU cost of each phase of one protocol upload (r=upload_test_result) of the benchmark's
// 100-result file, measured in-process on the server's own functions, so the per-upload budget
// of bench_server.sh can be split without a profiler: thread CPU time per phase (load-independent
// enough on a shared machine), median over N uploads of distinct files.
//   bench_upload_phases [N] [DB_DIR]      (DB_DIR: where a throwaway SQLite database goes)
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <bzlib.h>
#include <libxml/parser.h>

#include "runner/openbenchmarking/wire.h"
#include "results-xml/model/result_xml.h"
#include "results-xml/checks/validate.h"
#include "server/store/storage.h"
#include "server/testing/sample_result.h"
#include "server/store/upload_check.h"

namespace {

double CpuMicros() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

struct Phases {
  std::vector<std::pair<std::string, std::vector<double>>> rows;
  std::vector<double>& Row(const std::string& name) {
    for (auto& [n, v] : rows)
      if (n == name) return v;
    rows.emplace_back(name, std::vector<double>{});
    return rows.back().second;
  }
  template <typename Fn>
  auto Time(const std::string& name, Fn&& fn) {
    double t0 = CpuMicros();
    if constexpr (std::is_void_v<decltype(fn())>) {
      fn();
      Row(name).push_back(CpuMicros() - t0);
    } else {
      auto out = fn();
      Row(name).push_back(CpuMicros() - t0);
      return out;
    }
  }
  void Print(const char* title) const {
    std::printf("%s\n", title);
    double total = 0;
    for (const auto& [name, v] : rows) {
      std::vector<double> s = v;
      std::sort(s.begin(), s.end());
      double med = s[s.size() / 2];
      if (name[0] != ' ') total += med;  // indented rows are not part of the upload
      std::printf("  %-34s %8.1f us\n", name.c_str(), med);
    }
    std::printf("  %-34s %8.1f us   (+ HTTP, threads, kernel I/O in the server)\n", "sum of medians", total);
  }
};

}  // namespace

int main(int argc, char** argv) {
  namespace wire = ptsn::wire;
  namespace server = ptsn::server;
  const int n = argc > 1 ? std::atoi(argv[1]) : 200;
  const std::string dir = argc > 2 ? argv[2] : (std::filesystem::temp_directory_path() / "ptsn_bench_phases").string();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto storage = server::OpenSqliteStorage(dir + "/results.db");
  const size_t max_xml = 8 << 20;

  for (const bool bz2 : {true, false}) {
    // The load client's requests: distinct files, encoded as PTS does.
    std::vector<std::string> bodies;
    std::string bz_payload;
    for (int i = 0; i < n; ++i) {
      wire::Upload up;
      up.xml = server::testing::SampleCompositeXml("Bench Upload " + std::to_string(i), 100, 2, i);
      wire::FormFields f{{"r", "upload_test_result"}, {"client_version", "10860"}};
      std::string packed = bz2 ? wire::Bzip2Compress(up.xml, 8) : wire::RawDeflate(up.xml, 9);
      if (i == 0 && bz2) bz_payload = packed;
      f.emplace_back(bz2 ? "composite_xml_bz" : "composite_xml_gz", wire::Base64Encode(packed));
      f.emplace_back("composite_xml_hash", wire::Sha1Hex(up.xml));
      bodies.push_back(wire::EncodeForm(f));
    }
    if (bz2) std::printf("file: %zu bytes of XML, request body %zu bytes\n",
                         server::testing::SampleCompositeXml("Bench Upload 0", 100, 2, 0).size(), bodies[0].size());
    Phases p;
    std::vector<server::NewResult> batch;
    for (int i = 0; i < n; ++i) {
      auto form = p.Time("form decode (url-decoding)", [&] { return wire::DecodeForm(bodies[i]); });
      auto field = [&](const std::string& name) -> std::optional<std::string> {
        for (auto& [k, v] : form)
          if (k == name) return v;
        return std::nullopt;
      };
      std::string encoded = *field(bz2 ? "composite_xml_bz" : "composite_xml_gz");
      auto packed = p.Time("base64 decode", [&] { return *wire::Base64Decode(encoded); });
      auto xml = p.Time(bz2 ? "bunzip2" : "inflate", [&] {
        return bz2 ? *wire::Bzip2Decompress(packed, max_xml) : *wire::RawInflate(packed, max_xml);
      });
      p.Time("sha1 of the XML", [&] { return wire::Sha1Hex(xml); });
      auto summary = p.Time("check (bounds+UTF-8+parse+validate)", [&] { return server::CheckResultFile(xml); });
      if (std::getenv("SPLIT")) {
        // What the check did before it streamed: the whole model, then validation, then summary.
        auto file = p.Time("  for comparison: whole-model parse", [&] { return ptsn::results::ParseResultFile(xml, "x"); });
        p.Time("  for comparison: + ValidateResultFile", [&] { return ptsn::results::ValidateResultFile(file, {.warnings = false}); });
        p.Time("  for comparison: + SummaryOf", [&] { return server::SummaryOf(std::move(file)); });
      }
      auto& r = batch.emplace_back();
      r.owner = "bench";
      r.xml = std::move(xml);
      // What the server stores: a composite_xml_gz upload's own DEFLATE, else one of its own.
      p.Time(bz2 ? "deflate for storage" : "deflate for storage (the upload's)",
             [&] { server::PackForStorage(r, bz2 ? std::nullopt : std::optional<std::string>(packed)); });
      r.summary = std::move(summary);
      r.uploaded_at = 1764489600;
      if (batch.size() == 16 || i == n - 1) {
        // What the group committer does under the benchmark's load: one transaction per ~16.
        std::vector<server::InsertRequest> reqs(batch.size());
        std::vector<server::InsertRequest*> ptrs;
        for (size_t k = 0; k < batch.size(); ++k) {
          reqs[k].result = &batch[k];
          reqs[k].day_key = "261130";
          reqs[k].make_id = [k, i, bz2](int64_t seq) {
            return "2611300-" + std::string(bz2 ? "BZ" : "GZ") + "-" + std::to_string(i) + "X" + std::to_string(k) + "Q" + std::to_string(seq);
          };
          ptrs.push_back(&reqs[k]);
        }
        double t0 = CpuMicros();
        storage->InsertBatch(ptrs);
        double per = (CpuMicros() - t0) / static_cast<double>(batch.size());
        for (size_t k = 0; k < batch.size(); ++k) p.Row("SQLite insert (batch of 16, CPU)").push_back(per);
        batch.clear();
      }
    }
    p.Print(bz2 ? "composite_xml_bz (PTS with php-bz2), thread CPU per upload, median:"
                : "composite_xml_gz (stock PTS), thread CPU per upload, median:");
    if (bz2) {
      // The floor of the bz2 case: libbz2's one-call decompression of the same payload.
      std::string out(1 << 20, '\0');
      std::vector<double> t;
      for (int i = 0; i < n; ++i) {
        unsigned int len = out.size();
        double t0 = CpuMicros();
        BZ2_bzBuffToBuffDecompress(out.data(), &len, bz_payload.data(), bz_payload.size(), 0, 0);
        t.push_back(CpuMicros() - t0);
      }
      std::sort(t.begin(), t.end());
      std::printf("  floor: bare BZ2_bzBuffToBuffDecompress of the same %zu-byte payload: %.1f us\n", bz_payload.size(),
                  t[t.size() / 2]);
    }
  }
  {
    // The floor of the check's parse: libxml2's SAX2 parser (what the reader uses) over the same
    // bytes with the same options and no callbacks at all (no model, no checks).
    const std::string xml = server::testing::SampleCompositeXml("Bench Upload 0", 100, 2, 0);
    std::vector<double> t;
    for (int i = 0; i < n; ++i) {
      double t0 = CpuMicros();
      xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
      xmlSAXHandler sax{};
      sax.initialized = XML_SAX2_MAGIC;
      *ctxt->sax = sax;
      xmlCtxtReadMemory(ctxt, xml.data(), static_cast<int>(xml.size()), nullptr, nullptr,
                        XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES |
                            XML_PARSE_IGNORE_ENC);
      xmlFreeParserCtxt(ctxt);
      t.push_back(CpuMicros() - t0);
    }
    std::sort(t.begin(), t.end());
    std::printf("  floor of the check: bare libxml2 SAX2 parse of the same %zu bytes, no callbacks: %.1f us\n",
                xml.size(), t[t.size() / 2]);
  }
  storage.reset();
  std::filesystem::remove_all(dir);
}
