// `PTS_NATIVE_HOME=DIR TEST_RESULTS_IDENTIFIER=I pts-native run ID --server URL --non-interactive`
// against a real pts-native-server on loopback: clone, plan (original, stand-in, unavailable,
// derived), run, append, compare, validate, upload the merged file and clone it back.
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "results-xml/checks/validate.h"
#include "results-xml/model/comparison_hash.h"
#include "results-xml/model/result_xml.h"
#include "runner/client/ob_client.h"
#include "runner/common/atomic_file.h"
#include "runner/common/shared_dir.h"
#include "runner/common/strings.h"
#include "runner/reproduce/append.h"
#include "tests/server/server_process.h"

namespace ptsn {
namespace {

namespace fs = std::filesystem;
using test::ServerProcess;
using test::Shell;

results::Entry E(const std::string& who, const std::string& value, const std::string& raw) {
  return {who, value, raw, std::nullopt};
}

results::Result R(const std::string& id, const std::string& title, const std::string& args, const std::string& desc) {
  results::Result r;
  r.identifier = id;
  r.title = title;
  r.app_version = "1.0";
  r.arguments = args;
  r.description = desc;
  r.scale = "Points";
  r.proportion = "HIB";
  r.entries = {E("Published A", "43.5", "43.2:43.5:43.8"), E("Published B", "60.1", "60:60.1:60.2")};
  return r;
}

// The published result: a test that runs as stored, one only a stand-in can run, one that
// cannot run here at all, and a derived (monitor) result that is never re-run.
results::ResultFile Published() {
  results::ResultFile f;
  f.generated.title = "Tiny Published Comparison";
  f.generated.last_modified = "2026-11-01 10:00:00";
  f.generated.test_client = "Phoronix Test Suite v10.8.6";
  f.generated.description = "Built for the reproduce end-to-end test.";
  for (const char* name : {"Published A", "Published B"}) {
    results::System s;
    s.identifier = name;
    s.hardware = "Processor: Test CPU (2 Cores), Memory: 4096MB";
    s.software = "OS: Debian 12, Kernel: 6.1.0 (x86_64)";
    s.user = "publisher";
    s.timestamp = "2026-11-01 09:00:00";
    s.test_client_version = "10.8.6";
    s.notes = "";
    f.systems.push_back(s);
  }
  // Stored with MONITOR=cpu.usage: the tiny test has its CPU usage child (Parent = its hash).
  f.generated.preset_environment_variables = "MONITOR=cpu.usage";
  f.results.push_back(R("local/tiny-1.0.0", "Tiny", "--n 3", "N: 3"));
  results::Result child;
  child.title = "Tiny";
  child.app_version = "1.0";
  child.arguments = "CPU Usage (Summary) --n 3";
  child.description = "CPU Usage (Summary) Monitor";
  child.scale = "Percent";
  child.proportion = "LIB";
  child.display_format = "LINE_GRAPH";
  child.parent = results::ComparisonHash(f.results.back());
  child.entries = {E("Published A", "50.00,60.00,70.00,80.00,90.00,95.00,99.00", ""),
                   E("Published B", "40.00,45.00,50.00,55.00,60.00,65.00,70.00", "")};
  f.results.push_back(child);
  f.results.push_back(R("pts/fake-mark-1.0.0", "Fake Mark", "-n 7", "Count: 7"));
  child.title = "Fake Mark";
  child.arguments = "CPU Usage (Summary) -n 7";
  child.parent = results::ComparisonHash(f.results.back());
  f.results.push_back(child);
  f.results.push_back(R("pts/nothing-1.0.0", "Nothing", "", "Not here"));
  results::Result mon;
  mon.title = "CPU Usage Monitor";
  mon.arguments = "cpu.usage";
  mon.description = "Phoronix Test Suite System Monitoring";
  mon.scale = "Percent";
  mon.display_format = "LINE_GRAPH";
  mon.entries = {E("Published A", "10,20,30", ""), E("Published B", "15,25,35", "")};
  f.results.push_back(mon);
  return f;
}

std::string LastLine(const std::string& s) {
  auto lines = Split(Trim(s), '\n');
  return lines.empty() ? "" : Trim(lines.back());
}

// A scratch directory of this process's own (tests of two builds may run at once), removed after.
struct ScratchDir {
  explicit ScratchDir(const std::string& name)
      : path(fs::path(::testing::TempDir()) / (name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(path);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  fs::path path;
};

TEST(ReproduceE2E, RunIdAgainstALoopbackServer) {
  const ScratchDir scratch("reproduce-e2e");
  const fs::path& root = scratch.path;
  std::string data = (root / "server").string(), pub_home = (root / "publisher").string(),
              home = (root / "home").string();
  MakeDirectories(data);
  ServerProcess server({"--data", data});
  auto [tc, token_out] = Shell(std::string(PTSN_SERVER_BINARY) + " token create e2e --data " + data);
  ASSERT_EQ(tc, 0) << token_out;
  std::string token = LastLine(token_out);

  // Publish.
  results::ResultFile published = Published();
  MakeDirectories(pub_home + "/test-results/tiny-pub");
  results::WriteResultFile(pub_home + "/test-results/tiny-pub/composite.xml", published);
  std::string iso = "PTS_NATIVE_PTS_HOME=" + (root / "no-pts").string() + " PTS_NATIVE_CONFIG=/dev/null ";
  auto [uc, up] = Shell(iso + "PTS_NATIVE_HOME=" + pub_home + " " + PTSN_BINARY + " upload-result tiny-pub --server " +
                        server.url() + " --token " + token);
  ASSERT_EQ(uc, 0) << up;
  std::string id = LastLine(up);
  ASSERT_EQ(id.size(), 22u) << up;

  std::string env = iso + "PTS_NATIVE_HOME=" + home + " PTS_NATIVE_PROFILES_DIR=" + PTSN_SOURCE_DIR +
                    "/tests/reproduce/profiles TEST_RESULTS_IDENTIFIER='This Box' FORCE_TIMES_TO_RUN=2 "
                    // PTS's cpu.usage reads over a 1 s window; the native sampler can sample the
                    // sub-second tiny tests often enough for a monitor result (7 samples).
                    "MONITOR_INTERVAL=0.05 PTS_NATIVE_MONITOR_PTS_MODE=false ";
  std::string run = std::string(PTSN_BINARY) + " run " + id + " --server " + server.url() + " --non-interactive";

  // Without consent the unavailable test stops everything before it starts, naming it.
  auto [c1, o1] = Shell(env + run);
  EXPECT_NE(c1, 0) << o1;
  EXPECT_NE(o1.find("cannot run here (pass --skip-unavailable"), std::string::npos) << o1;
  EXPECT_NE(o1.find("pts/nothing-1.0.0"), std::string::npos) << o1;
  std::string saved = home + "/test-results/" + id + "/composite.xml";
  ASSERT_TRUE(fs::exists(saved)) << "the clone is saved before the plan is shown";
  EXPECT_EQ(results::ReadResultFile(saved).systems.size(), 2u);

  auto [c2, o2] = Shell(env + run + " --skip-unavailable --upload --token " + token);
  ASSERT_EQ(c2, 0) << o2;
  if (std::getenv("PTSN_TEST_VERBOSE")) std::cout << o2;
  EXPECT_NE(o2.find("STAND-IN local/tiny-standin-1.0.0 --n 7"), std::string::npos) << o2;
  EXPECT_NE(o2.find("This Box = "), std::string::npos) << o2;
  EXPECT_NE(o2.find("% of Published A"), std::string::npos) << o2;
  EXPECT_NE(o2.find("* STAND-IN: local/tiny-standin-1.0.0 for pts/fake-mark-1.0"), std::string::npos) << o2;

  auto file = results::ReadResultFile(saved);
  EXPECT_EQ(file.generated.reference_id, id);
  ASSERT_EQ(file.systems.size(), 3u);
  EXPECT_EQ(file.systems[2].identifier, "This Box");
  EXPECT_NE(file.systems[2].notes->find("Stand-ins (not the original programs): local/tiny-standin-1.0.0 for "
                                        "pts/fake-mark-1.0"),
            std::string::npos);
  // Every published result is still there under its own hash, in order, and nothing was added.
  ASSERT_EQ(file.results.size(), published.results.size());
  for (size_t i = 0; i < published.results.size(); ++i) {
    EXPECT_EQ(results::ComparisonHash(file.results[i]), results::ComparisonHash(published.results[i])) << i;
    int mine = 0;
    for (const auto& e : file.results[i].entries) mine += e.identifier == "This Box";
    // The tiny test, the stand-in's test and their CPU usage children (MONITOR from the published
    // file) gain this system; what cannot run and the session summary do not.
    EXPECT_EQ(mine, i < 4 ? 1 : 0) << "result " << i << " " << file.results[i].title << " " << file.results[i].arguments;
  }
  EXPECT_EQ(file.results[1].entries.back().identifier, "This Box");
  EXPECT_GT(Split(file.results[1].entries.back().value, ',').size(), 6u) << file.results[1].entries.back().value;
  EXPECT_NE(file.generated.preset_environment_variables.value_or("").find("MONITOR=cpu.usage"), std::string::npos);
  EXPECT_FALSE(reproduce::StandInOf(file.results[1].entries.back()));
  EXPECT_TRUE(reproduce::StandInOf(file.results[3].entries.back())) << "the stand-in's monitor child is marked too";
  const auto& original = file.results[0].entries.back();
  EXPECT_EQ(original.identifier, "This Box");
  EXPECT_FALSE(reproduce::StandInOf(original));
  EXPECT_EQ(Split(*original.raw_string, ':').size(), 2u);
  const auto& stand_in = file.results[2].entries.back();
  EXPECT_EQ(reproduce::StandInOf(stand_in), "local/tiny-standin-1.0.0 for pts/fake-mark-1.0");
  EXPECT_TRUE(StartsWith(stand_in.value, "47.")) << stand_in.value;

  // Valid, structurally and against PTS's schema when the shared tree is there.
  for (const auto& issue : results::ValidateResultFile(file)) EXPECT_FALSE(issue.error) << issue.where << ": " << issue.what;
  std::string xsd = ::ptsn::SharedDir() + "/reference/schemas/result-file.xsd";
  if (fs::exists(xsd)) {
    auto errors = results::ValidateAgainstSchema(ReadFile(saved), xsd);
    EXPECT_TRUE(errors.empty()) << Join(errors, "\n");
  }

  // The upload printed a new ID; the server gives back exactly what was saved.
  std::string new_id = LastLine(o2);
  ASSERT_EQ(new_id.size(), 22u) << o2;
  EXPECT_NE(new_id, id);
  EXPECT_EQ(client::ObClient({server.url()}, false).CloneResult(new_id).value.composite_xml, ReadFile(saved));

  // Running again resumes: nothing is left, the file keeps one entry per result.
  auto [c3, o3] = Shell(env + run + " --skip-unavailable");
  EXPECT_EQ(c3, 0) << o3;
  EXPECT_NE(o3.find("Nothing left to run for This Box"), std::string::npos) << o3;
  EXPECT_EQ(results::ReadResultFile(saved).results[0].entries.size(), 3u);
  EXPECT_EQ(results::ReadResultFile(saved).results[1].entries.size(), 3u);
}

TEST(ReproduceE2E, DryRunOfASavedSeedOpensNoSocket) {
  std::string seed = ::ptsn::SharedDir() + "/reference/seed-results/ubuntu-1304-disk-encryption.xml";
  if (!fs::exists(seed)) GTEST_SKIP() << "shared reference tree absent";
  const ScratchDir scratch("reproduce-dry");
  const fs::path& home = scratch.path;
  MakeDirectories((home / "test-results/ubuntu-1304").string());
  fs::copy_file(seed, home / "test-results/ubuntu-1304/composite.xml");
  // server.url points at a port nobody listens on: a saved result must not need it.
  auto [c, o] = Shell("PTS_NATIVE_CONFIG=/dev/null PTS_NATIVE_PTS_HOME=/nonexistent PTS_NATIVE_SERVER=http://127.0.0.1:9 "
                      "PTS_NATIVE_HOME=" + home.string() + " " + PTSN_BINARY + " reproduce ubuntu-1304 --dry-run");
  EXPECT_EQ(c, 0) << o;
  EXPECT_NE(o.find("Plan: 13 tests:"), std::string::npos) << o;
  EXPECT_NE(o.find("native/mail-server-1.0.0") != std::string::npos || o.find("debian/postmark-1.0.0") != std::string::npos,
            false) << o;
  EXPECT_NE(o.find("Compile Bench 0.6"), std::string::npos) << o;
}

}  // namespace
}  // namespace ptsn
