// Helpers shared by the load, fault and database-restart tests: one protocol upload, and a
// storage backend (SQLite directory or a fresh PostgreSQL schema) for a server process.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <pqxx/pqxx>
#include <random>
#include <thread>

#include "runner/openbenchmarking/wire.h"
#include "server/store/result_id.h"
#include "server/testing/pg_schema.h"
#include "server/testing/sample_result.h"
#include "tests/server/server_process.h"

namespace ptsn::test {

namespace fs = std::filesystem;
using nlohmann::json;

inline int EnvCount(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

// The status a protocol answer stands for: refusals on /f/client.php come with HTTP 200, as
// OpenBenchmarking.org sends them (PTS reads no other), the status in openbenchmarking.upload.status.
inline int ProtocolStatus(int http_status, const std::string& body) {
  if (http_status != 200) return http_status;
  json j = json::parse(body, nullptr, false);
  const json::json_pointer error("/openbenchmarking/upload/error"), status("/openbenchmarking/upload/status");
  if (j.is_object() && j.contains(error) && j.contains(status) && j[status].is_number_integer()) return j[status].get<int>();
  return http_status;
}

struct Acked {
  std::string id, xml;
};

// One protocol upload; returns the ID or "" (and the reason) on failure. `bzip2`: the file goes
// as composite_xml_bz, as a PTS with PHP's bz2 extension sends it, else as a stock PTS sends it.
inline std::string UploadOnce(httplib::Client& http, const std::string& token, const std::string& xml, std::string* why,
                              bool bzip2 = false) {
  wire::Upload up;
  up.xml = xml;
  wire::FormFields fields = wire::EncodeUpload(up);
  if (bzip2) {
    for (auto& [name, value] : fields) {
      if (name != "composite_xml" && name != "composite_xml_gz") continue;
      name = "composite_xml_bz";
      value = wire::Base64Encode(wire::Bzip2Compress(xml, 8));
    }
  }
  httplib::Headers h{{"Authorization", "Bearer " + token}};
  auto res = http.Post("/f/client.php", h, wire::EncodeForm(fields), "application/x-www-form-urlencoded");
  if (!res) {
    *why = "no response (" + httplib::to_string(res.error()) + ")";
    return "";
  }
  if (int status = ProtocolStatus(res->status, res->body); status != 200) {
    *why = "HTTP " + std::to_string(status) + ": " + res->body;
    return "";
  }
  return json::parse(res->body)["openbenchmarking"]["upload"].value("id", "");
}

// A storage backend for the server process: SQLite in a temp dir or a fresh PostgreSQL schema.
struct Backend {
  std::string dir;
  std::unique_ptr<ptsn::server::testing::PgTestSchema> schema;
  std::vector<std::string> args;
  std::string skip;
  explicit Backend(bool postgres) {
    std::random_device rd;
    dir = (fs::temp_directory_path() / ("ptsn_load_" + std::to_string(rd()))).string();
    fs::create_directories(dir);
    if (!postgres) {
      args = {"--data", dir, "--write-rate", "0"};
      return;
    }
    const char* pg = std::getenv("PTSN_TEST_PG");
    if (!pg || !*pg) {
      skip = "PTSN_TEST_PG is not set (contrib/start-test-services.sh starts a PostgreSQL)";
      return;
    }
    schema = std::make_unique<ptsn::server::testing::PgTestSchema>("ptsn_load_" + std::to_string(rd() % 1000000));
    args = {"--database", schema->conninfo, "--data", dir, "--write-rate", "0"};
  }
  ~Backend() {
    schema.reset();
    fs::remove_all(dir);
  }
  std::string Token(const char* user) {
    auto [rc, out] = Shell(std::string(PTSN_SERVER_BINARY) + " token create " + user + " " + Quoted());
    EXPECT_EQ(rc, 0) << out;
    return LastLine(out);
  }
  std::string Quoted() {
    std::string s;
    for (const auto& a : args) s += "\"" + a + "\" ";
    return s;
  }
};


}  // namespace ptsn::test
