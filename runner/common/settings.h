// The one settings table: every setting has a default, a key in config.yaml and an environment
// variable. Precedence: command line > environment > config file > default. `pts-native config`
// prints each value with where it came from.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ptsn {

struct SettingSpec {
  const char* key;          // dotted YAML path, e.g. "run.trial_timeout" -> run: {trial_timeout: ...}
  const char* env;          // environment variable
  const char* default_value;  // may reference {home} (the data directory) and {config_dir}
  const char* description;
};

// The table itself (settings.cc). Defaults live there and nowhere else.
const std::vector<SettingSpec>& SettingsTable();

enum class SettingOrigin { kDefault, kConfigFile, kEnvironment, kCommandLine };
const char* SettingOriginName(SettingOrigin origin);

struct SettingValue {
  std::string value;
  SettingOrigin origin = SettingOrigin::kDefault;
};

// Where settings are read from; injectable so tests need not touch the real environment.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
EnvLookup ProcessEnvironment();

class Settings {
 public:
  // Resolves every setting. The config file is PTS_NATIVE_CONFIG, else $PTS_NATIVE_HOME/config.yaml
  // when PTS_NATIVE_HOME is set, else $XDG_CONFIG_HOME (or ~/.config)/pts-native/config.yaml.
  // A missing config file is fine; a malformed one throws ptsn::Error naming it.
  static Settings Load(const EnvLookup& env = ProcessEnvironment());

  const std::string& Get(const std::string& key) const;  // throws on an unknown key
  const SettingValue& GetWithOrigin(const std::string& key) const;
  bool GetBool(const std::string& key) const;
  double GetDouble(const std::string& key) const;
  long GetInt(const std::string& key) const;
  void SetFromCommandLine(const std::string& key, const std::string& value);

  const std::string& config_path() const { return config_path_; }
  bool config_file_found() const { return config_file_found_; }

  // Convenience paths derived from the table.
  std::string Home() const { return Get("home"); }
  std::string ResultsDirectory() const { return Get("results.directory"); }

 private:
  std::map<std::string, SettingValue> values_;
  std::string config_path_;
  bool config_file_found_ = false;
};

// user-config-set: `key` is a setting of the table ("run.trial_timeout") or the PTS user-config
// option it stands for ("ResultsDirectory", "PhoronixTestSuite/Options/Testing/ResultsDirectory").
// The value is checked against the setting's kind (true/false, a number, text) and written into
// the YAML file `config_path` (created if missing; its other settings kept, its comments not),
// atomically. Returns the setting's key. Throws ptsn::Error naming the key, value or file.
std::string SetInConfigFile(const std::string& config_path, const std::string& key, const std::string& value);

// The process-wide settings, loaded on first use (commands use this; tests construct their own).
const Settings& GlobalSettings();
Settings& MutableGlobalSettings();

}  // namespace ptsn
