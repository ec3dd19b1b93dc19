#include "runner/reproduce/resolve.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "results-xml/model/result_xml.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/error_of.h"
#include "runner/common/shared_dir.h"

namespace ptsn::reproduce {

namespace {

namespace fs = std::filesystem;

std::string SeedXml() {
  std::string path = ::ptsn::SharedDir() + "/reference/seed-results/ubuntu-1304-disk-encryption.xml";
  return fs::exists(path) ? ReadFile(path) : "";
}

struct Homes {
  // One directory per test and process: ctest runs the tests of this file in parallel.
  fs::path root = fs::path(::testing::TempDir()) /
                  ("reproduce-resolve-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
                   "-" + std::to_string(::getpid()));
  std::string ours = (root / "ours").string(), pts = (root / "pts").string();
  Homes() {
    fs::remove_all(root);
    MakeDirectories(ours);
    MakeDirectories(pts);
  }
  ~Homes() { fs::remove_all(root); }
  ResolveOptions Options(std::vector<std::string> servers = {"http://a", "http://b"}) const {
    return {{ours, pts}, ours, servers, false};
  }
};

}  // namespace

TEST(Resolve, SavedResultWinsAndNoServerIsAsked) {
  std::string xml = SeedXml();
  if (xml.empty()) GTEST_SKIP() << "shared reference tree absent";
  Homes h;
  MakeDirectories(h.pts + "/1110088-AR-1110066AR56");
  WriteFileAtomically(h.pts + "/1110088-AR-1110066AR56/composite.xml", xml);
  int calls = 0;
  auto r = ResolveResult("1110088-AR-1110066AR56", h.Options(), [&](const std::string&, const std::string&) {
    ++calls;
    return std::string();
  });
  EXPECT_EQ(calls, 0);
  EXPECT_FALSE(r.cloned);
  // The PTS home's file is left alone; the reproduction works on our copy.
  EXPECT_EQ(r.path, h.ours + "/1110088-AR-1110066AR56/composite.xml");
  EXPECT_EQ(ReadFile(h.pts + "/1110088-AR-1110066AR56/composite.xml"), xml);
  EXPECT_EQ(r.file.generated.title, "Ubuntu 13.04 Disk Encryption Benchmarking");
}

TEST(Resolve, ClonesFromTheFirstServerThatHasItAndSetsReferenceId) {
  std::string xml = SeedXml();
  if (xml.empty()) GTEST_SKIP() << "shared reference tree absent";
  Homes h;
  std::vector<std::string> asked;
  auto r = ResolveResult("1304250-PH-UBUNTU13045", h.Options(), [&](const std::string& server, const std::string& id) {
    asked.push_back(server + " " + id);
    if (server == "http://a") throw Error("clone: http://a answered HTTP 404: no result 1304250-PH-UBUNTU13045");
    return xml;
  });
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_EQ(asked[1], "http://b 1304250-PH-UBUNTU13045");
  EXPECT_TRUE(r.cloned);
  EXPECT_EQ(r.path, h.ours + "/1304250-PH-UBUNTU13045/composite.xml");
  auto saved = results::ReadResultFile(r.path);
  EXPECT_EQ(saved.generated.reference_id, "1304250-PH-UBUNTU13045");
  EXPECT_EQ(saved.results.size(), r.file.results.size());
}

TEST(Resolve, ClearErrorsWhenNothingAnswers) {
  Homes h;
  auto never = [](const std::string&, const std::string&) -> std::string { throw Error("must not be asked"); };
  auto message = [&](const std::string& name, const ResolveOptions& o, const Cloner& c) {
    return test::ErrorOf([&] { ResolveResult(name, o, c); });
  };
  EXPECT_NE(message("my-result", h.Options(), never).find("is not a result ID"), std::string::npos);
  EXPECT_NE(message("../etc", h.Options(), never).find("no saved result '../etc'"), std::string::npos);
  auto offline = h.Options();
  offline.offline = true;
  EXPECT_NE(message("1110088-AR-1110066AR56", offline, never).find("network.offline"), std::string::npos);
  EXPECT_NE(message("1110088-AR-1110066AR56", h.Options({}), never).find("no results server is configured"),
            std::string::npos);
  std::string both = message("1110088-AR-1110066AR56", h.Options(), [](const std::string& s, const std::string&) -> std::string {
    throw Error("clone: " + s + " refused");
  });
  EXPECT_NE(both.find("clone: http://a refused; clone: http://b refused"), std::string::npos) << both;
  // A server answering garbage is an error naming the server, and nothing is saved.
  std::string bad = message("1110088-AR-1110066AR56", h.Options({"http://a"}),
                            [](const std::string&, const std::string&) { return std::string("<html>"); });
  EXPECT_NE(bad.find("http://a result 1110088-AR-1110066AR56"), std::string::npos) << bad;
  EXPECT_FALSE(fs::exists(h.ours + "/1110088-AR-1110066AR56/composite.xml"));
}

}  // namespace ptsn::reproduce
