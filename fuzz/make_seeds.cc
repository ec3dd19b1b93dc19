// Writes the fuzz targets' seed corpora: fuzz_make_seeds OUT_DIR [SHARED_DIR]. From SHARED_DIR
// (../shared: the reference result files, the parser conformance cases) when it is there, and
// always from a few built-in samples, so the fuzzers start from realistic inputs either way.
// OUT_DIR/<target>/ gets one file per seed.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "runner/openbenchmarking/profile_zip.h"
#include "runner/openbenchmarking/wire.h"
#include "server/testing/sample_result.h"

namespace fs = std::filesystem;

namespace {

constexpr size_t kMaxSeed = 64 << 10;  // larger inputs only slow the fuzzers down

std::string Read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void Put(const fs::path& dir, size_t& n, const std::string& bytes) {
  if (bytes.size() > kMaxSeed) return;
  std::ofstream(dir / ("seed-" + std::to_string(n++)), std::ios::binary) << bytes;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: fuzz_make_seeds OUT_DIR [SHARED_DIR]\n";
    return 2;
  }
  const fs::path out = argv[1];
  const fs::path shared = argc > 2 ? argv[2] : "";
  for (const char* t : {"result_file", "upload_form", "decompress", "results_parser", "profile_zip", "ob_answers",
                        "request_stream", "path_below", "viewer_options"}) fs::create_directories(out / t);

  // Result files.
  std::vector<std::string> results = {ptsn::server::testing::SampleCompositeXml("Seed", 3, 2, 1),
                                      ptsn::server::testing::SampleCompositeXml("Seed & <more>", 1, 1, 2)};
  if (!shared.empty() && fs::is_directory(shared / "reference")) {
    for (const auto& e : fs::recursive_directory_iterator(shared / "reference")) {
      if (!e.is_regular_file() || e.path().extension() != ".xml") continue;
      std::string xml = Read(e.path());
      if (xml.find("<PhoronixTestSuite>") != std::string::npos && xml.find("<Generated>") != std::string::npos)
        results.push_back(std::move(xml));
    }
  }
  size_t n = 0;
  for (const std::string& xml : results) Put(out / "result_file", n, xml);

  // Upload forms (as our client and as PTS with php-bz2 send them) and the decoders' inputs.
  n = 0;
  size_t d = 0;
  for (size_t i = 0; i < results.size() && i < 24; ++i) {
    const std::string& xml = results[i];
    if (xml.size() > kMaxSeed / 2) continue;
    ptsn::wire::Upload up;
    up.xml = xml;
    if (i == 0) up.system_logs_zip = std::string("PK\x03\x04 not really a zip");
    Put(out / "upload_form", n, ptsn::wire::EncodeForm(ptsn::wire::EncodeUpload(up)));
    const std::string bz = ptsn::wire::Bzip2Compress(xml, 9);
    Put(out / "upload_form", n,
        ptsn::wire::EncodeForm({{"r", "upload_test_result"},
                                {"composite_xml_bz", ptsn::wire::Base64Encode(bz)},
                                {"composite_xml_hash", ptsn::wire::Sha1Hex(xml)}}));
    Put(out / "decompress", d, '\0' + ptsn::wire::RawDeflate(xml));
    Put(out / "decompress", d, '\1' + bz);
    Put(out / "decompress", d, '\2' + ptsn::wire::Base64Encode(xml));
  }

  // Results parser: results-definition.xml NUL arguments NUL log, per conformance case.
  n = 0;
  Put(out / "results_parser", n,
      std::string("<PhoronixTestSuite><ResultsParser><OutputTemplate>speed: #_RESULT_# MB/s</OutputTemplate>"
                  "<MatchToTestArguments>-x</MatchToTestArguments></ResultsParser></PhoronixTestSuite>") +
          '\0' + "-x 1" + '\0' + "warm up\nspeed: 12.5 MB/s\nspeed: 13 MB/s\n");
  if (!shared.empty() && fs::is_directory(shared / "conformance" / "parser")) {
    for (const auto& c : fs::directory_iterator(shared / "conformance" / "parser")) {
      if (!fs::exists(c.path() / "output.log")) continue;
      fs::path definition = c.path() / "profile" / "results-definition.xml";
      if (!fs::exists(definition) && fs::is_directory(c.path() / "extends"))
        for (const auto& e : fs::recursive_directory_iterator(c.path() / "extends"))
          if (e.path().filename() == "results-definition.xml") definition = e.path();
      if (!fs::exists(definition)) continue;
      std::string arguments;
      try {
        arguments = nlohmann::json::parse(Read(c.path() / "case.json")).value("arguments", "");
      } catch (const nlohmann::json::exception&) {
      }
      std::string log = Read(c.path() / "output.log");
      if (log.size() > kMaxSeed / 2) log.resize(kMaxSeed / 2);
      Put(out / "results_parser", n, Read(definition) + '\0' + arguments + '\0' + log);
    }
  }
  // Profile zips as acquire_test carries them: a built-in one, and the first profiles of the corpus.
  n = 0;
  Put(out / "profile_zip", n,
      ptsn::ob::WriteZip({{"test-definition.xml", "<PhoronixTestSuite><TestInformation/></PhoronixTestSuite>"},
                          {"install.sh", "#!/bin/sh\necho ok\n"}}));
  const fs::path corpus = shared / "corpus" / "test-profiles" / "pts";
  if (!shared.empty() && fs::is_directory(corpus)) {
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(corpus))
      if (e.is_directory()) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    for (size_t i = 0; i < dirs.size() && i < 16; ++i) Put(out / "profile_zip", n, ptsn::ob::WriteZip(ptsn::ob::DirectoryEntries(dirs[i].string())));
  }

  // Servers' answers: the recorded exchanges of PTS's client with OpenBenchmarking.org.
  n = 0;
  Put(out / "ob_answers", n, R"({"tests":{},"suites":{}})");
  const fs::path answers = shared / "reference" / "pts-output" / "ob-client-requests";
  if (!shared.empty() && fs::is_directory(answers))
    for (const auto& e : fs::directory_iterator(answers))
      if (e.path().extension() == ".json") Put(out / "ob_answers", n, Read(e.path()));

  // Requests on a connection (the first byte says where the target cuts them into two reads): the
  // ways PTS's client, curl and our agents frame them, pipelined, and framing the server refuses.
  n = 0;
  const std::string get = "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n";
  const std::string form = ptsn::wire::EncodeForm({{"r", "clone_openbenchmarking_result"}, {"i", "1110088-AR-1110066AR56"}});
  const std::string xml = ptsn::server::testing::SampleCompositeXml("Seed", 1, 1, 1);
  char size[32];
  std::snprintf(size, sizeof size, "%zx;ext=1\r\n", xml.size());
  for (const std::string& bytes : {
           get,
           "\r\n" + get + get,
           "POST /f/client.php HTTP/1.1\r\nHost: t\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: " +
               std::to_string(form.size()) + "\r\n\r\n" + form + get,
           "POST /api/v1/results HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n" + std::string(size) + xml +
               "\r\n0\r\nX-Trailer: 1\r\n\r\n" + get,
           std::string("GET / HTTP/1.1\nHost: t\n\n"),
           "POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + get,
       })
    Put(out / "request_stream", n, std::string(1, static_cast<char>(n * 37)) + bytes);

  // Names to join below a folder: the first byte picks one name (even) or a relative path (odd).
  n = 0;
  for (const char* name : {"\0dbench-4.0.tar.gz", "\0../../victim2", "\0/etc/passwd", "\1patches/a.diff", "\1a/../b",
                           "\1dir/", "\0..x", "\1a//b", "\0a\\b", "\1./x"})
    Put(out / "path_below", n, std::string(name, std::char_traits<char>::length(name + 1) + 1));

  // View links: OpenBenchmarking's options (and their obr_ forms), then optionally a result file.
  n = 0;
  for (const char* query : {"nor&hgv%5B%5D=A&hnr&hlc&hni&sgm", "obr_nor=1&obr_hgv=B+%26+%22C%22&rmm%5B%5D=A&rmmi",
                            "oss=fs-mark,dbench&noss=monitor", "hgv=%3Cscript%3Ealert(1)%3C/script%3E&oss=%3Cimg%20src=x%3E",
                            "rmm=C+%3Cb%3E&hgv=A&hgv=B+%26+%22C%22&nor", "hgv[]=Home_DD_Encryption&oss=x",
                            "shm&spr&swl&grs&sor&rro&ftt=A&ftb=C+%3Cb%3E&export=csv",
                            "obr_grt&sro&rdt&ftt=B+%26+%22C%22&ftb=A&export=html",
                            "gru&export=pdf&ftt=A,B&ftb=",
                            "cmw&obr_imw&nor&hgv=A%3A+x",
                            // cmw and imw on a multi-way file: one test under two option sets (condensed), one
                            // other (transposed), and the systems.
                            "obr_cmw&imw\n"
                            "<?xml version=\"1.0\"?><PhoronixTestSuite><Generated><Title>t</Title><LastModified>2026-01-01 00:00:00</"
                            "LastModified><TestClient>x</TestClient><Description>d</Description></Generated><System><Identifier>A: x<"
                            "/Identifier><Hardware>h</Hardware><Software>s</Software><User>u</User><TimeStamp>2026-01-01 00:00:00</Ti"
                            "meStamp><TestClientVersion>10.8.6</TestClientVersion><Notes></Notes></System><System><Identifier>B: x</I"
                            "dentifier><Hardware>h</Hardware><Software>s</Software><User>u</User><TimeStamp>2026-01-01 00:00:00</Time"
                            "Stamp><TestClientVersion>10.8.6</TestClientVersion><Notes></Notes></System><Result><Identifier>pts/dbenc"
                            "h-1.0.0</Identifier><Title>Dbench</Title><AppVersion>4.0</AppVersion><Arguments>a</Arguments><Descriptio"
                            "n>Client Count: 1</Description><Scale>MB/s</Scale><Proportion>HIB</Proportion><DisplayFormat>BAR_GRAPH</"
                            "DisplayFormat><Data><Entry><Identifier>A: x</Identifier><Value>1</Value></Entry><Entry><Identifier>B: x<"
                            "/Identifier><Value>2</Value></Entry></Data></Result><Result><Identifier>pts/dbench-1.0.0</Identifier><Ti"
                            "tle>Dbench</Title><AppVersion>4.0</AppVersion><Arguments>a</Arguments><Description>Client Count: 6</Desc"
                            "ription><Scale>MB/s</Scale><Proportion>HIB</Proportion><DisplayFormat>BAR_GRAPH</DisplayFormat><Data><En"
                            "try><Identifier>A: x</Identifier><Value>3</Value></Entry></Data></Result><Result><Identifier>pts/fs-mark"
                            "-1.0.0</Identifier><Title>FS-Mark</Title><AppVersion>4.0</AppVersion><Arguments>a</Arguments><Descriptio"
                            "n>Test: 1000 Files</Description><Scale>MB/s</Scale><Proportion>HIB</Proportion><DisplayFormat>BAR_GRAPH<"
                            "/DisplayFormat><Data><Entry><Identifier>A: x</Identifier><Value>4</Value></Entry><Entry><Identifier>B: x"
                            "</Identifier><Value></Value></Entry></Data></Result></PhoronixTestSuite>",
                            "nor&hgv=A\n<?xml version=\"1.0\"?><PhoronixTestSuite><Generated><Title>t</Title></Generated>"
                            "<System><Identifier>&lt;img src=x onerror=1&gt;</Identifier></System></PhoronixTestSuite>"})
    Put(out / "viewer_options", n, query);

  std::cout << "seeds written to " << out.string() << (shared.empty() ? " (built-in samples only)" : "") << "\n";
  return 0;
}
