// The bundled profiles: valid against PTS's schemas, and every native profile's result templates
// match what `pts-native workload` really prints (so a renamed label cannot silently break them).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "runner/common/shared_dir.h"
#include "runner/workloads/test_dir.h"
#include "tests/cli/run_binary.h"

namespace fs = std::filesystem;

namespace {

std::string Slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const fs::path kProfiles = fs::path(PTSN_SOURCE_DIR) / "profiles";

TEST(BundledProfiles, ValidateAgainstPtsSchemas) {
  fs::path schemas = fs::path(::ptsn::SharedDir()) / "reference/schemas";
  if (!fs::exists(schemas)) GTEST_SKIP() << "no " << schemas;
  if (std::system("command -v xmllint >/dev/null 2>&1") != 0) GTEST_SKIP() << "xmllint not installed (libxml2-utils)";
  int checked = 0;
  for (const auto& e : fs::recursive_directory_iterator(kProfiles)) {
    std::string name = e.path().filename().string();
    std::string schema = name == "test-definition.xml"      ? "test-profile.xsd"
                         : name == "results-definition.xml" ? "results-parser.xsd"
                         : name == "suite-definition.xml"   ? "test-suite.xsd"
                                                            : "";
    if (schema.empty()) continue;
    std::string cmd = "xmllint --noout --nonet --schema " + (schemas / schema).string() + " " + e.path().string() + " 2>&1";
    EXPECT_EQ(std::system((cmd + " >/dev/null").c_str()), 0) << cmd;
    ++checked;
  }
  EXPECT_GE(checked, 30);
}

TEST(BundledProfiles, SuitesNameExistingProfiles) {
  std::regex test_re("<Test>([^<]+)</Test>");
  for (const auto& e : fs::recursive_directory_iterator(kProfiles / "suites")) {
    if (e.path().filename() != "suite-definition.xml") continue;
    std::string xml = Slurp(e.path());
    for (std::sregex_iterator it(xml.begin(), xml.end(), test_re), end; it != end; ++it) {
      std::string id = (*it)[1];  // repo/name, unversioned
      bool found = false;
      for (const auto& d : fs::directory_iterator(kProfiles / id.substr(0, id.find('/'))))
        if (d.path().filename().string().rfind(id.substr(id.find('/') + 1) + "-", 0) == 0) found = true;
      EXPECT_TRUE(found) << e.path() << " names " << id;
    }
  }
}

// Each native profile, the quick command standing in for its run script, and its templates.
TEST(BundledProfiles, NativeTemplatesMatchWorkloadOutput) {
  ptsn::workloads::testing::TempDir tmp;
  std::string dir = " --dir " + tmp.path();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"cipher-1.0.0", "workload cipher --seconds 0.05 --cipher aes-128-xts"},
      {"pbkdf2-1.0.0", "workload pbkdf2 --seconds 0.05 --hash sha256"},
      {"disk-seq-write-1.0.0", "workload disk --pattern seq-write --block-size 64k --size 1m" + dir},
      {"disk-seq-read-1.0.0", "workload disk --pattern seq-read --block-size 64k --size 1m" + dir},
      {"disk-rand-read-1.0.0", "workload disk --pattern rand-read --block-size 4k --size 1m" + dir},
      {"disk-rand-write-1.0.0", "workload disk --pattern rand-write --block-size 4k --size 1m" + dir},
      {"fs-files-1.0.0", "workload fs-files --files 5 --file-size 4k" + dir},
      {"mail-server-1.0.0", "workload mail-server --files 5 --transactions 20 --max-size 8k" + dir},
      {"file-server-1.0.0", "workload file-server --size 1m" + dir},
      {"sqlite-inserts-1.0.0", "workload sqlite --rows 5 --rows-per-transaction 2 --synchronous off" + dir},
  };
  std::regex tmpl_re("<OutputTemplate>([^<]*)#_RESULT_#");
  size_t seen = 0;
  for (const auto& [profile, command] : cases) {
    fs::path rd = kProfiles / "native" / profile / "results-definition.xml";
    ASSERT_TRUE(fs::exists(rd)) << rd;
    auto r = ptsn::test::RunPtsNative(command, "", false);
    ASSERT_EQ(r.exit_code, 0) << command << ": " << r.output;
    std::string xml = Slurp(rd);
    for (std::sregex_iterator it(xml.begin(), xml.end(), tmpl_re), end; it != end; ++it) {
      std::string prefix = (*it)[1];
      // PBKDF2 lines carry the hash name; the template is written for SHA-256.
      EXPECT_NE(r.output.find(prefix), std::string::npos) << profile << ": template prefix '" << prefix << "' not in:\n" << r.output;
      ++seen;
    }
  }
  EXPECT_GE(seen, cases.size());
  EXPECT_EQ(tmp.EntryCount(), 0u);
}

}  // namespace
