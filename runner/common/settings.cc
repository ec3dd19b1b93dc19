#include "runner/common/settings.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/strings.h"

namespace ptsn {

const std::vector<SettingSpec>& SettingsTable() {
  static const std::vector<SettingSpec> table = {
      {"home", "PTS_NATIVE_HOME", "{xdg_data}/pts-native",
       "data directory: test-results/, installed-tests/, download-cache/, test-profiles/"},
      {"results.directory", "PTS_NATIVE_RESULTS_DIR", "{home}/test-results", "where saved result files live"},
      {"results.pts_home", "PTS_NATIVE_PTS_HOME", "{user_home}/.phoronix-test-suite",
       "an existing Phoronix Test Suite home whose test-results/, test-profiles/ and download-cache/ are also read"},
      {"results.json_statistics", "PTS_NATIVE_JSON_STATISTICS", "false",
       "result-file-to-json adds each entry's statistics (as --statistics does)"},
      {"results.xsd", "PTS_NATIVE_RESULT_XSD", "", "PTS's result-file.xsd; validate-result-file also checks against it when set (not shipped: GPL)"},
      {"profiles.directory", "PTS_NATIVE_PROFILES_DIR", "{home}/test-profiles", "the user's own test profiles"},
      {"profiles.server_cache", "PTS_NATIVE_PROFILE_CACHE", "{home}/cache/test-profiles",
       "test profiles fetched from the servers (server.url), extracted (searched last)"},
      {"profiles.ob_cache", "PTS_NATIVE_OB_CACHE", "{home}/cache/openbenchmarking.org",
       "the servers' repository indexes (<repo>.index) and profile zips (<repo>/<name>-<version>.zip) as fetched"},
      {"profiles.index_ttl_days", "PTS_NATIVE_INDEX_TTL_DAYS", "3",
       "days a fetched repository index is used before it is asked for again (PTS's IndexCacheTTL)"},
      {"profiles.parse_cache", "PTS_NATIVE_PROFILE_PARSE_CACHE", "{home}/cache/profile-parse-cache.bin",
       "parsed test profiles, reused while every file they were read from is unchanged (empty: off)"},
      {"profiles.schema_dir", "PTS_NATIVE_SCHEMA_DIR", "",
       "directory with PTS's XSDs for validate-test-profile (default: ../shared/reference/schemas of the source tree)"},
      {"install.directory", "PTS_NATIVE_INSTALL_DIR", "{home}/installed-tests", "where tests are installed"},
      {"install.download_cache", "PTS_NATIVE_DOWNLOAD_CACHE", "{home}/download-cache", "downloaded files, verified"},
      {"install.extra_caches", "PTS_NATIVE_EXTRA_CACHES", "", "more download-cache directories, ':'-separated"},
      {"install.fallbacks", "PTS_NATIVE_DOWNLOAD_FALLBACKS", "cache,server,debian",
       "where a download whose URLs all fail is looked up by its SHA256, in order: cache (download caches), server "
       "(GET <server>/downloads/<sha256>), debian (the Debian source archive); none = nowhere"},
      {"install.download_servers", "PTS_NATIVE_DOWNLOAD_SERVERS", "",
       "results servers asked for moved downloads (space-separated URLs); empty = server.url"},
      {"install.debian_mirror", "PTS_NATIVE_DEBIAN_MIRROR", "http://deb.debian.org/debian",
       "Debian mirror whose source archive (dists/<suite>/<component>/source/Sources.xz) is searched for moved downloads"},
      {"install.debian_suites", "PTS_NATIVE_DEBIAN_SUITES", "bookworm", "Debian suites searched, space-separated"},
      {"install.debian_components", "PTS_NATIVE_DEBIAN_COMPONENTS", "main", "Debian components searched, space-separated"},
      {"install.debian_index_ttl", "PTS_NATIVE_DEBIAN_INDEX_TTL", "604800",
       "seconds a fetched Debian Sources index is used before it is fetched again ({home}/cache/debian-sources)"},
      {"install.dependencies", "PTS_NATIVE_INSTALL_DEPENDENCIES", "ask",
       "installing a test's missing Debian packages (apt-get, as root): ask (on a terminal; else not), yes, no"},
      {"network.offline", "PTS_NATIVE_OFFLINE", "false", "never open a network socket"},
      {"run.test_dir", "PTS_NATIVE_TEST_DIR", "{home}/scratch", "where disk tests run (the file system under test): each test gets a private directory in it, PTS_NATIVE_TEST_DIR to the profile"},
      {"run.trial_timeout", "PTS_NATIVE_TRIAL_TIMEOUT", "0", "seconds before a trial is killed; 0 = from the profile's estimate"},
      {"run.timeout_factor", "PTS_NATIVE_TIMEOUT_FACTOR", "5", "trial timeout = estimated run time x this factor (minimum 60 s)"},
      {"run.settle_seconds", "PTS_NATIVE_SETTLE_SECONDS", "0", "sync and wait this long between trials and tests (PTS sleeps)"},
      {"run.drop_caches", "PTS_NATIVE_DROP_CACHES", "false", "before every trial of a disk test: sync and drop the page, dentry and inode caches (echo 3 > /proc/sys/vm/drop_caches; root only: a trial that cannot fails and says why), so no trial reads what the one before left in memory"},
      {"run.dynamic_run_count", "PTS_NATIVE_DYNAMIC_RUNS", "true", "add runs while results are noisy (PTS DynamicRunCount)"},
      {"run.sd_threshold", "PTS_NATIVE_SD_THRESHOLD", "2.5", "percent standard deviation that triggers extra runs"},
      {"run.max_runs", "PTS_NATIVE_MAX_RUNS", "20", "cap on the total trials of one test, extra runs included"},
      {"run.minimal_test_time", "PTS_NATIVE_MINIMAL_TEST_TIME", "2", "seconds; a <SystemMonitor> sys.time trial shorter than this gives no value (PTS MinimalTestTime)"},
      {"run.time_budget", "PTS_NATIVE_TIME_BUDGET", "600", "seconds one test may spend on extra runs, and on targets on added rounds and instance pairs: one more starts only when the time they took so far plus its expected time (the mean trial so far; a pair also the last pair's set-up) stays within it"},
      {"run.paired_ci_goal", "PTS_NATIVE_PAIRED_CI_GOAL", "2", "targets run in rounds: add rounds until each target's paired ratio to the first is known to +- this many percent (95 % CI)"},
      {"run.target_instances", "PTS_NATIVE_TARGET_INSTANCES", "3", "targets: make this many instances of each (NAME, NAME #2 ...), run each round on all in random order, and judge each target against the first by instance pairs (docs/verdicts.md; 1: one of each, whose verdicts can never say \"different\")"},
    {"run.max_target_instances", "PTS_NATIVE_MAX_TARGET_INSTANCES", "6", "targets with run.target_instances > 1: while a verdict is unknown after the scheduled rounds, make one more instance of every target (a new instance pair) instead of adding rounds, up to this many instances of each (0 or run.target_instances: none added; bounded by run.time_budget too; docs/verdicts.md)"},
      {"run.same_within", "PTS_NATIVE_SAME_WITHIN", "5", "targets with several instances: a target is \"same\" as the first when the whole 95 % interval of its ratio lies within +- this many percent"},
      {"monitor.interval", "MONITOR_INTERVAL", "1", "seconds between monitor samples"},
      {"monitor.pts_compatible", "PTS_NATIVE_MONITOR_PTS_MODE", "true", "cpu.usage as PTS defines it (iowait counts as busy)"},
      {"monitor.session_summary", "PTS_NATIVE_MONITOR_SESSION", "false", "also write the whole-session monitor result older PTS versions wrote"},
      {"monitor.sensors", "MONITOR", "", "sensors recorded beside each test: cpu.usage,memory.usage | all | all.<type> | <type>.<sensor>[.<device>|.all]"},
      {"monitor.performance_per_watt", "PERFORMANCE_PER_WATT", "", "record sys.power and add '<scale> Per Watt' results (PTS PERFORMANCE_PER_WATT)"},
      {"monitor.performance_per_sensor", "PERFORMANCE_PER_SENSOR", "", "type.sensor list: add '<scale> Per <unit>' results for each (PTS)"},
      {"monitor.cgroup", "PTS_NATIVE_MONITOR_CGROUP", "", "cgroup v2 path that cgroup.cpu-usage reads; empty = our own cgroup"},
      {"server.url", "PTS_NATIVE_SERVER", "https://openbenchmarking.org http://openbenchmarking.org",
       "servers asked, in order, for results (clone-result, run <ID>) and test profiles (pts/...); never uploaded to"},
      {"server.upload_url", "PTS_NATIVE_UPLOAD_SERVER", "",
       "the server upload-result and run --upload send to when --server is not given (none by default: uploads go only where you say)"},
      {"server.token", "PTS_NATIVE_TOKEN", "", "your token for the results server: a user's for upload-result, run --upload and schedule; on a fleet machine, its agent token"},
      {"server.upload", "PTS_NATIVE_UPLOAD", "false", "upload results after a run (never on by default)"},
  };
  return table;
}

const char* SettingOriginName(SettingOrigin origin) {
  switch (origin) {
    case SettingOrigin::kDefault: return "default";
    case SettingOrigin::kConfigFile: return "config file";
    case SettingOrigin::kEnvironment: return "environment";
    case SettingOrigin::kCommandLine: return "command line";
  }
  return "?";
}

EnvLookup ProcessEnvironment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (!v) return std::nullopt;
    return std::string(v);
  };
}

namespace {

std::string UserHome(const EnvLookup& env) {
  auto h = env("HOME");
  return h && !h->empty() ? *h : std::string("/root");
}

std::string ExpandPlaceholders(std::string value, const std::map<std::string, std::string>& vars) {
  for (const auto& [name, replacement] : vars) {
    std::string token = "{" + name + "}";
    for (size_t pos; (pos = value.find(token)) != std::string::npos;) value.replace(pos, token.size(), replacement);
  }
  return value;
}

std::optional<std::string> LookupYaml(const YAML::Node& root, const std::string& dotted_key) {
  YAML::Node node = YAML::Clone(root);
  for (const auto& part : Split(dotted_key, '.')) {
    if (!node.IsMap()) return std::nullopt;
    YAML::Node child = node[part];
    if (!child) return std::nullopt;
    node = child;
  }
  if (!node.IsScalar()) return std::nullopt;
  return node.as<std::string>();
}

}  // namespace

Settings Settings::Load(const EnvLookup& env) {
  Settings s;
  std::string user_home = UserHome(env);
  auto xdg_data = env("XDG_DATA_HOME");
  auto xdg_config = env("XDG_CONFIG_HOME");
  std::string data_base = xdg_data && !xdg_data->empty() ? *xdg_data : user_home + "/.local/share";
  std::string config_base = xdg_config && !xdg_config->empty() ? *xdg_config : user_home + "/.config";

  if (auto p = env("PTS_NATIVE_CONFIG"); p && !p->empty()) {
    s.config_path_ = *p;
  } else if (auto h = env("PTS_NATIVE_HOME"); h && !h->empty()) {
    s.config_path_ = *h + "/config.yaml";
  } else {
    s.config_path_ = config_base + "/pts-native/config.yaml";
  }

  YAML::Node root;
  std::error_code ec;
  if (std::filesystem::exists(s.config_path_, ec)) {
    try {
      root = YAML::LoadFile(s.config_path_);
      s.config_file_found_ = true;
    } catch (const YAML::Exception& e) {
      throw FileError(s.config_path_, "malformed YAML: " + std::string(e.what()));
    }
    if (root && !root.IsNull() && !root.IsMap())
      throw FileError(s.config_path_, "the top level must be a mapping of setting names");
  }

  std::map<std::string, std::string> vars = {{"user_home", user_home}, {"xdg_data", data_base},
                                             {"config_dir", config_base + "/pts-native"}};
  // The table is ordered so that {home} is resolved before the settings that use it.
  for (const auto& spec : SettingsTable()) {
    SettingValue v{spec.default_value, SettingOrigin::kDefault};
    try {
      if (root && root.IsMap()) {
        if (auto y = LookupYaml(root, spec.key)) v = {*y, SettingOrigin::kConfigFile};
      }
    } catch (const YAML::Exception& e) {
      throw FileError(s.config_path_, std::string("bad value for ") + spec.key + ": " + e.what());
    }
    if (auto e = env(spec.env); e && !e->empty()) v = {*e, SettingOrigin::kEnvironment};
    v.value = ExpandPlaceholders(v.value, vars);
    if (std::string(spec.key) == "home") vars["home"] = v.value;
    s.values_[spec.key] = v;
  }
  return s;
}

const SettingValue& Settings::GetWithOrigin(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) throw Error("unknown setting '" + key + "'");
  return it->second;
}

const std::string& Settings::Get(const std::string& key) const { return GetWithOrigin(key).value; }

bool Settings::GetBool(const std::string& key) const {
  std::string v = ToLower(Get(key));
  if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
  if (v == "0" || v == "false" || v == "no" || v == "off" || v.empty()) return false;
  throw Error("setting " + key + ": '" + Get(key) + "' is not a boolean (true/false)");
}

double Settings::GetDouble(const std::string& key) const {
  const std::string& v = Get(key);
  try {
    size_t used = 0;
    double d = std::stod(v, &used);
    if (used == v.size()) return d;
  } catch (...) {
  }
  throw Error("setting " + key + ": '" + v + "' is not a number");
}

static long GetIntImpl(const std::string& key, const std::string& v) {
  try {
    size_t used = 0;
    long n = std::stol(v, &used);
    if (used == v.size()) return n;
  } catch (...) {
  }
  throw Error("setting " + key + ": '" + v + "' is not an integer");
}

long Settings::GetInt(const std::string& key) const { return GetIntImpl(key, Get(key)); }

void Settings::SetFromCommandLine(const std::string& key, const std::string& value) {
  GetWithOrigin(key);  // validates the key
  values_[key] = {value, SettingOrigin::kCommandLine};
}

namespace {

// PTS user-config.xml options (by their tag) that have a setting here.
const std::map<std::string, std::string>& PtsOptionSettings() {
  static const std::map<std::string, std::string> table = {
      {"EnvironmentDirectory", "install.directory"},     {"CacheDirectory", "install.download_cache"},
      {"ResultsDirectory", "results.directory"},         {"SleepTimeBetweenTests", "run.settle_seconds"},
      {"DynamicRunCount", "run.dynamic_run_count"},      {"StandardDeviationThreshold", "run.sd_threshold"},
      {"MinimalTestTime", "run.minimal_test_time"},      {"NoInternetCommunication", "network.offline"},
      {"NoNetworkCommunication", "network.offline"},
  };
  return table;
}

bool IsBoolText(const std::string& v) {
  static const char* kWords[] = {"1", "0", "true", "false", "yes", "no", "on", "off"};
  const std::string lower = ToLower(v);
  return std::any_of(std::begin(kWords), std::end(kWords), [&](const char* w) { return lower == w; });
}

bool IsNumberText(const std::string& v) {
  try {
    size_t used = 0;
    std::stod(v, &used);
    return used == v.size();
  } catch (...) {
    return false;
  }
}

}  // namespace

std::string SetInConfigFile(const std::string& config_path, const std::string& given_key, const std::string& given_value) {
  std::string key = Trim(given_key);
  const SettingSpec* spec = nullptr;
  auto find = [&](const std::string& k) {
    for (const auto& s : SettingsTable())
      if (k == s.key) return &s;
    return static_cast<const SettingSpec*>(nullptr);
  };
  spec = find(key);
  if (!spec) {
    std::string tag = key.substr(key.rfind('/') + 1);
    auto it = PtsOptionSettings().find(tag);
    if (it != PtsOptionSettings().end()) spec = find(it->second);
  }
  if (!spec)
    throw Error("user-config-set: '" + given_key + "' is not a setting (pts-native config lists them) nor a PTS option "
                "with one here",
                2);
  std::string value = given_value;
  const std::string def = spec->default_value;
  if ((def == "true" || def == "false") && !IsBoolText(value))
    throw Error(std::string("user-config-set: ") + spec->key + " takes true or false, not '" + value + "'", 2);
  if (!def.empty() && IsNumberText(def) && !IsNumberText(value))
    throw Error(std::string("user-config-set: ") + spec->key + " takes a number, not '" + value + "'", 2);
  if (def == "true" || def == "false") value = ToLower(value);

  YAML::Node root;
  std::error_code ec;
  if (std::filesystem::exists(config_path, ec)) {
    try {
      root = YAML::LoadFile(config_path);
    } catch (const YAML::Exception& e) {
      throw FileError(config_path, "malformed YAML: " + std::string(e.what()));
    }
    if (root && !root.IsNull() && !root.IsMap()) throw FileError(config_path, "the top level must be a mapping of setting names");
  }
  if (!root || root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  std::vector<std::string> parts = Split(spec->key, '.');
  YAML::Node node;
  node.reset(root);  // (reset: rebinds the handle; assignment would write through it)
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    if (!node[parts[i]] || !node[parts[i]].IsMap()) node[parts[i]] = YAML::Node(YAML::NodeType::Map);
    YAML::Node child = node[parts[i]];
    node.reset(child);
  }
  node[parts.back()] = value;
  YAML::Emitter out;
  out << root;
  const std::filesystem::path dir = std::filesystem::path(config_path).parent_path();
  if (!dir.empty()) std::filesystem::create_directories(dir, ec);
  WriteFileAtomically(config_path, std::string(out.c_str()) + "\n");
  return spec->key;
}

Settings& MutableGlobalSettings() {
  static Settings settings = Settings::Load();
  return settings;
}

const Settings& GlobalSettings() { return MutableGlobalSettings(); }

}  // namespace ptsn
