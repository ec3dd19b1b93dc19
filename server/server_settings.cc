#include "server/server_settings.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <limits>
#include <map>
#include <sstream>
#include <type_traits>

#include "runner/common/error.h"
#include "runner/common/strings.h"

namespace ptsn::server {

namespace {

void Parse(const std::string& v, std::string* out) { *out = v; }
void Parse(const std::string& v, std::vector<std::string>* out) { *out = v.empty() ? std::vector<std::string>{} : Split(v, ','); }
void Parse(const std::string& v, bool* out) {
  const std::string lower = ToLower(v);
  if (lower == "true" || lower == "1" || lower == "yes" || lower == "on") *out = true;
  else if (lower == "false" || lower == "0" || lower == "no" || lower == "off") *out = false;
  else throw Error("'" + v + "' is not true or false");
}
void Parse(const std::string& v, double* out) {
  try {
    size_t used = 0;
    *out = std::stod(v, &used);
    if (used == v.size()) return;
  } catch (const std::exception&) {
  }
  throw Error("'" + v + "' is not a number");
}
template <typename T>
  requires std::is_integral_v<T>
void Parse(const std::string& v, T* out) {
  if (v.empty() || v.size() > 19 || !std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw Error("'" + v + "' is not a whole number");
  const unsigned long long n = std::stoull(v);
  if (n > static_cast<unsigned long long>(std::numeric_limits<T>::max())) throw Error("'" + v + "' is too large");
  *out = static_cast<T>(n);
}

std::string Show(const std::string& v) { return v; }
std::string Show(const std::vector<std::string>& v) { return Join(v, ","); }
std::string Show(bool v) { return v ? "true" : "false"; }
std::string Show(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}
template <typename T>
  requires std::is_integral_v<T>
std::string Show(T v) {
  return std::to_string(v);
}

// A setting of the field `field(config)` returns (a generic lambda, for both constnesses).
template <typename Field>
ServerSetting Setting(const char* name, const char* value_name, const char* description, Field field) {
  return {name, value_name, description, [field](ServerConfig& c, const std::string& v) { Parse(v, &field(c)); },
          [field](const ServerConfig& c) { return Show(field(c)); }};
}
#define PTSN_FIELD(path) [](auto& c) -> auto& { return c.path; }

const char* OriginName(Origin o) {
  switch (o) {
    case Origin::kDefault: return "default";
    case Origin::kConfigFile: return "config file";
    case Origin::kEnvironment: return "environment";
    case Origin::kCommandLine: return "command line";
  }
  return "?";
}

// The config file's `name: value` pairs; a key that is no setting, or a value that is no scalar,
// is an error naming the file and the key.
std::map<std::string, std::string> ReadConfigFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw FileError(path, "no such config file");
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    throw FileError(path, "malformed YAML: " + std::string(e.what()));
  }
  std::map<std::string, std::string> values;
  if (!root || root.IsNull()) return values;
  if (!root.IsMap()) throw FileError(path, "the top level must be a mapping of setting names (e.g. 'listen: 0.0.0.0:8080')");
  for (const auto& kv : root) {
    const std::string key = kv.first.as<std::string>();
    const bool known = std::any_of(ServerSettings().begin(), ServerSettings().end(),
                                   [&](const ServerSetting& s) { return key == s.name; });
    if (!known) throw FileError(path, "'" + key + "' is not a setting (pts-native-server --help lists them)");
    if (!kv.second.IsScalar() && !kv.second.IsNull()) throw FileError(path, key + ": expected one value");
    values[key] = kv.second.IsNull() ? "" : kv.second.as<std::string>();
  }
  return values;
}

}  // namespace

const std::vector<ServerSetting>& ServerSettings() {
  static const std::vector<ServerSetting> table = {
      Setting("data", "DIR", "where the SQLite database lives", PTSN_FIELD(data)),
      Setting("database", "URL", "postgresql://... to use PostgreSQL instead of SQLite", PTSN_FIELD(database)),
      Setting("listen", "HOST:PORT", "address to serve on (port 0 picks a free one)", PTSN_FIELD(listen)),
      Setting("public-url", "URL", "base of the URLs in upload answers (empty: from the Host header)",
              PTSN_FIELD(options.public_url)),
      Setting("downloads", "DIR",
              "test downloads served as GET /downloads/<sha256> (empty: DATA/downloads; import-downloads fills it)",
              PTSN_FIELD(downloads)),
      Setting("threads", "N", "threads running requests; connections beyond them wait, idle or slow ones cost no thread",
              PTSN_FIELD(limits.workers)),
      Setting("cpu-slots", "N", "requests decoding/checking at once, the rest wait first come first served (0: one per core)",
              PTSN_FIELD(options.cpu_slots)),
      Setting("write-rate", "PER_SECOND", "uploads and deletes per second per token (0: no limit)",
              PTSN_FIELD(options.write_rate_per_second)),
      Setting("write-burst", "N", "... and the burst above that rate", PTSN_FIELD(options.write_burst)),
      Setting("address-write-rate", "PER_SECOND", "... per client address, all tokens together (-1: 10x write-rate)",
              PTSN_FIELD(options.address_rate_per_second)),
      Setting("address-write-burst", "N", "... and its burst (-1: 10x write-burst)", PTSN_FIELD(options.address_burst)),
      Setting("max-body", "BYTES", "a request's body, from a client with a valid token", PTSN_FIELD(options.max_body_bytes)),
      Setting("max-body-memory", "BYTES",
              "request bodies held in memory at once, all requests together; a request that would go over it gets 503 "
              "and Retry-After",
              PTSN_FIELD(limits.max_body_memory)),
      Setting("max-xml", "BYTES", "a result file after decompression", PTSN_FIELD(options.max_xml_bytes)),
      Setting("cache-seconds", "S",
              "how long fetched results and tokens are served from memory (0: off; bounds how late a delete by another "
              "server process is seen)",
              PTSN_FIELD(options.cache_seconds)),
      Setting("max-connections", "N", "open connections in all (at most the open-file limit less 256)",
              PTSN_FIELD(limits.max_connections)),
      Setting("max-connections-per-address", "N",
              "open connections from one address (0: no cap, e.g. behind a reverse proxy that caps them itself)",
              PTSN_FIELD(limits.max_connections_per_address)),
      Setting("header-timeout", "S",
              "a request's headers must be in within S seconds of the connection's start or previous answer (also the "
              "keep-alive idle time)",
              PTSN_FIELD(limits.header_timeout_seconds)),
      Setting("body-timeout", "S", "a request's body must be in within S seconds of its headers",
              PTSN_FIELD(limits.body_timeout_seconds)),
      Setting("trust-proxy", "ADDR[,ADDR...]", "addresses of reverse proxies whose X-Real-IP / X-Forwarded-For names the client",
              PTSN_FIELD(limits.trusted_proxies)),
      Setting("dedupe-seconds", "S",
              "the same file uploaded again with the same token within S seconds gets the first upload's ID (0: off)",
              PTSN_FIELD(options.dedupe_seconds)),
      Setting("disk-reserve", "BYTES",
              "SQLite: bytes kept beside the database (results.db-reserve), given up when its disk fills so writes come "
              "back once there is room for them (0: none)",
              PTSN_FIELD(disk_reserve)),
      Setting("fleet-lease", "S", "an agent's hold on a running task, renewed every S/3 (at least 3)",
              PTSN_FIELD(options.fleet.limits.lease_seconds)),
      Setting("fleet-poll", "S", "longest long-poll of an idle agent (a parked poll holds no thread)",
              PTSN_FIELD(options.fleet.poll_seconds)),
      Setting("fleet-return", "S",
              "a machine that lost a task's lease has S seconds to come back for the retry before the task fails",
              PTSN_FIELD(options.fleet.limits.return_seconds)),
      Setting("fleet-queue", "S", "a task no machine took within S seconds fails", PTSN_FIELD(options.fleet.limits.queue_seconds)),
      Setting("fleet-offline", "S", "machines not heard from in S seconds show as offline", PTSN_FIELD(options.fleet.offline_after)),
      Setting("fleet-webhook", "URL", "POST each regression/improvement there as JSON (empty: none)",
              PTSN_FIELD(options.fleet.webhook_url)),
      Setting("fleet-min-change", "PCT", "smaller change points are never flagged", PTSN_FIELD(options.fleet.policy.min_change_pct)),
      Setting("fleet-window", "N", "a machine's newest N results of a test are searched for change points",
              PTSN_FIELD(options.fleet.policy.window)),
      Setting("anonymous-uploads", "",
              "take r=upload_test_result without a token, as OpenBenchmarking.org does (what a stock PTS client sends); "
              "uploads are owned by 'anonymous'",
              PTSN_FIELD(options.anonymous_uploads)),
      Setting("public-fleet", "",
              "show the fleet (machines' hardware and software, jobs, schedules, history; the /fleet pages) without a "
              "token; by default only to a user's token",
              PTSN_FIELD(options.fleet.public_reads)),
  };
  return table;
}
#undef PTSN_FIELD

std::string EnvironmentName(const ServerSetting& setting) {
  std::string name = std::string("PTS_NATIVE_SERVER_") + setting.name;
  for (char& c : name) c = c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

ArgSpec ServerArgSpec(const std::vector<std::string>& command_options) {
  ArgSpec spec{{"--config"}, {"--help", "-h"}};
  for (const auto& s : ServerSettings()) (*s.value_name ? spec.value_options : spec.flags).insert(std::string("--") + s.name);
  spec.value_options.insert(command_options.begin(), command_options.end());
  return spec;
}

ResolvedConfig ResolveServerConfig(const Args& args, const EnvLookup& env) {
  ResolvedConfig r;
  if (auto c = args.Value("--config")) r.config_file = *c;
  else if (auto e = env("PTS_NATIVE_SERVER_CONFIG"); e && !e->empty()) r.config_file = *e;
  const std::map<std::string, std::string> file = r.config_file.empty() ? std::map<std::string, std::string>{}
                                                                         : ReadConfigFile(r.config_file);
  for (const auto& s : ServerSettings()) {
    const std::string flag = std::string("--") + s.name, variable = EnvironmentName(s);
    std::optional<std::string> value;
    std::string source;  // where a bad value came from, for the error
    Origin origin = Origin::kDefault;
    if (auto it = file.find(s.name); it != file.end()) value = it->second, source = r.config_file + ": " + s.name, origin = Origin::kConfigFile;
    if (auto e = env(variable); e && !e->empty()) value = *e, source = variable, origin = Origin::kEnvironment;
    if (!*s.value_name && args.Has(flag)) value = "true", source = flag, origin = Origin::kCommandLine;
    else if (auto a = args.Value(flag)) value = *a, source = flag, origin = Origin::kCommandLine;
    if (value) {
      try {
        s.set(r.config, *value);
      } catch (const Error& e) {
        throw Error(source + ": " + e.what(), 2);
      }
    }
    r.origins.push_back(origin);
  }
  r.config.limits.max_body_bytes = r.config.options.max_body_bytes;
  r.config.options.mirror_dir = r.config.MirrorDir();
  return r;
}

std::string SettingsHelp() {
  const ServerConfig defaults;
  std::string out;
  for (const auto& s : ServerSettings()) {
    out += std::string("  --") + s.name + (*s.value_name ? std::string(" ") + s.value_name : "") + "\n      " + s.description;
    const std::string d = s.get(defaults);
    out += " (" + (*s.value_name ? "default " + (d.empty() ? std::string("empty") : d) + "; " : std::string()) +
           EnvironmentName(s) + ")\n";
  }
  return out;
}

std::string DescribeConfig(const ResolvedConfig& r) {
  std::string out = "config file: " + (r.config_file.empty() ? std::string("none") : r.config_file) + "\n";
  const auto& table = ServerSettings();
  for (size_t i = 0; i < table.size(); ++i)
    out += std::string(table[i].name) + ": " + table[i].get(r.config) + "  # " + OriginName(r.origins[i]) + "\n";
  return out;
}

}  // namespace ptsn::server
