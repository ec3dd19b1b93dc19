// `run <saved result>` when a test's profile needs a download: installed as `run` installs it
// (fetched from a loopback HTTP server, verified, cached); with --offline and nothing cached it
// is listed "needs download, offline" instead, and the network is never touched.
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <filesystem>
#include <iostream>

#include "results-xml/model/result_xml.h"
#include "runner/common/atomic_file.h"
#include "runner/install/checksum.h"
#include "runner/install/install_test_support.h"
#include "tests/cli/run_binary.h"
#include "tests/reproduce/published_file.h"

namespace ptsn {
namespace {

namespace fs = std::filesystem;

std::pair<int, std::string> PtsNative(const std::string& env, const std::string& args) {
  auto r = test::RunPtsNative(args, env);
  return {r.exit_code, r.output};
}

using testing::Put;

results::ResultFile Published() {
  return testing::TwoSystemPublished("Fetched Published", "Built for the reproduce download test.",
                                    {{"local/missing-1.0.0", "Missing"}, {"local/fetched-1.0.0", "Fetched"}});
}

TEST(ReproduceDownload, InstallsWhatNeedsADownloadUnlessOffline) {
  fs::path root = fs::path(::testing::TempDir()) / ("reproduce-download-" + std::to_string(getpid()));
  fs::remove_all(root);
  install::test::LoopbackServer server;
  server.Serve("/payload.txt", "4\n");

  // A profile whose run script prints the number it downloaded, and one whose download is gone.
  fs::path profile = root / "profiles/local/missing-1.0.0";
  Put(profile / "downloads.xml",
      "<?xml version=\"1.0\"?>\n<PhoronixTestSuite><Downloads><Package><URL>" + server.Url("/gone.txt") +
          "</URL><FileName>gone.txt</FileName></Package></Downloads></PhoronixTestSuite>\n");
  profile = root / "profiles/local/fetched-1.0.0";
  Put(profile / "payload-copy", "4\n");
  auto digests = install::ComputeDigests((profile / "payload-copy").string());
  fs::remove(profile / "payload-copy");
  Put(profile / "downloads.xml",
      "<?xml version=\"1.0\"?>\n<PhoronixTestSuite><Downloads><Package><URL>" + server.Url("/payload.txt") +
          "</URL><SHA256>" + digests.sha256 + "</SHA256><FileName>payload.txt</FileName><FileSize>2</FileSize>"
          "</Package></Downloads></PhoronixTestSuite>\n");
  Put(profile / "install.sh",
      "#!/bin/sh\nv=$(cat payload.txt)\nprintf '#!/bin/sh\\necho \"Score: 4%s.5\" > \"$LOG_FILE\"\\n' \"$v\" > fetched\n"
      "chmod +x fetched\n");
  Put(profile / "results-definition.xml",
      "<?xml version=\"1.0\"?>\n<PhoronixTestSuite><ResultsParser><OutputTemplate>Score: #_RESULT_#</OutputTemplate>"
      "</ResultsParser></PhoronixTestSuite>\n");
  Put(profile / "test-definition.xml",
      "<?xml version=\"1.0\"?>\n<PhoronixTestSuite><TestInformation><Title>Fetched</Title><AppVersion>1.0</AppVersion>"
      "<ResultScale>Points</ResultScale><Proportion>HIB</Proportion><Executable>fetched</Executable>"
      "<TimesToRun>2</TimesToRun></TestInformation><TestProfile><Version>1.0.0</Version>"
      "<SupportedPlatforms>Linux</SupportedPlatforms><SoftwareType>Utility</SoftwareType><TestType>System</TestType>"
      "<License>Free</License><EstimatedTimePerRun>1</EstimatedTimePerRun></TestProfile></PhoronixTestSuite>\n");

  for (const char* name : {"install.sh", "results-definition.xml", "test-definition.xml"})
    fs::copy_file(profile / name, root / "profiles/local/missing-1.0.0" / name);

  std::string home = (root / "home").string();
  MakeDirectories(home + "/test-results/fetched-pub");
  results::WriteResultFile(home + "/test-results/fetched-pub/composite.xml", Published());
  std::string env = "PTS_NATIVE_PTS_HOME=" + (root / "no-pts").string() + " PTS_NATIVE_CONFIG=/dev/null PTS_NATIVE_HOME=" +
                    home + " PTS_NATIVE_PROFILES_DIR=" + (root / "profiles").string() +
                    " PTS_NATIVE_SERVER=http://127.0.0.1:9 TEST_RESULTS_IDENTIFIER='This Box' ";
  std::string run = "run fetched-pub --non-interactive";

  // Offline and in no cache: listed with the reason, nothing fetched, nothing run without consent.
  auto [c1, o1] = PtsNative(env, run + " --offline");
  EXPECT_NE(c1, 0) << o1;
  EXPECT_NE(o1.find("CANNOT RUN local/fetched-1.0.0: local/fetched-1.0.0: needs download, offline"), std::string::npos)
      << o1;
  EXPECT_NE(o1.find("CANNOT RUN local/missing-1.0.0: local/missing-1.0.0: needs download, offline"), std::string::npos)
      << o1;
  EXPECT_TRUE(server.Requests().empty());

  // Online: both planned as ordinary runs; the one whose download is gone is left out, named,
  // and the other is fetched, installed, run and appended (exit 1: not everything ran).
  auto [c2, o2] = PtsNative(env, run);
  EXPECT_EQ(c2, 1) << o2;
  if (std::getenv("PTSN_TEST_VERBOSE")) std::cout << o2;
  EXPECT_NE(o2.find("run      local/fetched-1.0.0"), std::string::npos) << o2;
  EXPECT_NE(o2.find("run      local/missing-1.0.0"), std::string::npos) << o2;
  EXPECT_NE(o2.find("Not run, installing failed: local/missing-1.0.0: downloading failed"), std::string::npos) << o2;
  EXPECT_NE(o2.find("local/fetched-1.0.0: installed"), std::string::npos) << o2;
  auto requests = server.Requests();
  EXPECT_EQ(std::count(requests.begin(), requests.end(), "/payload.txt"), 1);
  EXPECT_GE(std::count(requests.begin(), requests.end(), "/gone.txt"), 1);
  auto file = results::ReadResultFile(home + "/test-results/fetched-pub/composite.xml");
  ASSERT_EQ(file.results.size(), 2u);
  EXPECT_EQ(file.results[0].entries.size(), 2u) << "nothing for the test that did not install";
  ASSERT_EQ(file.results[1].entries.size(), 3u);
  EXPECT_EQ(file.results[1].entries[2].identifier, "This Box");
  EXPECT_EQ(file.results[1].entries[2].value, "44.5");

  // Installed now: offline plans it as a run too.
  auto [c3, o3] = PtsNative(env, run + " --offline --dry-run");
  EXPECT_EQ(c3, 0) << o3;
  EXPECT_NE(o3.find("run      local/fetched-1.0.0"), std::string::npos) << o3;
  EXPECT_NE(o3.find("CANNOT RUN local/missing-1.0.0"), std::string::npos) << o3;
  EXPECT_EQ(server.Requests().size(), requests.size());
  fs::remove_all(root);
}

}  // namespace
}  // namespace ptsn
