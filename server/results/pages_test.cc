// The server's result page draws a reproduction's stand-in that measured in another unit on a
// chart of its own (its own unit), never as a bar on the original's axis.
#include "server/results/pages.h"

#include <gtest/gtest.h>

#include "results-xml/model/comparison_hash.h"
#include "results-xml/model/result_xml.h"

namespace ptsn::server {
namespace {

TEST(ResultPage, AStandInInAnotherUnitHasItsOwnChart) {
  results::ResultFile f;
  f.generated.title = "Reproduced";
  for (const char* who : {"Published A", "This Box"}) {
    results::System s;
    s.identifier = who;
    f.systems.push_back(s);
  }
  results::Result fio;
  fio.identifier = "pts/fio-1.2.0";
  fio.title = "Flexible IO Tester";
  fio.app_version = "1.57";
  fio.scale = "Seconds";
  fio.proportion = "LIB";
  fio.entries = {{"Published A", "101.5", "101:102", std::nullopt}};
  results::Result own;
  own.identifier = "native/file-server-1.0.0";
  own.title = "Native File Server";
  own.app_version = "1.0";
  own.scale = "MiB/s";
  own.proportion = "HIB";
  own.entries = {{"This Box", "7777.5", "7777:7778",
                  "{\"stand-in\":\"native\\/file-server-1.0.0 for pts\\/fio-1.2\",\"stand-in-for\":\"" +
                      results::ComparisonHash(fio) + "\"}"}};
  f.results = {fio, own};
  StoredResult stored;
  stored.id = "2611305-ME-REPRO000001";
  stored.owner = "me";
  stored.xml = results::SerializeResultFile(f);
  const std::string html = RenderResultPage({std::make_shared<const StoredResult>(stored)});
  const size_t original = html.find("Flexible IO Tester");
  const size_t chart = html.find("Native File Server");
  ASSERT_NE(original, std::string::npos);
  ASSERT_NE(chart, std::string::npos);
  EXPECT_EQ(html.substr(original, chart - original).find("This Box *"), std::string::npos)
      << "no bar of the stand-in on the Seconds chart";
  EXPECT_NE(html.find("This Box *", chart), std::string::npos);
  EXPECT_NE(html.find("MiB/s", chart), std::string::npos);
  EXPECT_NE(html.find("STAND-IN: native/file-server-1.0.0 for pts/fio-1.2 (not the original program)"), std::string::npos);
}

}  // namespace
}  // namespace ptsn::server
