#include "runner/common/settings.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "runner/common/error.h"

namespace fs = std::filesystem;

namespace {

ptsn::EnvLookup FakeEnv(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(Settings, DefaultsDeriveFromHome) {
  auto s = ptsn::Settings::Load(FakeEnv({{"HOME", "/home/u"}}));
  EXPECT_EQ(s.Home(), "/home/u/.local/share/pts-native");
  EXPECT_EQ(s.ResultsDirectory(), "/home/u/.local/share/pts-native/test-results");
  EXPECT_EQ(s.GetWithOrigin("home").origin, ptsn::SettingOrigin::kDefault);
  EXPECT_EQ(s.config_path(), "/home/u/.config/pts-native/config.yaml");
  EXPECT_FALSE(s.GetBool("server.upload"));
}

TEST(Settings, EnvironmentBeatsConfigFileBeatsDefault) {
  fs::path dir = fs::temp_directory_path() / ("ptsn-settings-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "config.yaml") << "run:\n  sd_threshold: 3.5\n  max_runs: 9\n";
  auto s = ptsn::Settings::Load(
      FakeEnv({{"HOME", "/home/u"}, {"PTS_NATIVE_HOME", dir.string()}, {"PTS_NATIVE_MAX_RUNS", "12"}}));
  EXPECT_EQ(s.Home(), dir.string());
  EXPECT_EQ(s.ResultsDirectory(), dir.string() + "/test-results");
  EXPECT_DOUBLE_EQ(s.GetDouble("run.sd_threshold"), 3.5);
  EXPECT_EQ(s.GetWithOrigin("run.sd_threshold").origin, ptsn::SettingOrigin::kConfigFile);
  EXPECT_EQ(s.GetInt("run.max_runs"), 12);
  EXPECT_EQ(s.GetWithOrigin("run.max_runs").origin, ptsn::SettingOrigin::kEnvironment);
  s.SetFromCommandLine("run.max_runs", "4");
  EXPECT_EQ(s.GetInt("run.max_runs"), 4);
  fs::remove_all(dir);
}

TEST(Settings, MalformedConfigNamesTheFile) {
  fs::path dir = fs::temp_directory_path() / ("ptsn-settings-bad-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "config.yaml") << "run: [unclosed\n";
  try {
    ptsn::Settings::Load(FakeEnv({{"HOME", "/h"}, {"PTS_NATIVE_HOME", dir.string()}}));
    FAIL();
  } catch (const ptsn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("config.yaml"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

TEST(Settings, UserConfigSetWritesTheConfigFileAndKeepsOtherSettings) {
  fs::path dir = fs::temp_directory_path() / ("ptsn-settings-set-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "config.yaml").string();
  std::ofstream(path) << "run:\n  max_runs: 9\nserver:\n  url: http://x:1\n";
  EXPECT_EQ(ptsn::SetInConfigFile(path, "run.sd_threshold", "3.5"), "run.sd_threshold");
  // A PTS user-config option by its tag, or its whole path, sets the setting it stands for.
  EXPECT_EQ(ptsn::SetInConfigFile(path, "DynamicRunCount", "FALSE"), "run.dynamic_run_count");
  EXPECT_EQ(ptsn::SetInConfigFile(path, "PhoronixTestSuite/Options/Testing/ResultsDirectory", dir.string() + "/r"),
            "results.directory");
  auto s = ptsn::Settings::Load(FakeEnv({{"HOME", "/h"}, {"PTS_NATIVE_CONFIG", path}}));
  EXPECT_DOUBLE_EQ(s.GetDouble("run.sd_threshold"), 3.5);
  EXPECT_EQ(s.GetInt("run.max_runs"), 9);
  EXPECT_EQ(s.Get("server.url"), "http://x:1");
  EXPECT_FALSE(s.GetBool("run.dynamic_run_count"));
  EXPECT_EQ(s.ResultsDirectory(), dir.string() + "/r");
  EXPECT_THROW(ptsn::SetInConfigFile(path, "run.max_runs", "many"), ptsn::Error);
  EXPECT_THROW(ptsn::SetInConfigFile(path, "run.dynamic_run_count", "maybe"), ptsn::Error);
  EXPECT_THROW(ptsn::SetInConfigFile(path, "AnonymousUsageReporting", "FALSE"), ptsn::Error);  // no such setting here
  EXPECT_EQ(ptsn::Settings::Load(FakeEnv({{"HOME", "/h"}, {"PTS_NATIVE_CONFIG", path}})).GetInt("run.max_runs"), 9);
  // A new file is created.
  const std::string fresh = (dir / "sub" / "new.yaml").string();
  ptsn::SetInConfigFile(fresh, "run.max_runs", "7");
  EXPECT_EQ(ptsn::Settings::Load(FakeEnv({{"HOME", "/h"}, {"PTS_NATIVE_CONFIG", fresh}})).GetInt("run.max_runs"), 7);
  fs::remove_all(dir);
}

TEST(Settings, UnknownKeyAndBadNumbersAreErrors) {
  auto s = ptsn::Settings::Load(FakeEnv({{"HOME", "/h"}, {"PTS_NATIVE_MAX_RUNS", "many"}}));
  EXPECT_THROW(s.Get("no.such.key"), ptsn::Error);
  EXPECT_THROW(s.GetInt("run.max_runs"), ptsn::Error);
}

}  // namespace
