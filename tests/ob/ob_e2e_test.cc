// End-to-end on loopback: pts-native-server as an OpenBenchmarking mirror (import-profiles,
// import-result) and the pts-native client resolving pts/ profiles and result IDs through it,
// the copy of 1110088-AR-1110066AR56 bundled for when no server answers, a profile zip whose
// sha1 does not match being refused, and --offline opening no socket (an LD_PRELOAD shim that
// records and refuses every IPv4/IPv6 socket).
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "results-xml/model/result_xml.h"
#include "runner/common/atomic_file.h"
#include "runner/common/shared_dir.h"
#include "runner/common/strings.h"
#include "runner/openbenchmarking/profile_zip.h"
#include "runner/openbenchmarking/protocol.h"
#include "tests/server/server_process.h"

namespace ptsn {
namespace {

namespace fs = std::filesystem;
using test::ServerProcess;
using test::Shell;

const std::string kSeedId = "1110088-AR-1110066AR56";
const std::string kCorpus = ::ptsn::SharedDir() + "/corpus/test-profiles";
const std::string kSeed = ::ptsn::SharedDir() + "/reference/seed-results/1110088-AR-1110066AR56.xml";
constexpr char kDeadServer[] = "http://127.0.0.1:9";  // nothing listens there

struct Scratch {
  fs::path root = fs::path(::testing::TempDir()) /
                  ("ptsn-ob-e2e-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" +
                   std::to_string(getpid()));
  Scratch() { fs::remove_all(root); fs::create_directories(root); }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  // A fresh pts-native home with nothing from the machine's own PTS home or config.
  std::string Home(const std::string& name) const {
    return "PTS_NATIVE_CONFIG=/dev/null PTS_NATIVE_PTS_HOME=" + (root / "no-pts").string() +
           " PTS_NATIVE_HOME=" + (root / name).string() + " ";
  }
};

std::string Server(const std::string& args) { return std::string(PTSN_SERVER_BINARY) + " " + args; }
std::string Client(const std::string& args) { return std::string(PTSN_BINARY) + " " + args; }

// A mirror of the whole public corpus, imported once for the tests of this binary.
const std::string& CorpusMirror() {
  static const std::string data = [] {
    std::string dir = (fs::path(::testing::TempDir()) / ("ptsn-ob-mirror-" + std::to_string(getpid()))).string();
    fs::remove_all(dir);
    auto [code, out] = Shell(Server("import-profiles " + kCorpus + " --data " + dir));
    EXPECT_EQ(code, 0) << out;
    auto [rc, rout] = Shell(Server("import-result " + kSeed + " --id " + kSeedId + " --data " + dir));
    EXPECT_EQ(rc, 0) << rout;
    return dir;
  }();
  return data;
}

TEST(ObMirror, ImportProfilesIsShapedLikeOpenBenchmarkingAndIdempotent) {
  if (!fs::is_directory(kCorpus)) GTEST_SKIP() << kCorpus << " is absent";
  Scratch s;
  std::string data = (s.root / "srv").string();
  auto [c1, o1] = Shell(Server("import-profiles " + kCorpus + " --data " + data));
  ASSERT_EQ(c1, 0) << o1;
  EXPECT_NE(o1.find("Imported 604 test profiles (604 new or changed, 0 unchanged)"), std::string::npos) << o1;
  auto index = ob::DecodeRepoIndex(ReadFile(data + "/openbenchmarking.org/pts.index"));
  ASSERT_EQ(index.tests.count("fs-mark"), 1u);
  const ob::IndexTest& fs_mark = index.tests["fs-mark"];
  EXPECT_EQ(fs_mark.title, "FS-Mark");
  EXPECT_EQ(fs_mark.test_type, "Disk");
  EXPECT_EQ(fs_mark.versions, std::vector<std::string>{"1.0.3"});
  EXPECT_EQ(fs_mark.supported_platforms, std::vector<std::string>{"Linux"});
  auto entries = ob::ReadZip(ReadFile(data + "/openbenchmarking.org/pts/fs-mark-1.0.3.zip"));
  std::vector<std::string> names;
  for (const auto& e : entries) names.push_back(e.name);
  EXPECT_EQ(names, (std::vector<std::string>{"downloads.xml", "install.sh", "results-definition.xml", "test-definition.xml"}));
  EXPECT_EQ(entries[3].data, ReadFile(kCorpus + "/pts/fs-mark-1.0.3/test-definition.xml"));
  // Again: nothing changes, the zips keep their bytes (and so their sha1).
  std::string zip_before = ReadFile(data + "/openbenchmarking.org/pts/fs-mark-1.0.3.zip");
  auto [c2, o2] = Shell(Server("import-profiles " + kCorpus + " --data " + data));
  ASSERT_EQ(c2, 0) << o2;
  EXPECT_NE(o2.find("(0 new or changed, 604 unchanged)"), std::string::npos) << o2;
  EXPECT_EQ(ReadFile(data + "/openbenchmarking.org/pts/fs-mark-1.0.3.zip"), zip_before);
  // A newer version joins the index, newest first, and describes the test.
  fs::path extra = s.root / "extra/pts/fs-mark-1.0.9";
  fs::create_directories(extra);
  for (const auto& e : fs::directory_iterator(kCorpus + "/pts/fs-mark-1.0.3")) fs::copy(e.path(), extra / e.path().filename());
  auto [c3, o3] = Shell(Server("import-profiles " + (s.root / "extra").string() + " --data " + data));
  ASSERT_EQ(c3, 0) << o3;
  index = ob::DecodeRepoIndex(ReadFile(data + "/openbenchmarking.org/pts.index"));
  EXPECT_EQ(index.tests["fs-mark"].versions, (std::vector<std::string>{"1.0.9", "1.0.3"}));
  EXPECT_GT(index.tests.size(), 500u);
}

TEST(ObMirror, ImportResultKeepsTheOriginalIdAndRefusesAnother) {
  if (!fs::exists(kSeed)) GTEST_SKIP() << kSeed << " is absent";
  Scratch s;
  std::string data = (s.root / "srv").string();
  auto [c1, o1] = Shell(Server("import-result " + kSeed + " --id " + kSeedId + " --data " + data));
  EXPECT_EQ(c1, 0) << o1;
  EXPECT_NE(o1.find("Stored"), std::string::npos) << o1;
  auto [c2, o2] = Shell(Server("import-result " + kSeed + " --id " + kSeedId + " --data " + data));
  EXPECT_EQ(c2, 0) << o2;
  EXPECT_NE(o2.find("Already stored"), std::string::npos) << o2;
  std::string other = ::ptsn::SharedDir() + "/reference/seed-results/ubuntu-1304-disk-encryption.xml";
  auto [c3, o3] = Shell(Server("import-result " + other + " --id " + kSeedId + " --data " + data));
  EXPECT_NE(c3, 0) << o3;
  EXPECT_NE(o3.find("already holds a different result file"), std::string::npos) << o3;
  auto [c4, o4] = Shell(Server("import-result " + other + " --id not-an-id --data " + data));
  EXPECT_NE(c4, 0) << o4;

  // Served under that ID, to the clone request PTS makes.
  ServerProcess server({"--data", data});
  auto [c5, o5] = Shell(s.Home("h") + Client("clone-result " + kSeedId + " --server " + server.url()));
  ASSERT_EQ(c5, 0) << o5;
  auto cloned = results::ReadResultFile((s.root / "h/test-results" / kSeedId / "composite.xml").string());
  EXPECT_EQ(cloned.generated.reference_id, kSeedId);
  EXPECT_EQ(cloned.generated.title, "AES-NI Performance: eCryptfs vs. dmcrypt");
  EXPECT_EQ(cloned.results.size(), 15u);
}

TEST(ObMirror, AFreshHomeResolvesProfilesThroughTheServerThenWorksFromItsCache) {
  if (!fs::is_directory(kCorpus)) GTEST_SKIP() << kCorpus << " is absent";
  Scratch s;
  auto server = std::make_unique<ServerProcess>(std::vector<std::string>{"--data", CorpusMirror()});
  const std::string url = server->url(), home = s.Home("h");
  auto [c1, o1] = Shell(home + Client("info pts/fs-mark --server " + url));
  ASSERT_EQ(c1, 0) << o1;
  EXPECT_NE(o1.find("FS-Mark 3.3  (pts/fs-mark-1.0.3)"), std::string::npos) << o1;
  EXPECT_TRUE(fs::exists(s.root / "h/cache/openbenchmarking.org/pts.index"));
  EXPECT_TRUE(fs::exists(s.root / "h/cache/openbenchmarking.org/pts/fs-mark-1.0.3.zip"));
  EXPECT_TRUE(fs::exists(s.root / "h/cache/test-profiles/pts/fs-mark-1.0.3/test-definition.xml"));
  // A profile and its <Extends> parent (pts/iozone is not extended in the corpus; pts/tiobench
  // stands alone too): the listing marks what is not downloaded yet.
  auto [c2, o2] = Shell(home + Client("list-available-tests --type Disk --server " + url));
  ASSERT_EQ(c2, 0) << o2;
  EXPECT_NE(o2.find("pts/fio-"), std::string::npos) << o2;
  EXPECT_NE(o2.find("(not downloaded)"), std::string::npos) << o2;
  for (const auto& line : Split(o2, '\n'))
    if (line.find("pts/fs-mark-1.0.3") != std::string::npos) {
      EXPECT_EQ(line.find("not downloaded"), std::string::npos) << line;
    }

  // The server goes away: the same commands work from the cache.
  server.reset();
  auto [c3, o3] = Shell(home + Client("info pts/fs-mark --server " + url));
  EXPECT_EQ(c3, 0) << o3;
  EXPECT_NE(o3.find("(pts/fs-mark-1.0.3)"), std::string::npos) << o3;
  auto [c4, o4] = Shell(home + Client("info pts/fs-mark --offline"));
  EXPECT_EQ(c4, 0) << o4;
  // A profile never fetched: named, with the reason.
  auto [c5, o5] = Shell(home + Client("info pts/fio --offline"));
  EXPECT_NE(c5, 0) << o5;
  EXPECT_NE(o5.find("pts/fio-"), std::string::npos) << o5;
  EXPECT_NE(o5.find("offline"), std::string::npos) << o5;
}

TEST(ObMirror, RunIdClonesByOriginalIdAndPlansWithoutWriting) {
  if (!fs::is_directory(kCorpus) || !fs::exists(kSeed)) GTEST_SKIP() << "shared reference tree absent";
  Scratch s;
  ServerProcess server({"--data", CorpusMirror()});
  fs::create_directories(s.root / "tmp");
  auto [c, o] = Shell("TMPDIR=" + (s.root / "tmp").string() + " " + s.Home("h") +
                      Client("run " + kSeedId + " --dry-run --server " + server.url()));
  ASSERT_EQ(c, 0) << o;
  EXPECT_NE(o.find("cloned from " + server.url()), std::string::npos) << o;
  EXPECT_NE(o.find("Fetched test profiles: "), std::string::npos) << o;
  EXPECT_NE(o.find("pts/fs-mark-1.0.3 (for pts/fs-mark-1.0.0)"), std::string::npos) << o;
  EXPECT_NE(o.find("Plan: 7 tests"), std::string::npos) << o;
  size_t plan_lines = 0;  // one line per test begins with what happens to it
  for (const auto& line : Split(o, '\n'))
    if (StartsWith(line, "run ") || StartsWith(line, "STAND-IN ") || StartsWith(line, "CANNOT RUN ")) ++plan_lines;
  EXPECT_EQ(plan_lines, 7u) << o;
  EXPECT_FALSE(fs::exists(s.root / "h/test-results" / kSeedId)) << "--dry-run wrote the clone";
  // Nothing at all: the profiles it fetched were read from a scratch directory, now removed.
  std::error_code ec;
  for (const auto& dir : {s.root / "h", s.root / "tmp"})
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      EXPECT_FALSE(it->is_regular_file()) << "--dry-run left " << it->path();
  EXPECT_NE(o.find("(not kept: --dry-run)"), std::string::npos) << o;
}

TEST(ObMirror, NoServerFallsBackToTheBundledCopyAndAnyOtherIdSaysWhatToDo) {
  Scratch s;
  for (const std::string& how : {std::string("--server ") + kDeadServer, std::string("--offline")}) {
    auto [c, o] = Shell(s.Home("h") + Client("run " + kSeedId + " --dry-run " + how));
    EXPECT_EQ(c, 0) << how << ": " << o;
    EXPECT_NE(o.find("using the copy bundled with pts-native, a reconstruction"), std::string::npos) << o;
    EXPECT_NE(o.find("Plan: 7 tests"), std::string::npos) << o;
    EXPECT_FALSE(fs::exists(s.root / "h/test-results" / kSeedId)) << "--dry-run wrote the bundled copy";
  }
  auto [c1, o1] = Shell(s.Home("h") + Client("clone-result " + kSeedId + " --server " + kDeadServer));
  EXPECT_EQ(c1, 0) << o1;
  auto saved = results::ReadResultFile((s.root / "h/test-results" / kSeedId / "composite.xml").string());
  EXPECT_NE(saved.generated.description.find("[Reconstruction shipped with pts-native"), std::string::npos);
  EXPECT_EQ(saved.generated.reference_id, kSeedId);

  const std::string other = "1234567-AB-CDEFGHIJKLM";
  // Standard error alone: ( ... 2>&1 >/dev/null ).
  auto [c2, o2] = Shell("(" + s.Home("h") + Client("run " + other + " --dry-run --server " + kDeadServer) + " 2>&1 >/dev/null)");
  EXPECT_NE(c2, 0) << o2;
  EXPECT_EQ(Split(Trim(o2), '\n').size(), 1u) << "one line: " << o2;
  EXPECT_NE(o2.find(kDeadServer), std::string::npos) << o2;
  EXPECT_NE(o2.find("--server URL"), std::string::npos) << o2;
  EXPECT_NE(o2.find("/test-results/" + other + "/composite.xml"), std::string::npos) << o2;
}

TEST(ObMirror, TheBundledCopyIsTheReferenceReconstructionWithItsNote) {
  if (!fs::exists(kSeed)) GTEST_SKIP() << kSeed << " is absent";
  std::string bundled = ReadFile(std::string(PTSN_SOURCE_DIR) + "/bundled-results/" + kSeedId + "/composite.xml");
  auto ours = results::ParseResultFile(bundled, "bundled");
  auto seed = results::ReadResultFile(kSeed);
  EXPECT_TRUE(StartsWith(ours.generated.description, seed.generated.description));
  EXPECT_NE(ours.generated.description.find("trial values (RawString) and the CPU usage series are synthetic"),
            std::string::npos);
  ours.generated.description = seed.generated.description;
  EXPECT_EQ(results::SerializeResultFile(ours), results::SerializeResultFile(seed));
}

// A server that answers the index properly but sends a zip whose sha1 is not the one it names.
TEST(ObMirror, AProfileZipWhoseSha1DoesNotMatchIsRefused) {
  Scratch s;
  ob::RepoIndexDoc index;
  index.generated = 1;
  index.tests["fs-mark"].versions = {"1.0.3"};
  index.tests["fs-mark"].title = "FS-Mark";
  std::string zip = ob::WriteZip({{"test-definition.xml", "<PhoronixTestSuite/>", false}});
  httplib::Server svr;
  svr.Post("/f/client.php", [&](const httplib::Request& req, httplib::Response& res) {
    std::string r = req.get_param_value("r");
    if (r == "repo_index") res.set_content(ob::EncodeRepoIndex(index), "application/json");
    else if (r == "acquire_test") res.set_content(ob::EncodeAcquireTest({zip, wire::Sha1Hex("tampered"), "", ""}), "application/json");
    else res.status = 404;
  });
  int port = svr.bind_to_any_port("127.0.0.1");
  std::thread t([&] { svr.listen_after_bind(); });
  auto [c, o] = Shell(s.Home("h") + Client("info pts/fs-mark --server http://127.0.0.1:" + std::to_string(port)));
  svr.stop();
  t.join();
  EXPECT_NE(c, 0) << o;
  EXPECT_NE(o.find("sha1"), std::string::npos) << o;
  EXPECT_FALSE(fs::exists(s.root / "h/cache/test-profiles/pts/fs-mark-1.0.3"));
  EXPECT_FALSE(fs::exists(s.root / "h/cache/openbenchmarking.org/pts/fs-mark-1.0.3.zip"));
}

// --offline opens no socket: every IPv4/IPv6 socket() and connect() goes through a shim that
// records it. The same command without --offline is recorded, so the shim does see them.
TEST(ObMirror, OfflineOpensNoSocket) {
  Scratch s;
  const std::string log = (s.root / "connects.log").string();
  const std::string shim = "LD_PRELOAD=" + std::string(PTSN_NO_CONNECT_LIB) + " PTSN_CONNECT_LOG=" + log + " ";
  for (const std::string& cmd : std::vector<std::string>{"info pts/fio --offline", "list-available-tests --offline",
                                                         "run " + kSeedId + " --dry-run --offline",
                                                         "clone-result 2611305-ME-AESNIPERF01 --offline"}) {
    auto [c, o] = Shell(shim + s.Home("h") + Client(cmd + " --server " + kDeadServer));
    EXPECT_FALSE(fs::exists(log)) << cmd << " opened a socket: " << (fs::exists(log) ? ReadFile(log) : "") << o;
    if (cmd.find("info") == 0) {
      EXPECT_NE(o.find("Missing from the cache: pts/fio"), std::string::npos) << o;
    }
    if (cmd.find("clone-result") == 0) {
      EXPECT_NE(o.find("offline"), std::string::npos) << o;
    }
  }
  auto [c, o] = Shell(shim + s.Home("h") + Client(std::string("info pts/fio --server ") + kDeadServer));
  EXPECT_NE(c, 0);
  ASSERT_TRUE(fs::exists(log)) << "the shim saw no socket of the online command: " << o;
  EXPECT_NE(ReadFile(log).find("socket domain=2"), std::string::npos);
}

}  // namespace
}  // namespace ptsn
