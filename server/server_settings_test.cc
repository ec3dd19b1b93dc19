#include "server/server_settings.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include "runner/common/error.h"

namespace ptsn::server {
namespace {

namespace fs = std::filesystem;

// Every option pts-native-server took before its settings had a table: each still works.
const std::vector<std::string> kOldValueOptions = {
    "--data", "--database", "--listen", "--public-url", "--threads", "--write-rate", "--write-burst",
    "--address-write-rate", "--address-write-burst", "--max-body", "--max-body-memory", "--max-xml", "--cpu-slots",
    "--cache-seconds", "--max-connections", "--max-connections-per-address", "--header-timeout", "--body-timeout",
    "--trust-proxy", "--dedupe-seconds", "--disk-reserve", "--downloads", "--fleet-lease", "--fleet-poll",
    "--fleet-return", "--fleet-queue", "--fleet-offline", "--fleet-webhook", "--fleet-min-change", "--fleet-window"};
const std::vector<std::string> kOldSwitches = {"--anonymous-uploads", "--public-fleet"};

struct Fixture {
  std::map<std::string, std::string> env;
  EnvLookup Env() const {
    return [this](const std::string& name) -> std::optional<std::string> {
      auto it = env.find(name);
      return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
  }
  ResolvedConfig Resolve(const std::vector<std::string>& argv) const {
    return ResolveServerConfig(Args::Parse(argv, ServerArgSpec({"--id", "--agent"})), Env());
  }
};

class ConfigFile {
 public:
  explicit ConfigFile(const std::string& text)
      : path_((fs::temp_directory_path() / ("ptsn_server_config_" + std::to_string(std::random_device{}()) + ".yaml")).string()) {
    std::ofstream(path_) << text;
  }
  ~ConfigFile() { fs::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string ValueOf(const ResolvedConfig& r, const std::string& name) {
  for (const auto& s : ServerSettings())
    if (s.name == name) return s.get(r.config);
  ADD_FAILURE() << "no setting " << name;
  return "";
}

TEST(ServerSettings, DefaultsAreTheOptionStructs) {
  const ResolvedConfig r = Fixture{}.Resolve({});
  EXPECT_EQ(r.config.listen, "127.0.0.1:8080");
  EXPECT_EQ(r.config.limits.workers, http::ServerLimits{}.workers);
  EXPECT_EQ(r.config.options.fleet.limits.lease_seconds, ServerOptions{}.fleet.limits.lease_seconds);
  EXPECT_EQ(r.config.DownloadsDir(), "pts-native-server-data/downloads");
  EXPECT_EQ(r.config.options.mirror_dir, "pts-native-server-data/openbenchmarking.org");
  for (Origin o : r.origins) EXPECT_EQ(o, Origin::kDefault);
  EXPECT_NE(SettingsHelp().find("--threads N\n"), std::string::npos) << SettingsHelp();
  EXPECT_NE(SettingsHelp().find("default 64; PTS_NATIVE_SERVER_THREADS"), std::string::npos) << SettingsHelp();
}

TEST(ServerSettings, EveryOldOptionSpellingStillSetsItsSetting) {
  for (const auto& flag : kOldValueOptions) {
    const std::string value = flag == "--listen" ? "0.0.0.0:1" : flag == "--trust-proxy" ? "10.0.0.1,10.0.0.2" : "7";
    const ResolvedConfig r = Fixture{}.Resolve({flag, value});
    EXPECT_EQ(ValueOf(r, flag.substr(2)), value) << flag;
    EXPECT_EQ(ValueOf(r, flag.substr(2)) == ValueOf(Fixture{}.Resolve({}), flag.substr(2)), false) << flag << " changed nothing";
  }
  for (const auto& flag : kOldSwitches) EXPECT_EQ(ValueOf(Fixture{}.Resolve({flag}), flag.substr(2)), "true") << flag;
  const ResolvedConfig r = Fixture{}.Resolve({"--max-body", "1000", "--public-fleet", "--trust-proxy", "10.0.0.1"});
  EXPECT_EQ(r.config.limits.max_body_bytes, 1000u) << "the HTTP layer's limit follows --max-body";
  EXPECT_TRUE(r.config.options.fleet.public_reads);
  EXPECT_EQ(r.config.limits.trusted_proxies, std::vector<std::string>{"10.0.0.1"});
  EXPECT_EQ(ServerSettings().size(), kOldValueOptions.size() + kOldSwitches.size()) << "a setting without a test here";
}

TEST(ServerSettings, CommandLineOverEnvironmentOverConfigFile) {
  const ConfigFile file("threads: 8\nlisten: 0.0.0.0:9000\npublic-fleet: true\nfleet-min-change: 2.5\n");
  Fixture f;
  f.env["PTS_NATIVE_SERVER_THREADS"] = "16";
  f.env["PTS_NATIVE_SERVER_MAX_CONNECTIONS_PER_ADDRESS"] = "0";
  ResolvedConfig r = f.Resolve({"--config", file.path(), "--threads", "32"});
  EXPECT_EQ(r.config.limits.workers, 32);
  EXPECT_EQ(r.config.listen, "0.0.0.0:9000");
  EXPECT_TRUE(r.config.options.fleet.public_reads);
  EXPECT_DOUBLE_EQ(r.config.options.fleet.policy.min_change_pct, 2.5);
  EXPECT_EQ(r.config.limits.max_connections_per_address, 0u);
  const std::string described = DescribeConfig(r);
  EXPECT_NE(described.find("threads: 32  # command line"), std::string::npos) << described;
  EXPECT_NE(described.find("listen: 0.0.0.0:9000  # config file"), std::string::npos) << described;
  EXPECT_NE(described.find("max-connections-per-address: 0  # environment"), std::string::npos) << described;
  EXPECT_NE(described.find("data: pts-native-server-data  # default"), std::string::npos) << described;

  EXPECT_EQ(f.Resolve({"--config", file.path()}).config.limits.workers, 16);
  f.env.erase("PTS_NATIVE_SERVER_THREADS");
  f.env["PTS_NATIVE_SERVER_CONFIG"] = file.path();  // the file named by the environment
  EXPECT_EQ(f.Resolve({}).config.limits.workers, 8);
}

TEST(ServerSettings, BadValuesNameWhereTheyCameFrom) {
  auto error = [](const Fixture& f, const std::vector<std::string>& argv) {
    try {
      f.Resolve(argv);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  Fixture f;
  EXPECT_EQ(error(f, {"--threads", "12abc"}), "--threads: '12abc' is not a whole number");
  EXPECT_EQ(error(f, {"--threads", "-1"}), "--threads: '-1' is not a whole number");
  EXPECT_EQ(error(f, {"--threads", "99999999999"}), "--threads: '99999999999' is too large");
  EXPECT_EQ(error(f, {"--fleet-min-change", "much"}), "--fleet-min-change: 'much' is not a number");
  f.env["PTS_NATIVE_SERVER_PUBLIC_FLEET"] = "maybe";
  EXPECT_EQ(error(f, {}), "PTS_NATIVE_SERVER_PUBLIC_FLEET: 'maybe' is not true or false");
  const ConfigFile typo("thread: 8\n"), bad("body-timeout: soon\n"), nested("listen:\n  host: x\n"), list("- a\n");
  EXPECT_NE(error(Fixture{}, {"--config", typo.path()}).find("'thread' is not a setting"), std::string::npos);
  EXPECT_EQ(error(Fixture{}, {"--config", bad.path()}), bad.path() + ": body-timeout: 'soon' is not a whole number");
  EXPECT_NE(error(Fixture{}, {"--config", nested.path()}).find("listen: expected one value"), std::string::npos);
  EXPECT_NE(error(Fixture{}, {"--config", list.path()}).find("the top level must be a mapping"), std::string::npos);
  EXPECT_NE(error(Fixture{}, {"--config", "/nonexistent/server.yaml"}).find("/nonexistent/server.yaml"), std::string::npos);
}

}  // namespace
}  // namespace ptsn::server
