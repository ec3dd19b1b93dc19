// End-to-end: the profile commands of the built pts-native binary.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "runner/common/atomic_file.h"
#include "tests/cli/run_binary.h"

namespace fs = std::filesystem;
using nlohmann::json;
using ptsn::test::RunPtsNative;

namespace {

const std::string kFixtures = std::string(PTSN_SOURCE_DIR) + "/runner/profile/testdata/profiles";

std::string Q(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// A private PTS_NATIVE_HOME with nothing from the real user's PTS home.
struct Home {
  fs::path dir = fs::temp_directory_path() / ("ptsn-profiles-cli-" + std::to_string(getpid()));
  Home() { fs::create_directories(dir / "pts-home"); }
  ~Home() { fs::remove_all(dir); }
  std::string Env() const {
    return "PTS_NATIVE_HOME=" + dir.string() + " PTS_NATIVE_PTS_HOME=" + (dir / "pts-home").string() +
           " PTS_NATIVE_CONFIG=" + (dir / "none.yaml").string();
  }
};

}  // namespace

TEST(ProfileCli, DebugResultParserJsonMatchesEveryConformanceCase) {
  std::string cases = std::string(PTSN_SHARED_DIR) + "/conformance/parser";
  if (!fs::is_directory(cases)) GTEST_SKIP() << cases << " is absent";
  Home home;
  int n = 0, ok = 0;
  for (const auto& e : fs::directory_iterator(cases)) {
    if (!fs::exists(e.path() / "case.json")) continue;
    ++n;
    json c = json::parse(ptsn::ReadFile((e.path() / "case.json").string()));
    json want = json::parse(ptsn::ReadFile((e.path() / "expected.json").string()))["results"];
    auto r = RunPtsNative("debug-result-parser " + Q((e.path() / "profile").string()) + " " +
                              Q((e.path() / "output.log").string()) + " --args " + Q(c.value("arguments", "")) +
                              " --description " + Q(c.value("description", "")) + " --json",
                          home.Env(), false);
    EXPECT_EQ(r.exit_code, 0) << e.path();
    json got = json::parse(r.output, nullptr, false);
    json expected = json::array();
    for (const auto& w : want)
      expected.push_back({{"value", w["value"]}, {"scale", w["scale"]}, {"proportion", w["proportion"]},
                          {"description", w["description"]}});
    if (got == expected) ++ok;
    else ADD_FAILURE() << e.path().filename() << ": got " << r.output << " want " << expected.dump();
  }
  std::cout << "debug-result-parser --json: " << ok << "/" << n << " cases match\n";
}

TEST(ProfileCli, DebugResultParserExplainsAndPrintsEmptyArrayWhenNothingMatches) {
  Home home;
  std::string dir = kFixtures + "/local/mini-2.0.0";
  fs::path log = home.dir / "out.log";
  ptsn::WriteFileAtomically(log.string(), "nothing useful\n");
  auto r = RunPtsNative("debug-result-parser " + dir + " " + log.string() + " --json", home.Env(), false);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output, "[]\n");
  ptsn::WriteFileAtomically(log.string(), "x\nSpeed: 12.5 MB/s\n");
  r = RunPtsNative("debug-result-parser " + dir + " " + log.string() + " --args '--bs=4k --read' --json", home.Env(), false);
  json got = json::parse(r.output);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0]["value"], "12.5");
  EXPECT_EQ(got[0]["description"], "Block Size: 4KB - Mode: Read");  // derived from the options
  r = RunPtsNative("debug-result-parser " + dir + " " + log.string() + " --args '--bs=4k --read'", home.Env());
  EXPECT_NE(r.output.find("search key 'Speed:'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("RESULT  12.5 MB/s"), std::string::npos) << r.output;
}

TEST(ProfileCli, ValidateExitsZeroWhenTheProfileLoads) {
  Home home;
  auto ok = RunPtsNative("validate-test-profile " + kFixtures + "/local/mini-2.0.0", home.Env());
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  auto bad = RunPtsNative("validate-test-profile " + kFixtures + "/local/malformed-1.0.0", home.Env());
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_NE(bad.output.find("malformed-1.0.0/test-definition.xml:5: malformed XML"), std::string::npos) << bad.output;
}

TEST(ProfileCli, ValidateReportsFilesPtsDoesNotAllowInATestPackage) {
  // PTS's validate-test-profile fails a profile holding any file outside its permitted list
  // ("stand-in-for.xml is not allowed in the test package."); ours names the file as a warning
  // (--strict fails), and no bundled profile holds one.
  Home home;
  fs::path copy = home.dir / "local/extra-2.0.0";
  fs::create_directories(copy);
  for (const auto& f : fs::directory_iterator(kFixtures + "/local/mini-2.0.0")) fs::copy(f.path(), copy / f.path().filename());
  auto clean = RunPtsNative("validate-test-profile --strict --no-schemas " + copy.string(), home.Env());
  EXPECT_EQ(clean.output.find("not allowed"), std::string::npos) << clean.output;
  ptsn::WriteFileAtomically((copy / "stand-in-for.xml").string(), "<StandInFor/>");
  auto extra = RunPtsNative("validate-test-profile --strict --no-schemas " + copy.string(), home.Env());
  EXPECT_EQ(extra.exit_code, 1) << extra.output;
  EXPECT_NE(extra.output.find("stand-in-for.xml: not allowed in the test package"), std::string::npos) << extra.output;
  const fs::path bundled = fs::path(PTSN_SOURCE_DIR) / "profiles";
  for (const char* repo : {"native", "debian"})
    for (const auto& dir : fs::directory_iterator(bundled / repo)) {
      auto r = RunPtsNative("validate-test-profile --no-schemas " + dir.path().string(), home.Env());
      EXPECT_EQ(r.output.find("not allowed in the test package"), std::string::npos) << r.output;
    }
}

TEST(ProfileCli, UserProfilesAreFoundWithAndWithoutVersion) {
  Home home;
  fs::path trivial = home.dir / "test-profiles/local/trivial-1.0.0";
  fs::create_directories(trivial);
  fs::copy(kFixtures + "/pts/other-1.0.0/test-definition.xml", trivial / "test-definition.xml");
  fs::copy(kFixtures + "/pts/other-1.0.0/results-definition.xml", trivial / "results-definition.xml");
  for (const char* name : {"local/trivial-1.0.0", "local/trivial", "trivial"}) {
    auto r = RunPtsNative(std::string("info ") + name, home.Env());
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.output;
    EXPECT_NE(r.output.find("(local/trivial-1.0.0)"), std::string::npos) << r.output;
    EXPECT_EQ(RunPtsNative(std::string("validate-test-profile ") + name, home.Env()).exit_code, 0) << name;
  }
  auto list = RunPtsNative("list-available-tests --type processor", home.Env());
  EXPECT_NE(list.output.find("local/trivial-1.0.0"), std::string::npos) << list.output;
  auto none = RunPtsNative("list-available-tests --type Graphics", home.Env());
  EXPECT_EQ(none.output.find("local/trivial"), std::string::npos) << none.output;
}

TEST(ProfileCli, InfoShowsOptionsAndPresetSyntax) {
  Home home;
  auto r = RunPtsNative("info " + kFixtures + "/local/mini-2.0.0", home.Env());
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("PRESET_OPTIONS='mini.block-size=64KB (large)'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[default]"), std::string::npos);
  EXPECT_NE(r.output.find("build-utilities, python"), std::string::npos);
  auto missing = RunPtsNative("info local/nope", home.Env());
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.output.find("test profile 'local/nope' not found"), std::string::npos) << missing.output;
}
