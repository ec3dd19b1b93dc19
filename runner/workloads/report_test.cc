#include "runner/workloads/report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace ptsn::workloads {
namespace {

TEST(Report, TextAndJsonFromTheSameFields) {
  Report r;
  r.Text("cipher", "Cipher", "aes-256-xts").Integer("threads", "Threads", 2).Number("encrypt_mib_per_s", "Encrypt", 1234.5678, "MiB/s");
  r.Null("decrypt_mib_per_s").Flag("backend_auto", true).Number("hidden", "", 1.0);
  EXPECT_EQ(r.ToText(), "Cipher: aes-256-xts\nThreads: 2\nEncrypt: 1234.57 MiB/s\n");
  auto j = nlohmann::json::parse(r.ToJson());
  EXPECT_EQ(j["cipher"], "aes-256-xts");
  EXPECT_EQ(j["threads"], 2);
  EXPECT_NEAR(j["encrypt_mib_per_s"].get<double>(), 1234.568, 1e-9);
  EXPECT_TRUE(j["decrypt_mib_per_s"].is_null());
  EXPECT_EQ(j["backend_auto"], true);
  EXPECT_EQ(r.ToJson().find('\n'), r.ToJson().size() - 1);
}

}  // namespace
}  // namespace ptsn::workloads
