// The server's settings in one table: each has a name, used three ways (the option --NAME, the
// config file's key NAME, the environment variable PTS_NATIVE_SERVER_<NAME>, upper case with
// '_' for '-'), a description and its default, which lives in the option structs it sets
// (ServerOptions, ServerLimits, FleetOptions) and nowhere else. Precedence, as the runner's
// settings table (runner/common/settings.h): command line > environment > config file > default.
// The config file is --config FILE (or PTS_NATIVE_SERVER_CONFIG): YAML, one `name: value` per
// setting, e.g. `listen: 0.0.0.0:8080`. `--help` and `pts-native-server config` come from the table.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runner/common/args.h"
#include "runner/common/settings.h"
#include "server/app.h"
#include "server/http/http_server.h"

namespace ptsn::server {

// Everything the server's commands are configured with.
struct ServerConfig {
  std::string data = "pts-native-server-data";  // where the SQLite database lives
  std::string database;                          // postgresql://...; "" = SQLite in `data`
  std::string listen = "127.0.0.1:8080";
  std::string downloads;                         // "" = data/downloads
  std::uint64_t disk_reserve = kDefaultDiskReserve;
  ServerOptions options;
  http::ServerLimits limits;

  std::string DownloadsDir() const { return downloads.empty() ? data + "/downloads" : downloads; }
  // Test profiles served as OpenBenchmarking.org serves them (profile_mirror.h).
  std::string MirrorDir() const { return data + "/openbenchmarking.org"; }
};

struct ServerSetting {
  const char* name;        // --name, `name:` in the config file, PTS_NATIVE_SERVER_NAME
  const char* value_name;  // shown in --help ("N", "S", "URL"); "" for a switch (true when given)
  const char* description;
  std::function<void(ServerConfig&, const std::string&)> set;  // throws ptsn::Error naming the value
  std::function<std::string(const ServerConfig&)> get;
};

// The table (server_settings.cc).
const std::vector<ServerSetting>& ServerSettings();
// PTS_NATIVE_SERVER_<NAME>.
std::string EnvironmentName(const ServerSetting& setting);

// The options every command takes: the settings' and --config, --help.
ArgSpec ServerArgSpec(const std::vector<std::string>& command_options);

enum class Origin { kDefault, kConfigFile, kEnvironment, kCommandLine };
struct ResolvedConfig {
  ServerConfig config;
  std::vector<Origin> origins;  // of each setting, in the table's order
  std::string config_file;      // "" = none
};

// Each setting from the command line, the environment, the config file or its default. Throws
// ptsn::Error naming the option, variable or file (and its key) with what is wrong.
ResolvedConfig ResolveServerConfig(const Args& args, const EnvLookup& env);

// The options part of --help: each setting with its value name, description, default and
// environment variable.
std::string SettingsHelp();
// `pts-native-server config`: each setting's value and where it came from.
std::string DescribeConfig(const ResolvedConfig& resolved);

}  // namespace ptsn::server
